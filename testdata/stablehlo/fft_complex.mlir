module @jit_fft_complex attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x32xf32>, %arg1: tensor<4x32xf32>) -> (tensor<4x32xf32> {jax.result_info = "result[0]"}, tensor<4x32xf32> {jax.result_info = "result[1]"}, tensor<4x32xf32> {jax.result_info = "result[2]"}, tensor<4x32xf32> {jax.result_info = "result[3]"}, tensor<4x32xcomplex<f32>> {jax.result_info = "result[4]"}, tensor<4x32xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.complex %arg0, %arg1 : tensor<4x32xcomplex<f32>>
    %1 = call @fft(%arg0) : (tensor<4x32xf32>) -> tensor<4x17xcomplex<f32>>
    %2 = call @fft_0(%0) : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xcomplex<f32>>
    %3 = stablehlo.abs %2 : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = call @_pad(%1, %c) : (tensor<4x17xcomplex<f32>>, tensor<i32>) -> tensor<4x17xcomplex<f32>>
    %5 = call @fft_1(%4) : (tensor<4x17xcomplex<f32>>) -> tensor<4x32xf32>
    %6 = stablehlo.multiply %0, %0 : tensor<4x32xcomplex<f32>>
    %7 = stablehlo.real %6 : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xf32>
    %8 = stablehlo.real %0 : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xf32>
    %9 = stablehlo.imag %0 : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xf32>
    %10 = stablehlo.negate %9 : tensor<4x32xf32>
    %11 = stablehlo.complex %8, %10 : tensor<4x32xcomplex<f32>>
    %cst = stablehlo.constant dense<(0.000000e+00,2.000000e+00)> : tensor<complex<f32>>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x32xcomplex<f32>>
    %13 = stablehlo.multiply %11, %12 : tensor<4x32xcomplex<f32>>
    %14 = stablehlo.imag %13 : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xf32>
    %15 = stablehlo.multiply %0, %0 : tensor<4x32xcomplex<f32>>
    %16 = call @angle(%0) : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xf32>
    return %3, %5, %7, %14, %15, %16 : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xcomplex<f32>>, tensor<4x32xf32>
  }
  func.func private @fft(%arg0: tensor<4x32xf32>) -> tensor<4x17xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [32] : (tensor<4x32xf32>) -> tensor<4x17xcomplex<f32>>
    return %0 : tensor<4x17xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<4x32xcomplex<f32>>) -> tensor<4x32xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [32] : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xcomplex<f32>>
    return %0 : tensor<4x32xcomplex<f32>>
  }
  func.func private @_pad(%arg0: tensor<4x17xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<4x17xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x17xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4x17xcomplex<f32>>
    return %1 : tensor<4x17xcomplex<f32>>
  }
  func.func private @fft_1(%arg0: tensor<4x17xcomplex<f32>>) -> tensor<4x32xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [32] : (tensor<4x17xcomplex<f32>>) -> tensor<4x32xf32>
    return %0 : tensor<4x32xf32>
  }
  func.func private @angle(%arg0: tensor<4x32xcomplex<f32>>) -> tensor<4x32xf32> {
    %0 = stablehlo.real %arg0 : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xf32>
    %1 = stablehlo.imag %arg0 : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xf32>
    %2 = stablehlo.atan2 %1, %0 : tensor<4x32xf32>
    return %2 : tensor<4x32xf32>
  }
}
