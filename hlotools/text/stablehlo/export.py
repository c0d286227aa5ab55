"""IR -> StableHLO text (MLIR's generic form), for `hlo-translate --emit=stablehlo` and round trips.

Each computation called as a function (the entry, call targets, loop bodies, branches) becomes
a func.func; computations applied per element (reducers, comparators) become regions. The
generic form is used throughout: one spelling for every op, read back by this front end and by
MLIR's own tools. Opcodes without a StableHLO form here are refused, naming the instruction."""
from __future__ import annotations

from typing import Any

from hlotools.errors import HloError
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape

_ELEMENT = {"pred": "i1", "s2": "i2", "s4": "i4", "s8": "i8", "s16": "i16", "s32": "i32", "s64": "i64",
            "u2": "ui2", "u4": "ui4", "u8": "ui8", "u16": "ui16", "u32": "ui32", "u64": "ui64", "f16": "f16",
            "bf16": "bf16", "f32": "f32", "f64": "f64", "c64": "complex<f32>", "c128": "complex<f64>",
            "f8e4m3fn": "f8E4M3FN", "f8e5m2": "f8E5M2"}
_RENAMED = {"opt-barrier": "stablehlo.optimization_barrier", "erf": "chlo.erf", "asin": "chlo.asin",
            "acos": "chlo.acos", "sinh": "chlo.sinh", "cosh": "chlo.cosh", "asinh": "chlo.asinh",
            "acosh": "chlo.acosh", "atanh": "chlo.atanh"}
_MULTI_RESULT = frozenset({"sort", "topk", "rng-bit-generator", "reduce", "scatter", "reduce-window"})
_PLAIN = """abs add and atan2 cbrt ceil complex cosine count-leading-zeros divide exponential exponential-minus-one
floor imag is-finite log log-plus-one logistic maximum minimum multiply negate not or popcnt power real remainder
round-nearest-afz round-nearest-even rsqrt shift-left shift-right-arithmetic shift-right-logical sign sine sqrt
subtract tan tanh xor select clamp convert bitcast-convert reshape dynamic-update-slice tuple""".split()


def tensor_type(shape: Shape) -> str:
    if shape.tuple_shapes is not None:
        return "tuple<" + ", ".join(tensor_type(s) for s in shape.tuple_shapes) + ">"
    et = shape.element_type
    assert et is not None
    if et.name == "token":
        return "!stablehlo.token"
    element = _ELEMENT.get(et.name)
    if element is None:
        raise HloError(f"element type {et.name} has no StableHLO spelling here")
    dyn = shape.dynamic or (False,) * len(shape.dims)
    dims = "".join(("?" if d else str(n)) + "x" for n, d in zip(shape.dims, dyn))
    bounds = ""
    if any(dyn):
        bounds = ", #stablehlo.bounds<" + ", ".join(str(n) if d else "?" for n, d in zip(shape.dims, dyn)) + ">"
    return f"tensor<{dims}{element}{bounds}>"


def _array(values: Any) -> str:
    values = list(values)
    return f"array<i64: {', '.join(str(v) for v in values)}>" if values else "array<i64>"


def _dense_ints(rows: list[list[int]]) -> str:
    body = ", ".join("[" + ", ".join(str(v) for v in r) + "]" for r in rows)
    return f"dense<[{body}]> : tensor<{len(rows)}x2xi64>" if rows else "dense<> : tensor<0x2xi64>"


class Exporter:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.functions: dict[int, str] = {}
        self.out: list[str] = []
        self.next_value = 0

    def function(self, comp: Computation) -> str:
        key = id(comp)
        if key in self.functions:
            return self.functions[key]
        name = "main" if comp is self.module.entry else comp.name.replace("-", "_")
        self.functions[key] = name
        names: dict[int, str] = {}
        params = sorted(comp.parameters, key=lambda p: p.parameter_number or 0)
        entry = comp is self.module.entry
        args = []
        for p in params:
            names[id(p)] = f"%arg{p.parameter_number}"
            attrs = _entry_arg_attrs(p) if entry else ""
            args.append(f"{names[id(p)]}: {tensor_type(p.shape)}{attrs}")
        body = self.body(comp, names, "    ")
        root = comp.root
        assert root is not None
        vis = "public" if entry else "private"
        if entry and root.opcode == "tuple" and all(o.shape.tuple_shapes is None for o in root.operands):
            results, values = _entry_results(self.module, root), [names[id(o)] for o in root.operands]  # JAX's form
            types = ", ".join(tensor_type(o.shape) for o in root.operands)
        else:
            results = tensor_type(root.shape) + (_entry_results(self.module, root) if entry else "")
            values, types = [names[id(root)]], tensor_type(root.shape)
        self.out.append(f"  func.func {vis} @{name}({', '.join(args)}) -> {results} {{\n{body}"
                        f"    func.return {', '.join(values)} : {types}\n  }}")
        return name

    def body(self, comp: Computation, names: dict[int, str], indent: str, prefix: str = "%") -> str:
        lines = []
        for inst in comp.instructions:
            if inst.opcode == "parameter":
                continue
            src = inst.operands[0] if inst.opcode == "get-tuple-element" else None
            if src is not None and src.opcode in _MULTI_RESULT and src.shape.tuple_shapes is not None:
                names[id(inst)] = f"{names[id(src)]}#{inst.attrs['index']}"  # a result of a multi-result op
                continue
            names[id(inst)] = f"{prefix}{len(names)}"
            multi = inst.opcode in _MULTI_RESULT and inst.shape.tuple_shapes is not None
            count = f":{len(inst.shape.tuple_shapes or ())}" if multi else ""
            lines.append(indent + f"{names[id(inst)]}{count} = " + self.op(inst, names, indent))
        return "".join(line + "\n" for line in lines)

    def region(self, comp: Computation, indent: str, bound: list[str] | None = None) -> str:
        """A computation as a region: its parameters are block arguments, or (bound) outer values
        (a branch of case/if reads its operand from the enclosing scope, as StableHLO does)."""
        names: dict[int, str] = {}
        params = sorted(comp.parameters, key=lambda p: p.parameter_number or 0)
        for k, p in enumerate(params):
            names[id(p)] = bound[k] if bound is not None else f"%r{len(names)}"
        self.next_value += 1
        prefix = f"%b{self.next_value}_"
        head = ", ".join(f"{names[id(p)]}: {tensor_type(p.shape)}" for p in params)
        inner = indent + "  "
        body = self.body(comp, names, inner, prefix)
        root = comp.root
        assert root is not None
        label = f"{indent}^bb0({head}):\n" if bound is None else ""
        return (f"{{\n{label}{body}{inner}\"stablehlo.return\"({names[id(root)]}) : ({tensor_type(root.shape)}) -> ()"
                f"\n{indent}}}")

    def op(self, inst: Instruction, names: dict[int, str], indent: str) -> str:
        self.names = names
        shown = inst.operands[:1] if inst.opcode == "conditional" else inst.operands  # branches read the rest
        ops = ", ".join(names[id(o)] for o in shown)
        result = tensor_type(inst.shape)
        if inst.opcode in _MULTI_RESULT and inst.shape.tuple_shapes is not None:
            result = "(" + ", ".join(tensor_type(s) for s in inst.shape.tuple_shapes) + ")"
        sig = f"({', '.join(tensor_type(o.shape) for o in shown)}) -> {result}"
        name, props, regions = self.translate(inst, indent)
        props_text = f" <{{{', '.join(props)}}}>" if props else ""
        regions_text = " (" + ", ".join(regions) + ")" if regions else ""
        return f'"{name}"({ops}){props_text}{regions_text} : {sig}'

    def translate(self, inst: Instruction, indent: str) -> tuple[str, list[str], list[str]]:
        op, a = inst.opcode, inst.attrs
        if op in _PLAIN:
            return "stablehlo." + op.replace("-", "_"), [], []
        if op in _RENAMED:
            return _RENAMED[op], [], []
        if op == "constant":
            assert inst.literal is not None
            return "stablehlo.constant", [f"value = {_literal(inst)}"], []
        if op == "broadcast":
            return "stablehlo.broadcast_in_dim", [f"broadcast_dimensions = {_array(a.get('dimensions', ()))}"], []
        if op in ("transpose", "reverse"):
            key = "permutation" if op == "transpose" else "dimensions"
            return f"stablehlo.{op}", [f"{key} = {_array(a['dimensions'])}"], []
        if op == "concatenate":
            return "stablehlo.concatenate", [f"dimension = {a['dimensions'][0]} : i64"], []
        if op == "iota":
            return "stablehlo.iota", [f"iota_dimension = {a['iota_dimension']} : i64"], []
        if op == "get-tuple-element":
            return "stablehlo.get_tuple_element", [f"index = {a['index']} : i32"], []
        if op == "slice":
            spans = a["slice"]
            return "stablehlo.slice", [f"start_indices = {_array(s.start for s in spans)}",
                                       f"limit_indices = {_array(s.limit for s in spans)}",
                                       f"strides = {_array(s.stride for s in spans)}"], []
        if op == "dynamic-slice":
            return "stablehlo.dynamic_slice", [f"slice_sizes = {_array(a['dynamic_slice_sizes'])}"], []
        if op == "pad":
            dims = a["padding"].dims
            return "stablehlo.pad", [f"edge_padding_low = {_array(d[0] for d in dims)}",
                                     f"edge_padding_high = {_array(d[1] for d in dims)}",
                                     f"interior_padding = {_array(d[2] for d in dims)}"], []
        if op == "compare":
            props = [f"comparison_direction = #stablehlo<comparison_direction {a['direction']}>"]
            if "type" in a:
                props.append(f"compare_type = #stablehlo<comparison_type {a['type']}>")
            return "stablehlo.compare", props, []
        if op == "dot":
            dn = (f"#stablehlo.dot<lhs_batching_dimensions = {list(a.get('lhs_batch_dims', ()))}, "
                  f"rhs_batching_dimensions = {list(a.get('rhs_batch_dims', ()))}, "
                  f"lhs_contracting_dimensions = {list(a.get('lhs_contracting_dims', ()))}, "
                  f"rhs_contracting_dimensions = {list(a.get('rhs_contracting_dims', ()))}>")
            return "stablehlo.dot_general", [f"dot_dimension_numbers = {dn}"], []
        if op == "reduce":
            return ("stablehlo.reduce", [f"dimensions = {_array(a['dimensions'])}"],
                    [self.region(a["to_apply"], indent + "  ")])
        if op == "sort":
            props = [f"dimension = {a['dimensions'][0]} : i64"] + (["is_stable = true"] if a.get("is_stable") else [])
            return "stablehlo.sort", props, [self.region(a["to_apply"], indent + "  ")]
        if op == "reduce-window":
            w = a["window"].dims
            props = [f"window_dimensions = {_array(d.size for d in w)}", f"window_strides = {_array(d.stride for d in w)}",
                     f"base_dilations = {_array(d.base_dilation for d in w)}",
                     f"window_dilations = {_array(d.window_dilation for d in w)}",
                     f"padding = {_dense_ints([[d.padding_low, d.padding_high] for d in w])}"]
            return "stablehlo.reduce_window", props, [self.region(a["to_apply"], indent + "  ")]
        if op == "reduce-precision":
            return "stablehlo.reduce_precision", [f"exponent_bits = {a['exponent_bits']} : i32",
                                                  f"mantissa_bits = {a['mantissa_bits']} : i32"], []
        if op == "topk":
            return "chlo.top_k", [f"k = {a['k']} : i64"], []
        if op == "rng-bit-generator":
            algorithm = str(a.get("algorithm", "rng_default")).removeprefix("rng_").upper()
            return "stablehlo.rng_bit_generator", [f"rng_algorithm = #stablehlo<rng_algorithm {algorithm}>"], []
        if op == "fft":
            return "stablehlo.fft", [f"fft_type = #stablehlo<fft_type {a['fft_type']}>",
                                     f"fft_length = {_array(a['fft_length'])}"], []
        if op == "gather":
            dn = ", ".join(f"{k} = {list(a.get(k, ()))}" for k in ("offset_dims", "collapsed_slice_dims",
                           "operand_batching_dims", "start_indices_batching_dims", "start_index_map"))
            props = [f"dimension_numbers = #stablehlo.gather<{dn}, index_vector_dim = {a['index_vector_dim']}>",
                     f"slice_sizes = {_array(a['slice_sizes'])}"]
            if a.get("indices_are_sorted"):
                props.append("indices_are_sorted = true")
            return "stablehlo.gather", props, []
        if op == "scatter":
            dn = ", ".join(f"{k} = {list(a.get(k, ()))}" for k in ("update_window_dims", "inserted_window_dims",
                           "input_batching_dims", "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"))
            props = [f"scatter_dimension_numbers = #stablehlo.scatter<{dn}, index_vector_dim = {a['index_vector_dim']}>"]
            props += [f"{k} = true" for k in ("indices_are_sorted", "unique_indices") if a.get(k)]
            return "stablehlo.scatter", props, [self.region(a["to_apply"], indent + "  ")]
        if op == "convolution":
            return "stablehlo.convolution", _convolution(a), []
        if op == "conditional":
            if "branch_computations" in a:
                branches, name = list(a["branch_computations"]), "stablehlo.case"
            else:
                branches, name = [a["true_computation"], a["false_computation"]], "stablehlo.if"
            outer = [self.names[id(o)] for o in inst.operands[1:]]  # before the regions rebind self.names
            return name, [], [self.region(b, indent + "  ", [v]) for b, v in zip(branches, outer)]
        if op == "select-and-scatter":
            w = a["window"].dims
            props = [f"window_dimensions = {_array(d.size for d in w)}", f"window_strides = {_array(d.stride for d in w)}",
                     f"padding = {_dense_ints([[d.padding_low, d.padding_high] for d in w])}"]
            return "stablehlo.select_and_scatter", props, [self.region(a["select"], indent + "  "),
                                                           self.region(a["scatter"], indent + "  ")]
        if op == "custom-call":
            return "stablehlo.custom_call", _custom_call(inst), []
        if op == "call":
            return "func.call", [f"callee = @{self.function(a['to_apply'])}"], []
        if op == "while":
            return ("stablehlo.while", [], [self.region(a["condition"], indent + "  "),
                                            self.region(a["body"], indent + "  ")])
        raise HloError(f"{inst.name}: {op} has no StableHLO form in this exporter yet", inst.line or None,
                       inst.column or None)


def _custom_call(inst: Instruction) -> list[str]:
    a = inst.attrs
    props = [f'call_target_name = "{a["custom_call_target"]}"']
    if a.get("custom_call_has_side_effect"):
        props.append("has_side_effect = true")
    if a.get("api_version") == "API_VERSION_TYPED_FFI":
        props.append("api_version = 4 : i32")
    config = a.get("backend_config")
    if isinstance(config, str) and config.startswith("{"):
        props.append(f"mhlo.backend_config = {config}")
    elif isinstance(config, str) and config:
        props.append('backend_config = "' + config.replace("\\", "\\\\").replace('"', '\\"') + '"')
    sharding = a.get("sharding")
    if sharding is not None:
        props.append(f'mhlo.sharding = "{sharding}"')
    constraints = a.get("operand_layout_constraints")
    if constraints is not None:
        props.append("operand_layouts = [" + ", ".join(_layout(s) for s in constraints.shapes) + "]")
        outs = inst.shape.tuple_shapes if inst.shape.tuple_shapes is not None else (inst.shape,)
        props.append("result_layouts = [" + ", ".join(_layout(s) for s in outs) + "]")
    return props


def _layout(shape: Shape) -> str:
    minor = list(shape.layout.minor_to_major) if shape.layout is not None else list(reversed(range(len(shape.dims))))
    body = ", ".join(str(d) for d in minor)
    return f"dense<[{body}]> : tensor<{len(minor)}xindex>" if minor else "dense<> : tensor<0xindex>"


def _convolution(a: dict[str, Any]) -> list[str]:
    w = a["window"].dims
    d = a["dim_labels"]
    dn = (f"#stablehlo.conv<raw input_batch_dimension = {d.input_batch}, input_feature_dimension = "
          f"{d.input_feature}, input_spatial_dimensions = {list(d.input_spatial)}, kernel_input_feature_dimension"
          f" = {d.kernel_input_feature}, kernel_output_feature_dimension = {d.kernel_output_feature}, "
          f"kernel_spatial_dimensions = {list(d.kernel_spatial)}, output_batch_dimension = {d.output_batch}, "
          f"output_feature_dimension = {d.output_feature}, output_spatial_dimensions = {list(d.output_spatial)}>")
    return [f"dimension_numbers = {dn}", f"window_strides = {_array(x.stride for x in w)}",
            f"padding = {_dense_ints([[x.padding_low, x.padding_high] for x in w])}",
            f"lhs_dilation = {_array(x.base_dilation for x in w)}", f"rhs_dilation = {_array(x.window_dilation for x in w)}",
            f"feature_group_count = {a.get('feature_group_count', 1)} : i64",
            f"batch_group_count = {a.get('batch_group_count', 1)} : i64"]


def _literal(inst: Instruction) -> str:
    import numpy as np
    lit = inst.literal
    assert lit is not None
    arr = np.ascontiguousarray(lit.value())
    if arr.dtype == np.bool_:
        arr = arr.astype(np.uint8)
    return f'dense<"0x{arr.tobytes().hex().upper()}"> : {tensor_type(inst.shape)}'


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _entry_arg_attrs(p: Instruction) -> str:
    """` {mhlo.sharding = "...", jax.arg_info = "..."}` for an entry parameter (or '')."""
    from hlotools.text.stablehlo.entry_attrs import frontend_value
    attrs = []
    if p.attrs.get("sharding") is not None:
        attrs.append(f"mhlo.sharding = {_quoted(str(p.attrs['sharding']))}")
    info = frontend_value(str(p.attrs.get("frontend_attributes", "")), "jax.arg_info")
    if info is not None:
        attrs.append(f"jax.arg_info = {_quoted(info)}")
    return " {" + ", ".join(attrs) + "}" if attrs else ""


def _split_braces(text: str) -> list[str]:
    """`{a}, {b, c}` -> ['{a}', '{b, c}'] (commas inside braces stay; a sharding's `<=` is no bracket)."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += (c == "{") - (c == "}")
        if c == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return out


def _entry_results(module: Module, root: Instruction) -> str:
    """The entry's results with the names (jax.result_info) and shardings the module keeps: a
    parenthesized list for a tuple root returned as several results, else the one result's
    attributes (` {...}` or '')."""
    from hlotools.text.stablehlo.entry_attrs import result_labels
    several = root.opcode == "tuple" and all(o.shape.tuple_shapes is None for o in root.operands)
    shapes = [o.shape for o in root.operands] if several else [root.shape]
    labels = result_labels(module) or []
    sharding = root.attrs.get("sharding")
    shardings: list[str | None] = [None] * len(shapes)
    if sharding is not None and several and str(sharding).startswith("{{"):
        shardings = list(_split_braces(str(sharding).strip()[1:-1]))
    elif sharding is not None and not several:
        shardings = [str(sharding)]
    out = []
    for k, shape in enumerate(shapes):
        attrs = []
        if k < len(labels) and len(labels) == len(shapes):
            attrs.append(f"jax.result_info = {_quoted(labels[k])}")
        if k < len(shardings) and shardings[k] is not None:
            attrs.append(f"mhlo.sharding = {_quoted(str(shardings[k]))}")
        out.append((tensor_type(shape) if several else "") + (" {" + ", ".join(attrs) + "}" if attrs else ""))
    return "(" + ", ".join(out) + ")" if several else out[0]


def export_stablehlo(module: Module) -> str:
    """The module as StableHLO text (generic form)."""
    ex = Exporter(module)
    assert module.entry is not None
    ex.function(module.entry)
    name = module.name.replace("-", "_")
    counts = [f"mhlo.{key} = {module.attrs[hlo]} : i32" for hlo, key in (("num_partitions", "num_partitions"),
                                                                           ("replica_count", "num_replicas"))
              if str(module.attrs.get(hlo, "")).isdigit()]
    head = f" attributes {{{', '.join(counts)}}}" if counts else ""
    return f"module @{name}{head} {{\n" + "\n".join(ex.out) + "\n}\n"


__all__ = ["export_stablehlo", "tensor_type"]
