module @jit_float64_ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf64>, %arg1: tensor<16xi64>) -> (tensor<8x8xf64> {jax.result_info = "result[0]"}, tensor<f64> {jax.result_info = "result[1]"}, tensor<16xi64> {jax.result_info = "result[2]"}, tensor<16xi32> {jax.result_info = "result[3]"}, tensor<8x8xf32> {jax.result_info = "result[4]"}, tensor<16xui64> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.exponential %arg0 : tensor<8x8xf64>
    %cst = stablehlo.constant dense<1.000000e-03> : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<8x8xf64>
    %2 = stablehlo.multiply %0, %1 : tensor<8x8xf64>
    %3 = stablehlo.abs %arg0 : tensor<8x8xf64>
    %4 = stablehlo.sqrt %3 : tensor<8x8xf64>
    %5 = stablehlo.add %2, %4 : tensor<8x8xf64>
    %c = stablehlo.constant dense<1000000007> : tensor<i64>
    %6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<16xi64>
    %7 = stablehlo.multiply %arg1, %6 : tensor<16xi64>
    %c_0 = stablehlo.constant dense<3> : tensor<i64>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<16xi64>
    %9 = stablehlo.shift_right_arithmetic %arg1, %8 : tensor<16xi64>
    %10 = stablehlo.add %7, %9 : tensor<16xi64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %11 = stablehlo.reduce(%5 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x8xf64>, tensor<f64>) -> tensor<f64>
    %c_2 = stablehlo.constant dense<97> : tensor<i64>
    %12 = call @remainder(%10, %c_2) : (tensor<16xi64>, tensor<i64>) -> tensor<16xi64>
    %13 = stablehlo.convert %12 : (tensor<16xi64>) -> tensor<16xi32>
    %14 = stablehlo.convert %arg0 : (tensor<8x8xf64>) -> tensor<8x8xf32>
    %15 = stablehlo.convert %arg1 : (tensor<16xi64>) -> tensor<16xui64>
    %c_3 = stablehlo.constant dense<33> : tensor<ui64>
    %16 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui64>) -> tensor<16xui64>
    %17 = stablehlo.shift_left %15, %16 : tensor<16xui64>
    return %5, %11, %10, %13, %14, %17 : tensor<8x8xf64>, tensor<f64>, tensor<16xi64>, tensor<16xi32>, tensor<8x8xf32>, tensor<16xui64>
  }
  func.func private @remainder(%arg0: tensor<16xi64>, %arg1: tensor<i64>) -> tensor<16xi64> {
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i64>) -> tensor<16xi64>
    %4 = stablehlo.remainder %arg0, %3 : tensor<16xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<16xi64>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<16xi64>, tensor<16xi64>) -> tensor<16xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<16xi64>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<16xi64>, tensor<16xi64>) -> tensor<16xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<16xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<16xi1>, tensor<16xi1>) -> tensor<16xi1>
    %12 = stablehlo.and %11, %6 : tensor<16xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i64>) -> tensor<16xi64>
    %14 = stablehlo.add %4, %13 : tensor<16xi64>
    %15 = stablehlo.select %12, %14, %4 : tensor<16xi1>, tensor<16xi64>
    return %15 : tensor<16xi64>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<i64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i64>
    return %0 : tensor<i64>
  }
}
