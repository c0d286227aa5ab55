module @jit_mlp_bf16_mixed attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x128xbf16>, %arg1: tensor<128x256xbf16>, %arg2: tensor<256xf32>, %arg3: tensor<256x128xbf16>, %arg4: tensor<128xf32>) -> (tensor<32x128xf32> {jax.result_info = "result[0]"}, tensor<32x256xbf16> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x128xbf16>, tensor<128x256xbf16>) -> tensor<32x256xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %3 = stablehlo.add %0, %2 : tensor<32x256xf32>
    %4 = call @relu(%3) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %5 = stablehlo.convert %4 : (tensor<32x256xf32>) -> tensor<32x256xbf16>
    %6 = stablehlo.dot_general %5, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xbf16>, tensor<256x128xbf16>) -> tensor<32x128xf32>
    %7 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<32x128xf32>
    %9 = stablehlo.add %6, %8 : tensor<32x128xf32>
    %10 = stablehlo.convert %arg0 : (tensor<32x128xbf16>) -> tensor<32x128xf32>
    %11 = stablehlo.convert %arg1 : (tensor<128x256xbf16>) -> tensor<128x256xf32>
    %12 = stablehlo.dot_general %10, %11, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x128xf32>, tensor<128x256xf32>) -> tensor<32x256xf32>
    %13 = stablehlo.convert %12 : (tensor<32x256xf32>) -> tensor<32x256xbf16>
    return %9, %13 : tensor<32x128xf32>, tensor<32x256xbf16>
  }
  func.func private @relu(%arg0: tensor<32x256xf32>) -> tensor<32x256xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<32x256xf32>
    return %1 : tensor<32x256xf32>
  }
}
