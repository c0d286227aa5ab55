module @jit_llama_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x32x64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64xf32>, %arg3: tensor<128x64xf32>, %arg4: tensor<64x128xf32>, %arg5: tensor<64x128xf32>, %arg6: tensor<64x32xf32>, %arg7: tensor<64x64xf32>, %arg8: tensor<64x64xf32>, %arg9: tensor<64x32xf32>) -> (tensor<1x32x64xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<1x32x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<1x32x64xf32>, tensor<f32>) -> tensor<1x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<1x32x1xf32>
    %cst_0 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x32x1xf32>
    %4 = stablehlo.divide %2, %3 : tensor<1x32x1xf32>
    %cst_1 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1x32x1xf32>
    %6 = stablehlo.add %4, %5 : tensor<1x32x1xf32>
    %7 = stablehlo.rsqrt %6 : tensor<1x32x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<1x32x1xf32>) -> tensor<1x32x64xf32>
    %9 = stablehlo.multiply %arg0, %8 : tensor<1x32x64xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %11 = stablehlo.add %10, %arg1 : tensor<64xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<1x32x64xf32>
    %14 = stablehlo.multiply %9, %13 : tensor<1x32x64xf32>
    %15 = stablehlo.iota dim = 0 : tensor<32xi32>
    %16 = stablehlo.dot_general %14, %arg8, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x32x64xf32>, tensor<64x64xf32>) -> tensor<1x32x64xf32>
    %17 = stablehlo.reshape %16 : (tensor<1x32x64xf32>) -> tensor<1x32x4x16xf32>
    %18 = stablehlo.iota dim = 0 : tensor<8xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %20 = stablehlo.multiply %19, %18 : tensor<8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %22 = stablehlo.add %21, %20 : tensor<8xf32>
    %cst_5 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %24 = stablehlo.divide %22, %23 : tensor<8xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %26 = stablehlo.power %25, %24 : tensor<8xf32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %28 = stablehlo.divide %27, %26 : tensor<8xf32>
    %29 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<32xi32>) -> tensor<32x1xi32>
    %30 = stablehlo.convert %29 : (tensor<32x1xi32>) -> tensor<32x1xf32>
    %31 = stablehlo.broadcast_in_dim %28, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %32 = stablehlo.broadcast_in_dim %30, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x8xf32>
    %33 = stablehlo.broadcast_in_dim %31, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<32x8xf32>
    %34 = stablehlo.multiply %32, %33 : tensor<32x8xf32>
    %35 = stablehlo.cosine %34 : tensor<32x8xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [1, 3] : (tensor<32x8xf32>) -> tensor<1x32x1x8xf32>
    %37 = stablehlo.sine %34 : tensor<32x8xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [1, 3] : (tensor<32x8xf32>) -> tensor<1x32x1x8xf32>
    %39 = stablehlo.slice %17 [0:1, 0:32, 0:4, 0:16:2] : (tensor<1x32x4x16xf32>) -> tensor<1x32x4x8xf32>
    %40 = stablehlo.slice %17 [0:1, 0:32, 0:4, 1:16:2] : (tensor<1x32x4x16xf32>) -> tensor<1x32x4x8xf32>
    %41 = stablehlo.broadcast_in_dim %36, dims = [0, 1, 2, 3] : (tensor<1x32x1x8xf32>) -> tensor<1x32x4x8xf32>
    %42 = stablehlo.multiply %39, %41 : tensor<1x32x4x8xf32>
    %43 = stablehlo.broadcast_in_dim %38, dims = [0, 1, 2, 3] : (tensor<1x32x1x8xf32>) -> tensor<1x32x4x8xf32>
    %44 = stablehlo.multiply %40, %43 : tensor<1x32x4x8xf32>
    %45 = stablehlo.subtract %42, %44 : tensor<1x32x4x8xf32>
    %46 = stablehlo.broadcast_in_dim %38, dims = [0, 1, 2, 3] : (tensor<1x32x1x8xf32>) -> tensor<1x32x4x8xf32>
    %47 = stablehlo.multiply %39, %46 : tensor<1x32x4x8xf32>
    %48 = stablehlo.broadcast_in_dim %36, dims = [0, 1, 2, 3] : (tensor<1x32x1x8xf32>) -> tensor<1x32x4x8xf32>
    %49 = stablehlo.multiply %40, %48 : tensor<1x32x4x8xf32>
    %50 = stablehlo.add %47, %49 : tensor<1x32x4x8xf32>
    %51 = stablehlo.broadcast_in_dim %45, dims = [0, 1, 2, 3] : (tensor<1x32x4x8xf32>) -> tensor<1x32x4x8x1xf32>
    %52 = stablehlo.broadcast_in_dim %50, dims = [0, 1, 2, 3] : (tensor<1x32x4x8xf32>) -> tensor<1x32x4x8x1xf32>
    %53 = stablehlo.concatenate %51, %52, dim = 4 : (tensor<1x32x4x8x1xf32>, tensor<1x32x4x8x1xf32>) -> tensor<1x32x4x8x2xf32>
    %54 = stablehlo.reshape %53 : (tensor<1x32x4x8x2xf32>) -> tensor<1x32x4x16xf32>
    %55 = stablehlo.dot_general %14, %arg6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x32x64xf32>, tensor<64x32xf32>) -> tensor<1x32x32xf32>
    %56 = stablehlo.reshape %55 : (tensor<1x32x32xf32>) -> tensor<1x32x2x16xf32>
    %57 = stablehlo.iota dim = 0 : tensor<8xf32>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %59 = stablehlo.multiply %58, %57 : tensor<8xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %61 = stablehlo.add %60, %59 : tensor<8xf32>
    %cst_10 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %63 = stablehlo.divide %61, %62 : tensor<8xf32>
    %cst_11 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %65 = stablehlo.power %64, %63 : tensor<8xf32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %67 = stablehlo.divide %66, %65 : tensor<8xf32>
    %68 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<32xi32>) -> tensor<32x1xi32>
    %69 = stablehlo.convert %68 : (tensor<32x1xi32>) -> tensor<32x1xf32>
    %70 = stablehlo.broadcast_in_dim %67, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %71 = stablehlo.broadcast_in_dim %69, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x8xf32>
    %72 = stablehlo.broadcast_in_dim %70, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<32x8xf32>
    %73 = stablehlo.multiply %71, %72 : tensor<32x8xf32>
    %74 = stablehlo.cosine %73 : tensor<32x8xf32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [1, 3] : (tensor<32x8xf32>) -> tensor<1x32x1x8xf32>
    %76 = stablehlo.sine %73 : tensor<32x8xf32>
    %77 = stablehlo.broadcast_in_dim %76, dims = [1, 3] : (tensor<32x8xf32>) -> tensor<1x32x1x8xf32>
    %78 = stablehlo.slice %56 [0:1, 0:32, 0:2, 0:16:2] : (tensor<1x32x2x16xf32>) -> tensor<1x32x2x8xf32>
    %79 = stablehlo.slice %56 [0:1, 0:32, 0:2, 1:16:2] : (tensor<1x32x2x16xf32>) -> tensor<1x32x2x8xf32>
    %80 = stablehlo.broadcast_in_dim %75, dims = [0, 1, 2, 3] : (tensor<1x32x1x8xf32>) -> tensor<1x32x2x8xf32>
    %81 = stablehlo.multiply %78, %80 : tensor<1x32x2x8xf32>
    %82 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2, 3] : (tensor<1x32x1x8xf32>) -> tensor<1x32x2x8xf32>
    %83 = stablehlo.multiply %79, %82 : tensor<1x32x2x8xf32>
    %84 = stablehlo.subtract %81, %83 : tensor<1x32x2x8xf32>
    %85 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2, 3] : (tensor<1x32x1x8xf32>) -> tensor<1x32x2x8xf32>
    %86 = stablehlo.multiply %78, %85 : tensor<1x32x2x8xf32>
    %87 = stablehlo.broadcast_in_dim %75, dims = [0, 1, 2, 3] : (tensor<1x32x1x8xf32>) -> tensor<1x32x2x8xf32>
    %88 = stablehlo.multiply %79, %87 : tensor<1x32x2x8xf32>
    %89 = stablehlo.add %86, %88 : tensor<1x32x2x8xf32>
    %90 = stablehlo.broadcast_in_dim %84, dims = [0, 1, 2, 3] : (tensor<1x32x2x8xf32>) -> tensor<1x32x2x8x1xf32>
    %91 = stablehlo.broadcast_in_dim %89, dims = [0, 1, 2, 3] : (tensor<1x32x2x8xf32>) -> tensor<1x32x2x8x1xf32>
    %92 = stablehlo.concatenate %90, %91, dim = 4 : (tensor<1x32x2x8x1xf32>, tensor<1x32x2x8x1xf32>) -> tensor<1x32x2x8x2xf32>
    %93 = stablehlo.reshape %92 : (tensor<1x32x2x8x2xf32>) -> tensor<1x32x2x16xf32>
    %94 = stablehlo.dot_general %14, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x32x64xf32>, tensor<64x32xf32>) -> tensor<1x32x32xf32>
    %95 = stablehlo.reshape %94 : (tensor<1x32x32xf32>) -> tensor<1x32x2x16xf32>
    %96 = stablehlo.broadcast_in_dim %93, dims = [0, 1, 2, 4] : (tensor<1x32x2x16xf32>) -> tensor<1x32x2x2x16xf32>
    %97 = stablehlo.reshape %96 : (tensor<1x32x2x2x16xf32>) -> tensor<1x32x4x16xf32>
    %98 = stablehlo.broadcast_in_dim %95, dims = [0, 1, 2, 4] : (tensor<1x32x2x16xf32>) -> tensor<1x32x2x2x16xf32>
    %99 = stablehlo.reshape %98 : (tensor<1x32x2x2x16xf32>) -> tensor<1x32x4x16xf32>
    %100 = stablehlo.dot_general %54, %97, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x32x4x16xf32>, tensor<1x32x4x16xf32>) -> tensor<1x4x32x32xf32>
    %cst_13 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %101 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<1x4x32x32xf32>
    %102 = stablehlo.multiply %100, %101 : tensor<1x4x32x32xf32>
    %103 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<32xi32>) -> tensor<32x1xi32>
    %104 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<32xi32>) -> tensor<1x32xi32>
    %105 = stablehlo.broadcast_in_dim %103, dims = [0, 1] : (tensor<32x1xi32>) -> tensor<32x32xi32>
    %106 = stablehlo.broadcast_in_dim %104, dims = [0, 1] : (tensor<1x32xi32>) -> tensor<32x32xi32>
    %107 = stablehlo.compare GE, %105, %106, SIGNED : (tensor<32x32xi32>, tensor<32x32xi32>) -> tensor<32x32xi1>
    %108 = stablehlo.broadcast_in_dim %107, dims = [2, 3] : (tensor<32x32xi1>) -> tensor<1x1x32x32xi1>
    %cst_14 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %109 = call @_where(%108, %102, %cst_14) : (tensor<1x1x32x32xi1>, tensor<1x4x32x32xf32>, tensor<f32>) -> tensor<1x4x32x32xf32>
    %cst_15 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %110 = stablehlo.reduce(%109 init: %cst_15) applies stablehlo.maximum across dimensions = [3] : (tensor<1x4x32x32xf32>, tensor<f32>) -> tensor<1x4x32xf32>
    %cst_16 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %111 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<1x4x32xf32>
    %112 = stablehlo.maximum %111, %110 : tensor<1x4x32xf32>
    %113 = stablehlo.broadcast_in_dim %112, dims = [0, 1, 2] : (tensor<1x4x32xf32>) -> tensor<1x4x32x1xf32>
    %114 = stablehlo.broadcast_in_dim %113, dims = [0, 1, 2, 3] : (tensor<1x4x32x1xf32>) -> tensor<1x4x32x32xf32>
    %115 = stablehlo.subtract %109, %114 : tensor<1x4x32x32xf32>
    %116 = stablehlo.exponential %115 : tensor<1x4x32x32xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %117 = stablehlo.reduce(%116 init: %cst_17) applies stablehlo.add across dimensions = [3] : (tensor<1x4x32x32xf32>, tensor<f32>) -> tensor<1x4x32xf32>
    %118 = stablehlo.broadcast_in_dim %117, dims = [0, 1, 2] : (tensor<1x4x32xf32>) -> tensor<1x4x32x1xf32>
    %119 = stablehlo.broadcast_in_dim %118, dims = [0, 1, 2, 3] : (tensor<1x4x32x1xf32>) -> tensor<1x4x32x32xf32>
    %120 = stablehlo.divide %116, %119 : tensor<1x4x32x32xf32>
    %121 = stablehlo.dot_general %99, %120, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x32x4x16xf32>, tensor<1x4x32x32xf32>) -> tensor<1x4x16x32xf32>
    %122 = stablehlo.transpose %121, dims = [0, 3, 1, 2] : (tensor<1x4x16x32xf32>) -> tensor<1x32x4x16xf32>
    %123 = stablehlo.reshape %122 : (tensor<1x32x4x16xf32>) -> tensor<1x32x64xf32>
    %124 = stablehlo.dot_general %123, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x32x64xf32>, tensor<64x64xf32>) -> tensor<1x32x64xf32>
    %125 = stablehlo.add %arg0, %124 : tensor<1x32x64xf32>
    %126 = stablehlo.multiply %125, %125 : tensor<1x32x64xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %127 = stablehlo.reduce(%126 init: %cst_18) applies stablehlo.add across dimensions = [2] : (tensor<1x32x64xf32>, tensor<f32>) -> tensor<1x32xf32>
    %128 = stablehlo.broadcast_in_dim %127, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<1x32x1xf32>
    %cst_19 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %129 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<1x32x1xf32>
    %130 = stablehlo.divide %128, %129 : tensor<1x32x1xf32>
    %cst_20 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %131 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<1x32x1xf32>
    %132 = stablehlo.add %130, %131 : tensor<1x32x1xf32>
    %133 = stablehlo.rsqrt %132 : tensor<1x32x1xf32>
    %134 = stablehlo.broadcast_in_dim %133, dims = [0, 1, 2] : (tensor<1x32x1xf32>) -> tensor<1x32x64xf32>
    %135 = stablehlo.multiply %125, %134 : tensor<1x32x64xf32>
    %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %137 = stablehlo.add %136, %arg2 : tensor<64xf32>
    %138 = stablehlo.broadcast_in_dim %137, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %139 = stablehlo.broadcast_in_dim %138, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<1x32x64xf32>
    %140 = stablehlo.multiply %135, %139 : tensor<1x32x64xf32>
    %141 = stablehlo.dot_general %140, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x32x64xf32>, tensor<64x128xf32>) -> tensor<1x32x128xf32>
    %142 = call @silu(%141) : (tensor<1x32x128xf32>) -> tensor<1x32x128xf32>
    %143 = stablehlo.dot_general %140, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x32x64xf32>, tensor<64x128xf32>) -> tensor<1x32x128xf32>
    %144 = stablehlo.multiply %142, %143 : tensor<1x32x128xf32>
    %145 = stablehlo.dot_general %144, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x32x128xf32>, tensor<128x64xf32>) -> tensor<1x32x64xf32>
    %146 = stablehlo.add %125, %145 : tensor<1x32x64xf32>
    return %146 : tensor<1x32x64xf32>
  }
  func.func private @_where(%arg0: tensor<1x1x32x32xi1>, %arg1: tensor<1x4x32x32xf32>, %arg2: tensor<f32>) -> tensor<1x4x32x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3] : (tensor<1x1x32x32xi1>) -> tensor<1x4x32x32xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x4x32x32xf32>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<1x4x32x32xi1>, tensor<1x4x32x32xf32>
    return %2 : tensor<1x4x32x32xf32>
  }
  func.func private @silu(%arg0: tensor<1x32x128xf32>) -> tensor<1x32x128xf32> {
    %0 = stablehlo.negate %arg0 : tensor<1x32x128xf32>
    %1 = stablehlo.exponential %0 : tensor<1x32x128xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x32x128xf32>
    %3 = stablehlo.add %2, %1 : tensor<1x32x128xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x32x128xf32>
    %5 = stablehlo.divide %4, %3 : tensor<1x32x128xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<1x32x128xf32>
    return %6 : tensor<1x32x128xf32>
  }
}
