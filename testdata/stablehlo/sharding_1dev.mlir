module @jit_sharding_1dev attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=1]> {stablehlo.mesh = {axes = [{name = "x", size = 1 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4x4xf32>) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
    %2 = call @relu(%1) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %2 : tensor<8x4xf32>
  }
  func.func private @relu(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
}
