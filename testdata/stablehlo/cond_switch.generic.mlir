"builtin.module"() <{sym_name = "jit_cond_switch"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<8x16xf32>, tensor<i32>) -> (tensor<8x16xf32>, tensor<8x8xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8x16xf32>, %arg1: tensor<i32>):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %26 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%26) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
    %2 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %3 = "stablehlo.compare"(%1, %2) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = "stablehlo.convert"(%3) : (tensor<i1>) -> tensor<i32>
    %5 = "stablehlo.case"(%4) ({
      %22 = "stablehlo.cosine"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
      %23 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %24 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
      %25 = "stablehlo.subtract"(%22, %24) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      "stablehlo.return"(%25) : (tensor<8x16xf32>) -> ()
    }, {
      %18 = "stablehlo.sine"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
      %19 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %20 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x16xf32>
      %21 = "stablehlo.multiply"(%18, %20) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      "stablehlo.return"(%21) : (tensor<8x16xf32>) -> ()
    }) : (tensor<i32>) -> tensor<8x16xf32>
    %6 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 8, 8>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<8x16xf32>) -> tensor<8x8xf32>
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %9 = "stablehlo.clamp"(%7, %arg1, %8) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %10 = "stablehlo.case"(%9) ({
      %15 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %16 = "stablehlo.broadcast_in_dim"(%15) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8x8xf32>
      %17 = "stablehlo.add"(%6, %16) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      "stablehlo.return"(%17) : (tensor<8x8xf32>) -> ()
    }, {
      %13 = "stablehlo.transpose"(%6) <{permutation = array<i64: 1, 0>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %14 = "stablehlo.dot_general"(%6, %13) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      "stablehlo.return"(%14) : (tensor<8x8xf32>) -> ()
    }, {
      %11 = "stablehlo.abs"(%6) : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %12 = "stablehlo.negate"(%11) : (tensor<8x8xf32>) -> tensor<8x8xf32>
      "stablehlo.return"(%12) : (tensor<8x8xf32>) -> ()
    }) : (tensor<i32>) -> tensor<8x8xf32>
    "func.return"(%5, %10) : (tensor<8x16xf32>, tensor<8x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
