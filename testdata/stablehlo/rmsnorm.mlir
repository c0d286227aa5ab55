module @jit_rmsnorm attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x32x256xf32>, %arg1: tensor<256xf32>) -> (tensor<4x32x256xf32> {jax.result_info = "result"}) {
    %0 = chlo.square %arg0 : tensor<4x32x256xf32> -> tensor<4x32x256xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<4x32x256xf32>, tensor<f32>) -> tensor<4x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<4x32xf32>) -> tensor<4x32x1xf32>
    %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x32x1xf32>
    %4 = stablehlo.divide %2, %3 : tensor<4x32x1xf32>
    %cst_1 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x32x1xf32>
    %6 = stablehlo.add %4, %5 : tensor<4x32x1xf32>
    %7 = stablehlo.rsqrt %6 : tensor<4x32x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<4x32x1xf32>) -> tensor<4x32x256xf32>
    %9 = stablehlo.multiply %arg0, %8 : tensor<4x32x256xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %11 = stablehlo.add %10, %arg1 : tensor<256xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<4x32x256xf32>
    %14 = stablehlo.multiply %9, %13 : tensor<4x32x256xf32>
    return %14 : tensor<4x32x256xf32>
  }
}
