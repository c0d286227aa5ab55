"builtin.module"() <{sym_name = "jit_x_composite"}> ({
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg2: tensor<4x8xf32>):
    %16 = "stablehlo.composite"(%arg2) <{composite_attributes = {}, decomposition = @hlotools.softplus, name = "hlotools.softplus", version = 0 : i32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %17 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %18 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %19 = "stablehlo.add"(%16, %18) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %20 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %21 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %22 = "stablehlo.multiply"(%arg2, %21) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %23 = "stablehlo.composite"(%22) <{composite_attributes = {beta = 3.000000e+00 : f64}, decomposition = @hlotools.softplus_0, name = "hlotools.softplus", version = 0 : i32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"(%19, %23) : (tensor<4x8xf32>, tensor<4x8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x8xf32>) -> tensor<4x8xf32>, res_attrs = [{}], sym_name = "hlotools.softplus", sym_visibility = "private"}> ({
  ^bb0(%arg1: tensor<4x8xf32>):
    %8 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %9 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %10 = "stablehlo.multiply"(%arg1, %9) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %11 = "stablehlo.exponential"(%10) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %12 = "stablehlo.log_plus_one"(%11) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %13 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %15 = "stablehlo.divide"(%12, %14) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"(%15) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x8xf32>) -> tensor<4x8xf32>, res_attrs = [{}], sym_name = "hlotools.softplus_0", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4x8xf32>):
    %0 = "stablehlo.constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %2 = "stablehlo.multiply"(%arg0, %1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %3 = "stablehlo.exponential"(%2) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %4 = "stablehlo.log_plus_one"(%3) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %5 = "stablehlo.constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x8xf32>
    %7 = "stablehlo.divide"(%4, %6) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"(%7) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
