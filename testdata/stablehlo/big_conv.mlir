module @jit_big_conv attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x64x64x16xf32>, %arg1: tensor<3x3x16x32xf32>, %arg2: tensor<3x3x32x32xf32>) -> (tensor<8x32x32x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x64x64x16xf32>, tensor<3x3x16x32xf32>) -> tensor<8x64x64x32xf32>
    %1 = call @relu(%0) : (tensor<8x64x64x32xf32>) -> tensor<8x64x64x32xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %3 = "stablehlo.reduce_window"(%1, %2) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %6 = stablehlo.maximum %arg3, %arg4 : tensor<f32>
      stablehlo.return %6 : tensor<f32>
    }) : (tensor<8x64x64x32xf32>, tensor<f32>) -> tensor<8x32x32x32xf32>
    %4 = stablehlo.convolution(%3, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x32x32x32xf32>, tensor<3x3x32x32xf32>) -> tensor<8x32x32x32xf32>
    %5 = call @relu_0(%4) : (tensor<8x32x32x32xf32>) -> tensor<8x32x32x32xf32>
    return %5 : tensor<8x32x32x32xf32>
  }
  func.func private @relu(%arg0: tensor<8x64x64x32xf32>) -> tensor<8x64x64x32xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x64x64x32xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x64x64x32xf32>
    return %1 : tensor<8x64x64x32xf32>
  }
  func.func private @relu_0(%arg0: tensor<8x32x32x32xf32>) -> tensor<8x32x32x32xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x32x32x32xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x32x32x32xf32>
    return %1 : tensor<8x32x32x32xf32>
  }
}
