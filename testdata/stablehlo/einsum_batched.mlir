module @jit_einsum_batched attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x8x16xf32>, %arg1: tensor<2x4x12x16xf32>, %arg2: tensor<3x8x8xf32>, %arg3: tensor<3x8x5xf32>, %arg4: tensor<6x20xf32>, %arg5: tensor<8xf32>) -> (tensor<2x4x8x12xf32> {jax.result_info = "result[0]"}, tensor<3x8x5xf32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}, tensor<8x5xf32> {jax.result_info = "result[3]"}, tensor<8x8xf32> {jax.result_info = "result[4]"}, tensor<3x8x5xf32> {jax.result_info = "result[5]"}, tensor<2x8x4x16xf32> {jax.result_info = "result[6]"}, tensor<f32> {jax.result_info = "result[7]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>) -> tensor<2x4x8x12xf32>
    %1 = stablehlo.dot_general %arg2, %arg3, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x8x8xf32>, tensor<3x8x5xf32>) -> tensor<3x8x5xf32>
    %2 = stablehlo.dot_general %arg4, %arg4, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x20xf32>, tensor<6x20xf32>) -> tensor<6xf32>
    %3 = stablehlo.slice %arg2 [0:1, 0:8, 0:8] : (tensor<3x8x8xf32>) -> tensor<1x8x8xf32>
    %4 = stablehlo.reshape %3 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
    %5 = stablehlo.slice %arg3 [0:1, 0:8, 0:5] : (tensor<3x8x5xf32>) -> tensor<1x8x5xf32>
    %6 = stablehlo.reshape %5 : (tensor<1x8x5xf32>) -> tensor<8x5xf32>
    %7 = stablehlo.dot_general %4, %6, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x5xf32>) -> tensor<8x5xf32>
    %8 = stablehlo.dot_general %arg5, %arg5, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
    %9 = stablehlo.slice %arg3 [0:1, 0:8, 0:5] : (tensor<3x8x5xf32>) -> tensor<1x8x5xf32>
    %10 = stablehlo.reshape %9 : (tensor<1x8x5xf32>) -> tensor<8x5xf32>
    %11 = stablehlo.dot_general %arg2, %10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x8x8xf32>, tensor<8x5xf32>) -> tensor<3x8x5xf32>
    %12 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>) -> tensor<2x4x8x12xf32>
    %13 = stablehlo.dot_general %arg1, %12, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x4x12x16xf32>, tensor<2x4x8x12xf32>) -> tensor<2x4x16x8xf32>
    %14 = stablehlo.transpose %13, dims = [0, 3, 1, 2] : (tensor<2x4x16x8xf32>) -> tensor<2x8x4x16xf32>
    %15 = stablehlo.dot_general %arg5, %arg5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
    return %0, %1, %2, %7, %8, %11, %14, %15 : tensor<2x4x8x12xf32>, tensor<3x8x5xf32>, tensor<6xf32>, tensor<8x5xf32>, tensor<8x8xf32>, tensor<3x8x5xf32>, tensor<2x8x4x16xf32>, tensor<f32>
  }
}
