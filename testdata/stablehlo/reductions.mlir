module @jit_reductions attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x64xf32>, %arg1: tensor<16x64xi1>) -> (tensor<16xf32> {jax.result_info = "result[0]"}, tensor<64xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}, tensor<16xi32> {jax.result_info = "result[3]"}, tensor<64xi32> {jax.result_info = "result[4]"}, tensor<16x64xf32> {jax.result_info = "result[5]"}, tensor<16x64xf32> {jax.result_info = "result[6]"}, tensor<f32> {jax.result_info = "result[7]"}, tensor<16xf32> {jax.result_info = "result[8]"}, tensor<64xf32> {jax.result_info = "result[9]"}, tensor<16xf32> {jax.result_info = "result[10]"}, tensor<16xi1> {jax.result_info = "result[11]"}, tensor<64xi1> {jax.result_info = "result[12]"}, tensor<16x64xf32> {jax.result_info = "result[13]"}, tensor<16xi32> {jax.result_info = "result[14]"}, tensor<i32> {jax.result_info = "result[15]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<16x64xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_0 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %2 = stablehlo.divide %0, %1 : tensor<16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3 = call @_var(%arg0, %c) : (tensor<16x64xf32>, tensor<i32>) -> tensor<64xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = call @_std(%arg0, %c_1) : (tensor<16x64xf32>, tensor<i32>) -> tensor<f32>
    %5 = call @argmax(%arg0) : (tensor<16x64xf32>) -> tensor<16xi32>
    %6 = call @argmin(%arg0) : (tensor<16x64xf32>) -> tensor<64xi32>
    %7 = call @cumsum(%arg0) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %cst_2 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %9 = stablehlo.multiply %arg0, %8 : tensor<16x64xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %11 = stablehlo.add %9, %10 : tensor<16x64xf32>
    %12 = call @cumprod(%11) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %13 = stablehlo.reduce(%arg0 init: %cst_4) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<16x64xf32>, tensor<f32>) -> tensor<f32>
    %cst_5 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %14 = stablehlo.reduce(%arg0 init: %cst_5) applies stablehlo.minimum across dimensions = [1] : (tensor<16x64xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.reduce(%arg0 init: %cst_6) applies stablehlo.multiply across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %16 = stablehlo.reduce(%arg0 init: %cst_7) applies stablehlo.maximum across dimensions = [1] : (tensor<16x64xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %18 = stablehlo.maximum %17, %16 : tensor<16xf32>
    %19 = stablehlo.is_finite %18 : (tensor<16xf32>) -> tensor<16xi1>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %21 = stablehlo.select %19, %18, %20 : tensor<16xi1>, tensor<16xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x64xf32>
    %24 = stablehlo.subtract %arg0, %23 : tensor<16x64xf32>
    %25 = stablehlo.exponential %24 : tensor<16x64xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.reduce(%25 init: %cst_10) applies stablehlo.add across dimensions = [1] : (tensor<16x64xf32>, tensor<f32>) -> tensor<16xf32>
    %27 = stablehlo.sign %26 : tensor<16xf32>
    %28 = stablehlo.abs %26 : tensor<16xf32>
    %29 = stablehlo.log %28 : tensor<16xf32>
    %30 = stablehlo.add %29, %21 : tensor<16xf32>
    %cst_11 = stablehlo.constant dense<2.500000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %32 = stablehlo.compare GT, %arg0, %31, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %c_12 = stablehlo.constant dense<false> : tensor<i1>
    %33 = stablehlo.reduce(%32 init: %c_12) applies stablehlo.or across dimensions = [1] : (tensor<16x64xi1>, tensor<i1>) -> tensor<16xi1>
    %c_13 = stablehlo.constant dense<true> : tensor<i1>
    %34 = stablehlo.reduce(%arg1 init: %c_13) applies stablehlo.and across dimensions = [0] : (tensor<16x64xi1>, tensor<i1>) -> tensor<64xi1>
    %35 = call @cummax(%arg0) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %36 = stablehlo.convert %arg1 : (tensor<16x64xi1>) -> tensor<16x64xi32>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %37 = stablehlo.reduce(%36 init: %c_14) applies stablehlo.add across dimensions = [1] : (tensor<16x64xi32>, tensor<i32>) -> tensor<16xi32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %39 = stablehlo.compare GT, %arg0, %38, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %40 = call @count_nonzero(%39) : (tensor<16x64xi1>) -> tensor<i32>
    return %2, %3, %4, %5, %6, %7, %12, %13, %14, %15, %30, %33, %34, %35, %37, %40 : tensor<16xf32>, tensor<64xf32>, tensor<f32>, tensor<16xi32>, tensor<64xi32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<f32>, tensor<16xf32>, tensor<64xf32>, tensor<16xf32>, tensor<16xi1>, tensor<64xi1>, tensor<16x64xf32>, tensor<16xi32>, tensor<i32>
  }
  func.func private @_var(%arg0: tensor<16x64xf32>, %arg1: tensor<i32>) -> tensor<64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x64xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<16x64xf32>
    %6 = chlo.square %5 : tensor<16x64xf32> -> tensor<16x64xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %11 = stablehlo.divide %9, %10 : tensor<64xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %13 = call @_where(%12, %11, %cst_4) : (tensor<i1>, tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
    return %13 : tensor<64xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<64xf32>, %arg2: tensor<f32>) -> tensor<64xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<64xf32>
    return %2 : tensor<64xf32>
  }
  func.func private @_std(%arg0: tensor<16x64xf32>, %arg1: tensor<i32>) -> tensor<f32> {
    %0 = call @_var_0(%arg0, %arg1) : (tensor<16x64xf32>, tensor<i32>) -> tensor<f32>
    %1 = stablehlo.sqrt %0 : tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @_var_0(%arg0: tensor<16x64xf32>, %arg1: tensor<i32>) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x64xf32>, tensor<f32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %cst_0 = stablehlo.constant dense<1.024000e+03> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<16x64xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<16x64xf32>
    %6 = chlo.square %5 : tensor<16x64xf32> -> tensor<16x64xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.024000e+03> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x64xf32>, tensor<f32>) -> tensor<f32>
    %10 = stablehlo.divide %9, %8 : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = call @_where_1(%11, %10, %cst_4) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    return %12 : tensor<f32>
  }
  func.func private @_where_1(%arg0: tensor<i1>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<i1>, tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @argmax(%arg0: tensor<16x64xf32>) -> tensor<16xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<16x64xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<16x64xf32>, tensor<16x64xi32>, tensor<f32>, tensor<i32>) -> (tensor<16xf32>, tensor<16xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<16xi32>
  }
  func.func private @argmin(%arg0: tensor<16x64xf32>) -> tensor<64xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<16x64xi32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0] : (tensor<16x64xf32>, tensor<16x64xi32>, tensor<f32>, tensor<i32>) -> (tensor<64xf32>, tensor<64xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare LT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<64xi32>
  }
  func.func private @cumsum(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %0 = call @cumsum_2(%arg0) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    return %0 : tensor<16x64xf32>
  }
  func.func private @cumsum_2(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [63, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 64>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<16x64xf32>, tensor<f32>) -> tensor<16x64xf32>
    return %1 : tensor<16x64xf32>
  }
  func.func private @cumprod(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %0 = call @cumprod_3(%arg0) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    return %0 : tensor<16x64xf32>
  }
  func.func private @cumprod_3(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1>, padding = dense<[[15, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 16, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<16x64xf32>, tensor<f32>) -> tensor<16x64xf32>
    return %0 : tensor<16x64xf32>
  }
  func.func private @cummax(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [63, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 64>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<16x64xf32>, tensor<f32>) -> tensor<16x64xf32>
    return %1 : tensor<16x64xf32>
  }
  func.func private @count_nonzero(%arg0: tensor<16x64xi1>) -> tensor<i32> {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<16x64xi1>
    %1 = stablehlo.compare NE, %arg0, %0, UNSIGNED : (tensor<16x64xi1>, tensor<16x64xi1>) -> tensor<16x64xi1>
    %2 = stablehlo.convert %1 : (tensor<16x64xi1>) -> tensor<16x64xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.reduce(%2 init: %c_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x64xi32>, tensor<i32>) -> tensor<i32>
    return %3 : tensor<i32>
  }
}
