module @jit_cnn_nchw_avgpool attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3x16x16xf32>, %arg1: tensor<8x3x3x3xf32>, %arg2: tensor<8xf32>, %arg3: tensor<8xf32>, %arg4: tensor<8xf32>) -> (tensor<4x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<4x8x16x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x16x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<4x8x16x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x8x16x16xf32>, tensor<f32>) -> tensor<8xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %cst_0 = stablehlo.constant dense<1.024000e+03> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x8x1x1xf32>
    %7 = stablehlo.divide %5, %6 : tensor<1x8x1x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %8 = call @_var(%3, %c) : (tensor<4x8x16x16xf32>, tensor<i32>) -> tensor<1x8x1x1xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x16x16xf32>
    %10 = stablehlo.subtract %3, %9 : tensor<4x8x16x16xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1x8x1x1xf32>
    %12 = stablehlo.add %8, %11 : tensor<1x8x1x1xf32>
    %13 = stablehlo.rsqrt %12 : tensor<1x8x1x1xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x16x16xf32>
    %15 = stablehlo.multiply %10, %14 : tensor<4x8x16x16xf32>
    %16 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x16x16xf32>
    %18 = stablehlo.multiply %15, %17 : tensor<4x8x16x16xf32>
    %19 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x16x16xf32>
    %21 = stablehlo.add %18, %20 : tensor<4x8x16x16xf32>
    %22 = call @relu(%21) : (tensor<4x8x16x16xf32>) -> tensor<4x8x16x16xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<f32>
    %24 = "stablehlo.reduce_window"(%22, %23) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %30 = stablehlo.add %arg5, %arg6 : tensor<f32>
      stablehlo.return %30 : tensor<f32>
    }) : (tensor<4x8x16x16xf32>, tensor<f32>) -> tensor<4x8x8x8xf32>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x8x8x8xf32>
    %26 = stablehlo.divide %24, %25 : tensor<4x8x8x8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %27 = stablehlo.reduce(%26 init: %cst_4) applies stablehlo.add across dimensions = [2, 3] : (tensor<4x8x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %cst_5 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %29 = stablehlo.divide %27, %28 : tensor<4x8xf32>
    return %29 : tensor<4x8xf32>
  }
  func.func private @_var(%arg0: tensor<4x8x16x16xf32>, %arg1: tensor<i32>) -> tensor<1x8x1x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x8x16x16xf32>, tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %cst_0 = stablehlo.constant dense<1.024000e+03> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x8x1x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x8x1x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x16x16xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x8x16x16xf32>
    %6 = chlo.square %5 : tensor<4x8x16x16xf32> -> tensor<4x8x16x16xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.024000e+03> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x8x16x16xf32>, tensor<f32>) -> tensor<8xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<1x8x1x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<1x8x1x1xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = call @_where(%13, %12, %cst_4) : (tensor<i1>, tensor<1x8x1x1xf32>, tensor<f32>) -> tensor<1x8x1x1xf32>
    return %14 : tensor<1x8x1x1xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<1x8x1x1xf32>, %arg2: tensor<f32>) -> tensor<1x8x1x1xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1x8x1x1xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<1x8x1x1xf32>
    return %2 : tensor<1x8x1x1xf32>
  }
  func.func private @relu(%arg0: tensor<4x8x16x16xf32>) -> tensor<4x8x16x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8x16x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<4x8x16x16xf32>
    return %1 : tensor<4x8x16x16xf32>
  }
}
