module @jit_x_chlo_edges attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>) -> (tensor<16xf32> {jax.result_info = "result[0]"}, tensor<16xf32> {jax.result_info = "result[1]"}, tensor<16xf32> {jax.result_info = "result[2]"}, tensor<16xf32> {jax.result_info = "result[3]"}, tensor<16xf32> {jax.result_info = "result[4]"}, tensor<16xf32> {jax.result_info = "result[5]"}, tensor<16xf32> {jax.result_info = "result[6]"}, tensor<16xf32> {jax.result_info = "result[7]"}, tensor<16xf32> {jax.result_info = "result[8]"}, tensor<16xf32> {jax.result_info = "result[9]"}) {
    %0 = chlo.lgamma %arg0 : tensor<16xf32> -> tensor<16xf32>
    %1 = chlo.digamma %arg0 : tensor<16xf32> -> tensor<16xf32>
    %2 = chlo.erf_inv %arg1 : tensor<16xf32> -> tensor<16xf32>
    %3 = chlo.next_after %arg0, %arg1 : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
    %4 = chlo.asin %arg1 : tensor<16xf32> -> tensor<16xf32>
    %5 = call @arccosh(%arg0) : (tensor<16xf32>) -> tensor<16xf32>
    %6 = chlo.atanh %arg1 : tensor<16xf32> -> tensor<16xf32>
    %7 = chlo.sinh %arg0 : tensor<16xf32> -> tensor<16xf32>
    %8 = stablehlo.tan %arg0 : tensor<16xf32>
    %9 = chlo.erfc %arg0 : tensor<16xf32> -> tensor<16xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  }
  func.func private @arccosh(%arg0: tensor<16xf32>) -> tensor<16xf32> {
    %0 = chlo.acosh %arg0 : tensor<16xf32> -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}
