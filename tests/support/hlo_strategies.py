"""Hypothesis strategies for valid HLO modules, written as text (what a user hands the parser).

A module is a random data-flow graph over the entry's parameters: elementwise unary/binary ops,
compare, convert, broadcast, transpose, reshape, slice, reduce (with a per-type reducer
computation), tuples and get-tuple-element, constants of every literal form the type allows,
random layouts, and metadata/sharding/frontend attributes sprinkled on. Every generated module
is valid (it must verify), so a round-trip failure is a parser, printer or verifier bug.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import strategies as st

# element type -> kind; f8e4m3fn has no infinity, so its constants stay finite.
TYPES = {"pred": "pred", "s8": "int", "s32": "int", "s64": "int", "u8": "uint", "u32": "uint",
         "f16": "float", "bf16": "float", "f32": "float", "f64": "float", "f8e4m3fn": "float",
         "f8e5m2": "float", "c64": "complex"}
_FINITE = ["0", "1", "-2", "0.5", "-0.25", "3", "100", "1e+02"]
_SPECIAL = ["inf", "-inf", "nan", "-nan"]
_UNARY = {"pred": ["not"], "int": ["negate", "abs", "not", "popcnt"], "uint": ["not", "popcnt"],
          "float": ["negate", "abs", "exponential", "tanh", "floor", "sqrt"], "complex": ["negate"]}
_BINARY = {"pred": ["and", "or", "xor"], "int": ["add", "multiply", "subtract", "maximum", "and"],
           "uint": ["add", "multiply", "minimum", "or"], "float": ["add", "multiply", "subtract", "maximum"],
           "complex": ["add", "multiply", "subtract"]}
_REDUCER_OP = {"pred": "or", "complex": "add"}


@dataclass(frozen=True)
class Value:
    name: str
    ty: str
    dims: tuple[int, ...]


def shape_text(ty: str, dims: tuple[int, ...], layout: tuple[int, ...] | None) -> str:
    text = f"{ty}[{','.join(map(str, dims))}]"
    return text + ("{" + ",".join(map(str, layout)) + "}" if layout is not None and dims else "")


class _Builder:
    """Accumulates instruction lines; `draw` is Hypothesis's draw function."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.lines: list[str] = []
        self.values: list[Value] = []
        self.reducers: set[str] = set()
        self.pct = draw(st.booleans())  # `%` names (XLA's long form) or bare names

    def name(self, base: str) -> str:
        suffix = self.draw(st.sampled_from(["", ".1", "_a", ".2.3"]))
        return f"{base}{len(self.lines)}{suffix}"

    def ref(self, v: Value) -> str:
        return ("%" if self.pct else "") + v.name

    def layout(self, rank: int) -> tuple[int, ...] | None:
        if self.draw(st.integers(0, 3)) == 0:
            return None  # no layout: the parser fills in the default one
        return tuple(self.draw(st.permutations(range(rank))))

    def attrs(self) -> str:
        out = ""
        if self.draw(st.integers(0, 3)) == 0:
            out += (f', metadata={{op_name="jit(f)/op{len(self.lines)}" source_file="f.py" '
                    f'source_line={self.draw(st.integers(1, 999))}}}')
        if self.draw(st.integers(0, 6)) == 0:
            out += ", sharding=" + self.draw(st.sampled_from(["{replicated}", "{maximal device=0}"]))
        if self.draw(st.integers(0, 8)) == 0:
            out += ', frontend_attributes={_xla_compute_type="dense"}'
        return out

    def emit(self, ty: str, dims: tuple[int, ...], rhs: str, base: str = "v") -> Value:
        v = Value(self.name(base), ty, dims)
        head = ("%" if self.pct else "") + v.name
        self.lines.append(f"  {head} = {shape_text(ty, dims, self.layout(len(dims)))} {rhs}{self.attrs()}")
        self.values.append(v)
        return v

    def pick(self, pred: object = None) -> Value:
        pool = [v for v in self.values if pred is None or pred(v)]  # type: ignore[operator]
        if not pool:  # e.g. a slice when every value is a scalar: a rank-1 constant fits every rule
            return self.constant(self.draw(st.sampled_from(sorted(TYPES))), (2,))
        return self.draw(st.sampled_from(pool))

    # --------------------------------------------------------------------- instructions
    def constant(self, ty: str, dims: tuple[int, ...]) -> Value:
        count = math.prod(dims)
        items = [self.scalar(ty) for _ in range(count)]
        if not dims:
            body = items[0]
        else:
            body = self._nest(items, dims)
        return self.emit(ty, dims, f"constant({body})", "c")

    def _nest(self, items: list[str], dims: tuple[int, ...]) -> str:
        if len(dims) == 1:
            return "{" + ", ".join(items) + "}"
        step = len(items) // dims[0]
        return "{ " + ", ".join(self._nest(items[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])) + " }"

    def scalar(self, ty: str) -> str:
        kind = TYPES[ty]
        if kind == "pred":
            return self.draw(st.sampled_from(["true", "false"]))
        if kind == "int":
            return str(self.draw(st.integers(-128, 127)))
        if kind == "uint":
            return str(self.draw(st.integers(0, 255)))
        pool = _FINITE + ([] if ty == "f8e4m3fn" else _SPECIAL)
        if kind == "complex":
            return f"({self.draw(st.sampled_from(pool))}, {self.draw(st.sampled_from(pool))})"
        return self.draw(st.sampled_from(pool))

    def step(self) -> None:
        kind = self.draw(st.sampled_from(["unary", "binary", "compare", "convert", "broadcast", "transpose",
                                          "reshape", "slice", "reduce", "tuple", "constant"]))
        getattr(self, "op_" + kind)()

    def op_constant(self) -> None:
        self.constant(self.draw(st.sampled_from(sorted(TYPES))), self.draw(_dims))

    def op_unary(self) -> None:
        x = self.pick()
        op = self.draw(st.sampled_from(_UNARY[TYPES[x.ty]]))
        self.emit(x.ty, x.dims, f"{op}({self.ref(x)})")

    def op_binary(self) -> None:
        x = self.pick()
        y = self.pick(lambda v: v.ty == x.ty and v.dims == x.dims)
        op = self.draw(st.sampled_from(_BINARY[TYPES[x.ty]]))
        self.emit(x.ty, x.dims, f"{op}({self.ref(x)}, {self.ref(y)})")

    def op_compare(self) -> None:
        x = self.pick()
        y = self.pick(lambda v: v.ty == x.ty and v.dims == x.dims)
        dirs = ["EQ", "NE"] if TYPES[x.ty] == "complex" else ["EQ", "NE", "LT", "GT", "LE", "GE"]
        extra = ", type=TOTALORDER" if TYPES[x.ty] == "float" and self.draw(st.booleans()) else ""
        self.emit("pred", x.dims, f"compare({self.ref(x)}, {self.ref(y)}), "
                                  f"direction={self.draw(st.sampled_from(dirs))}{extra}")

    def op_convert(self) -> None:
        x = self.pick()
        targets = ["c64"] if TYPES[x.ty] == "complex" else sorted(TYPES)
        self.emit(self.draw(st.sampled_from(targets)), x.dims, f"convert({self.ref(x)})")

    def op_broadcast(self) -> None:
        x = self.pick(lambda v: len(v.dims) <= 3)
        rank = len(x.dims) + self.draw(st.integers(0, 4 - len(x.dims)))
        where = sorted(self.draw(st.permutations(range(rank)))[:len(x.dims)])
        out = [self.draw(st.integers(1, 3)) for _ in range(rank)]
        for d, w in zip(x.dims, where):
            out[w] = d
        self.emit(x.ty, tuple(out), f"broadcast({self.ref(x)}), dimensions={{{','.join(map(str, where))}}}")

    def op_transpose(self) -> None:
        x = self.pick()
        perm = self.draw(st.permutations(range(len(x.dims))))
        self.emit(x.ty, tuple(x.dims[p] for p in perm),
                  f"transpose({self.ref(x)}), dimensions={{{','.join(map(str, perm))}}}")

    def op_reshape(self) -> None:
        x = self.pick()
        n = math.prod(x.dims)
        out = self.draw(st.sampled_from([(n,), (1, n), (n, 1)] + ([()] if n == 1 else [])))
        self.emit(x.ty, out, f"reshape({self.ref(x)})")

    def op_slice(self) -> None:
        x = self.pick(lambda v: len(v.dims) > 0)
        ranges, out = [], []
        for d in x.dims:
            start = self.draw(st.integers(0, d - 1))
            limit = self.draw(st.integers(start + 1, d))
            stride = self.draw(st.integers(1, 2))
            ranges.append(f"[{start}:{limit}" + (f":{stride}]" if stride > 1 else "]"))
            out.append(-(-(limit - start) // stride))
        self.emit(x.ty, tuple(out), f"slice({self.ref(x)}), slice={{{', '.join(ranges)}}}")

    def op_reduce(self) -> None:
        x = self.pick(lambda v: len(v.dims) > 0)
        init = self.constant(x.ty, ())
        dims = sorted(set(self.draw(st.lists(st.integers(0, len(x.dims) - 1), min_size=1, max_size=len(x.dims)))))
        out = tuple(d for i, d in enumerate(x.dims) if i not in dims)
        self.reducers.add(x.ty)
        self.emit(x.ty, out, f"reduce({self.ref(x)}, {self.ref(init)}), dimensions={{{','.join(map(str, dims))}}}, "
                             f"to_apply={'%' if self.pct else ''}reducer_{x.ty}")

    def op_tuple(self) -> None:
        parts = [self.pick() for _ in range(self.draw(st.integers(1, 3)))]
        shapes = ", ".join(shape_text(p.ty, p.dims, None) for p in parts)
        t = Value(self.name("t"), "tuple", ())
        self.lines.append(f"  {self.ref(t)} = ({shapes}) tuple({', '.join(self.ref(p) for p in parts)})")
        i = self.draw(st.integers(0, len(parts) - 1))
        self.emit(parts[i].ty, parts[i].dims, f"get-tuple-element({self.ref(t)}), index={i}")

    # --------------------------------------------------------------------------- module
    def reducer(self, ty: str) -> str:
        p = "%" if self.pct else ""
        op = _REDUCER_OP.get(TYPES[ty], "add")
        return (f"{p}reducer_{ty} {{\n  {p}a = {ty}[] parameter(0)\n  {p}b = {ty}[] parameter(1)\n"
                f"  ROOT {p}r = {ty}[] {op}({p}a, {p}b)\n}}\n")

    def module(self, name: str) -> str:
        last = self.values[-1]
        root_rhs = f"copy({self.ref(last)})"
        self.lines.append(f"  ROOT {'%' if self.pct else ''}root = {shape_text(last.ty, last.dims, None)} {root_rhs}")
        regions = "\n".join(self.reducer(t) for t in sorted(self.reducers))
        return f"HloModule {name}\n\n{regions}\nENTRY {'%' if self.pct else ''}main {{\n" + "\n".join(self.lines) + "\n}\n"


_dims = st.lists(st.integers(1, 3), max_size=3).map(tuple)


@st.composite
def hlo_modules(draw: st.DrawFn) -> str:
    """The text of a valid module with 1-3 parameters and up to 14 instructions."""
    b = _Builder(draw)
    for i in range(draw(st.integers(1, 3))):
        ty = draw(st.sampled_from(sorted(TYPES)))
        b.emit(ty, draw(_dims), f"parameter({i})", "p")
    for _ in range(draw(st.integers(1, 14))):
        b.step()
    return b.module(draw(st.sampled_from(["m", "jit_f", "module.1"])))
