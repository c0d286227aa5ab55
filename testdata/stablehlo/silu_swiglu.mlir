module @jit_silu_swiglu attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x128xf32>, %arg1: tensor<32x128xf32>) -> (tensor<32x128xf32> {jax.result_info = "result[0]"}, tensor<32x128xf32> {jax.result_info = "result[1]"}, tensor<32x128xf32> {jax.result_info = "result[2]"}) {
    %0 = call @silu(%arg0) : (tensor<32x128xf32>) -> tensor<32x128xf32>
    %1 = stablehlo.multiply %0, %arg1 : tensor<32x128xf32>
    %2 = stablehlo.negate %arg1 : tensor<32x128xf32>
    %3 = stablehlo.exponential %2 : tensor<32x128xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x128xf32>
    %5 = stablehlo.add %4, %3 : tensor<32x128xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x128xf32>
    %7 = stablehlo.divide %6, %5 : tensor<32x128xf32>
    %8 = stablehlo.tanh %arg0 : tensor<32x128xf32>
    %9 = stablehlo.multiply %7, %8 : tensor<32x128xf32>
    return %0, %1, %9 : tensor<32x128xf32>, tensor<32x128xf32>, tensor<32x128xf32>
  }
  func.func private @silu(%arg0: tensor<32x128xf32>) -> tensor<32x128xf32> {
    %0 = stablehlo.negate %arg0 : tensor<32x128xf32>
    %1 = stablehlo.exponential %0 : tensor<32x128xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x128xf32>
    %3 = stablehlo.add %2, %1 : tensor<32x128xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x128xf32>
    %5 = stablehlo.divide %4, %3 : tensor<32x128xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<32x128xf32>
    return %6 : tensor<32x128xf32>
  }
}
