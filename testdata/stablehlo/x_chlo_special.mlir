module @jit_x_chlo_special attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<4x8xf32> {jax.result_info = "result[1]"}, tensor<4x8xf32> {jax.result_info = "result[2]"}, tensor<4x8xf32> {jax.result_info = "result[3]"}, tensor<4x8xf32> {jax.result_info = "result[4]"}, tensor<4x8xf32> {jax.result_info = "result[5]"}, tensor<4x8xf32> {jax.result_info = "result[6]"}, tensor<4x8xf32> {jax.result_info = "result[7]"}, tensor<4x8xf32> {jax.result_info = "result[8]"}, tensor<4x8xf32> {jax.result_info = "result[9]"}, tensor<4x8xf32> {jax.result_info = "result[10]"}, tensor<4x8xf32> {jax.result_info = "result[11]"}, tensor<4x8xf32> {jax.result_info = "result[12]"}, tensor<4x8xf32> {jax.result_info = "result[13]"}, tensor<4x8xf32> {jax.result_info = "result[14]"}, tensor<4x8xf32> {jax.result_info = "result[15]"}) {
    %0 = stablehlo.abs %arg0 : tensor<4x8xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x8xf32>
    %3 = stablehlo.tanh %arg0 : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %5 = stablehlo.multiply %3, %4 : tensor<4x8xf32>
    %6 = chlo.erf_inv %5 : tensor<4x8xf32> -> tensor<4x8xf32>
    %7 = chlo.lgamma %2 : tensor<4x8xf32> -> tensor<4x8xf32>
    %8 = chlo.digamma %2 : tensor<4x8xf32> -> tensor<4x8xf32>
    %9 = stablehlo.tanh %arg0 : tensor<4x8xf32>
    %10 = chlo.asin %9 : tensor<4x8xf32> -> tensor<4x8xf32>
    %11 = stablehlo.tanh %arg0 : tensor<4x8xf32>
    %12 = chlo.acos %11 : tensor<4x8xf32> -> tensor<4x8xf32>
    %13 = chlo.atan %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %14 = chlo.sinh %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %15 = chlo.cosh %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %16 = chlo.asinh %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %18 = stablehlo.add %2, %17 : tensor<4x8xf32>
    %19 = call @arccosh(%18) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %20 = stablehlo.tanh %arg0 : tensor<4x8xf32>
    %cst_2 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %22 = stablehlo.multiply %20, %21 : tensor<4x8xf32>
    %23 = chlo.atanh %22 : tensor<4x8xf32> -> tensor<4x8xf32>
    %24 = chlo.erf %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %25 = chlo.erfc %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %26 = stablehlo.tan %arg0 : tensor<4x8xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %28 = stablehlo.add %2, %27 : tensor<4x8xf32>
    %29 = stablehlo.compare NE, %2, %2, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %30 = stablehlo.compare NE, %28, %28, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %31 = stablehlo.or %29, %30 : tensor<4x8xi1>
    %cst_4 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %33 = stablehlo.compare EQ, %28, %32, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %35 = stablehlo.compare EQ, %2, %34, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %37 = stablehlo.compare EQ, %28, %36, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %39 = stablehlo.compare LT, %28, %38, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %41 = stablehlo.compare LT, %2, %40, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %42 = stablehlo.and %35, %37 : tensor<4x8xi1>
    %43 = stablehlo.or %39, %41 : tensor<4x8xi1>
    %44 = stablehlo.or %43, %42 : tensor<4x8xi1>
    %45 = stablehlo.or %44, %31 : tensor<4x8xi1>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %47 = stablehlo.compare GE, %28, %46, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %48 = stablehlo.compare GT, %28, %2, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %49 = stablehlo.and %47, %48 : tensor<4x8xi1>
    %50 = stablehlo.log %28 : tensor<4x8xf32>
    %51 = stablehlo.multiply %2, %50 : tensor<4x8xf32>
    %52 = stablehlo.subtract %51, %28 : tensor<4x8xf32>
    %53 = chlo.lgamma %2 : tensor<4x8xf32> -> tensor<4x8xf32>
    %54 = stablehlo.subtract %52, %53 : tensor<4x8xf32>
    %cst_10 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
    %55 = stablehlo.log %cst_10 : tensor<f32>
    %56 = stablehlo.negate %55 : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %58 = stablehlo.compare LT, %54, %57, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %59 = stablehlo.exponential %54 : tensor<4x8xf32>
    %60 = stablehlo.or %37, %45 : tensor<4x8xi1>
    %61 = stablehlo.or %60, %58 : tensor<4x8xi1>
    %62 = stablehlo.or %61, %33 : tensor<4x8xi1>
    %63 = stablehlo.not %62 : tensor<4x8xi1>
    %64 = stablehlo.and %63, %49 : tensor<4x8xi1>
    %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %66 = stablehlo.subtract %65, %2 : tensor<4x8xf32>
    %67 = stablehlo.add %28, %66 : tensor<4x8xf32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %69 = stablehlo.add %67, %68 : tensor<4x8xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %71 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %72 = stablehlo.add %28, %71 : tensor<4x8xf32>
    %73 = stablehlo.multiply %69, %28 : tensor<4x8xf32>
    %74 = stablehlo.divide %72, %73 : tensor<4x8xf32>
    %cst_15 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %77 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %78 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %79 = stablehlo.negate %28 : tensor<4x8xf32>
    %80 = stablehlo.multiply %74, %79 : tensor<4x8xf32>
    %81 = stablehlo.subtract %78, %80 : tensor<4x8xf32>
    %82 = stablehlo.divide %81, %73 : tensor<4x8xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %83:15 = stablehlo.while(%iterArg = %64, %iterArg_28 = %74, %iterArg_29 = %75, %iterArg_30 = %66, %iterArg_31 = %69, %iterArg_32 = %cst_19, %iterArg_33 = %72, %iterArg_34 = %73, %iterArg_35 = %70, %iterArg_36 = %28, %iterArg_37 = %76, %iterArg_38 = %77, %iterArg_39 = %78, %iterArg_40 = %79, %iterArg_41 = %82) : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    cond {
      %cst_42 = stablehlo.constant dense<2.000000e+03> : tensor<f32>
      %104 = stablehlo.compare LT, %iterArg_32, %cst_42, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c = stablehlo.constant dense<false> : tensor<i1>
      %105 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0, 1] : (tensor<4x8xi1>, tensor<i1>) -> tensor<i1>
      %106 = stablehlo.and %104, %105 : tensor<i1>
      stablehlo.return %106 : tensor<i1>
    } do {
      %cst_42 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %104 = stablehlo.add %iterArg_32, %cst_42 : tensor<f32>
      %cst_43 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %105 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %106 = stablehlo.add %iterArg_30, %105 : tensor<4x8xf32>
      %cst_44 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %107 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %108 = stablehlo.add %iterArg_31, %107 : tensor<4x8xf32>
      %109 = stablehlo.broadcast_in_dim %104, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %110 = stablehlo.multiply %106, %109 : tensor<4x8xf32>
      %111 = stablehlo.multiply %iterArg_33, %108 : tensor<4x8xf32>
      %112 = stablehlo.multiply %iterArg_35, %110 : tensor<4x8xf32>
      %113 = stablehlo.subtract %111, %112 : tensor<4x8xf32>
      %114 = stablehlo.multiply %iterArg_34, %108 : tensor<4x8xf32>
      %115 = stablehlo.multiply %iterArg_36, %110 : tensor<4x8xf32>
      %116 = stablehlo.subtract %114, %115 : tensor<4x8xf32>
      %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %117 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %118 = stablehlo.compare NE, %116, %117, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
      %119 = stablehlo.divide %113, %116 : tensor<4x8xf32>
      %120 = stablehlo.subtract %iterArg_28, %119 : tensor<4x8xf32>
      %121 = stablehlo.divide %120, %119 : tensor<4x8xf32>
      %122 = stablehlo.abs %121 : tensor<4x8xf32>
      %cst_46 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %123 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %124 = stablehlo.select %118, %122, %123 : tensor<4x8xi1>, tensor<4x8xf32>
      %125 = stablehlo.select %118, %119, %iterArg_28 : tensor<4x8xi1>, tensor<4x8xf32>
      %126 = stablehlo.multiply %iterArg_39, %108 : tensor<4x8xf32>
      %127 = stablehlo.subtract %126, %iterArg_33 : tensor<4x8xf32>
      %128 = stablehlo.multiply %iterArg_37, %110 : tensor<4x8xf32>
      %129 = stablehlo.subtract %127, %128 : tensor<4x8xf32>
      %130 = stablehlo.broadcast_in_dim %104, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %131 = stablehlo.multiply %iterArg_35, %130 : tensor<4x8xf32>
      %132 = stablehlo.add %129, %131 : tensor<4x8xf32>
      %133 = stablehlo.multiply %iterArg_40, %108 : tensor<4x8xf32>
      %134 = stablehlo.subtract %133, %iterArg_34 : tensor<4x8xf32>
      %135 = stablehlo.multiply %iterArg_38, %110 : tensor<4x8xf32>
      %136 = stablehlo.subtract %134, %135 : tensor<4x8xf32>
      %137 = stablehlo.broadcast_in_dim %104, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %138 = stablehlo.multiply %iterArg_36, %137 : tensor<4x8xf32>
      %139 = stablehlo.add %136, %138 : tensor<4x8xf32>
      %140 = stablehlo.multiply %125, %139 : tensor<4x8xf32>
      %141 = stablehlo.subtract %132, %140 : tensor<4x8xf32>
      %142 = stablehlo.divide %141, %116 : tensor<4x8xf32>
      %143 = stablehlo.select %118, %142, %iterArg_41 : tensor<4x8xi1>, tensor<4x8xf32>
      %144 = stablehlo.subtract %143, %iterArg_41 : tensor<4x8xf32>
      %145 = stablehlo.abs %144 : tensor<4x8xf32>
      %cst_47 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %146 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %147 = stablehlo.select %118, %145, %146 : tensor<4x8xi1>, tensor<4x8xf32>
      %148 = stablehlo.abs %113 : tensor<4x8xf32>
      %cst_48 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %cst_49 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %149 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<f32>
      %150 = stablehlo.divide %149, %cst_48 : tensor<f32>
      %151 = stablehlo.broadcast_in_dim %150, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %152 = stablehlo.compare GT, %148, %151, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
      %cst_50 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %153 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %154 = stablehlo.multiply %iterArg_33, %153 : tensor<4x8xf32>
      %155 = stablehlo.select %152, %154, %iterArg_33 : tensor<4x8xi1>, tensor<4x8xf32>
      %cst_51 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %156 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %157 = stablehlo.multiply %113, %156 : tensor<4x8xf32>
      %158 = stablehlo.select %152, %157, %113 : tensor<4x8xi1>, tensor<4x8xf32>
      %cst_52 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %159 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %160 = stablehlo.multiply %iterArg_34, %159 : tensor<4x8xf32>
      %161 = stablehlo.select %152, %160, %iterArg_34 : tensor<4x8xi1>, tensor<4x8xf32>
      %cst_53 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %162 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %163 = stablehlo.multiply %116, %162 : tensor<4x8xf32>
      %164 = stablehlo.select %152, %163, %116 : tensor<4x8xi1>, tensor<4x8xf32>
      %cst_54 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %165 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %166 = stablehlo.multiply %iterArg_39, %165 : tensor<4x8xf32>
      %167 = stablehlo.select %152, %166, %iterArg_39 : tensor<4x8xi1>, tensor<4x8xf32>
      %cst_55 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %168 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %169 = stablehlo.multiply %iterArg_40, %168 : tensor<4x8xf32>
      %170 = stablehlo.select %152, %169, %iterArg_40 : tensor<4x8xi1>, tensor<4x8xf32>
      %cst_56 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %171 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %172 = stablehlo.multiply %132, %171 : tensor<4x8xf32>
      %173 = stablehlo.select %152, %172, %132 : tensor<4x8xi1>, tensor<4x8xf32>
      %cst_57 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %174 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %175 = stablehlo.multiply %139, %174 : tensor<4x8xf32>
      %176 = stablehlo.select %152, %175, %139 : tensor<4x8xi1>, tensor<4x8xf32>
      %cst_58 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %177 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %178 = stablehlo.compare GT, %124, %177, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
      %179 = stablehlo.and %iterArg, %178 : tensor<4x8xi1>
      %180 = stablehlo.select %iterArg, %125, %iterArg_28 : tensor<4x8xi1>, tensor<4x8xf32>
      %181 = stablehlo.select %iterArg, %124, %iterArg_29 : tensor<4x8xi1>, tensor<4x8xf32>
      %182 = stablehlo.select %iterArg, %106, %iterArg_30 : tensor<4x8xi1>, tensor<4x8xf32>
      %183 = stablehlo.select %iterArg, %108, %iterArg_31 : tensor<4x8xi1>, tensor<4x8xf32>
      %184 = stablehlo.select %iterArg, %158, %iterArg_33 : tensor<4x8xi1>, tensor<4x8xf32>
      %185 = stablehlo.select %iterArg, %164, %iterArg_34 : tensor<4x8xi1>, tensor<4x8xf32>
      %186 = stablehlo.select %iterArg, %155, %iterArg_35 : tensor<4x8xi1>, tensor<4x8xf32>
      %187 = stablehlo.select %iterArg, %161, %iterArg_36 : tensor<4x8xi1>, tensor<4x8xf32>
      %188 = stablehlo.select %iterArg, %167, %iterArg_37 : tensor<4x8xi1>, tensor<4x8xf32>
      %189 = stablehlo.select %iterArg, %170, %iterArg_38 : tensor<4x8xi1>, tensor<4x8xf32>
      %190 = stablehlo.select %iterArg, %173, %iterArg_39 : tensor<4x8xi1>, tensor<4x8xf32>
      %191 = stablehlo.select %iterArg, %176, %iterArg_40 : tensor<4x8xi1>, tensor<4x8xf32>
      %192 = stablehlo.select %iterArg, %143, %iterArg_41 : tensor<4x8xi1>, tensor<4x8xf32>
      stablehlo.return %179, %180, %181, %182, %183, %104, %184, %185, %186, %187, %188, %189, %190, %191, %192 : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    }
    %84 = stablehlo.multiply %83#1, %59 : tensor<4x8xf32>
    %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %86 = stablehlo.subtract %85, %84 : tensor<4x8xf32>
    %87 = stablehlo.not %49 : tensor<4x8xi1>
    %88 = stablehlo.and %63, %87 : tensor<4x8xi1>
    %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %cst_22 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %90 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %92 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %93:7 = stablehlo.while(%iterArg = %88, %iterArg_28 = %2, %iterArg_29 = %89, %iterArg_30 = %90, %iterArg_31 = %28, %iterArg_32 = %91, %iterArg_33 = %92) : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    cond {
      %c = stablehlo.constant dense<false> : tensor<i1>
      %104 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0, 1] : (tensor<4x8xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %104 : tensor<i1>
    } do {
      %cst_34 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %104 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %105 = stablehlo.add %iterArg_28, %104 : tensor<4x8xf32>
      %106 = stablehlo.divide %iterArg_31, %105 : tensor<4x8xf32>
      %107 = stablehlo.multiply %iterArg_32, %106 : tensor<4x8xf32>
      %108 = stablehlo.multiply %iterArg_29, %iterArg_31 : tensor<4x8xf32>
      %109 = stablehlo.multiply %105, %105 : tensor<4x8xf32>
      %110 = stablehlo.divide %108, %109 : tensor<4x8xf32>
      %111 = stablehlo.subtract %107, %110 : tensor<4x8xf32>
      %112 = stablehlo.add %iterArg_33, %111 : tensor<4x8xf32>
      %113 = stablehlo.divide %iterArg_31, %105 : tensor<4x8xf32>
      %114 = stablehlo.multiply %iterArg_29, %113 : tensor<4x8xf32>
      %115 = stablehlo.add %iterArg_30, %114 : tensor<4x8xf32>
      %116 = stablehlo.divide %114, %115 : tensor<4x8xf32>
      %cst_35 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %117 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %118 = stablehlo.compare GT, %116, %117, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
      %119 = stablehlo.and %iterArg, %118 : tensor<4x8xi1>
      %120 = stablehlo.select %iterArg, %105, %iterArg_28 : tensor<4x8xi1>, tensor<4x8xf32>
      %121 = stablehlo.select %iterArg, %114, %iterArg_29 : tensor<4x8xi1>, tensor<4x8xf32>
      %122 = stablehlo.select %iterArg, %115, %iterArg_30 : tensor<4x8xi1>, tensor<4x8xf32>
      %123 = stablehlo.select %iterArg, %iterArg_31, %iterArg_31 : tensor<4x8xi1>, tensor<4x8xf32>
      %124 = stablehlo.select %iterArg, %111, %iterArg_32 : tensor<4x8xi1>, tensor<4x8xf32>
      %125 = stablehlo.select %iterArg, %112, %iterArg_33 : tensor<4x8xi1>, tensor<4x8xf32>
      stablehlo.return %119, %120, %121, %122, %123, %124, %125 : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    }
    %94 = stablehlo.multiply %93#3, %59 : tensor<4x8xf32>
    %95 = stablehlo.divide %94, %2 : tensor<4x8xf32>
    %96 = stablehlo.select %49, %86, %95 : tensor<4x8xi1>, tensor<4x8xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %97 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %98 = stablehlo.select %37, %97, %96 : tensor<4x8xi1>, tensor<4x8xf32>
    %cst_26 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %99 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %100 = stablehlo.select %33, %99, %98 : tensor<4x8xi1>, tensor<4x8xf32>
    %cst_27 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %101 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %102 = stablehlo.select %45, %101, %100 : tensor<4x8xi1>, tensor<4x8xf32>
    %103 = chlo.next_after %arg0, %2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    return %6, %7, %8, %10, %12, %13, %14, %15, %16, %19, %23, %24, %25, %26, %102, %103 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  }
  func.func private @arccosh(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = chlo.acosh %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
