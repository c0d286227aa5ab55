module @jit_x_while_int64 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf64>, %arg1: tensor<i64>) -> (tensor<i64> {jax.result_info = "result[0]"}, tensor<5xf64> {jax.result_info = "result[1]"}, tensor<5xi64> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0:3 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %c, %iterArg_1 = %arg0) : tensor<i64>, tensor<i64>, tensor<5xf64>
    cond {
      %3 = stablehlo.compare LT, %iterArg_0, %iterArg, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i64>
      %3 = stablehlo.add %iterArg_0, %c_2 : tensor<i64>
      %cst = stablehlo.constant dense<1.500000e+00> : tensor<f64>
      %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<5xf64>
      %5 = stablehlo.multiply %iterArg_1, %4 : tensor<5xf64>
      %6 = stablehlo.convert %iterArg_0 : (tensor<i64>) -> tensor<f64>
      %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f64>) -> tensor<5xf64>
      %8 = stablehlo.add %5, %7 : tensor<5xf64>
      stablehlo.return %iterArg, %3, %8 : tensor<i64>, tensor<i64>, tensor<5xf64>
    }
    %1 = stablehlo.convert %arg0 : (tensor<5xf64>) -> tensor<5xi64>
    %2 = call @cumsum(%1) : (tensor<5xi64>) -> tensor<5xi64>
    return %0#1, %0#2, %2 : tensor<i64>, tensor<5xf64>, tensor<5xi64>
  }
  func.func private @cumsum(%arg0: tensor<5xi64>) -> tensor<5xi64> {
    %0 = call @cumsum_0(%arg0) : (tensor<5xi64>) -> tensor<5xi64>
    return %0 : tensor<5xi64>
  }
  func.func private @cumsum_0(%arg0: tensor<5xi64>) -> tensor<5xi64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<i64>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[4, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 5>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i64>, %arg2: tensor<i64>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i64>
      stablehlo.return %2 : tensor<i64>
    }) : (tensor<5xi64>, tensor<i64>) -> tensor<5xi64>
    return %1 : tensor<5xi64>
  }
}
