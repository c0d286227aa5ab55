module @jit_nested_calls attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x16xf32>, %arg1: tensor<16x16xf32>) -> (tensor<16x16xf32> {jax.result_info = "result[0]"}, tensor<16x16xf32> {jax.result_info = "result[1]"}, tensor<16x16xf32> {jax.result_info = "result[2]"}) {
    %0 = call @middle(%arg0, %arg1) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %1 = call @sort(%arg0) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %2 = call @softplus(%arg0) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    return %0, %1, %2 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  }
  func.func private @middle(%arg0: tensor<16x16xf32>, %arg1: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %0 = call @inner(%arg0, %arg1) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %2 = stablehlo.multiply %arg0, %1 : tensor<16x16xf32>
    %3 = call @inner(%2, %arg1) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %4 = stablehlo.add %0, %3 : tensor<16x16xf32>
    return %4 : tensor<16x16xf32>
  }
  func.func private @inner(%arg0: tensor<16x16xf32>, %arg1: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %1 = call @relu(%0) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    return %1 : tensor<16x16xf32>
  }
  func.func private @relu(%arg0: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x16xf32>
    return %1 : tensor<16x16xf32>
  }
  func.func private @sort(%arg0: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
  func.func private @softplus(%arg0: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x16xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<16x16xf32>
    %4 = stablehlo.compare NE, %3, %3, FLOAT : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<16x16xf32>
    %7 = stablehlo.abs %3 : tensor<16x16xf32>
    %8 = stablehlo.negate %7 : tensor<16x16xf32>
    %9 = stablehlo.exponential %8 : tensor<16x16xf32>
    %10 = stablehlo.log_plus_one %9 : tensor<16x16xf32>
    %11 = stablehlo.add %1, %10 : tensor<16x16xf32>
    %12 = stablehlo.select %4, %6, %11 : tensor<16x16xi1>, tensor<16x16xf32>
    return %12 : tensor<16x16xf32>
  }
}
