"""Property: random chains of elementwise, reduce, dot, reshape, concatenate, slice, transpose,
reverse, pad and sort steps over a value with random bounds, dynamic flags and sizes (0 and the bound included)
give, padded, exactly what the static module M[s] gives (s32, so bit for bit)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import hlotools

HEADER = """HloModule p
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}
less {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
"""


@dataclass(frozen=True)
class Dim:
    bound: int
    size: int
    dynamic: bool

    def text(self, static: bool) -> str:
        return str(self.size) if static else (f"<={self.bound}" if self.dynamic else str(self.bound))


class Chain:
    """Builds M and M[s] side by side, one instruction at a time."""

    def __init__(self, dims: list[Dim]) -> None:
        self.lines: tuple[list[str], list[str]] = ([], [])
        self.n = 0
        self.dims = dims
        self.emit(lambda s: f"x = s32[{self.shape(dims, s)}] parameter(0)", "x")
        self.emit(lambda s: "z = s32[] constant(0)", "z")
        self.cur = "x"

    def shape(self, dims: list[Dim], static: bool) -> str:
        return ",".join(d.text(static) for d in dims)

    def emit(self, line, name: str) -> None:
        for static, out in ((False, self.lines[0]), (True, self.lines[1])):
            out.append("  " + line(static))

    def step(self, kind: str, dims: list[Dim], body) -> None:
        self.n += 1
        name = f"v{self.n}"
        self.emit(lambda s: f"{name} = s32[{self.shape(dims, s)}] {body(s)}", name)
        self.cur, self.dims = name, dims

    def texts(self) -> tuple[str, str]:
        out = []
        for lines in self.lines:
            body = lines + [f"  ROOT r = s32[{self.shape(self.dims, lines is self.lines[1])}] copy({self.cur})"]
            out.append(HEADER + "ENTRY e {\n" + "\n".join(body) + "\n}\n")
        return out[0], out[1]


def apply(chain: Chain, kind: str) -> None:
    x, (a, b) = chain.cur, chain.dims
    if kind == "elementwise":
        chain.step(kind, [a, b], lambda s: f"multiply({x}, {x})")
    elif kind == "reduce":
        chain.n += 1
        r = f"r{chain.n}"
        chain.emit(lambda s: f"{r} = s32[{a.text(s)}] reduce({x}, z), dimensions={{1}}, to_apply=add", r)
        if not b.dynamic:
            chain.step(kind, [a, b], lambda s: f"broadcast({r}), dimensions={{0}}")
            return
        # A broadcast's new dim is static (XLA's inference gives it no size): as JAX writes it,
        # the size comes back through get/set-dimension-size; M[s] broadcasts to the size.
        wide = Dim(b.bound, b.bound, False)
        chain.n += 1
        w, g = f"w{chain.n}", f"g{chain.n}"
        chain.emit(lambda s: f"{w} = s32[{a.text(s)},{(b if s else wide).text(s)}] broadcast({r}), dimensions={{0}}", w)
        chain.emit(lambda s: f"{g} = s32[] get-dimension-size({x}), dimensions={{1}}" if not s else
                   f"{g} = s32[] constant({b.size})", g)
        chain.step(kind, [a, b], lambda s: f"set-dimension-size({w}, {g}), dimensions={{1}}" if not s else
                   f"copy({w})")
    elif kind == "transpose":
        chain.step(kind, [b, a], lambda s: f"transpose({x}), dimensions={{1,0}}")
    elif kind == "reshape":
        flat = Dim(a.bound * b.bound, a.size * b.size, a.dynamic or b.dynamic)
        chain.n += 1
        r = f"f{chain.n}"
        chain.emit(lambda s: f"{r} = s32[{flat.text(s)}] reshape({x})", r)
        one = Dim(1, 1, False)
        chain.step(kind, [flat, one], lambda s: f"reshape({r})")
    elif kind == "concatenate":
        both = Dim(2 * a.bound, 2 * a.size, a.dynamic)
        chain.step(kind, [both, b], lambda s: f"concatenate({x}, {x}), dimensions={{0}}")
    elif kind == "slice":
        half = Dim((a.bound + 1) // 2, (a.size + 1) // 2, a.dynamic)
        chain.step(kind, [half, b], lambda s: f"slice({x}), slice={{[0:{a.size if s else a.bound}:2], "
                                              f"[0:{b.size if s else b.bound}]}}")
    elif kind == "reverse":
        chain.step(kind, [a, b], lambda s: f"reverse({x}), dimensions={{0,1}}")
    elif kind == "pad":
        grown = Dim(a.bound + 1 + max(a.bound - 1, 0), a.size + 1 + max(a.size - 1, 0), a.dynamic)
        chain.step(kind, [grown, b], lambda s: f"pad({x}, z), padding=1_0_1x0_0")
    elif kind == "sort":
        chain.step(kind, [a, b], lambda s: f"sort({x}), dimensions={{1}}, to_apply=less")
    elif kind == "dot":
        chain.step(kind, [a, a], lambda s: f"dot({x}, {x}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}")


@st.composite
def chains(draw: st.DrawFn) -> tuple[str, str, tuple[int, int]]:
    dims = []
    for _ in range(2):
        bound = draw(st.integers(1, 5))
        dynamic = draw(st.booleans())
        size = draw(st.integers(0, bound)) if dynamic else bound
        dims.append(Dim(bound, size, dynamic))
    chain = Chain(dims)
    for kind in draw(st.lists(st.sampled_from(["elementwise", "reduce", "transpose", "reshape", "concatenate",
                                                "slice", "sort", "dot", "reverse", "pad"]), min_size=1, max_size=4)):
        apply(chain, kind)
    dynamic, static = chain.texts()
    return dynamic, static, (dims[0].size, dims[1].size)


@settings(max_examples=60, deadline=None)
@given(chains(), st.integers(0, 2**31 - 1))
def test_padded_chain_equals_static_chain(case: tuple[str, str, tuple[int, int]], seed: int) -> None:
    dynamic, static, sizes = case
    x = np.random.default_rng(seed).integers(-5, 5, sizes).astype(np.int32)
    want = hlotools.evaluate(hlotools.parse_module(static), [x])
    got = hlotools.evaluate(hlotools.parse_module(dynamic), [x])
    assert got[0].shape == want[0].shape and np.array_equal(got[0], want[0]), (dynamic, static)
