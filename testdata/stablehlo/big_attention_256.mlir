module @jit_big_attention_256 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x256x256xf32>, %arg1: tensor<512xf32>, %arg2: tensor<256xf32>, %arg3: tensor<256xf32>, %arg4: tensor<256xf32>, %arg5: tensor<256xf32>, %arg6: tensor<256xf32>, %arg7: tensor<256x512xf32>, %arg8: tensor<512x256xf32>, %arg9: tensor<256x256xf32>, %arg10: tensor<256x256xf32>, %arg11: tensor<256x256xf32>, %arg12: tensor<256x256xf32>) -> (tensor<1x256x256xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<1x256x256xf32>, tensor<f32>) -> tensor<1x256xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<1x256x1xf32>
    %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x256x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x256x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<1x256x1xf32>) -> tensor<1x256x256xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<1x256x256xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<1x256x256xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<1x256x256xf32>, tensor<f32>) -> tensor<1x256xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<1x256x1xf32>
    %cst_2 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<1x256x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<1x256x1xf32>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<1x256x1xf32>) -> tensor<1x256x256xf32>
    %12 = stablehlo.subtract %arg0, %11 : tensor<1x256x256xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<1x256x1xf32>
    %14 = stablehlo.add %10, %13 : tensor<1x256x1xf32>
    %15 = stablehlo.sqrt %14 : tensor<1x256x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<1x256x1xf32>) -> tensor<1x256x256xf32>
    %17 = stablehlo.divide %12, %16 : tensor<1x256x256xf32>
    %18 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<1x256x256xf32>
    %20 = stablehlo.multiply %17, %19 : tensor<1x256x256xf32>
    %21 = stablehlo.broadcast_in_dim %arg3, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<1x256x256xf32>
    %23 = stablehlo.add %20, %22 : tensor<1x256x256xf32>
    %24 = stablehlo.dot_general %23, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x256x256xf32>, tensor<256x256xf32>) -> tensor<1x256x256xf32>
    %25 = stablehlo.reshape %24 : (tensor<1x256x256xf32>) -> tensor<1x256x8x32xf32>
    %26 = stablehlo.dot_general %23, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x256x256xf32>, tensor<256x256xf32>) -> tensor<1x256x256xf32>
    %27 = stablehlo.reshape %26 : (tensor<1x256x256xf32>) -> tensor<1x256x8x32xf32>
    %28 = stablehlo.dot_general %23, %arg12, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x256x256xf32>, tensor<256x256xf32>) -> tensor<1x256x256xf32>
    %29 = stablehlo.reshape %28 : (tensor<1x256x256xf32>) -> tensor<1x256x8x32xf32>
    %30 = stablehlo.dot_general %25, %27, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x256x8x32xf32>, tensor<1x256x8x32xf32>) -> tensor<1x8x256x256xf32>
    %cst_4 = stablehlo.constant dense<5.65685415> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<1x8x256x256xf32>
    %32 = stablehlo.divide %30, %31 : tensor<1x8x256x256xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %33 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<256x256xi1>
    %34 = call @tril(%33) : (tensor<256x256xi1>) -> tensor<256x256xi1>
    %cst_5 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %35 = call @_where(%34, %32, %cst_5) : (tensor<256x256xi1>, tensor<1x8x256x256xf32>, tensor<f32>) -> tensor<1x8x256x256xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %36 = stablehlo.reduce(%35 init: %cst_6) applies stablehlo.maximum across dimensions = [3] : (tensor<1x8x256x256xf32>, tensor<f32>) -> tensor<1x8x256xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<1x8x256xf32>
    %38 = stablehlo.maximum %37, %36 : tensor<1x8x256xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [0, 1, 2] : (tensor<1x8x256xf32>) -> tensor<1x8x256x1xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0, 1, 2, 3] : (tensor<1x8x256x1xf32>) -> tensor<1x8x256x256xf32>
    %41 = stablehlo.subtract %35, %40 : tensor<1x8x256x256xf32>
    %42 = stablehlo.exponential %41 : tensor<1x8x256x256xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.reduce(%42 init: %cst_8) applies stablehlo.add across dimensions = [3] : (tensor<1x8x256x256xf32>, tensor<f32>) -> tensor<1x8x256xf32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2] : (tensor<1x8x256xf32>) -> tensor<1x8x256x1xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1, 2, 3] : (tensor<1x8x256x1xf32>) -> tensor<1x8x256x256xf32>
    %46 = stablehlo.divide %42, %45 : tensor<1x8x256x256xf32>
    %47 = stablehlo.dot_general %29, %46, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x256x8x32xf32>, tensor<1x8x256x256xf32>) -> tensor<1x8x32x256xf32>
    %48 = stablehlo.transpose %47, dims = [0, 3, 1, 2] : (tensor<1x8x32x256xf32>) -> tensor<1x256x8x32xf32>
    %49 = stablehlo.reshape %48 : (tensor<1x256x8x32xf32>) -> tensor<1x256x256xf32>
    %50 = stablehlo.dot_general %49, %arg10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x256x256xf32>, tensor<256x256xf32>) -> tensor<1x256x256xf32>
    %51 = stablehlo.add %arg0, %50 : tensor<1x256x256xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %52 = stablehlo.reduce(%51 init: %cst_9) applies stablehlo.add across dimensions = [2] : (tensor<1x256x256xf32>, tensor<f32>) -> tensor<1x256xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<1x256x1xf32>
    %cst_10 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<1x256x1xf32>
    %55 = stablehlo.divide %53, %54 : tensor<1x256x1xf32>
    %56 = stablehlo.broadcast_in_dim %55, dims = [0, 1, 2] : (tensor<1x256x1xf32>) -> tensor<1x256x256xf32>
    %57 = stablehlo.subtract %51, %56 : tensor<1x256x256xf32>
    %58 = stablehlo.multiply %57, %57 : tensor<1x256x256xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %59 = stablehlo.reduce(%58 init: %cst_11) applies stablehlo.add across dimensions = [2] : (tensor<1x256x256xf32>, tensor<f32>) -> tensor<1x256xf32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<1x256x1xf32>
    %cst_12 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<1x256x1xf32>
    %62 = stablehlo.divide %60, %61 : tensor<1x256x1xf32>
    %63 = stablehlo.broadcast_in_dim %55, dims = [0, 1, 2] : (tensor<1x256x1xf32>) -> tensor<1x256x256xf32>
    %64 = stablehlo.subtract %51, %63 : tensor<1x256x256xf32>
    %cst_13 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<1x256x1xf32>
    %66 = stablehlo.add %62, %65 : tensor<1x256x1xf32>
    %67 = stablehlo.sqrt %66 : tensor<1x256x1xf32>
    %68 = stablehlo.broadcast_in_dim %67, dims = [0, 1, 2] : (tensor<1x256x1xf32>) -> tensor<1x256x256xf32>
    %69 = stablehlo.divide %64, %68 : tensor<1x256x256xf32>
    %70 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %71 = stablehlo.broadcast_in_dim %70, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<1x256x256xf32>
    %72 = stablehlo.multiply %69, %71 : tensor<1x256x256xf32>
    %73 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %74 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<1x256x256xf32>
    %75 = stablehlo.add %72, %74 : tensor<1x256x256xf32>
    %76 = stablehlo.dot_general %75, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x256x256xf32>, tensor<256x512xf32>) -> tensor<1x256x512xf32>
    %77 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<512xf32>) -> tensor<1x1x512xf32>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2] : (tensor<1x1x512xf32>) -> tensor<1x256x512xf32>
    %79 = stablehlo.add %76, %78 : tensor<1x256x512xf32>
    %80 = stablehlo.multiply %79, %79 : tensor<1x256x512xf32>
    %81 = stablehlo.multiply %80, %79 : tensor<1x256x512xf32>
    %cst_14 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<1x256x512xf32>
    %83 = stablehlo.multiply %82, %81 : tensor<1x256x512xf32>
    %84 = stablehlo.add %79, %83 : tensor<1x256x512xf32>
    %cst_15 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<1x256x512xf32>
    %86 = stablehlo.multiply %85, %84 : tensor<1x256x512xf32>
    %87 = stablehlo.tanh %86 : tensor<1x256x512xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<1x256x512xf32>
    %89 = stablehlo.add %88, %87 : tensor<1x256x512xf32>
    %cst_17 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %90 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<1x256x512xf32>
    %91 = stablehlo.multiply %90, %89 : tensor<1x256x512xf32>
    %92 = stablehlo.multiply %79, %91 : tensor<1x256x512xf32>
    %93 = stablehlo.dot_general %92, %arg8, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x256x512xf32>, tensor<512x256xf32>) -> tensor<1x256x256xf32>
    %94 = stablehlo.add %51, %93 : tensor<1x256x256xf32>
    %95 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %96 = stablehlo.broadcast_in_dim %95, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<1x256x256xf32>
    %97 = stablehlo.add %94, %96 : tensor<1x256x256xf32>
    return %97 : tensor<1x256x256xf32>
  }
  func.func private @tril(%arg0: tensor<256x256xi1>) -> tensor<256x256xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<256x256xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<256x256xi32>
    %2 = stablehlo.add %0, %1 : tensor<256x256xi32>
    %3 = stablehlo.iota dim = 1 : tensor<256x256xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<256x256xi32>, tensor<256x256xi32>) -> tensor<256x256xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<256x256xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<256x256xi1>, tensor<256x256xi1>
    return %6 : tensor<256x256xi1>
  }
  func.func private @_where(%arg0: tensor<256x256xi1>, %arg1: tensor<1x8x256x256xf32>, %arg2: tensor<f32>) -> tensor<1x8x256x256xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<256x256xi1>) -> tensor<1x8x256x256xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1x8x256x256xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<1x8x256x256xi1>, tensor<1x8x256x256xf32>
    return %3 : tensor<1x8x256x256xf32>
  }
}
