module @jit_train_step_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<10xf32>, %arg3: tensor<32x64xf32>, %arg4: tensor<64x64xf32>, %arg5: tensor<64x10xf32>, %arg6: tensor<16x32xf32>, %arg7: tensor<16xi32>) -> (tensor<64xf32> {jax.result_info = "result[0]['b0']"}, tensor<64xf32> {jax.result_info = "result[0]['b1']"}, tensor<10xf32> {jax.result_info = "result[0]['b2']"}, tensor<32x64xf32> {jax.result_info = "result[0]['w0']"}, tensor<64x64xf32> {jax.result_info = "result[0]['w1']"}, tensor<64x10xf32> {jax.result_info = "result[0]['w2']"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg6, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %3 = stablehlo.add %0, %2 : tensor<16x64xf32>
    %4 = call @relu(%3) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %8 = stablehlo.dot_general %4, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %9 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %11 = stablehlo.add %8, %10 : tensor<16x64xf32>
    %12 = call @relu(%11) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %14 = stablehlo.compare GT, %11, %13, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %16 = stablehlo.dot_general %12, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x10xf32>) -> tensor<16x10xf32>
    %17 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<10xf32>) -> tensor<1x10xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<16x10xf32>
    %19 = stablehlo.add %16, %18 : tensor<16x10xf32>
    %20:3 = call @log_softmax(%19) : (tensor<16x10xf32>) -> (tensor<16x10xf32>, tensor<16x10xf32>, tensor<16x1xf32>)
    %21 = stablehlo.broadcast_in_dim %arg7, dims = [0] : (tensor<16xi32>) -> tensor<16x1xi32>
    %22:2 = call @take_along_axis(%20#0, %21) : (tensor<16x10xf32>, tensor<16x1xi32>) -> (tensor<16x1xf32>, tensor<16x1x1xi32>)
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.reduce(%22#0 init: %cst_3) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x1xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %24 = stablehlo.divide %23, %cst_4 : tensor<f32>
    %25 = stablehlo.negate %24 : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %26 = stablehlo.negate %cst_5 : tensor<f32>
    %cst_6 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %27 = stablehlo.divide %26, %cst_6 : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %29 = call @take_along_axis_0(%22#1, %28) : (tensor<16x1x1xi32>, tensor<16x1xf32>) -> tensor<16x10xf32>
    %30 = call @log_softmax_1(%20#1, %20#2, %29) : (tensor<16x10xf32>, tensor<16x1xf32>, tensor<16x10xf32>) -> tensor<16x10xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.reduce(%30 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<16x10xf32>, tensor<f32>) -> tensor<10xf32>
    %32 = stablehlo.reshape %31 : (tensor<10xf32>) -> tensor<1x10xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.reduce(%32 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<1x10xf32>, tensor<f32>) -> tensor<10xf32>
    %34 = stablehlo.dot_general %30, %12, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x10xf32>, tensor<16x64xf32>) -> tensor<10x64xf32>
    %35 = stablehlo.transpose %34, dims = [1, 0] : (tensor<10x64xf32>) -> tensor<64x10xf32>
    %36 = stablehlo.dot_general %30, %arg5, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x10xf32>, tensor<64x10xf32>) -> tensor<16x64xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %38 = stablehlo.select %14, %36, %37 : tensor<16x64xi1>, tensor<16x64xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.reduce(%38 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %40 = stablehlo.reshape %39 : (tensor<64xf32>) -> tensor<1x64xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %41 = stablehlo.reduce(%40 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<1x64xf32>, tensor<f32>) -> tensor<64xf32>
    %42 = stablehlo.dot_general %38, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<64x64xf32>
    %43 = stablehlo.transpose %42, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
    %44 = stablehlo.dot_general %38, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %46 = stablehlo.select %6, %44, %45 : tensor<16x64xi1>, tensor<16x64xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %47 = stablehlo.reduce(%46 init: %cst_13) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %48 = stablehlo.reshape %47 : (tensor<64xf32>) -> tensor<1x64xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.reduce(%48 init: %cst_14) applies stablehlo.add across dimensions = [0] : (tensor<1x64xf32>, tensor<f32>) -> tensor<64xf32>
    %50 = stablehlo.dot_general %46, %arg6, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
    %51 = stablehlo.transpose %50, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %cst_15 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %53 = stablehlo.multiply %52, %49 : tensor<64xf32>
    %54 = stablehlo.subtract %arg0, %53 : tensor<64xf32>
    %cst_16 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %56 = stablehlo.multiply %55, %41 : tensor<64xf32>
    %57 = stablehlo.subtract %arg1, %56 : tensor<64xf32>
    %cst_17 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %59 = stablehlo.multiply %58, %33 : tensor<10xf32>
    %60 = stablehlo.subtract %arg2, %59 : tensor<10xf32>
    %cst_18 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %62 = stablehlo.multiply %61, %51 : tensor<32x64xf32>
    %63 = stablehlo.subtract %arg3, %62 : tensor<32x64xf32>
    %cst_19 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %65 = stablehlo.multiply %64, %43 : tensor<64x64xf32>
    %66 = stablehlo.subtract %arg4, %65 : tensor<64x64xf32>
    %cst_20 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<64x10xf32>
    %68 = stablehlo.multiply %67, %35 : tensor<64x10xf32>
    %69 = stablehlo.subtract %arg5, %68 : tensor<64x10xf32>
    return %54, %57, %60, %63, %66, %69, %25 : tensor<64xf32>, tensor<64xf32>, tensor<10xf32>, tensor<32x64xf32>, tensor<64x64xf32>, tensor<64x10xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x64xf32>
    return %1 : tensor<16x64xf32>
  }
  func.func private @log_softmax(%arg0: tensor<16x10xf32>) -> (tensor<16x10xf32>, tensor<16x10xf32>, tensor<16x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<16x10xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<16xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x10xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<16x10xf32>
    %6 = stablehlo.exponential %5 : tensor<16x10xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<16x10xf32>, tensor<f32>) -> tensor<16xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %9 = stablehlo.log %8 : tensor<16x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x10xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<16x10xf32>
    return %11, %6, %8 : tensor<16x10xf32>, tensor<16x10xf32>, tensor<16x1xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<16x10xf32>, %arg1: tensor<16x1xi32>) -> (tensor<16x1xf32>, tensor<16x1x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<16x1xi32>, tensor<16x1xi32>) -> tensor<16x1xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<16x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<16x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<16x1xi1>, tensor<16x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<16x1xi32>) -> tensor<16x1x1xi32>
    %c_1 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<16x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<16x1x1xi32>, tensor<16x1x1xi32>) -> tensor<16x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<16x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<16x1x1xi32>, tensor<16x1x1xi32>) -> tensor<16x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<16x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<16x1x1xi1>, tensor<i1>) -> tensor<16x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<16x10xf32>, tensor<16x1x1xi32>) -> tensor<16x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<16x1xi1>, tensor<16x1xf32>
    return %15, %5 : tensor<16x1xf32>, tensor<16x1x1xi32>
  }
  func.func private @take_along_axis_0(%arg0: tensor<16x1x1xi32>, %arg1: tensor<16x1xf32>) -> tensor<16x10xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x10xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<16x10xf32>, tensor<16x1x1xi32>, tensor<16x1xf32>) -> tensor<16x10xf32>
    return %1 : tensor<16x10xf32>
  }
  func.func private @log_softmax_1(%arg0: tensor<16x10xf32>, %arg1: tensor<16x1xf32>, %arg2: tensor<16x10xf32>) -> tensor<16x10xf32> {
    %0 = stablehlo.negate %arg2 : tensor<16x10xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<16x10xf32>, tensor<f32>) -> tensor<16xf32>
    %2 = stablehlo.reshape %1 : (tensor<16xf32>) -> tensor<16x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<16x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<16x1xf32>, tensor<f32>) -> tensor<16xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<16xf32>) -> tensor<16x10xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<16x10xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<16x10xf32>
    return %7 : tensor<16x10xf32>
  }
}
