module @jit_iota_masks attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12x12xf32>) -> (tensor<12xi32> {jax.result_info = "result[0]"}, tensor<12xf32> {jax.result_info = "result[1]"}, tensor<12x12xf32> {jax.result_info = "result[2]"}, tensor<12x12xf32> {jax.result_info = "result[3]"}, tensor<12x12xf32> {jax.result_info = "result[4]"}, tensor<4x6xi32> {jax.result_info = "result[5]"}, tensor<11xf32> {jax.result_info = "result[6]"}, tensor<12x12xf32> {jax.result_info = "result[7]"}) {
    %0 = stablehlo.iota dim = 0 : tensor<12xi32>
    %1 = stablehlo.iota dim = 0 : tensor<12xf32>
    %cst = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<12xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %5 = stablehlo.add %4, %3 : tensor<12xf32>
    %6 = call @tril(%arg0) : (tensor<12x12xf32>) -> tensor<12x12xf32>
    %7 = call @triu(%arg0) : (tensor<12x12xf32>) -> tensor<12x12xf32>
    %8 = stablehlo.iota dim = 0 : tensor<12x12xi32>
    %9 = stablehlo.iota dim = 1 : tensor<12x12xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %10 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<12x12xi32>
    %11 = stablehlo.add %8, %10 : tensor<12x12xi32>
    %12 = stablehlo.compare EQ, %11, %9, SIGNED : (tensor<12x12xi32>, tensor<12x12xi32>) -> tensor<12x12xi1>
    %13 = stablehlo.convert %12 : (tensor<12x12xi1>) -> tensor<12x12xf32>
    %14 = stablehlo.multiply %13, %arg0 : tensor<12x12xf32>
    %15 = stablehlo.iota dim = 1 : tensor<4x6xi32>
    %cst_1 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %16 = call @_linspace(%cst_1, %cst_2) : (tensor<f32>, tensor<f32>) -> tensor<11xf32>
    %17 = stablehlo.iota dim = 0 : tensor<12xi32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %c_3 = stablehlo.constant dense<2> : tensor<i32>
    %19 = call @remainder(%18, %c_3) : (tensor<12x1xi32>, tensor<i32>) -> tensor<12x1xi32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %20 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<12x1xi32>
    %21 = stablehlo.compare EQ, %19, %20, SIGNED : (tensor<12x1xi32>, tensor<12x1xi32>) -> tensor<12x1xi1>
    %22 = stablehlo.convert %21 : (tensor<12x1xi1>) -> tensor<12x1xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<12x1xf32>) -> tensor<12x12xf32>
    %24 = stablehlo.multiply %arg0, %23 : tensor<12x12xf32>
    return %0, %5, %6, %7, %14, %15, %16, %24 : tensor<12xi32>, tensor<12xf32>, tensor<12x12xf32>, tensor<12x12xf32>, tensor<12x12xf32>, tensor<4x6xi32>, tensor<11xf32>, tensor<12x12xf32>
  }
  func.func private @tril(%arg0: tensor<12x12xf32>) -> tensor<12x12xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<12x12xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<12x12xi32>
    %2 = stablehlo.add %0, %1 : tensor<12x12xi32>
    %3 = stablehlo.iota dim = 1 : tensor<12x12xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<12x12xi32>, tensor<12x12xi32>) -> tensor<12x12xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12x12xf32>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<12x12xi1>, tensor<12x12xf32>
    return %6 : tensor<12x12xf32>
  }
  func.func private @triu(%arg0: tensor<12x12xf32>) -> tensor<12x12xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<12x12xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<12x12xi32>
    %2 = stablehlo.add %0, %1 : tensor<12x12xi32>
    %3 = stablehlo.iota dim = 1 : tensor<12x12xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<12x12xi32>, tensor<12x12xi32>) -> tensor<12x12xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12x12xf32>
    %6 = stablehlo.select %4, %5, %arg0 : tensor<12x12xi1>, tensor<12x12xf32>
    return %6 : tensor<12x12xf32>
  }
  func.func private @_linspace(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<11xf32> {
    %0 = stablehlo.convert %arg0 : tensor<f32>
    %1 = stablehlo.convert %arg1 : tensor<f32>
    %2 = stablehlo.subtract %1, %0 : tensor<f32>
    %cst = stablehlo.constant dense<1.000000e+01> : tensor<f32>
    %3 = stablehlo.divide %2, %cst : tensor<f32>
    %4 = stablehlo.iota dim = 0 : tensor<10xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+01> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %6 = stablehlo.divide %4, %5 : tensor<10xf32>
    %7 = stablehlo.reshape %0 : (tensor<f32>) -> tensor<1xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %9 = stablehlo.subtract %8, %6 : tensor<10xf32>
    %10 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<1xf32>) -> tensor<10xf32>
    %11 = stablehlo.multiply %10, %9 : tensor<10xf32>
    %12 = stablehlo.reshape %1 : (tensor<f32>) -> tensor<1xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<1xf32>) -> tensor<10xf32>
    %14 = stablehlo.multiply %13, %6 : tensor<10xf32>
    %15 = stablehlo.add %11, %14 : tensor<10xf32>
    %16 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %17 = stablehlo.concatenate %15, %16, dim = 0 : (tensor<10xf32>, tensor<1xf32>) -> tensor<11xf32>
    return %17 : tensor<11xf32>
  }
  func.func private @remainder(%arg0: tensor<12x1xi32>, %arg1: tensor<i32>) -> tensor<12x1xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<12x1xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<12x1xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<12x1xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<12x1xi32>, tensor<12x1xi32>) -> tensor<12x1xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<12x1xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<12x1xi32>, tensor<12x1xi32>) -> tensor<12x1xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<12x1xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<12x1xi1>, tensor<12x1xi1>) -> tensor<12x1xi1>
    %12 = stablehlo.and %11, %6 : tensor<12x1xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<12x1xi32>
    %14 = stablehlo.add %4, %13 : tensor<12x1xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<12x1xi1>, tensor<12x1xi32>
    return %15 : tensor<12x1xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
