module @jit_x_ops_misc attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>, %arg1: tensor<4x6xf32>, %arg2: tensor<4x6xi32>) -> (tensor<4x6xf32> {jax.result_info = "result[0]"}, tensor<4x6xf32> {jax.result_info = "result[1]"}, tensor<4x6xi1> {jax.result_info = "result[2]"}, tensor<4x6xf32> {jax.result_info = "result[3]"}, tensor<4x6xf32> {jax.result_info = "result[4]"}, tensor<1x4x6xf32> {jax.result_info = "result[5]"}, tensor<4x6xf32> {jax.result_info = "result[6]"}, tensor<4x6xf32> {jax.result_info = "result[7]"}, tensor<4x6xf32> {jax.result_info = "result[8]"}, tensor<4x6xf32> {jax.result_info = "result[9]"}, tensor<4x6xf32> {jax.result_info = "result[10]"}, tensor<4x6xi32> {jax.result_info = "result[11]"}, tensor<4x6xi32> {jax.result_info = "result[12]"}, tensor<4x6xi32> {jax.result_info = "result[13]"}, tensor<4x6xi32> {jax.result_info = "result[14]"}, tensor<4x6xi32> {jax.result_info = "result[15]"}, tensor<4x6xf32> {jax.result_info = "result[16]"}, tensor<4x6xf32> {jax.result_info = "result[17]"}, tensor<6xi32> {jax.result_info = "result[18]"}, tensor<4x6xf32> {jax.result_info = "result[19]"}, tensor<4x4xf32> {jax.result_info = "result[20]"}, tensor<4x6xf32> {jax.result_info = "result[21]"}, tensor<4x6xf32> {jax.result_info = "result[22]"}, tensor<4x6xf32> {jax.result_info = "result[23]"}, tensor<4x6xf32> {jax.result_info = "result[24]"}, tensor<4x6xf32> {jax.result_info = "result[25]"}, tensor<4x6xf32> {jax.result_info = "result[26]"}, tensor<4x6xf32> {jax.result_info = "result[27]"}, tensor<4x6xf32> {jax.result_info = "result[28]"}, tensor<4x6xf32> {jax.result_info = "result[29]"}) {
    %0 = stablehlo.complex %arg0, %arg1 : tensor<4x6xcomplex<f32>>
    %1 = stablehlo.atan2 %arg0, %arg1 : tensor<4x6xf32>
    %2 = chlo.next_after %arg0, %arg1 : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
    %3 = stablehlo.is_finite %arg0 : (tensor<4x6xf32>) -> tensor<4x6xi1>
    %cst = stablehlo.constant dense<0.693147182> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %5 = stablehlo.multiply %4, %arg0 : tensor<4x6xf32>
    %6 = stablehlo.exponential %5 : tensor<4x6xf32>
    %7 = stablehlo.reduce_precision %arg0, format = e8m7 : tensor<4x6xf32>
    %8 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<4x6xf32>) -> tensor<1x4x6xf32>
    %9 = stablehlo.reverse %arg0, dims = [1] : tensor<4x6xf32>
    %10 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %51 = stablehlo.compare EQ, %arg3, %cst_9, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %52 = stablehlo.select %51, %cst_10, %arg3 : tensor<i1>, tensor<f32>
      %53 = stablehlo.compare NE, %arg3, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_11 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %54 = stablehlo.select %53, %cst_11, %52 : tensor<i1>, tensor<f32>
      %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %55 = stablehlo.compare EQ, %arg4, %cst_12, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %56 = stablehlo.select %55, %cst_13, %arg4 : tensor<i1>, tensor<f32>
      %57 = stablehlo.compare NE, %arg4, %arg4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_14 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %58 = stablehlo.select %57, %cst_14, %56 : tensor<i1>, tensor<f32>
      %59 = stablehlo.compare LT, %54, %58, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %59 : tensor<i1>
    }) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %11 = stablehlo.abs %0 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %12 = stablehlo.real %0 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %13 = stablehlo.imag %0 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %15 = stablehlo.shift_right_arithmetic %arg2, %14 : tensor<4x6xi32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %16 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %17 = stablehlo.shift_left %arg2, %16 : tensor<4x6xi32>
    %18 = stablehlo.popcnt %arg2 : tensor<4x6xi32>
    %19 = stablehlo.count_leading_zeros %arg2 : tensor<4x6xi32>
    %20 = stablehlo.not %arg2 : tensor<4x6xi32>
    %21 = stablehlo.convert %arg2 : (tensor<4x6xi32>) -> tensor<4x6xf32>
    %c_1 = stablehlo.constant dense<3> : tensor<i32>
    %22 = call @remainder(%arg2, %c_1) : (tensor<4x6xi32>, tensor<i32>) -> tensor<4x6xi32>
    %23 = stablehlo.multiply %arg0, %arg1 : tensor<4x6xf32>
    %c_2 = stablehlo.constant dense<1> : tensor<i32>
    %24 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %25 = stablehlo.compare LT, %22, %24, SIGNED : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %c_3 = stablehlo.constant dense<2> : tensor<i32>
    %26 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %27 = stablehlo.compare LT, %22, %26, SIGNED : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %28 = stablehlo.select %27, %arg1, %23 : tensor<4x6xi1>, tensor<4x6xf32>
    %29 = stablehlo.select %25, %arg0, %28 : tensor<4x6xi1>, tensor<4x6xf32>
    %30 = call @argmax(%arg0) : (tensor<4x6xf32>) -> tensor<6xi32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<f32>
    %32 = "stablehlo.reduce_window"(%arg0, %31) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 1], [0, 1]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %51 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %51 : tensor<f32>
    }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %33 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1], precision = [HIGHEST, HIGHEST] : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x4xf32>
    %34:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<4x6xf32>, tensor<4x6xf32>
    %35 = stablehlo.cbrt %arg0 : tensor<4x6xf32>
    %36 = stablehlo.negate %arg0 : tensor<4x6xf32>
    %37 = stablehlo.exponential %36 : tensor<4x6xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %39 = stablehlo.add %38, %37 : tensor<4x6xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %41 = stablehlo.divide %40, %39 : tensor<4x6xf32>
    %42 = call @round(%arg0) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %43 = stablehlo.round_nearest_even %arg0 : tensor<4x6xf32>
    %44 = stablehlo.sign %arg0 : tensor<4x6xf32>
    %cst_7 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %46 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %47 = stablehlo.clamp %45, %arg0, %46 : tensor<4x6xf32>
    %48 = stablehlo.remainder %arg0, %arg1 : tensor<4x6xf32>
    %49 = stablehlo.abs %arg0 : tensor<4x6xf32>
    %50 = stablehlo.power %49, %arg1 : tensor<4x6xf32>
    return %1, %2, %3, %6, %7, %8, %9, %10, %11, %12, %13, %15, %17, %18, %19, %20, %21, %29, %30, %32, %33, %34#0, %35, %41, %42, %43, %44, %47, %48, %50 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xi1>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<1x4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<6xi32>, tensor<4x6xf32>, tensor<4x4xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
  }
  func.func private @remainder(%arg0: tensor<4x6xi32>, %arg1: tensor<i32>) -> tensor<4x6xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<4x6xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<4x6xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<4x6xi1>, tensor<4x6xi1>) -> tensor<4x6xi1>
    %12 = stablehlo.and %11, %6 : tensor<4x6xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %14 = stablehlo.add %4, %13 : tensor<4x6xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<4x6xi1>, tensor<4x6xi32>
    return %15 : tensor<4x6xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @argmax(%arg0: tensor<4x6xf32>) -> tensor<6xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<4x6xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0] : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<6xf32>, tensor<6xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<6xi32>
  }
  func.func private @round(%arg0: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<4x6xf32>
    return %0 : tensor<4x6xf32>
  }
}
