module @jit_cond_switch attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<i32>) -> (tensor<8x16xf32> {jax.result_info = "result[0]"}, tensor<8x8xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.compare GT, %0, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = stablehlo.convert %1 : (tensor<i1>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %7 = stablehlo.cosine %arg0 : tensor<8x16xf32>
      %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %8 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %9 = stablehlo.subtract %7, %8 : tensor<8x16xf32>
      stablehlo.return %9 : tensor<8x16xf32>
    }, {
      %7 = stablehlo.sine %arg0 : tensor<8x16xf32>
      %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %8 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %9 = stablehlo.multiply %7, %8 : tensor<8x16xf32>
      stablehlo.return %9 : tensor<8x16xf32>
    }) : (tensor<i32>) -> tensor<8x16xf32>
    %4 = stablehlo.slice %arg0 [0:8, 0:8] : (tensor<8x16xf32>) -> tensor<8x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<2> : tensor<i32>
    %5 = stablehlo.clamp %c, %arg1, %c_1 : tensor<i32>
    %6 = "stablehlo.case"(%5) ({
      %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %8 = stablehlo.add %4, %7 : tensor<8x8xf32>
      stablehlo.return %8 : tensor<8x8xf32>
    }, {
      %7 = stablehlo.transpose %4, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %8 = stablehlo.dot_general %4, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      stablehlo.return %8 : tensor<8x8xf32>
    }, {
      %7 = stablehlo.abs %4 : tensor<8x8xf32>
      %8 = stablehlo.negate %7 : tensor<8x8xf32>
      stablehlo.return %8 : tensor<8x8xf32>
    }) : (tensor<i32>) -> tensor<8x8xf32>
    return %3, %6 : tensor<8x16xf32>, tensor<8x8xf32>
  }
}
