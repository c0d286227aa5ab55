module @jit_x_composite attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<4x8xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.composite "hlotools.softplus" %arg0 {decomposition = @hlotools.softplus} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %4 = stablehlo.multiply %arg0, %3 : tensor<4x8xf32>
    %5 = stablehlo.composite "hlotools.softplus" %4 {composite_attributes = {beta = 3.000000e+00 : f64}, decomposition = @hlotools.softplus_0} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %2, %5 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  func.func private @hlotools.softplus(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x8xf32>
    %2 = stablehlo.exponential %1 : tensor<4x8xf32>
    %3 = stablehlo.log_plus_one %2 : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %5 = stablehlo.divide %3, %4 : tensor<4x8xf32>
    return %5 : tensor<4x8xf32>
  }
  func.func private @hlotools.softplus_0(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x8xf32>
    %2 = stablehlo.exponential %1 : tensor<4x8xf32>
    %3 = stablehlo.log_plus_one %2 : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %5 = stablehlo.divide %3, %4 : tensor<4x8xf32>
    return %5 : tensor<4x8xf32>
  }
}
