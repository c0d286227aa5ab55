module @jit_kv_cache_decode attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x64xf32>, %arg1: tensor<1x64x4x16xf32>, %arg2: tensor<1x64x4x16xf32>, %arg3: tensor<i32>, %arg4: tensor<64x64xf32>, %arg5: tensor<64x64xf32>, %arg6: tensor<64x64xf32>) -> (tensor<1x64xf32> {jax.result_info = "result[0]"}, tensor<1x64x4x16xf32> {jax.result_info = "result[1]"}, tensor<1x64x4x16xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg0, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x64xf32>) -> tensor<1x4x16xf32>
    %2 = stablehlo.dot_general %arg0, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
    %3 = stablehlo.reshape %2 : (tensor<1x64xf32>) -> tensor<1x1x4x16xf32>
    %4 = stablehlo.dot_general %arg0, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x64xf32>) -> tensor<1x1x4x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.compare LT, %arg3, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<64> : tensor<i32>
    %7 = stablehlo.add %arg3, %c_0 : tensor<i32>
    %8 = stablehlo.select %6, %7, %arg3 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.dynamic_update_slice %arg1, %3, %c_1, %8, %c_2, %c_3 : (tensor<1x64x4x16xf32>, tensor<1x1x4x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x4x16xf32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %10 = stablehlo.compare LT, %arg3, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_5 = stablehlo.constant dense<64> : tensor<i32>
    %11 = stablehlo.add %arg3, %c_5 : tensor<i32>
    %12 = stablehlo.select %10, %11, %arg3 : tensor<i1>, tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.dynamic_update_slice %arg2, %5, %c_6, %12, %c_7, %c_8 : (tensor<1x64x4x16xf32>, tensor<1x1x4x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x4x16xf32>
    %14 = stablehlo.dot_general %1, %9, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x4x16xf32>, tensor<1x64x4x16xf32>) -> tensor<1x4x64xf32>
    %cst = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x4x64xf32>
    %16 = stablehlo.divide %14, %15 : tensor<1x4x64xf32>
    %17 = stablehlo.iota dim = 0 : tensor<64xi32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [2] : (tensor<64xi32>) -> tensor<1x1x64xi32>
    %19 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<i32>) -> tensor<1x1x64xi32>
    %20 = stablehlo.compare LE, %18, %19, SIGNED : (tensor<1x1x64xi32>, tensor<1x1x64xi32>) -> tensor<1x1x64xi1>
    %cst_9 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %21 = call @_where(%20, %16, %cst_9) : (tensor<1x1x64xi1>, tensor<1x4x64xf32>, tensor<f32>) -> tensor<1x4x64xf32>
    %cst_10 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %22 = stablehlo.reduce(%21 init: %cst_10) applies stablehlo.maximum across dimensions = [2] : (tensor<1x4x64xf32>, tensor<f32>) -> tensor<1x4xf32>
    %cst_11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<1x4xf32>
    %24 = stablehlo.maximum %23, %22 : tensor<1x4xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<1x4x1xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1, 2] : (tensor<1x4x1xf32>) -> tensor<1x4x64xf32>
    %27 = stablehlo.subtract %21, %26 : tensor<1x4x64xf32>
    %28 = stablehlo.exponential %27 : tensor<1x4x64xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %29 = stablehlo.reduce(%28 init: %cst_12) applies stablehlo.add across dimensions = [2] : (tensor<1x4x64xf32>, tensor<f32>) -> tensor<1x4xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<1x4x1xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1, 2] : (tensor<1x4x1xf32>) -> tensor<1x4x64xf32>
    %32 = stablehlo.divide %28, %31 : tensor<1x4x64xf32>
    %33 = stablehlo.dot_general %32, %13, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<1x4x64xf32>, tensor<1x64x4x16xf32>) -> tensor<1x4x16xf32>
    %34 = stablehlo.reshape %33 : (tensor<1x4x16xf32>) -> tensor<1x64xf32>
    return %34, %9, %13 : tensor<1x64xf32>, tensor<1x64x4x16xf32>, tensor<1x64x4x16xf32>
  }
  func.func private @_where(%arg0: tensor<1x1x64xi1>, %arg1: tensor<1x4x64xf32>, %arg2: tensor<f32>) -> tensor<1x4x64xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2] : (tensor<1x1x64xi1>) -> tensor<1x4x64xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1x4x64xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<1x4x64xi1>, tensor<1x4x64xf32>
    return %3 : tensor<1x4x64xf32>
  }
}
