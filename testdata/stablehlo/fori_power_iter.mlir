module @jit_fori_power_iter attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x32xf32>, %arg1: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0:4 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %c_0, %iterArg_2 = %c, %iterArg_3 = %arg1) : tensor<32x32xf32>, tensor<i32>, tensor<i32>, tensor<32xf32>
    cond {
      %c_4 = stablehlo.constant dense<20> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3:2 = func.call @closed_call(%iterArg, %iterArg_2, %iterArg_3) : (tensor<32x32xf32>, tensor<i32>, tensor<32xf32>) -> (tensor<i32>, tensor<32xf32>)
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.add %iterArg_1, %c_4 : tensor<i32>
      stablehlo.return %iterArg, %4, %3#0, %3#1 : tensor<32x32xf32>, tensor<i32>, tensor<i32>, tensor<32xf32>
    }
    %1 = stablehlo.dot_general %0#3, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32xf32>, tensor<32x32xf32>) -> tensor<32xf32>
    %2 = stablehlo.dot_general %1, %0#3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32xf32>, tensor<32xf32>) -> tensor<f32>
    return %0#3, %2 : tensor<32xf32>, tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<32x32xf32>, %arg1: tensor<i32>, %arg2: tensor<32xf32>) -> (tensor<i32>, tensor<32xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg1, %c : tensor<i32>
    %1 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %2 = call @norm(%1) : (tensor<32xf32>) -> tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %4 = stablehlo.divide %1, %3 : tensor<32xf32>
    return %0, %4 : tensor<i32>, tensor<32xf32>
  }
  func.func private @norm(%arg0: tensor<32xf32>) -> tensor<f32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<32xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.sqrt %1 : tensor<f32>
    return %2 : tensor<f32>
  }
}
