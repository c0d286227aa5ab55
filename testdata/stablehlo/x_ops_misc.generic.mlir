"builtin.module"() <{sym_name = "jit_x_ops_misc"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xi32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xi1>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<1x4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<6xi32>, tensor<4x6xf32>, tensor<4x4xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}, {jax.result_info = "result[11]"}, {jax.result_info = "result[12]"}, {jax.result_info = "result[13]"}, {jax.result_info = "result[14]"}, {jax.result_info = "result[15]"}, {jax.result_info = "result[16]"}, {jax.result_info = "result[17]"}, {jax.result_info = "result[18]"}, {jax.result_info = "result[19]"}, {jax.result_info = "result[20]"}, {jax.result_info = "result[21]"}, {jax.result_info = "result[22]"}, {jax.result_info = "result[23]"}, {jax.result_info = "result[24]"}, {jax.result_info = "result[25]"}, {jax.result_info = "result[26]"}, {jax.result_info = "result[27]"}, {jax.result_info = "result[28]"}, {jax.result_info = "result[29]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg11: tensor<4x6xf32>, %arg12: tensor<4x6xf32>, %arg13: tensor<4x6xi32>):
    %36 = "stablehlo.complex"(%arg11, %arg12) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xcomplex<f32>>
    %37 = "stablehlo.atan2"(%arg11, %arg12) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %38 = "chlo.next_after"(%arg11, %arg12) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %39 = "stablehlo.is_finite"(%arg11) : (tensor<4x6xf32>) -> tensor<4x6xi1>
    %40 = "stablehlo.constant"() <{value = dense<0.693147182> : tensor<f32>}> : () -> tensor<f32>
    %41 = "stablehlo.broadcast_in_dim"(%40) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %42 = "stablehlo.multiply"(%41, %arg11) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %43 = "stablehlo.exponential"(%42) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %44 = "stablehlo.reduce_precision"(%arg11) <{exponent_bits = 8 : i32, mantissa_bits = 7 : i32}> : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %45 = "stablehlo.broadcast_in_dim"(%arg11) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<4x6xf32>) -> tensor<1x4x6xf32>
    %46 = "stablehlo.reverse"(%arg11) <{dimensions = array<i64: 1>}> : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %47 = "stablehlo.sort"(%arg11) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg16: tensor<f32>, %arg17: tensor<f32>):
      %99 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %100 = "stablehlo.compare"(%arg16, %99) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %101 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %102 = "stablehlo.select"(%100, %101, %arg16) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %103 = "stablehlo.compare"(%arg16, %arg16) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %104 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %105 = "stablehlo.select"(%103, %104, %102) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %106 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %107 = "stablehlo.compare"(%arg17, %106) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %108 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %109 = "stablehlo.select"(%107, %108, %arg17) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %110 = "stablehlo.compare"(%arg17, %arg17) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %111 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %112 = "stablehlo.select"(%110, %111, %109) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %113 = "stablehlo.compare"(%105, %112) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%113) : (tensor<i1>) -> ()
    }) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %48 = "stablehlo.abs"(%36) : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %49 = "stablehlo.real"(%36) : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %50 = "stablehlo.imag"(%36) : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %51 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %52 = "stablehlo.broadcast_in_dim"(%51) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x6xi32>
    %53 = "stablehlo.shift_right_arithmetic"(%arg13, %52) : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
    %54 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %55 = "stablehlo.broadcast_in_dim"(%54) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x6xi32>
    %56 = "stablehlo.shift_left"(%arg13, %55) : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
    %57 = "stablehlo.popcnt"(%arg13) : (tensor<4x6xi32>) -> tensor<4x6xi32>
    %58 = "stablehlo.count_leading_zeros"(%arg13) : (tensor<4x6xi32>) -> tensor<4x6xi32>
    %59 = "stablehlo.not"(%arg13) : (tensor<4x6xi32>) -> tensor<4x6xi32>
    %60 = "stablehlo.convert"(%arg13) : (tensor<4x6xi32>) -> tensor<4x6xf32>
    %61 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %62 = "func.call"(%arg13, %61) <{callee = @remainder}> : (tensor<4x6xi32>, tensor<i32>) -> tensor<4x6xi32>
    %63 = "stablehlo.multiply"(%arg11, %arg12) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %64 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %65 = "stablehlo.broadcast_in_dim"(%64) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x6xi32>
    %66 = "stablehlo.compare"(%62, %65) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %67 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %68 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x6xi32>
    %69 = "stablehlo.compare"(%62, %68) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %70 = "stablehlo.select"(%69, %arg12, %63) : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %71 = "stablehlo.select"(%66, %arg11, %70) : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %72 = "func.call"(%arg11) <{callee = @argmax}> : (tensor<4x6xf32>) -> tensor<6xi32>
    %73 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %74 = "stablehlo.broadcast_in_dim"(%73) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %75 = "stablehlo.reduce_window"(%arg11, %74) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 1], [0, 1]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
      %98 = "stablehlo.add"(%arg14, %arg15) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%98) : (tensor<f32>) -> ()
    }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %76 = "stablehlo.dot_general"(%arg11, %arg12) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]}> : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x4xf32>
    %77:2 = "stablehlo.optimization_barrier"(%arg11, %arg12) : (tensor<4x6xf32>, tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>)
    %78 = "stablehlo.cbrt"(%arg11) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %79 = "stablehlo.negate"(%arg11) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %80 = "stablehlo.exponential"(%79) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %81 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %82 = "stablehlo.broadcast_in_dim"(%81) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %83 = "stablehlo.add"(%82, %80) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %84 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %85 = "stablehlo.broadcast_in_dim"(%84) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %86 = "stablehlo.divide"(%85, %83) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %87 = "func.call"(%arg11) <{callee = @round}> : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %88 = "stablehlo.round_nearest_even"(%arg11) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %89 = "stablehlo.sign"(%arg11) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %90 = "stablehlo.constant"() <{value = dense<-1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %91 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %92 = "stablehlo.broadcast_in_dim"(%90) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %93 = "stablehlo.broadcast_in_dim"(%91) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>
    %94 = "stablehlo.clamp"(%92, %arg11, %93) : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %95 = "stablehlo.remainder"(%arg11, %arg12) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %96 = "stablehlo.abs"(%arg11) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %97 = "stablehlo.power"(%96, %arg12) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    "func.return"(%37, %38, %39, %43, %44, %45, %46, %47, %48, %49, %50, %53, %56, %57, %58, %59, %60, %71, %72, %75, %76, %77#0, %78, %86, %87, %88, %89, %94, %95, %97) : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xi1>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<1x4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<6xi32>, tensor<4x6xf32>, tensor<4x4xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x6xi32>, tensor<i32>) -> tensor<4x6xi32>, res_attrs = [{}], sym_name = "remainder", sym_visibility = "private"}> ({
  ^bb0(%arg9: tensor<4x6xi32>, %arg10: tensor<i32>):
    %15 = "stablehlo.convert"(%arg10) : (tensor<i32>) -> tensor<i32>
    %16 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %17 = "stablehlo.compare"(%15, %16) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %18 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %19 = "func.call"(%17, %18, %15) <{callee = @_where}> : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %20 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x6xi32>
    %21 = "stablehlo.remainder"(%arg9, %20) : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
    %22 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %23 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x6xi32>
    %24 = "stablehlo.compare"(%21, %23) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %25 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %26 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x6xi32>
    %27 = "stablehlo.compare"(%21, %26) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %28 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %29 = "stablehlo.compare"(%19, %28) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %30 = "stablehlo.broadcast_in_dim"(%29) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<4x6xi1>
    %31 = "stablehlo.compare"(%27, %30) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<4x6xi1>, tensor<4x6xi1>) -> tensor<4x6xi1>
    %32 = "stablehlo.and"(%31, %24) : (tensor<4x6xi1>, tensor<4x6xi1>) -> tensor<4x6xi1>
    %33 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x6xi32>
    %34 = "stablehlo.add"(%21, %33) : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
    %35 = "stablehlo.select"(%32, %34, %21) : (tensor<4x6xi1>, tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
    "func.return"(%35) : (tensor<4x6xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<i1>, %arg7: tensor<i32>, %arg8: tensor<i32>):
    %14 = "stablehlo.select"(%arg6, %arg7, %arg8) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%14) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x6xf32>) -> tensor<6xi32>, sym_name = "argmax", sym_visibility = "private"}> ({
  ^bb0(%arg1: tensor<4x6xf32>):
    %1 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4x6xi32>
    %2 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %3 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %4:2 = "stablehlo.reduce"(%arg1, %1, %2, %3) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<f32>, %arg5: tensor<i32>):
      %5 = "stablehlo.compare"(%arg2, %arg4) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = "stablehlo.compare"(%arg2, %arg2) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %7 = "stablehlo.or"(%5, %6) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %8 = "stablehlo.compare"(%arg2, %arg4) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %9 = "stablehlo.compare"(%arg3, %arg5) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %10 = "stablehlo.and"(%8, %9) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %11 = "stablehlo.or"(%7, %10) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %12 = "stablehlo.select"(%7, %arg2, %arg4) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %13 = "stablehlo.select"(%11, %arg3, %arg5) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%12, %13) : (tensor<f32>, tensor<i32>) -> ()
    }) : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<6xf32>, tensor<6xi32>)
    "func.return"(%4#1) : (tensor<6xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x6xf32>) -> tensor<4x6xf32>, res_attrs = [{}], sym_name = "round", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4x6xf32>):
    %0 = "stablehlo.round_nearest_even"(%arg0) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    "func.return"(%0) : (tensor<4x6xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
