module @jit_scatter_ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<20x8xf32>, %arg1: tensor<12xi32>, %arg2: tensor<12x8xf32>, %arg3: tensor<40x4xf32>, %arg4: tensor<40xi32>) -> (tensor<20x8xf32> {jax.result_info = "result[0]"}, tensor<20x8xf32> {jax.result_info = "result[1]"}, tensor<20x8xf32> {jax.result_info = "result[2]"}, tensor<20x8xf32> {jax.result_info = "result[3]"}, tensor<8x4xf32> {jax.result_info = "result[4]"}, tensor<10xi32> {jax.result_info = "result[5]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %c_0 = stablehlo.constant dense<20> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<12xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<12xi1>, tensor<12xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %6 = "stablehlo.scatter"(%arg0, %5, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %46 = stablehlo.add %arg5, %arg6 : tensor<f32>
      stablehlo.return %46 : tensor<f32>
    }) : (tensor<20x8xf32>, tensor<12x1xi32>, tensor<12x8xf32>) -> tensor<20x8xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %8 = stablehlo.compare LT, %arg1, %7, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %c_2 = stablehlo.constant dense<20> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %10 = stablehlo.add %arg1, %9 : tensor<12xi32>
    %11 = stablehlo.select %8, %10, %arg1 : tensor<12xi1>, tensor<12xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %13 = "stablehlo.scatter"(%arg0, %12, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      stablehlo.return %arg6 : tensor<f32>
    }) : (tensor<20x8xf32>, tensor<12x1xi32>, tensor<12x8xf32>) -> tensor<20x8xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %15 = stablehlo.compare LT, %arg1, %14, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %c_4 = stablehlo.constant dense<20> : tensor<i32>
    %16 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %17 = stablehlo.add %arg1, %16 : tensor<12xi32>
    %18 = stablehlo.select %15, %17, %arg1 : tensor<12xi1>, tensor<12xi32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %20 = "stablehlo.scatter"(%arg0, %19, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %46 = stablehlo.maximum %arg5, %arg6 : tensor<f32>
      stablehlo.return %46 : tensor<f32>
    }) : (tensor<20x8xf32>, tensor<12x1xi32>, tensor<12x8xf32>) -> tensor<20x8xf32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %21 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %22 = stablehlo.compare LT, %arg1, %21, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %c_6 = stablehlo.constant dense<20> : tensor<i32>
    %23 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %24 = stablehlo.add %arg1, %23 : tensor<12xi32>
    %25 = stablehlo.select %22, %24, %arg1 : tensor<12xi1>, tensor<12xi32>
    %c_7 = stablehlo.constant dense<2> : tensor<i32>
    %26 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %27 = stablehlo.convert %26 : tensor<12xi32>
    %28 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %29 = stablehlo.broadcast_in_dim %27, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %30 = stablehlo.concatenate %28, %29, dim = 1 : (tensor<12x1xi32>, tensor<12x1xi32>) -> tensor<12x2xi32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %32 = "stablehlo.scatter"(%arg0, %30, %31) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %46 = stablehlo.multiply %arg5, %arg6 : tensor<f32>
      stablehlo.return %46 : tensor<f32>
    }) : (tensor<20x8xf32>, tensor<12x2xi32>, tensor<12xf32>) -> tensor<20x8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %34 = stablehlo.broadcast_in_dim %arg4, dims = [0] : (tensor<40xi32>) -> tensor<40x1xi32>
    %35 = "stablehlo.scatter"(%33, %34, %arg3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %46 = stablehlo.add %arg5, %arg6 : tensor<f32>
      stablehlo.return %46 : tensor<f32>
    }) : (tensor<8x4xf32>, tensor<40x1xi32>, tensor<40x4xf32>) -> tensor<8x4xf32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %36 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %c_10 = stablehlo.constant dense<10> : tensor<i32>
    %37 = call @remainder(%arg4, %c_10) : (tensor<40xi32>, tensor<i32>) -> tensor<40xi32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %38 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<40xi32>
    %39 = stablehlo.compare LT, %37, %38, SIGNED : (tensor<40xi32>, tensor<40xi32>) -> tensor<40xi1>
    %c_12 = stablehlo.constant dense<10> : tensor<i32>
    %40 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<40xi32>
    %41 = stablehlo.add %37, %40 : tensor<40xi32>
    %42 = stablehlo.select %39, %41, %37 : tensor<40xi1>, tensor<40xi32>
    %43 = stablehlo.broadcast_in_dim %42, dims = [0] : (tensor<40xi32>) -> tensor<40x1xi32>
    %c_13 = stablehlo.constant dense<1> : tensor<i32>
    %44 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<40xi32>
    %45 = "stablehlo.scatter"(%36, %43, %44) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<i32>, %arg6: tensor<i32>):
      %46 = stablehlo.add %arg5, %arg6 : tensor<i32>
      stablehlo.return %46 : tensor<i32>
    }) : (tensor<10xi32>, tensor<40x1xi32>, tensor<40xi32>) -> tensor<10xi32>
    return %6, %13, %20, %32, %35, %45 : tensor<20x8xf32>, tensor<20x8xf32>, tensor<20x8xf32>, tensor<20x8xf32>, tensor<8x4xf32>, tensor<10xi32>
  }
  func.func private @remainder(%arg0: tensor<40xi32>, %arg1: tensor<i32>) -> tensor<40xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<40xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<40xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<40xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<40xi32>, tensor<40xi32>) -> tensor<40xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<40xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<40xi32>, tensor<40xi32>) -> tensor<40xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<40xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<40xi1>, tensor<40xi1>) -> tensor<40xi1>
    %12 = stablehlo.and %11, %6 : tensor<40xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<40xi32>
    %14 = stablehlo.add %4, %13 : tensor<40xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<40xi1>, tensor<40xi32>
    return %15 : tensor<40xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
