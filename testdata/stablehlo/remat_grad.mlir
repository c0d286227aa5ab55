module @jit_remat_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x16xf32>) -> (tensor<8x16xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %1 = stablehlo.sine %0 : tensor<8x16xf32>
    %2 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %3 = stablehlo.dot_general %1, %2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %4 = stablehlo.dot_general %3, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %5 = stablehlo.sine %4 : tensor<8x16xf32>
    %6 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %7 = stablehlo.dot_general %5, %6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<8x16xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %10 = stablehlo.multiply %9, %7 : tensor<8x16xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%8 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %13 = stablehlo.multiply %12, %10 : tensor<8x16xf32>
    %14:3 = stablehlo.optimization_barrier %arg1, %3, %13 : tensor<16x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
    %15 = stablehlo.dot_general %14#1, %14#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %16 = stablehlo.cosine %15 : tensor<8x16xf32>
    %17 = stablehlo.transpose %14#0, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %18 = stablehlo.dot_general %14#2, %17, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %19 = stablehlo.multiply %18, %16 : tensor<8x16xf32>
    %20 = stablehlo.dot_general %19, %14#0, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %21:3 = stablehlo.optimization_barrier %arg1, %arg0, %20 : tensor<16x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
    %22 = stablehlo.dot_general %21#1, %21#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %23 = stablehlo.cosine %22 : tensor<8x16xf32>
    %24 = stablehlo.transpose %21#0, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %25 = stablehlo.dot_general %21#2, %24, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %26 = stablehlo.multiply %25, %23 : tensor<8x16xf32>
    %27 = stablehlo.dot_general %26, %21#0, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    return %27 : tensor<8x16xf32>
  }
}
