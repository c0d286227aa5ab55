"builtin.module"() <{sym_name = "jit_softmax"}> ({
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<32x128xf32>) -> (tensor<32x128xf32>, tensor<32x128xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg5: tensor<32x128xf32>):
    %17 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %18 = "stablehlo.reduce"(%arg5, %17) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %33 = "stablehlo.maximum"(%arg8, %arg9) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%33) : (tensor<f32>) -> ()
    }) : (tensor<32x128xf32>, tensor<f32>) -> tensor<32xf32>
    %19 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %20 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<32xf32>
    %21 = "stablehlo.maximum"(%20, %18) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %22 = "stablehlo.broadcast_in_dim"(%21) <{broadcast_dimensions = array<i64: 0>}> : (tensor<32xf32>) -> tensor<32x1xf32>
    %23 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<32x1xf32>) -> tensor<32x128xf32>
    %24 = "stablehlo.subtract"(%arg5, %23) : (tensor<32x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
    %25 = "stablehlo.exponential"(%24) : (tensor<32x128xf32>) -> tensor<32x128xf32>
    %26 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %27 = "stablehlo.reduce"(%25, %26) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %32 = "stablehlo.add"(%arg6, %arg7) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%32) : (tensor<f32>) -> ()
    }) : (tensor<32x128xf32>, tensor<f32>) -> tensor<32xf32>
    %28 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64: 0>}> : (tensor<32xf32>) -> tensor<32x1xf32>
    %29 = "stablehlo.broadcast_in_dim"(%28) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<32x1xf32>) -> tensor<32x128xf32>
    %30 = "stablehlo.divide"(%25, %29) : (tensor<32x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
    %31 = "func.call"(%arg5) <{callee = @log_softmax}> : (tensor<32x128xf32>) -> tensor<32x128xf32>
    "func.return"(%30, %31) : (tensor<32x128xf32>, tensor<32x128xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<32x128xf32>) -> tensor<32x128xf32>, res_attrs = [{}], sym_name = "log_softmax", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<32x128xf32>):
    %0 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %16 = "stablehlo.maximum"(%arg3, %arg4) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%16) : (tensor<f32>) -> ()
    }) : (tensor<32x128xf32>, tensor<f32>) -> tensor<128xf32>
    %2 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %3 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<128xf32>
    %4 = "stablehlo.maximum"(%3, %1) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64: 1>}> : (tensor<128xf32>) -> tensor<1x128xf32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x128xf32>) -> tensor<32x128xf32>
    %7 = "stablehlo.subtract"(%arg0, %6) : (tensor<32x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
    %8 = "stablehlo.exponential"(%7) : (tensor<32x128xf32>) -> tensor<32x128xf32>
    %9 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %10 = "stablehlo.reduce"(%8, %9) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %15 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%15) : (tensor<f32>) -> ()
    }) : (tensor<32x128xf32>, tensor<f32>) -> tensor<128xf32>
    %11 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64: 1>}> : (tensor<128xf32>) -> tensor<1x128xf32>
    %12 = "stablehlo.log"(%11) : (tensor<1x128xf32>) -> tensor<1x128xf32>
    %13 = "stablehlo.broadcast_in_dim"(%12) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x128xf32>) -> tensor<32x128xf32>
    %14 = "stablehlo.subtract"(%7, %13) : (tensor<32x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
    "func.return"(%14) : (tensor<32x128xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
