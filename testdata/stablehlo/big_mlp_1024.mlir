module @jit_big_mlp_1024 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128x1024xf32>, %arg1: tensor<1024x1024xf32>, %arg2: tensor<1024xf32>, %arg3: tensor<1024x1024xf32>, %arg4: tensor<1024xf32>) -> (tensor<128x1024xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x1024xf32>, tensor<1024x1024xf32>) -> tensor<128x1024xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<1024xf32>) -> tensor<1x1024xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x1024xf32>) -> tensor<128x1024xf32>
    %3 = stablehlo.add %0, %2 : tensor<128x1024xf32>
    %4 = call @relu(%3) : (tensor<128x1024xf32>) -> tensor<128x1024xf32>
    %5 = stablehlo.dot_general %4, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x1024xf32>, tensor<1024x1024xf32>) -> tensor<128x1024xf32>
    %6 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<1024xf32>) -> tensor<1x1024xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<1x1024xf32>) -> tensor<128x1024xf32>
    %8 = stablehlo.add %5, %7 : tensor<128x1024xf32>
    %9 = stablehlo.multiply %8, %8 : tensor<128x1024xf32>
    %10 = stablehlo.multiply %9, %8 : tensor<128x1024xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<128x1024xf32>
    %12 = stablehlo.multiply %11, %10 : tensor<128x1024xf32>
    %13 = stablehlo.add %8, %12 : tensor<128x1024xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<128x1024xf32>
    %15 = stablehlo.multiply %14, %13 : tensor<128x1024xf32>
    %16 = stablehlo.tanh %15 : tensor<128x1024xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<128x1024xf32>
    %18 = stablehlo.add %17, %16 : tensor<128x1024xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<128x1024xf32>
    %20 = stablehlo.multiply %19, %18 : tensor<128x1024xf32>
    %21 = stablehlo.multiply %8, %20 : tensor<128x1024xf32>
    return %21 : tensor<128x1024xf32>
  }
  func.func private @relu(%arg0: tensor<128x1024xf32>) -> tensor<128x1024xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<128x1024xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<128x1024xf32>
    return %1 : tensor<128x1024xf32>
  }
}
