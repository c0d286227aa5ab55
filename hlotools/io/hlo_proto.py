"""XLA's HloProto / HloModuleProto files (`--xla_dump_hlo_as_proto`, `*.hlo.pb`) as HLO text.

The proto is turned into the long (dump) form of HLO text and read by the one parser, so
every check, default and error message of text input holds for protos too: this module only
knows the field numbers of xla/service/hlo.proto and xla/xla_data.proto and how XLA's
printer spells each field. Fields an HLO text has no spelling for (profile info, statistics,
original values) are dropped, as XLA's own text dumps drop them.
"""
from __future__ import annotations

import numpy as np

from hlotools.errors import HloError
from hlotools.io.protowire import Message, ProtoError
from hlotools.ir.literal import Literal
from hlotools.ir.shape_text import parse_shape_text
from hlotools.text.literal_format import format_literal

# xla.PrimitiveType numbers -> HLO text names.
PRIMITIVE_TYPES = {
    1: "pred", 30: "s1", 26: "s2", 21: "s4", 2: "s8", 3: "s16", 4: "s32", 5: "s64",
    31: "u1", 27: "u2", 22: "u4", 6: "u8", 7: "u16", 8: "u32", 9: "u64",
    10: "f16", 11: "f32", 16: "bf16", 12: "f64", 19: "f8e5m2", 28: "f8e4m3", 20: "f8e4m3fn",
    23: "f8e4m3b11fnuz", 29: "f8e3m4", 24: "f8e5m2fnuz", 25: "f8e4m3fnuz", 32: "f4e2m1fn",
    33: "f8e8m0fnu", 15: "c64", 18: "c128", 13: "tuple", 14: "opaque", 17: "token",
}
# LiteralProto: the field holding each element type's values ("bytes" fields are raw
# little-endian storage, one element per byte for the sub-byte types).
_BYTES_FIELDS = {"s1": 30, "s2": 26, "s4": 21, "s8": 15, "u1": 31, "u2": 27, "u4": 22, "u8": 3,
                 "f16": 11, "bf16": 13, "u16": 16, "s16": 17, "f4e2m1fn": 32, "f8e3m4": 29,
                 "f8e4m3b11fnuz": 23, "f8e4m3fn": 20, "f8e4m3fnuz": 25, "f8e4m3": 28,
                 "f8e5m2fnuz": 24, "f8e5m2": 19, "f8e8m0fnu": 33}
_INT_FIELDS = {"pred": 2, "s32": 4, "s64": 5, "u32": 6, "u64": 7}
_FLOAT_FIELDS = {"f32": (8, False), "f64": (9, True), "c64": (12, False), "c128": (18, True)}

_FUSION_KINDS = {"kLoop", "kInput", "kOutput", "kCustom"}
_RNG = {1: "rng_uniform", 2: "rng_normal"}
_RNG_ALGORITHMS = {0: "rng_default", 1: "rng_three_fry", 2: "rng_philox"}
_FFT = {0: "FFT", 1: "IFFT", 2: "RFFT", 3: "IRFFT"}
_PRECISION = {0: "default", 1: "high", 2: "highest"}
_TRANSPOSE = {1: "NO_TRANSPOSE", 2: "TRANSPOSE", 3: "ADJOINT"}
_API_VERSIONS = {1: "API_VERSION_ORIGINAL", 2: "API_VERSION_STATUS_RETURNING",
                 3: "API_VERSION_STATUS_RETURNING_UNIFIED", 4: "API_VERSION_TYPED_FFI"}


def looks_like_proto(data: bytes, filename: str) -> bool:
    """A `.pb` file, or bytes that start as HloProto and HloModuleProto do (field 1,
    length-delimited: 0x0a) and are not UTF-8 text (a module's name and ids are binary)."""
    if filename.endswith(".pb"):
        return True
    if not data.startswith(b"\x0a"):
        return False
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start < 4000  # not just a character cut at the window's end
    return b"\x00" in data[:4096]


def proto_to_text(data: bytes, filename: str) -> str:
    """The HLO text (long form) of an HloProto or HloModuleProto file's module."""
    try:
        return _module_text(_module_message(Message.parse(data)))
    except ProtoError as e:
        raise HloError(f"not a valid HloProto file: {e}", filename=filename) from None
    except (KeyError, IndexError, ValueError) as e:
        raise HloError(f"cannot read this HloProto: {e}", filename=filename) from None


def _module_message(top: Message) -> Message:
    """HloProto wraps the HloModuleProto in field 1 (next to buffer_assignment, field 3);
    a bare HloModuleProto has its name in field 1 and computations in field 3."""
    if set(top.values) <= {1, 3} and len(top.values.get(1, [])) == 1:
        inner = top.message(1)
        if inner is not None and inner.has(3):
            return inner
    return top


def shape_text(shape: Message | None, layout: bool = True) -> str:
    """XLA's spelling of a ShapeProto; computation signatures print no layouts."""
    if shape is None:
        return "()"
    kind = PRIMITIVE_TYPES.get(shape.get_int(2))
    if kind is None:
        raise ValueError(f"unknown element type {shape.get_int(2)}")
    if kind == "tuple":
        return "(" + ", ".join(shape_text(s, layout) for s in shape.messages(4)) + ")"
    if kind in ("token", "opaque"):
        return f"{kind}[]"
    dynamic = shape.ints(6)
    dims = [f"<={d}" if i < len(dynamic) and dynamic[i] else str(d) for i, d in enumerate(shape.ints(3))]
    return f"{kind}[{','.join(dims)}]" + (_layout_text(shape.message(5)) if layout else "")


def _layout_text(layout: Message | None) -> str:
    if layout is None:
        return ""
    parts = ",".join(map(str, layout.ints(1)))
    if not parts:
        return ""  # a scalar: XLA prints no layout
    extras = ""
    tiles = ["T(" + ",".join(map(str, t.ints(1))) + ")" for t in layout.messages(6)]
    if tiles:
        extras += "".join(tiles)
    if layout.get_int(7):
        extras += f"E({layout.get_int(7)})"
    if layout.get_int(8):
        extras += f"S({layout.get_int(8)})"
    return "{" + parts + (":" + extras if extras else "") + "}"


def literal_text(literal: Message) -> str:
    """The payload of `constant(...)`, formatted by the printer's literal formatter."""
    text = shape_text(literal.message(1))
    if text.startswith("("):
        return "( " + ", ".join(literal_text(e) for e in literal.messages(10)) + " )"
    shape, _ = parse_shape_text(text)
    if shape.element_type is None or not shape.element_type.is_array:
        return ""
    kind = text.split("[", 1)[0]
    flat = _literal_values(literal, kind, shape.dtype)
    physical = list(reversed(shape.layout.minor_to_major)) if shape.layout else list(range(len(shape.dims)))
    array = flat.reshape([shape.dims[d] for d in physical]).transpose(np.argsort(physical))
    return format_literal(Literal.from_array(shape, array))


def _literal_values(literal: Message, kind: str, dtype: np.dtype | None) -> np.ndarray:
    if kind in _BYTES_FIELDS:
        return np.frombuffer(literal.get_bytes(_BYTES_FIELDS[kind]), dtype=dtype).copy()
    if kind in _INT_FIELDS:
        ints = literal.ints(_INT_FIELDS[kind])
        if kind in ("u32", "u64"):
            ints = [v & ((1 << 64) - 1) for v in ints]
        return np.array(ints, dtype=dtype)
    number, double = _FLOAT_FIELDS[kind]
    values = np.array(literal.floats(number, double), dtype=np.float64)
    if kind.startswith("c"):  # interleaved (real, imaginary) pairs
        return values.view(np.complex128).astype(dtype)
    return values.astype(dtype)


class _ModuleWriter:
    """Names of computations and instructions by id, then one text line per instruction."""

    def __init__(self, module: Message) -> None:
        self.module = module
        self.computations = module.messages(3)
        self.comp_names = {c.get_int(5): c.string(1) for c in self.computations}
        self.inst_names: dict[int, str] = {}
        self.inst_shapes: dict[int, Message | None] = {}
        for comp in self.computations:
            for inst in comp.messages(2):
                self.inst_names[inst.get_int(35)] = inst.string(1)
                self.inst_shapes[inst.get_int(35)] = inst.message(3)

    def text(self) -> str:
        entry_id = self.module.get_int(6) if self.module.has(6) else None
        entry_name = self.module.string(2)
        blocks = [self._header()]
        for comp in self.computations:
            is_entry = comp.get_int(5) == entry_id if entry_id is not None else comp.string(1) == entry_name
            blocks.append(self._computation(comp, is_entry))
        return "\n\n".join(blocks) + "\n"

    def _header(self) -> str:
        items = [f"HloModule {self.module.string(1) or 'module'}"]
        if self.module.has(7):
            items.append("is_scheduled=true")
        program = self.module.message(4)
        if program is not None and program.has(2):
            params = ", ".join(shape_text(p) for p in program.messages(1))
            items.append(f"entry_computation_layout={{({params})->{shape_text(program.message(2))}}}")
        alias = self.module.message(8)
        if alias is not None and alias.messages(1):
            items.append("input_output_alias={ " + ", ".join(_alias_text(a) for a in alias.messages(1)) + " }")
        return ", ".join(items)

    def _computation(self, comp: Message, is_entry: bool) -> str:
        root = comp.get_int(6)
        params = sorted((i for i in comp.messages(2) if i.string(2) == "parameter"), key=lambda i: i.get_int(9))
        signature = ", ".join(f"{i.string(1)}: {shape_text(i.message(3), False)}" for i in params)
        result = shape_text(self.inst_shapes.get(root), False)
        head = f"{'ENTRY ' if is_entry else ''}%{comp.string(1)} ({signature}) -> {result} {{"
        lines = [head]
        for inst in comp.messages(2):
            lines.append("  " + ("ROOT " if inst.get_int(35) == root else "") + self._instruction(inst))
        return "\n".join(lines + ["}"])

    def _instruction(self, inst: Message) -> str:
        opcode = inst.string(2)
        operands = ", ".join(f"%{self.inst_names[i]}" for i in inst.ints(36))
        if opcode == "parameter":
            operands = str(inst.get_int(9))
        elif opcode == "constant":
            literal = inst.message(8)
            operands = literal_text(literal) if literal is not None else "{...}"
        attrs = _attributes(inst, opcode, self)
        text = f"%{inst.string(1)} = {shape_text(inst.message(3))} {opcode}({operands})"
        return text + "".join(f", {a}" for a in attrs)

    def computation(self, comp_id: int) -> str:
        return f"%{self.comp_names[comp_id]}"


def _module_text(module: Message) -> str:
    if not module.has(3):
        raise ValueError("the file holds no computations")
    return _ModuleWriter(module).text()


def _alias_text(entry: Message) -> str:
    kind = "must-alias" if entry.get_int(4) == 2 else "may-alias"
    out = "{" + ",".join(map(str, entry.ints(1))) + "}"
    param = "{" + ",".join(map(str, entry.ints(3))) + "}"
    return f"{out}: ({entry.get_int(2)}, {param}, {kind})"


def _braced(values: list[int]) -> str:
    return "{" + ",".join(map(str, values)) + "}"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _called(inst: Message, opcode: str, writer: _ModuleWriter) -> list[str]:
    """XLA's names for the called computations of each opcode (hlo_instructions.cc order)."""
    ids = inst.ints(38)
    names = [writer.computation(i) for i in ids]
    if not names:
        return []
    if opcode == "fusion" or opcode.endswith("-start") and opcode.startswith("async"):
        return [f"calls={names[0]}"]
    if opcode == "while":
        return [f"condition={names[1]}", f"body={names[0]}"]
    if opcode == "conditional":
        pred = writer.inst_shapes.get(inst.ints(36)[0]) if inst.ints(36) else None
        if pred is not None and PRIMITIVE_TYPES.get(pred.get_int(2)) == "pred":
            return [f"true_computation={names[0]}", f"false_computation={names[1]}"]
        return ["branch_computations={" + ", ".join(names) + "}"]
    if opcode == "select-and-scatter":
        return [f"select={names[0]}", f"scatter={names[1]}"]
    if opcode == "custom-call":
        return ["called_computations={" + ", ".join(names) + "}"]
    return [f"to_apply={names[0]}"]


def _attributes(inst: Message, opcode: str, writer: _ModuleWriter) -> list[str]:
    attrs: list[str] = []
    attrs += _shape_attributes(inst, opcode)
    if opcode == "fusion":
        kind = inst.string(11)
        attrs.append(f"kind={kind if kind in _FUSION_KINDS else 'kLoop'}")
    attrs += _called(inst, opcode, writer)
    attrs += _op_attributes(inst, opcode)
    if inst.ints(37):
        attrs.append("control-predecessors={" + ", ".join(f"%{writer.inst_names[i]}" for i in inst.ints(37)) + "}")
    sharding = inst.message(40)
    if sharding is not None:
        attrs.append(f"sharding={_sharding_text(sharding)}")
    frontend = inst.message(68)
    if frontend is not None and frontend.messages(1):
        pairs = [f"{e.string(1)}={_quoted(e.string(2))}" for e in frontend.messages(1)]
        attrs.append("frontend_attributes={" + ",".join(pairs) + "}")
    metadata = inst.message(7)
    if metadata is not None:
        text = _metadata_text(metadata)
        if text:
            attrs.append(f"metadata={{{text}}}")
    if inst.get_bytes(43):
        attrs.append(f"backend_config={_quoted(inst.get_bytes(43).decode('utf-8', errors='replace'))}")
    return attrs


def _shape_attributes(inst: Message, opcode: str) -> list[str]:
    """The attributes about dimensions, windows and slicing."""
    attrs: list[str] = []
    dims = inst.ints(14)
    if opcode == "iota":
        attrs.append(f"iota_dimension={dims[0] if dims else 0}")
    elif opcode == "get-tuple-element":
        attrs.append(f"index={inst.get_int(13)}")
    elif opcode in ("broadcast", "reduce", "transpose", "reverse", "concatenate", "sort", "map",
                    "all-gather", "reduce-scatter", "all-to-all", "all-gather-start") and (
            dims or opcode in ("broadcast", "reduce", "transpose", "reverse", "map")):
        attrs.append(f"dimensions={_braced(dims)}")
    if opcode == "slice":
        parts = [f"[{s.get_int(1)}:{s.get_int(2)}" + (f":{s.get_int(3)}" if s.get_int(3) not in (0, 1) else "") + "]"
                 for s in inst.messages(17)]
        attrs.append("slice={" + ", ".join(parts) + "}")
    if opcode == "dynamic-slice":
        attrs.append(f"dynamic_slice_sizes={_braced(inst.ints(20))}")
    padding = inst.message(21)
    if opcode == "pad" and padding is not None:
        attrs.append(f"padding={_padding_text(padding)}")
    window = inst.message(15)
    if window is not None and window.messages(1):
        attrs.append(f"window={{{_window_text(window)}}}")
    conv = inst.message(16)
    if conv is not None:
        attrs.append(f"dim_labels={_dim_labels(conv)}")
    if inst.get_int(50) > 1:
        attrs.append(f"feature_group_count={inst.get_int(50)}")
    if inst.get_int(58) > 1:
        attrs.append(f"batch_group_count={inst.get_int(58)}")
    attrs += _dimension_numbers(inst)
    return attrs


def _dimension_numbers(inst: Message) -> list[str]:
    attrs: list[str] = []
    dot = inst.message(30)
    if dot is not None:
        for number, name in ((3, "lhs_batch_dims"), (1, "lhs_contracting_dims"),
                             (4, "rhs_batch_dims"), (2, "rhs_contracting_dims")):
            if dot.ints(number):
                attrs.append(f"{name}={_braced(dot.ints(number))}")
    gather = inst.message(33)
    if gather is not None:
        for number, name in ((1, "offset_dims"), (2, "collapsed_slice_dims"), (3, "start_index_map"),
                             (5, "operand_batching_dims"), (6, "start_indices_batching_dims")):
            if number <= 3 or gather.ints(number):
                attrs.append(f"{name}={_braced(gather.ints(number))}")
        attrs.append(f"index_vector_dim={gather.get_int(4)}")
        attrs.append(f"slice_sizes={_braced(inst.ints(34))}")
    scatter = inst.message(48)
    if scatter is not None:
        for number, name in ((1, "update_window_dims"), (2, "inserted_window_dims"),
                             (3, "scatter_dims_to_operand_dims"), (5, "input_batching_dims"),
                             (6, "scatter_indices_batching_dims")):
            if number <= 3 or scatter.ints(number):
                attrs.append(f"{name}={_braced(scatter.ints(number))}")
        attrs.append(f"index_vector_dim={scatter.get_int(4)}")
    if inst.get_bool(67):
        attrs.append("indices_are_sorted=true")
    if inst.get_bool(69):
        attrs.append("unique_indices=true")
    return attrs


def _op_attributes(inst: Message, opcode: str) -> list[str]:
    """The per-opcode scalars: comparison, fusion kind, custom-call target, collectives, ..."""
    attrs: list[str] = []
    if inst.string(63):
        attrs.append(f"direction={inst.string(63)}")
        if inst.string(72) in ("TOTALORDER", "PARTIALORDER"):
            attrs.append(f"type={inst.string(72)}")
    if opcode == "custom-call":
        attrs.append(f"custom_call_target={_quoted(inst.string(28))}")
        if inst.get_bool(65):
            attrs.append("custom_call_has_side_effect=true")
        if inst.get_int(77) not in (0, 1):
            attrs.append(f"api_version={_API_VERSIONS.get(inst.get_int(77), 'API_VERSION_ORIGINAL')}")
    if opcode == "rng":
        attrs.append(f"distribution={_RNG.get(inst.get_int(23), 'rng_uniform')}")
    if opcode == "rng-bit-generator":
        attrs.append(f"algorithm={_RNG_ALGORITHMS.get(inst.get_int(70), 'rng_default')}")
    if opcode == "reduce-precision":
        attrs += [f"exponent_bits={inst.get_int(18)}", f"mantissa_bits={inst.get_int(19)}"]
    if opcode == "fft":
        attrs += [f"fft_type={_FFT.get(inst.get_int(31), 'FFT')}", f"fft_length={_braced(inst.ints(32))}"]
    if opcode.startswith("batch-norm"):
        attrs += [f"epsilon={inst.get_float(24)!r}", f"feature_index={inst.get_int(25)}"]
    if opcode == "sort" and inst.get_bool(60):
        attrs.append("is_stable=true")
    if opcode == "topk":
        attrs += [f"k={inst.get_int(81)}", f"largest={'true' if inst.get_bool(85) else 'false'}"]
    if inst.get_int(26) > 0:
        attrs.append(f"channel_id={inst.get_int(26)}")
    groups = inst.messages(49) or [g for d in inst.messages(87) for g in d.messages(1)]
    if groups:
        attrs.append("replica_groups={" + ",".join(_braced(g.ints(1)) for g in groups) + "}")
    if inst.get_bool(71):
        attrs.append("use_global_device_ids=true")
    pairs = inst.messages(52)
    if pairs:
        attrs.append("source_target_pairs={" + ",".join(f"{{{p.get_int(1)},{p.get_int(2)}}}" for p in pairs) + "}")
    attrs += _linalg_options(inst)
    precision = inst.message(51)
    if precision is not None and any(precision.ints(1)):
        attrs.append("operand_precision={" + ",".join(_PRECISION.get(p, "default") for p in precision.ints(1)) + "}")
    return attrs


def _linalg_options(inst: Message) -> list[str]:
    attrs: list[str] = []
    solve = inst.message(59)
    if solve is not None:
        for number, name in ((1, "left_side"), (2, "lower"), (3, "unit_diagonal")):
            if solve.get_bool(number):
                attrs.append(f"{name}=true")
        attrs.append(f"transpose_a={_TRANSPOSE.get(solve.get_int(4), 'NO_TRANSPOSE')}")
    cholesky = inst.message(62)
    if cholesky is not None and cholesky.get_bool(1):
        attrs.append("lower=true")
    return attrs


def _padding_text(padding: Message) -> str:
    dims = padding.messages(1)
    interior = any(d.get_int(3) for d in dims)
    return "x".join(f"{d.get_int(1)}_{d.get_int(2)}" + (f"_{d.get_int(3)}" if interior else "") for d in dims)


def _window_text(window: Message) -> str:
    dims = window.messages(1)
    parts = ["size=" + "x".join(str(d.get_int(1)) for d in dims)]
    if any(d.get_int(2) not in (0, 1) for d in dims):
        parts.append("stride=" + "x".join(str(d.get_int(2) or 1) for d in dims))
    if any(d.get_int(3) or d.get_int(4) for d in dims):
        parts.append("pad=" + "x".join(f"{d.get_int(3)}_{d.get_int(4)}" for d in dims))
    if any(d.get_int(6) not in (0, 1) for d in dims):
        parts.append("lhs_dilate=" + "x".join(str(d.get_int(6) or 1) for d in dims))
    if any(d.get_int(5) not in (0, 1) for d in dims):
        parts.append("rhs_dilate=" + "x".join(str(d.get_int(5) or 1) for d in dims))
    if any(d.get_bool(7) for d in dims):
        parts.append("rhs_reversal=" + "x".join("1" if d.get_bool(7) else "0" for d in dims))
    return " ".join(parts)


def _dim_labels(conv: Message) -> str:
    def labels(batch: int, feature: int, spatial: list[int], letters: str) -> str:
        out = [""] * (2 + len(spatial))
        out[batch], out[feature] = letters[0], letters[1]
        for i, d in enumerate(spatial):
            out[d] = str(i)
        return "".join(out)
    lhs = labels(conv.get_int(7), conv.get_int(8), conv.ints(11), "bf")
    rhs = labels(conv.get_int(3), conv.get_int(4), conv.ints(6), "io")
    out = labels(conv.get_int(9), conv.get_int(10), conv.ints(12), "bf")
    return f"{lhs}_{rhs}->{out}"


def _metadata_text(metadata: Message) -> str:
    parts = []
    for number, name in ((1, "op_type"), (2, "op_name"), (3, "source_file")):
        if metadata.string(number):
            parts.append(f"{name}={_quoted(metadata.string(number))}")
    if metadata.get_int(4):
        parts.append(f"source_line={metadata.get_int(4)}")
    return " ".join(parts)


def _sharding_text(sharding: Message) -> str:
    kind = sharding.get_int(1)
    if kind == 2:  # TUPLE
        return "{" + ", ".join(_sharding_text(s) for s in sharding.messages(5)) + "}"
    if kind == 1:
        ids = sharding.ints(4)
        return f"{{maximal device={ids[0] if ids else 0}}}"
    if kind == 4:
        return "{manual}"
    if kind == 3:
        tile = "[" + ",".join(map(str, sharding.ints(3))) + "]"
        if sharding.ints(9):
            devices = "<=[" + ",".join(map(str, sharding.ints(9))) + "]"
            if sharding.ints(10):
                devices += "T(" + ",".join(map(str, sharding.ints(10))) + ")"
        else:
            devices = ",".join(map(str, sharding.ints(4)))
        last = " last_tile_dim_replicate" if sharding.get_bool(6) else ""
        return f"{{devices={tile}{devices}{last}}}"
    return "{replicated}"
