module @jit_x_topk_case attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x10xf32>, %arg1: tensor<i32>) -> (tensor<6x3xf32> {jax.result_info = "result[0]"}, tensor<6x3xi32> {jax.result_info = "result[1]"}, tensor<6x10xf32> {jax.result_info = "result[2]"}, tensor<6x10xf32> {jax.result_info = "result[3]"}) {
    %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<6x10xf32> -> (tensor<6x3xf32>, tensor<6x3xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.clamp %c, %arg1, %c_0 : tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x3xf32>
      %5 = stablehlo.multiply %values, %4 : tensor<6x3xf32>
      stablehlo.return %5 : tensor<6x3xf32>
    }, {
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x3xf32>
      %5 = stablehlo.subtract %values, %4 : tensor<6x3xf32>
      stablehlo.return %5 : tensor<6x3xf32>
    }, {
      %4 = stablehlo.exponential %values : tensor<6x3xf32>
      stablehlo.return %4 : tensor<6x3xf32>
    }) : (tensor<i32>) -> tensor<6x3xf32>
    %2 = call @cumsum(%arg0) : (tensor<6x10xf32>) -> tensor<6x10xf32>
    %3 = call @cumlogsumexp(%arg0) : (tensor<6x10xf32>) -> tensor<6x10xf32>
    return %1, %indices, %2, %3 : tensor<6x3xf32>, tensor<6x3xi32>, tensor<6x10xf32>, tensor<6x10xf32>
  }
  func.func private @cumsum(%arg0: tensor<6x10xf32>) -> tensor<6x10xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [0, 9]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 10>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<6x10xf32>, tensor<f32>) -> tensor<6x10xf32>
    return %1 : tensor<6x10xf32>
  }
  func.func private @cumlogsumexp(%arg0: tensor<6x10xf32>) -> tensor<6x10xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1>, padding = dense<[[5, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 6, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      %2 = stablehlo.subtract %arg1, %arg2 : tensor<f32>
      %3 = stablehlo.compare NE, %2, %2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.add %arg1, %arg2 : tensor<f32>
      %5 = stablehlo.abs %2 : tensor<f32>
      %6 = stablehlo.negate %5 : tensor<f32>
      %7 = stablehlo.exponential %6 : tensor<f32>
      %8 = stablehlo.log_plus_one %7 : tensor<f32>
      %9 = stablehlo.add %1, %8 : tensor<f32>
      %10 = stablehlo.select %3, %4, %9 : tensor<i1>, tensor<f32>
      stablehlo.return %10 : tensor<f32>
    }) : (tensor<6x10xf32>, tensor<f32>) -> tensor<6x10xf32>
    return %0 : tensor<6x10xf32>
  }
}
