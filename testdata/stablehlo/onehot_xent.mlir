module @jit_onehot_xent attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x10xf32>, %arg1: tensor<32xi32>, %arg2: tensor<6xi32>, %arg3: tensor<6xi32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}, tensor<6x10xf32> {jax.result_info = "result[3]"}) {
    %0 = call @_one_hot(%arg1) : (tensor<32xi32>) -> tensor<32x10xf32>
    %1 = call @log_softmax(%arg0) : (tensor<32x10xf32>) -> tensor<32x10xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<32x10xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<32x10xf32>, tensor<f32>) -> tensor<32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<32xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %5 = stablehlo.divide %4, %cst_1 : tensor<f32>
    %6 = stablehlo.negate %5 : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<32xi32>) -> tensor<32x1xi32>
    %8 = call @take_along_axis(%1, %7) : (tensor<32x10xf32>, tensor<32x1xi32>) -> tensor<32x1xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%8 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x1xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %10 = stablehlo.divide %9, %cst_3 : tensor<f32>
    %11 = stablehlo.negate %10 : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %13 = stablehlo.compare LT, %arg2, %12, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_4 = stablehlo.constant dense<32> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %15 = stablehlo.add %arg2, %14 : tensor<6xi32>
    %16 = stablehlo.select %13, %15, %arg2 : tensor<6xi1>, tensor<6xi32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %17 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %18 = stablehlo.compare LT, %arg3, %17, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_6 = stablehlo.constant dense<10> : tensor<i32>
    %19 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %20 = stablehlo.add %arg3, %19 : tensor<6xi32>
    %21 = stablehlo.select %18, %20, %arg3 : tensor<6xi1>, tensor<6xi32>
    %22 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %23 = stablehlo.broadcast_in_dim %21, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %24 = stablehlo.concatenate %22, %23, dim = 1 : (tensor<6x1xi32>, tensor<6x1xi32>) -> tensor<6x2xi32>
    %25 = "stablehlo.gather"(%arg0, %24) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<32x10xf32>, tensor<6x2xi32>) -> tensor<6xf32>
    %26 = stablehlo.reverse %arg0, dims = [1] : tensor<32x10xf32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %27 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %28 = stablehlo.compare LT, %arg2, %27, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_8 = stablehlo.constant dense<32> : tensor<i32>
    %29 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %30 = stablehlo.add %arg2, %29 : tensor<6xi32>
    %31 = stablehlo.select %28, %30, %arg2 : tensor<6xi1>, tensor<6xi32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %33 = "stablehlo.gather"(%26, %32) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 10>}> : (tensor<32x10xf32>, tensor<6x1xi32>) -> tensor<6x10xf32>
    return %6, %11, %25, %33 : tensor<f32>, tensor<f32>, tensor<6xf32>, tensor<6x10xf32>
  }
  func.func private @_one_hot(%arg0: tensor<32xi32>) -> tensor<32x10xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<32xi32>) -> tensor<32x1xi32>
    %1 = stablehlo.iota dim = 1 : tensor<1x10xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<32x1xi32>) -> tensor<32x10xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x10xi32>) -> tensor<32x10xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<32x10xi32>, tensor<32x10xi32>) -> tensor<32x10xi1>
    %5 = stablehlo.convert %4 : (tensor<32x10xi1>) -> tensor<32x10xf32>
    return %5 : tensor<32x10xf32>
  }
  func.func private @log_softmax(%arg0: tensor<32x10xf32>) -> tensor<32x10xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<32x10xf32>, tensor<f32>) -> tensor<32xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<32xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<32xf32>) -> tensor<32x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x10xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<32x10xf32>
    %6 = stablehlo.exponential %5 : tensor<32x10xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<32x10xf32>, tensor<f32>) -> tensor<32xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<32xf32>) -> tensor<32x1xf32>
    %9 = stablehlo.log %8 : tensor<32x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x10xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<32x10xf32>
    return %11 : tensor<32x10xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<32x10xf32>, %arg1: tensor<32x1xi32>) -> tensor<32x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<32x1xi32>, tensor<32x1xi32>) -> tensor<32x1xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<32x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<32x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<32x1xi1>, tensor<32x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<32x1xi32>) -> tensor<32x1x1xi32>
    %c_1 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<32x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<32x1x1xi32>, tensor<32x1x1xi32>) -> tensor<32x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<32x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<32x1x1xi32>, tensor<32x1x1xi32>) -> tensor<32x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<32x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<32x1x1xi1>, tensor<i1>) -> tensor<32x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<32x10xf32>, tensor<32x1x1xi32>) -> tensor<32x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<32x1xi1>, tensor<32x1xf32>
    return %15 : tensor<32x1xf32>
  }
}
