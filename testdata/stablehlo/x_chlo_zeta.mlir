module @jit_x_chlo_zeta attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32>, %arg1: tensor<8x8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<64xf32>) -> (tensor<8x8xf32> {jax.result_info = "result[0]"}, tensor<8x8xf32> {jax.result_info = "result[1]"}, tensor<64xf32> {jax.result_info = "result[2]"}, tensor<64xf32> {jax.result_info = "result[3]"}) {
    %0 = chlo.zeta %arg0, %arg1 : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
    %1 = chlo.polygamma %arg2, %arg1 : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
    %2 = chlo.bessel_i1e %arg3 : tensor<64xf32> -> tensor<64xf32>
    %3 = chlo.square %arg3 : tensor<64xf32> -> tensor<64xf32>
    return %0, %1, %2, %3 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<64xf32>, tensor<64xf32>
  }
}
