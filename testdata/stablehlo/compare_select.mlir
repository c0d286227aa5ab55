module @jit_compare_select attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<8x16xi1>) -> (tensor<8x16xi1> {jax.result_info = "result[0]"}, tensor<8x16xi1> {jax.result_info = "result[1]"}, tensor<8x16xi1> {jax.result_info = "result[2]"}, tensor<8x16xi1> {jax.result_info = "result[3]"}, tensor<8x16xi1> {jax.result_info = "result[4]"}, tensor<8x16xi1> {jax.result_info = "result[5]"}, tensor<8x16xf32> {jax.result_info = "result[6]"}, tensor<8x16xi1> {jax.result_info = "result[7]"}, tensor<8x16xi1> {jax.result_info = "result[8]"}, tensor<8x16xi1> {jax.result_info = "result[9]"}, tensor<8x16xi1> {jax.result_info = "result[10]"}, tensor<8x16xi1> {jax.result_info = "result[11]"}, tensor<8x16xi1> {jax.result_info = "result[12]"}, tensor<8x16xi1> {jax.result_info = "result[13]"}, tensor<8x16xf32> {jax.result_info = "result[14]"}, tensor<8x16xf32> {jax.result_info = "result[15]"}, tensor<8x16xf32> {jax.result_info = "result[16]"}, tensor<8x16xf32> {jax.result_info = "result[17]"}, tensor<8x16xf32> {jax.result_info = "result[18]"}, tensor<8x16xf32> {jax.result_info = "result[19]"}) {
    %cst = stablehlo.constant dense<1.500000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %2 = call @_where(%1, %cst_0, %arg0) : (tensor<8x16xi1>, tensor<f32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %cst_1 = stablehlo.constant dense<-1.800000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %4 = stablehlo.compare LT, %arg0, %3, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_2 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %5 = call @_where(%4, %cst_2, %arg0) : (tensor<8x16xi1>, tensor<f32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %6 = stablehlo.compare EQ, %arg0, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %7 = stablehlo.compare NE, %arg0, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %8 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %9 = stablehlo.compare LE, %arg0, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %10 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %11 = stablehlo.compare GE, %arg0, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %12 = call @_where_0(%arg2, %arg0, %arg1) : (tensor<8x16xi1>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %13 = stablehlo.compare NE, %2, %2, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %14 = call @isinf(%5) : (tensor<8x16xf32>) -> tensor<8x16xi1>
    %15 = stablehlo.is_finite %5 : (tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %17 = stablehlo.compare GT, %arg0, %16, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %18 = stablehlo.and %arg2, %17 : tensor<8x16xi1>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %20 = stablehlo.compare GT, %arg0, %19, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %21 = stablehlo.or %arg2, %20 : tensor<8x16xi1>
    %22 = stablehlo.not %arg2 : tensor<8x16xi1>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %24 = stablehlo.compare GT, %arg1, %23, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %25 = stablehlo.xor %arg2, %24 : tensor<8x16xi1>
    %26 = stablehlo.maximum %2, %arg1 : tensor<8x16xf32>
    %27 = call @fmax(%2, %arg1) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %28 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %29 = stablehlo.negate %arg1 : tensor<8x16xf32>
    %30 = stablehlo.select %28, %arg0, %29 : tensor<8x16xi1>, tensor<8x16xf32>
    %cst_6 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %32 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %33 = stablehlo.clamp %31, %arg0, %32 : tensor<8x16xf32>
    %34 = call @nan_to_num(%2) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %35 = stablehlo.sign %2 : tensor<8x16xf32>
    return %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %18, %21, %22, %25, %26, %27, %30, %33, %34, %35 : tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xf32>, tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xi1>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  }
  func.func private @_where(%arg0: tensor<8x16xi1>, %arg1: tensor<f32>, %arg2: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<8x16xi1>, tensor<8x16xf32>
    return %2 : tensor<8x16xf32>
  }
  func.func private @_where_0(%arg0: tensor<8x16xi1>, %arg1: tensor<8x16xf32>, %arg2: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8x16xi1>, tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
  func.func private @isinf(%arg0: tensor<8x16xf32>) -> tensor<8x16xi1> {
    %0 = stablehlo.abs %arg0 : tensor<8x16xf32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %2 = stablehlo.compare EQ, %0, %1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    return %2 : tensor<8x16xi1>
  }
  func.func private @fmax(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %1 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %2 = stablehlo.or %0, %1 : tensor<8x16xi1>
    %3 = call @_where_0(%2, %arg0, %arg1) : (tensor<8x16xi1>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    return %3 : tensor<8x16xf32>
  }
  func.func private @nan_to_num(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = call @_where_1(%0, %cst, %arg0) : (tensor<8x16xi1>, tensor<f32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %3 = stablehlo.compare EQ, %1, %2, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_1 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
    %4 = call @_where_1(%3, %cst_1, %1) : (tensor<8x16xi1>, tensor<f32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %6 = stablehlo.compare EQ, %4, %5, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %cst_3 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %7 = call @_where_1(%6, %cst_3, %4) : (tensor<8x16xi1>, tensor<f32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    return %7 : tensor<8x16xf32>
  }
  func.func private @_where_1(%arg0: tensor<8x16xi1>, %arg1: tensor<f32>, %arg2: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<8x16xi1>, tensor<8x16xf32>
    return %1 : tensor<8x16xf32>
  }
}
