module @jit_elementwise_math attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x64xf32>, %arg1: tensor<16x64xf32>) -> (tensor<16x64xf32> {jax.result_info = "result[0]"}, tensor<16x64xf32> {jax.result_info = "result[1]"}, tensor<16x64xf32> {jax.result_info = "result[2]"}, tensor<16x64xf32> {jax.result_info = "result[3]"}, tensor<16x64xf32> {jax.result_info = "result[4]"}, tensor<16x64xf32> {jax.result_info = "result[5]"}, tensor<16x64xf32> {jax.result_info = "result[6]"}, tensor<16x64xf32> {jax.result_info = "result[7]"}, tensor<16x64xf32> {jax.result_info = "result[8]"}, tensor<16x64xf32> {jax.result_info = "result[9]"}, tensor<16x64xf32> {jax.result_info = "result[10]"}, tensor<16x64xf32> {jax.result_info = "result[11]"}, tensor<16x64xf32> {jax.result_info = "result[12]"}, tensor<16x64xf32> {jax.result_info = "result[13]"}, tensor<16x64xf32> {jax.result_info = "result[14]"}, tensor<16x64xf32> {jax.result_info = "result[15]"}, tensor<16x64xf32> {jax.result_info = "result[16]"}, tensor<16x64xf32> {jax.result_info = "result[17]"}, tensor<16x64xf32> {jax.result_info = "result[18]"}, tensor<16x64xf32> {jax.result_info = "result[19]"}, tensor<16x64xf32> {jax.result_info = "result[20]"}, tensor<16x64xf32> {jax.result_info = "result[21]"}, tensor<16x64xf32> {jax.result_info = "result[22]"}, tensor<16x64xf32> {jax.result_info = "result[23]"}, tensor<16x64xf32> {jax.result_info = "result[24]"}, tensor<16x64xf32> {jax.result_info = "result[25]"}, tensor<16x64xf32> {jax.result_info = "result[26]"}, tensor<16x64xf32> {jax.result_info = "result[27]"}, tensor<16x64xf32> {jax.result_info = "result[28]"}, tensor<16x64xf32> {jax.result_info = "result[29]"}, tensor<16x64xf32> {jax.result_info = "result[30]"}, tensor<16x64xf32> {jax.result_info = "result[31]"}, tensor<16x64xf32> {jax.result_info = "result[32]"}, tensor<16x64xf32> {jax.result_info = "result[33]"}, tensor<16x64xf32> {jax.result_info = "result[34]"}, tensor<16x64xf32> {jax.result_info = "result[35]"}, tensor<16x64xf32> {jax.result_info = "result[36]"}) {
    %0 = stablehlo.abs %arg0 : tensor<16x64xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x64xf32>
    %3 = stablehlo.exponential %arg0 : tensor<16x64xf32>
    %4 = stablehlo.log %2 : tensor<16x64xf32>
    %5 = stablehlo.sqrt %2 : tensor<16x64xf32>
    %6 = stablehlo.rsqrt %2 : tensor<16x64xf32>
    %7 = stablehlo.cbrt %arg0 : tensor<16x64xf32>
    %8 = stablehlo.power %2, %arg1 : tensor<16x64xf32>
    %9 = stablehlo.exponential_minus_one %arg0 : tensor<16x64xf32>
    %10 = stablehlo.log_plus_one %2 : tensor<16x64xf32>
    %11 = stablehlo.sine %arg0 : tensor<16x64xf32>
    %12 = stablehlo.cosine %arg0 : tensor<16x64xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %14 = stablehlo.multiply %arg0, %13 : tensor<16x64xf32>
    %15 = stablehlo.tan %14 : tensor<16x64xf32>
    %16 = stablehlo.atan2 %arg0, %arg1 : tensor<16x64xf32>
    %cst_1 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %18 = stablehlo.multiply %arg0, %17 : tensor<16x64xf32>
    %19 = stablehlo.floor %18 : tensor<16x64xf32>
    %cst_2 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %21 = stablehlo.multiply %arg0, %20 : tensor<16x64xf32>
    %22 = stablehlo.ceil %21 : tensor<16x64xf32>
    %cst_3 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %24 = stablehlo.multiply %arg0, %23 : tensor<16x64xf32>
    %25 = call @round(%24) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %cst_4 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %27 = stablehlo.multiply %arg0, %26 : tensor<16x64xf32>
    %28 = stablehlo.round_nearest_afz %27 : tensor<16x64xf32>
    %29 = stablehlo.sign %arg0 : tensor<16x64xf32>
    %cst_5 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %cst_6 = stablehlo.constant dense<0.699999988> : tensor<f32>
    %30 = call @clip(%arg0, %cst_5, %cst_6) : (tensor<16x64xf32>, tensor<f32>, tensor<f32>) -> tensor<16x64xf32>
    %31 = stablehlo.remainder %arg0, %arg1 : tensor<16x64xf32>
    %32 = call @remainder(%arg0, %arg1) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    %33 = stablehlo.minimum %arg0, %arg1 : tensor<16x64xf32>
    %34 = stablehlo.maximum %arg0, %arg1 : tensor<16x64xf32>
    %35 = stablehlo.divide %arg0, %arg1 : tensor<16x64xf32>
    %36 = stablehlo.negate %arg0 : tensor<16x64xf32>
    %37 = chlo.square %arg0 : tensor<16x64xf32> -> tensor<16x64xf32>
    %38 = stablehlo.tanh %arg0 : tensor<16x64xf32>
    %39 = chlo.asin %38 : tensor<16x64xf32> -> tensor<16x64xf32>
    %40 = chlo.sinh %arg0 : tensor<16x64xf32> -> tensor<16x64xf32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %42 = stablehlo.add %2, %41 : tensor<16x64xf32>
    %43 = call @arccosh(%42) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %44 = call @softplus(%arg0) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %45 = stablehlo.tanh %arg0 : tensor<16x64xf32>
    %cst_8 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %47 = stablehlo.multiply %45, %46 : tensor<16x64xf32>
    %48 = chlo.erf_inv %47 : tensor<16x64xf32> -> tensor<16x64xf32>
    %49 = chlo.erf %arg0 : tensor<16x64xf32> -> tensor<16x64xf32>
    %50 = chlo.lgamma %2 : tensor<16x64xf32> -> tensor<16x64xf32>
    %51 = chlo.digamma %2 : tensor<16x64xf32> -> tensor<16x64xf32>
    %52 = stablehlo.negate %arg0 : tensor<16x64xf32>
    %53 = stablehlo.exponential %52 : tensor<16x64xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %55 = stablehlo.add %54, %53 : tensor<16x64xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %57 = stablehlo.divide %56, %55 : tensor<16x64xf32>
    %cst_11 = stablehlo.constant dense<0.693147182> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %59 = stablehlo.multiply %58, %arg0 : tensor<16x64xf32>
    %60 = stablehlo.exponential %59 : tensor<16x64xf32>
    %61 = stablehlo.log %2 : tensor<16x64xf32>
    %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %62 = stablehlo.log %cst_12 : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %62, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %64 = stablehlo.divide %61, %63 : tensor<16x64xf32>
    %65 = call @hypot(%arg0, %arg1) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    return %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %15, %16, %19, %22, %25, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %39, %40, %43, %44, %48, %49, %50, %51, %57, %60, %64, %65 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
  }
  func.func private @round(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<16x64xf32>
    return %0 : tensor<16x64xf32>
  }
  func.func private @clip(%arg0: tensor<16x64xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<16x64xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<16x64xf32>
    %3 = stablehlo.convert %arg2 : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<16x64xf32>
    return %5 : tensor<16x64xf32>
  }
  func.func private @remainder(%arg0: tensor<16x64xf32>, %arg1: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<16x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %2 = stablehlo.compare NE, %0, %1, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %4 = stablehlo.compare LT, %0, %3, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %6 = stablehlo.compare LT, %arg1, %5, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %7 = stablehlo.compare NE, %4, %6, UNSIGNED : (tensor<16x64xi1>, tensor<16x64xi1>) -> tensor<16x64xi1>
    %8 = stablehlo.and %7, %2 : tensor<16x64xi1>
    %9 = stablehlo.add %0, %arg1 : tensor<16x64xf32>
    %10 = stablehlo.select %8, %9, %0 : tensor<16x64xi1>, tensor<16x64xf32>
    return %10 : tensor<16x64xf32>
  }
  func.func private @arccosh(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %0 = chlo.acosh %arg0 : tensor<16x64xf32> -> tensor<16x64xf32>
    return %0 : tensor<16x64xf32>
  }
  func.func private @softplus(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x64xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<16x64xf32>
    %4 = stablehlo.compare NE, %3, %3, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<16x64xf32>
    %7 = stablehlo.abs %3 : tensor<16x64xf32>
    %8 = stablehlo.negate %7 : tensor<16x64xf32>
    %9 = stablehlo.exponential %8 : tensor<16x64xf32>
    %10 = stablehlo.log_plus_one %9 : tensor<16x64xf32>
    %11 = stablehlo.add %1, %10 : tensor<16x64xf32>
    %12 = stablehlo.select %4, %6, %11 : tensor<16x64xi1>, tensor<16x64xf32>
    return %12 : tensor<16x64xf32>
  }
  func.func private @hypot(%arg0: tensor<16x64xf32>, %arg1: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.abs %arg0 : tensor<16x64xf32>
    %1 = stablehlo.abs %arg1 : tensor<16x64xf32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %3 = stablehlo.compare EQ, %0, %2, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %5 = stablehlo.compare EQ, %1, %4, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %6 = stablehlo.or %3, %5 : tensor<16x64xi1>
    %7 = stablehlo.maximum %0, %1 : tensor<16x64xf32>
    %8 = stablehlo.minimum %0, %1 : tensor<16x64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %10 = stablehlo.compare EQ, %7, %9, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %12 = stablehlo.compare EQ, %7, %11, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %14 = call @_where(%12, %13, %7) : (tensor<16x64xi1>, tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    %15 = stablehlo.divide %8, %14 : tensor<16x64xf32>
    %16 = chlo.square %15 : tensor<16x64xf32> -> tensor<16x64xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %18 = stablehlo.add %17, %16 : tensor<16x64xf32>
    %19 = stablehlo.sqrt %18 : tensor<16x64xf32>
    %20 = stablehlo.multiply %7, %19 : tensor<16x64xf32>
    %21 = call @_where(%10, %7, %20) : (tensor<16x64xi1>, tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    %cst_5 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %22 = call @_where_0(%6, %cst_5, %21) : (tensor<16x64xi1>, tensor<f32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    return %22 : tensor<16x64xf32>
  }
  func.func private @_where(%arg0: tensor<16x64xi1>, %arg1: tensor<16x64xf32>, %arg2: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<16x64xi1>, tensor<16x64xf32>
    return %0 : tensor<16x64xf32>
  }
  func.func private @_where_0(%arg0: tensor<16x64xi1>, %arg1: tensor<f32>, %arg2: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<16x64xi1>, tensor<16x64xf32>
    return %1 : tensor<16x64xf32>
  }
}
