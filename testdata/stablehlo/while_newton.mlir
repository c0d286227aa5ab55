module @jit_while_newton attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>) -> (tensor<64xf32> {jax.result_info = "result[0]"}, tensor<i32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0:4 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg0, %iterArg_1 = %c, %iterArg_2 = %cst) : tensor<64xf32>, tensor<64xf32>, tensor<i32>, tensor<f32>
    cond {
      %cst_3 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %1 = stablehlo.compare GT, %iterArg_2, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c_4 = stablehlo.constant dense<50> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %3 = stablehlo.and %1, %2 : tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %1 = stablehlo.divide %iterArg, %iterArg_0 : tensor<64xf32>
      %2 = stablehlo.add %iterArg_0, %1 : tensor<64xf32>
      %cst_3 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %3 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64xf32>
      %4 = stablehlo.multiply %3, %2 : tensor<64xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_1, %c_4 : tensor<i32>
      %6 = stablehlo.subtract %4, %iterArg_0 : tensor<64xf32>
      %7 = stablehlo.abs %6 : tensor<64xf32>
      %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %8 = stablehlo.reduce(%7 init: %cst_5) applies stablehlo.maximum across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %iterArg, %4, %5, %8 : tensor<64xf32>, tensor<64xf32>, tensor<i32>, tensor<f32>
    }
    return %0#1, %0#2 : tensor<64xf32>, tensor<i32>
  }
}
