module @jit_big_elementwise attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1024x1024xf32>, %arg1: tensor<1024x1024xf32>) -> (tensor<1024x1024xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<1024x1024xf32>
    %1 = stablehlo.multiply %0, %arg0 : tensor<1024x1024xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<1024x1024xf32>
    %4 = stablehlo.add %arg0, %3 : tensor<1024x1024xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
    %6 = stablehlo.multiply %5, %4 : tensor<1024x1024xf32>
    %7 = stablehlo.tanh %6 : tensor<1024x1024xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
    %9 = stablehlo.add %8, %7 : tensor<1024x1024xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
    %11 = stablehlo.multiply %10, %9 : tensor<1024x1024xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<1024x1024xf32>
    %13 = stablehlo.negate %arg1 : tensor<1024x1024xf32>
    %14 = stablehlo.exponential %13 : tensor<1024x1024xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
    %16 = stablehlo.add %15, %14 : tensor<1024x1024xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
    %18 = stablehlo.divide %17, %16 : tensor<1024x1024xf32>
    %19 = stablehlo.multiply %12, %18 : tensor<1024x1024xf32>
    %20 = stablehlo.multiply %arg0, %arg1 : tensor<1024x1024xf32>
    %21 = stablehlo.tanh %20 : tensor<1024x1024xf32>
    %22 = stablehlo.add %19, %21 : tensor<1024x1024xf32>
    %23 = stablehlo.abs %arg0 : tensor<1024x1024xf32>
    %24 = stablehlo.negate %23 : tensor<1024x1024xf32>
    %25 = stablehlo.exponential %24 : tensor<1024x1024xf32>
    %26 = stablehlo.subtract %22, %25 : tensor<1024x1024xf32>
    return %26 : tensor<1024x1024xf32>
  }
}
