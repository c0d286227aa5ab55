module @jit_int_bitops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xi32>, %arg1: tensor<8x16xi32>, %arg2: tensor<8x16xui8>, %arg3: tensor<8x16xi32>) -> (tensor<8x16xi32> {jax.result_info = "result[0]"}, tensor<8x16xi32> {jax.result_info = "result[1]"}, tensor<8x16xi32> {jax.result_info = "result[2]"}, tensor<8x16xi32> {jax.result_info = "result[3]"}, tensor<8x16xi32> {jax.result_info = "result[4]"}, tensor<8x16xi32> {jax.result_info = "result[5]"}, tensor<8x16xi32> {jax.result_info = "result[6]"}, tensor<8x16xi32> {jax.result_info = "result[7]"}, tensor<8x16xi32> {jax.result_info = "result[8]"}, tensor<8x16xi32> {jax.result_info = "result[9]"}, tensor<8x16xi32> {jax.result_info = "result[10]"}, tensor<8x16xi32> {jax.result_info = "result[11]"}, tensor<8x16xi32> {jax.result_info = "result[12]"}, tensor<8x16xi32> {jax.result_info = "result[13]"}, tensor<8x16xi32> {jax.result_info = "result[14]"}, tensor<8x16xi32> {jax.result_info = "result[15]"}, tensor<8x16xi32> {jax.result_info = "result[16]"}, tensor<8x16xi32> {jax.result_info = "result[17]"}, tensor<8x16xi32> {jax.result_info = "result[18]"}, tensor<8x16xi32> {jax.result_info = "result[19]"}, tensor<8x16xi32> {jax.result_info = "result[20]"}, tensor<8x16xui8> {jax.result_info = "result[21]"}, tensor<8x16xui8> {jax.result_info = "result[22]"}, tensor<8x16xui8> {jax.result_info = "result[23]"}, tensor<8x16xui8> {jax.result_info = "result[24]"}, tensor<8x16xui32> {jax.result_info = "result[25]"}, tensor<8x16xui32> {jax.result_info = "result[26]"}, tensor<i32> {jax.result_info = "result[27]"}, tensor<8x16xi32> {jax.result_info = "result[28]"}, tensor<8x16xi32> {jax.result_info = "result[29]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %1 = stablehlo.compare EQ, %arg1, %0, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %arg1) : (tensor<8x16xi1>, tensor<i32>, tensor<8x16xi32>) -> tensor<8x16xi32>
    %3 = stablehlo.add %arg0, %arg1 : tensor<8x16xi32>
    %4 = stablehlo.subtract %arg0, %arg1 : tensor<8x16xi32>
    %5 = stablehlo.multiply %arg0, %arg1 : tensor<8x16xi32>
    %6 = call @floor_divide(%arg0, %2) : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi32>
    %7 = call @remainder(%arg0, %2) : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi32>
    %8 = stablehlo.divide %arg0, %2 : tensor<8x16xi32>
    %9 = stablehlo.remainder %arg0, %2 : tensor<8x16xi32>
    %c_1 = stablehlo.constant dense<7> : tensor<i32>
    %10 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %11 = stablehlo.and %arg3, %10 : tensor<8x16xi32>
    %12 = stablehlo.shift_left %arg0, %11 : tensor<8x16xi32>
    %c_2 = stablehlo.constant dense<7> : tensor<i32>
    %13 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %14 = stablehlo.and %arg3, %13 : tensor<8x16xi32>
    %15 = stablehlo.shift_right_arithmetic %arg0, %14 : tensor<8x16xi32>
    %c_3 = stablehlo.constant dense<7> : tensor<i32>
    %16 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %17 = stablehlo.and %arg3, %16 : tensor<8x16xi32>
    %18 = stablehlo.shift_right_logical %arg0, %17 : tensor<8x16xi32>
    %19 = stablehlo.and %arg0, %arg1 : tensor<8x16xi32>
    %20 = stablehlo.or %arg0, %arg1 : tensor<8x16xi32>
    %21 = stablehlo.xor %arg0, %arg1 : tensor<8x16xi32>
    %22 = stablehlo.not %arg0 : tensor<8x16xi32>
    %23 = stablehlo.popcnt %arg0 : tensor<8x16xi32>
    %24 = stablehlo.count_leading_zeros %arg0 : tensor<8x16xi32>
    %25 = stablehlo.maximum %arg0, %arg1 : tensor<8x16xi32>
    %26 = stablehlo.minimum %arg0, %arg1 : tensor<8x16xi32>
    %27 = stablehlo.abs %arg0 : tensor<8x16xi32>
    %28 = stablehlo.sign %arg0 : tensor<8x16xi32>
    %29 = stablehlo.negate %arg0 : tensor<8x16xi32>
    %30 = stablehlo.add %arg2, %arg2 : tensor<8x16xui8>
    %c_4 = stablehlo.constant dense<3> : tensor<ui8>
    %31 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<ui8>) -> tensor<8x16xui8>
    %32 = stablehlo.multiply %arg2, %31 : tensor<8x16xui8>
    %c_5 = stablehlo.constant dense<2> : tensor<ui8>
    %33 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui8>) -> tensor<8x16xui8>
    %34 = stablehlo.shift_right_logical %arg2, %33 : tensor<8x16xui8>
    %c_6 = stablehlo.constant dense<165> : tensor<ui8>
    %35 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui8>) -> tensor<8x16xui8>
    %36 = stablehlo.xor %arg2, %35 : tensor<8x16xui8>
    %37 = stablehlo.convert %arg2 : (tensor<8x16xui8>) -> tensor<8x16xui32>
    %c_7 = stablehlo.constant dense<2654435761> : tensor<ui32>
    %38 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui32>) -> tensor<8x16xui32>
    %39 = stablehlo.multiply %37, %38 : tensor<8x16xui32>
    %c_8 = stablehlo.constant dense<7> : tensor<ui32>
    %40 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<ui32>) -> tensor<8x16xui32>
    %41 = stablehlo.shift_right_logical %39, %40 : tensor<8x16xui32>
    %42 = stablehlo.convert %arg2 : (tensor<8x16xui8>) -> tensor<8x16xui32>
    %c_9 = stablehlo.constant dense<4294967295> : tensor<ui32>
    %43 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<ui32>) -> tensor<8x16xui32>
    %44 = stablehlo.subtract %43, %42 : tensor<8x16xui32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %45 = stablehlo.reduce(%arg0 init: %c_10) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16xi32>, tensor<i32>) -> tensor<i32>
    %46 = stablehlo.multiply %arg0, %arg0 : tensor<8x16xi32>
    %47 = stablehlo.multiply %46, %arg0 : tensor<8x16xi32>
    %48 = stablehlo.multiply %arg1, %arg1 : tensor<8x16xi32>
    return %3, %4, %5, %6, %7, %8, %9, %12, %15, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %32, %34, %36, %41, %44, %45, %47, %48 : tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xui8>, tensor<8x16xui8>, tensor<8x16xui8>, tensor<8x16xui8>, tensor<8x16xui32>, tensor<8x16xui32>, tensor<i32>, tensor<8x16xi32>, tensor<8x16xi32>
  }
  func.func private @_where(%arg0: tensor<8x16xi1>, %arg1: tensor<i32>, %arg2: tensor<8x16xi32>) -> tensor<8x16xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<8x16xi1>, tensor<8x16xi32>
    return %2 : tensor<8x16xi32>
  }
  func.func private @floor_divide(%arg0: tensor<8x16xi32>, %arg1: tensor<8x16xi32>) -> tensor<8x16xi32> {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<8x16xi32>
    %1 = stablehlo.sign %arg0 : tensor<8x16xi32>
    %2 = stablehlo.sign %arg1 : tensor<8x16xi32>
    %3 = stablehlo.compare NE, %1, %2, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<8x16xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
    %7 = stablehlo.and %3, %6 : tensor<8x16xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %9 = stablehlo.subtract %0, %8 : tensor<8x16xi32>
    %10 = call @_where_0(%7, %9, %0) : (tensor<8x16xi1>, tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi32>
    return %10 : tensor<8x16xi32>
  }
  func.func private @_where_0(%arg0: tensor<8x16xi1>, %arg1: tensor<8x16xi32>, %arg2: tensor<8x16xi32>) -> tensor<8x16xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8x16xi1>, tensor<8x16xi32>
    return %0 : tensor<8x16xi32>
  }
  func.func private @remainder(%arg0: tensor<8x16xi32>, %arg1: tensor<8x16xi32>) -> tensor<8x16xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %1 = stablehlo.compare EQ, %arg1, %0, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %3 = call @_where_0(%1, %2, %arg1) : (tensor<8x16xi1>, tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<8x16xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<8x16xi1>, tensor<8x16xi1>) -> tensor<8x16xi1>
    %12 = stablehlo.and %11, %6 : tensor<8x16xi1>
    %13 = stablehlo.add %4, %3 : tensor<8x16xi32>
    %14 = stablehlo.select %12, %13, %4 : tensor<8x16xi1>, tensor<8x16xi32>
    return %14 : tensor<8x16xi32>
  }
}
