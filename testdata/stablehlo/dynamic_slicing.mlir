module @jit_dynamic_slicing attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<4x4xf32>) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<16x32xf32> {jax.result_info = "result[1]"}, tensor<32xf32> {jax.result_info = "result[2]"}, tensor<16x3xf32> {jax.result_info = "result[3]"}, tensor<4x8xf32> {jax.result_info = "result[4]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<16> : tensor<i32>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg1 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.compare LT, %arg2, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<32> : tensor<i32>
    %4 = stablehlo.add %arg2, %c_2 : tensor<i32>
    %5 = stablehlo.select %3, %4, %arg2 : tensor<i1>, tensor<i32>
    %6 = stablehlo.dynamic_slice %arg0, %2, %5, sizes = [4, 8] : (tensor<16x32xf32>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.compare LT, %arg2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_4 = stablehlo.constant dense<16> : tensor<i32>
    %8 = stablehlo.add %arg2, %c_4 : tensor<i32>
    %9 = stablehlo.select %7, %8, %arg2 : tensor<i1>, tensor<i32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %10 = stablehlo.compare LT, %arg1, %c_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_6 = stablehlo.constant dense<32> : tensor<i32>
    %11 = stablehlo.add %arg1, %c_6 : tensor<i32>
    %12 = stablehlo.select %10, %11, %arg1 : tensor<i1>, tensor<i32>
    %13 = stablehlo.dynamic_update_slice %arg0, %arg3, %9, %12 : (tensor<16x32xf32>, tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<16x32xf32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %14 = stablehlo.compare LT, %arg1, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_8 = stablehlo.constant dense<16> : tensor<i32>
    %15 = stablehlo.add %arg1, %c_8 : tensor<i32>
    %16 = stablehlo.select %14, %15, %arg1 : tensor<i1>, tensor<i32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %17 = stablehlo.compare LT, %c_9, %c_10, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %c_12 = stablehlo.constant dense<32> : tensor<i32>
    %18 = stablehlo.add %c_11, %c_12 : tensor<i32>
    %c_13 = stablehlo.constant dense<0> : tensor<i32>
    %19 = stablehlo.select %17, %18, %c_13 : tensor<i1>, tensor<i32>
    %20 = stablehlo.dynamic_slice %arg0, %16, %19, sizes = [1, 32] : (tensor<16x32xf32>, tensor<i32>, tensor<i32>) -> tensor<1x32xf32>
    %21 = stablehlo.reshape %20 : (tensor<1x32xf32>) -> tensor<32xf32>
    %c_14 = stablehlo.constant dense<2> : tensor<i32>
    %22 = stablehlo.multiply %arg1, %c_14 : tensor<i32>
    %c_15 = stablehlo.constant dense<0> : tensor<i32>
    %23 = stablehlo.compare LT, %22, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_16 = stablehlo.constant dense<32> : tensor<i32>
    %24 = stablehlo.add %22, %c_16 : tensor<i32>
    %25 = stablehlo.select %23, %24, %22 : tensor<i1>, tensor<i32>
    %c_17 = stablehlo.constant dense<0> : tensor<i32>
    %26 = stablehlo.dynamic_slice %arg0, %c_17, %25, sizes = [16, 3] : (tensor<16x32xf32>, tensor<i32>, tensor<i32>) -> tensor<16x3xf32>
    %c_18 = stablehlo.constant dense<30> : tensor<i32>
    %27 = stablehlo.add %arg1, %c_18 : tensor<i32>
    %c_19 = stablehlo.constant dense<0> : tensor<i32>
    %28 = stablehlo.compare LT, %27, %c_19, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_20 = stablehlo.constant dense<16> : tensor<i32>
    %29 = stablehlo.add %27, %c_20 : tensor<i32>
    %30 = stablehlo.select %28, %29, %27 : tensor<i1>, tensor<i32>
    %c_21 = stablehlo.constant dense<0> : tensor<i32>
    %31 = stablehlo.compare LT, %arg2, %c_21, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_22 = stablehlo.constant dense<32> : tensor<i32>
    %32 = stablehlo.add %arg2, %c_22 : tensor<i32>
    %33 = stablehlo.select %31, %32, %arg2 : tensor<i1>, tensor<i32>
    %34 = stablehlo.dynamic_slice %arg0, %30, %33, sizes = [4, 8] : (tensor<16x32xf32>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
    return %6, %13, %21, %26, %34 : tensor<4x8xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<16x3xf32>, tensor<4x8xf32>
  }
}
