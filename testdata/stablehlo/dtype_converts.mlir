module @jit_dtype_converts attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xf16>, %arg2: tensor<8x16xbf16>, %arg3: tensor<8x16xui8>, %arg4: tensor<8x16xi32>, %arg5: tensor<8x16xi1>) -> (tensor<8x16xf16> {jax.result_info = "result[0]"}, tensor<8x16xbf16> {jax.result_info = "result[1]"}, tensor<8x16xf32> {jax.result_info = "result[2]"}, tensor<8x16xf32> {jax.result_info = "result[3]"}, tensor<8x16xf16> {jax.result_info = "result[4]"}, tensor<8x16xbf16> {jax.result_info = "result[5]"}, tensor<8x16xi32> {jax.result_info = "result[6]"}, tensor<8x16xui8> {jax.result_info = "result[7]"}, tensor<8x16xi32> {jax.result_info = "result[8]"}, tensor<8x16xf32> {jax.result_info = "result[9]"}, tensor<8x16xf32> {jax.result_info = "result[10]"}, tensor<8x16xi8> {jax.result_info = "result[11]"}, tensor<8x16xf32> {jax.result_info = "result[12]"}, tensor<8x16xi1> {jax.result_info = "result[13]"}, tensor<8x16xi32> {jax.result_info = "result[14]"}, tensor<8x16xi32> {jax.result_info = "result[15]"}, tensor<8x16xf32> {jax.result_info = "result[16]"}, tensor<8x16xf32> {jax.result_info = "result[17]"}, tensor<8x16xbf16> {jax.result_info = "result[18]"}, tensor<8x16xf16> {jax.result_info = "result[19]"}, tensor<8x16xi1> {jax.result_info = "result[20]"}) {
    %cst = stablehlo.constant dense<5.000000e+01> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<8x16xf32>
    %c = stablehlo.constant dense<-120> : tensor<i32>
    %c_0 = stablehlo.constant dense<120> : tensor<i32>
    %2 = call @clip(%1, %c, %c_0) : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<8x16xf32>
    %3 = stablehlo.convert %arg0 : (tensor<8x16xf32>) -> tensor<8x16xf16>
    %4 = stablehlo.convert %arg0 : (tensor<8x16xf32>) -> tensor<8x16xbf16>
    %5 = stablehlo.convert %arg1 : (tensor<8x16xf16>) -> tensor<8x16xf32>
    %6 = stablehlo.convert %arg2 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %7 = stablehlo.multiply %arg1, %arg1 : tensor<8x16xf16>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f16>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f16>) -> tensor<8x16xf16>
    %9 = stablehlo.add %7, %8 : tensor<8x16xf16>
    %10 = stablehlo.multiply %arg2, %arg2 : tensor<8x16xbf16>
    %11 = stablehlo.subtract %10, %arg2 : tensor<8x16xbf16>
    %12 = stablehlo.convert %2 : (tensor<8x16xf32>) -> tensor<8x16xi32>
    %13 = stablehlo.abs %2 : tensor<8x16xf32>
    %14 = stablehlo.convert %13 : (tensor<8x16xf32>) -> tensor<8x16xui8>
    %15 = stablehlo.convert %arg3 : (tensor<8x16xui8>) -> tensor<8x16xi32>
    %c_2 = stablehlo.constant dense<3> : tensor<i32>
    %16 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %17 = stablehlo.multiply %15, %16 : tensor<8x16xi32>
    %18 = stablehlo.convert %arg3 : (tensor<8x16xui8>) -> tensor<8x16xf32>
    %cst_3 = stablehlo.constant dense<2.550000e+02> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %20 = stablehlo.divide %18, %19 : tensor<8x16xf32>
    %21 = stablehlo.convert %arg4 : (tensor<8x16xi32>) -> tensor<8x16xf32>
    %22 = stablehlo.convert %arg4 : (tensor<8x16xi32>) -> tensor<8x16xi8>
    %23 = stablehlo.convert %arg5 : (tensor<8x16xi1>) -> tensor<8x16xf32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %25 = stablehlo.compare NE, %arg4, %24, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %27 = stablehlo.compare GT, %arg0, %26, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %28 = stablehlo.convert %27 : (tensor<8x16xi1>) -> tensor<8x16xi32>
    %29 = stablehlo.bitcast_convert %arg0 : (tensor<8x16xf32>) -> tensor<8x16xi32>
    %30 = stablehlo.bitcast_convert %arg4 : (tensor<8x16xi32>) -> tensor<8x16xf32>
    %31 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<8x16xf32>
    %32 = stablehlo.convert %arg1 : (tensor<8x16xf16>) -> tensor<8x16xbf16>
    %33 = stablehlo.convert %arg2 : (tensor<8x16xbf16>) -> tensor<8x16xf16>
    %c_6 = stablehlo.constant dense<0> : tensor<ui8>
    %34 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui8>) -> tensor<8x16xui8>
    %35 = stablehlo.compare NE, %arg3, %34, UNSIGNED : (tensor<8x16xui8>, tensor<8x16xui8>) -> tensor<8x16xi1>
    %36 = stablehlo.convert %35 : tensor<8x16xi1>
    return %3, %4, %5, %6, %9, %11, %12, %14, %17, %20, %21, %22, %23, %25, %28, %29, %30, %31, %32, %33, %36 : tensor<8x16xf16>, tensor<8x16xbf16>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf16>, tensor<8x16xbf16>, tensor<8x16xi32>, tensor<8x16xui8>, tensor<8x16xi32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xi8>, tensor<8x16xf32>, tensor<8x16xi1>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xbf16>, tensor<8x16xf16>, tensor<8x16xi1>
  }
  func.func private @clip(%arg0: tensor<8x16xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<8x16xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<8x16xf32>
    %3 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<8x16xf32>
    return %5 : tensor<8x16xf32>
  }
}
