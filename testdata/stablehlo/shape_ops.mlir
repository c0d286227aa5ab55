module @jit_shape_ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x12xf32>, %arg1: tensor<8x4xf32>) -> (tensor<8x28xf32> {jax.result_info = "result[0]"}, tensor<11x15xf32> {jax.result_info = "result[1]"}, tensor<12x14xf32> {jax.result_info = "result[2]"}, tensor<12x14xf32> {jax.result_info = "result[3]"}, tensor<15x12xf32> {jax.result_info = "result[4]"}, tensor<8x12xf32> {jax.result_info = "result[5]"}, tensor<4x4xf32> {jax.result_info = "result[6]"}, tensor<4x9xf32> {jax.result_info = "result[7]"}, tensor<12x8xf32> {jax.result_info = "result[8]"}, tensor<12x4x2xf32> {jax.result_info = "result[9]"}, tensor<8x5xf32> {jax.result_info = "result[10]"}, tensor<16x4xf32> {jax.result_info = "result[11]"}, tensor<6x12xf32> {jax.result_info = "result[12]"}, tensor<8x12xf32> {jax.result_info = "result[13]"}, tensor<8x12xf32> {jax.result_info = "result[14]"}, tensor<2x8x12xf32> {jax.result_info = "result[15]"}) {
    %0 = stablehlo.concatenate %arg0, %arg1, %arg0, dim = 1 : (tensor<8x12xf32>, tensor<8x4xf32>, tensor<8x12xf32>) -> tensor<8x28xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = call @_pad(%arg0, %c) : (tensor<8x12xf32>, tensor<i32>) -> tensor<11x15xf32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %2 = call @_pad_0(%arg0, %c_0) : (tensor<8x12xf32>, tensor<i32>) -> tensor<12x14xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = call @_pad_1(%arg0, %c_1) : (tensor<8x12xf32>, tensor<i32>) -> tensor<12x14xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %4 = stablehlo.pad %arg0, %cst, low = [1, -2], high = [-1, 2], interior = [1, 0] : (tensor<8x12xf32>, tensor<f32>) -> tensor<15x12xf32>
    %5 = call @_flip_3(%arg0) : (tensor<8x12xf32>) -> tensor<8x12xf32>
    %6 = stablehlo.slice %arg0 [0:8:2, 1:12:3] : (tensor<8x12xf32>) -> tensor<4x4xf32>
    %7 = stablehlo.slice %arg0 [1:5, 2:11] : (tensor<8x12xf32>) -> tensor<4x9xf32>
    %8 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x12xf32>) -> tensor<12x8xf32>
    %9 = stablehlo.reshape %arg0 : (tensor<8x12xf32>) -> tensor<4x2x12xf32>
    %10 = stablehlo.transpose %9, dims = [2, 0, 1] : (tensor<4x2x12xf32>) -> tensor<12x4x2xf32>
    %11 = stablehlo.slice %arg1 [0:8, 0:1] : (tensor<8x4xf32>) -> tensor<8x1xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x5xf32>
    %13 = stablehlo.reshape %arg1 : (tensor<8x4xf32>) -> tensor<1x8x1x4xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2, 3] : (tensor<1x8x1x4xf32>) -> tensor<2x8x1x4xf32>
    %15 = stablehlo.reshape %14 : (tensor<2x8x1x4xf32>) -> tensor<16x4xf32>
    %16 = stablehlo.slice %arg0 [0:2, 0:12] : (tensor<8x12xf32>) -> tensor<2x12xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 2] : (tensor<2x12xf32>) -> tensor<2x3x12xf32>
    %18 = stablehlo.reshape %17 : (tensor<2x3x12xf32>) -> tensor<6x12xf32>
    %19 = call @_roll_static(%arg0) : (tensor<8x12xf32>) -> tensor<8x12xf32>
    %20 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<8x12xf32>) -> tensor<8x1x12xf32>
    %21 = stablehlo.reshape %20 : (tensor<8x1x12xf32>) -> tensor<8x12xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x12xf32>
    %23 = stablehlo.add %arg0, %22 : tensor<8x12xf32>
    %24 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<8x12xf32>) -> tensor<1x8x12xf32>
    %25 = stablehlo.broadcast_in_dim %23, dims = [1, 2] : (tensor<8x12xf32>) -> tensor<1x8x12xf32>
    %26 = stablehlo.concatenate %24, %25, dim = 0 : (tensor<1x8x12xf32>, tensor<1x8x12xf32>) -> tensor<2x8x12xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %10, %12, %15, %18, %19, %21, %26 : tensor<8x28xf32>, tensor<11x15xf32>, tensor<12x14xf32>, tensor<12x14xf32>, tensor<15x12xf32>, tensor<8x12xf32>, tensor<4x4xf32>, tensor<4x9xf32>, tensor<12x8xf32>, tensor<12x4x2xf32>, tensor<8x5xf32>, tensor<16x4xf32>, tensor<6x12xf32>, tensor<8x12xf32>, tensor<8x12xf32>, tensor<2x8x12xf32>
  }
  func.func private @_pad(%arg0: tensor<8x12xf32>, %arg1: tensor<i32>) -> tensor<11x15xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [1, 3], high = [2, 0], interior = [0, 0] : (tensor<8x12xf32>, tensor<f32>) -> tensor<11x15xf32>
    return %1 : tensor<11x15xf32>
  }
  func.func private @_pad_0(%arg0: tensor<8x12xf32>, %arg1: tensor<i32>) -> tensor<12x14xf32> {
    %0 = stablehlo.slice %arg0 [0:1, 0:12] : (tensor<8x12xf32>) -> tensor<1x12xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 2] : (tensor<1x12xf32>) -> tensor<1x2x12xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x2x12xf32>) -> tensor<2x12xf32>
    %3 = stablehlo.slice %arg0 [7:8, 0:12] : (tensor<8x12xf32>) -> tensor<1x12xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 2] : (tensor<1x12xf32>) -> tensor<1x2x12xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x2x12xf32>) -> tensor<2x12xf32>
    %6 = stablehlo.concatenate %2, %arg0, %5, dim = 0 : (tensor<2x12xf32>, tensor<8x12xf32>, tensor<2x12xf32>) -> tensor<12x12xf32>
    %7 = stablehlo.slice %6 [0:12, 0:1] : (tensor<12x12xf32>) -> tensor<12x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<12x1xf32>) -> tensor<12x1x1xf32>
    %9 = stablehlo.reshape %8 : (tensor<12x1x1xf32>) -> tensor<12x1xf32>
    %10 = stablehlo.slice %6 [0:12, 11:12] : (tensor<12x12xf32>) -> tensor<12x1xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<12x1xf32>) -> tensor<12x1x1xf32>
    %12 = stablehlo.reshape %11 : (tensor<12x1x1xf32>) -> tensor<12x1xf32>
    %13 = stablehlo.concatenate %9, %6, %12, dim = 1 : (tensor<12x1xf32>, tensor<12x12xf32>, tensor<12x1xf32>) -> tensor<12x14xf32>
    return %13 : tensor<12x14xf32>
  }
  func.func private @_pad_1(%arg0: tensor<8x12xf32>, %arg1: tensor<i32>) -> tensor<12x14xf32> {
    %0 = stablehlo.slice %arg0 [0:1, 0:12] : (tensor<8x12xf32>) -> tensor<1x12xf32>
    %1 = stablehlo.slice %arg0 [1:3, 0:12] : (tensor<8x12xf32>) -> tensor<2x12xf32>
    %2 = call @_flip(%1) : (tensor<2x12xf32>) -> tensor<2x12xf32>
    %3 = stablehlo.concatenate %2, %arg0, dim = 0 : (tensor<2x12xf32>, tensor<8x12xf32>) -> tensor<10x12xf32>
    %4 = stablehlo.slice %3 [9:10, 0:12] : (tensor<10x12xf32>) -> tensor<1x12xf32>
    %5 = stablehlo.slice %3 [7:9, 0:12] : (tensor<10x12xf32>) -> tensor<2x12xf32>
    %6 = call @_flip(%5) : (tensor<2x12xf32>) -> tensor<2x12xf32>
    %7 = stablehlo.concatenate %3, %6, dim = 0 : (tensor<10x12xf32>, tensor<2x12xf32>) -> tensor<12x12xf32>
    %8 = stablehlo.slice %7 [0:12, 0:1] : (tensor<12x12xf32>) -> tensor<12x1xf32>
    %9 = stablehlo.slice %7 [0:12, 1:2] : (tensor<12x12xf32>) -> tensor<12x1xf32>
    %10 = call @_flip_2(%9) : (tensor<12x1xf32>) -> tensor<12x1xf32>
    %11 = stablehlo.concatenate %10, %7, dim = 1 : (tensor<12x1xf32>, tensor<12x12xf32>) -> tensor<12x13xf32>
    %12 = stablehlo.slice %11 [0:12, 12:13] : (tensor<12x13xf32>) -> tensor<12x1xf32>
    %13 = stablehlo.slice %11 [0:12, 11:12] : (tensor<12x13xf32>) -> tensor<12x1xf32>
    %14 = call @_flip_2(%13) : (tensor<12x1xf32>) -> tensor<12x1xf32>
    %15 = stablehlo.concatenate %11, %14, dim = 1 : (tensor<12x13xf32>, tensor<12x1xf32>) -> tensor<12x14xf32>
    return %15 : tensor<12x14xf32>
  }
  func.func private @_flip(%arg0: tensor<2x12xf32>) -> tensor<2x12xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<2x12xf32>
    return %0 : tensor<2x12xf32>
  }
  func.func private @_flip_2(%arg0: tensor<12x1xf32>) -> tensor<12x1xf32> {
    %0 = stablehlo.reverse %arg0, dims = [1] : tensor<12x1xf32>
    return %0 : tensor<12x1xf32>
  }
  func.func private @_flip_3(%arg0: tensor<8x12xf32>) -> tensor<8x12xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<8x12xf32>
    return %0 : tensor<8x12xf32>
  }
  func.func private @_roll_static(%arg0: tensor<8x12xf32>) -> tensor<8x12xf32> {
    %0 = stablehlo.slice %arg0 [0:8, 9:12] : (tensor<8x12xf32>) -> tensor<8x3xf32>
    %1 = stablehlo.slice %arg0 [0:8, 0:9] : (tensor<8x12xf32>) -> tensor<8x9xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 1 : (tensor<8x3xf32>, tensor<8x9xf32>) -> tensor<8x12xf32>
    return %2 : tensor<8x12xf32>
  }
}
