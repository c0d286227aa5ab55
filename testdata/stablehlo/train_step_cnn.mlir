module @jit_train_step_cnn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3x2x4xf32>, %arg1: tensor<64x3xf32>, %arg2: tensor<2x8x8x2xf32>, %arg3: tensor<2x3xf32>) -> (tensor<3x3x2x4xf32> {jax.result_info = "result[0]"}, tensor<64x3xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.convolution(%arg2, %arg0) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<2x8x8x4xf32>
    %1 = call @relu(%0) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %3 = stablehlo.compare GT, %0, %2, FLOAT : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<f32>
    %6 = "stablehlo.reduce_window"(%1, %5) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %34 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %34 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
    %7 = stablehlo.reshape %6 : (tensor<2x4x4x4xf32>) -> tensor<2x64xf32>
    %8 = stablehlo.dot_general %7, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x64xf32>, tensor<64x3xf32>) -> tensor<2x3xf32>
    %9 = stablehlo.subtract %8, %arg3 : tensor<2x3xf32>
    %10 = stablehlo.multiply %9, %9 : tensor<2x3xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %12 = stablehlo.multiply %11, %9 : tensor<2x3xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%10 init: %cst_3) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %14 = stablehlo.divide %13, %cst_4 : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_6 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %15 = stablehlo.divide %cst_5, %cst_6 : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %17 = stablehlo.multiply %16, %12 : tensor<2x3xf32>
    %18 = stablehlo.dot_general %17, %7, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<2x64xf32>) -> tensor<3x64xf32>
    %19 = stablehlo.transpose %18, dims = [1, 0] : (tensor<3x64xf32>) -> tensor<64x3xf32>
    %20 = stablehlo.dot_general %17, %arg1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<64x3xf32>) -> tensor<2x64xf32>
    %21 = stablehlo.reshape %20 : (tensor<2x64xf32>) -> tensor<2x4x4x4xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %22 = stablehlo.pad %1, %cst_7, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = "stablehlo.select_and_scatter"(%22, %21, %cst_8) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %34 = stablehlo.compare GE, %arg4, %arg5, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %34 : tensor<i1>
    }, {
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %34 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %34 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<2x4x4x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    %24 = stablehlo.slice %23 [0:2, 0:8, 0:8, 0:4] : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %26 = stablehlo.select %3, %24, %25 : tensor<2x8x8x4xi1>, tensor<2x8x8x4xf32>
    %27 = stablehlo.convolution(%arg2, %26) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x2xf32>, tensor<2x8x8x4xf32>) -> tensor<3x3x2x4xf32>
    %cst_10 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<3x3x2x4xf32>
    %29 = stablehlo.multiply %28, %27 : tensor<3x3x2x4xf32>
    %30 = stablehlo.subtract %arg0, %29 : tensor<3x3x2x4xf32>
    %cst_11 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<64x3xf32>
    %32 = stablehlo.multiply %31, %19 : tensor<64x3xf32>
    %33 = stablehlo.subtract %arg1, %32 : tensor<64x3xf32>
    return %30, %33, %14 : tensor<3x3x2x4xf32>, tensor<64x3xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x8x8x4xf32>
    return %1 : tensor<2x8x8x4xf32>
  }
}
