"""A symbolic size (a sympy expression of the graph's symbols) as an s32[] HLO value.

Symbols come from where the module can read them: get-dimension-size of an input dim that
is exactly that symbol, or a SymInt input of the graph (an s32[] parameter). Sizes are
non-negative, so torch's floor division and modulo are HLO's divide and remainder."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import sympy
from torch.utils._sympy import functions as fn

from hlotools.torch import ops
from hlotools.torch.builder import Builder, Value
from hlotools.torch.symbolic import SizeError


@dataclass(frozen=True)
class Size:
    """The value of an FX node that computes a size (sym_size, SymInt arithmetic, or a
    SymFloat made of sizes)."""

    expr: sympy.Expr


@dataclass
class Sizes:
    b: Builder
    sources: dict[sympy.Symbol, Callable[[], Value]] = field(default_factory=dict)
    built: dict[sympy.Expr, Value] = field(default_factory=dict)

    def from_dim(self, symbol: sympy.Symbol, x: Value, dim: int) -> None:
        def read() -> Value:
            return self.b.emit("get-dimension-size", [x], "s32", (), f"dimensions={{{dim}}}")
        self.sources.setdefault(symbol, read)

    def from_scalar(self, symbol: sympy.Symbol, x: Value) -> None:
        self.sources.setdefault(symbol, lambda: x)

    def knows(self, expr: sympy.Expr) -> bool:
        return all(s in self.sources for s in expr.free_symbols)

    def value(self, expr: sympy.Expr) -> Value:
        if expr not in self.built:
            self.built[expr] = self._build(expr)
        return self.built[expr]

    def scalar(self, expr: sympy.Expr, dtype: str) -> Value:
        """`expr` as a `dtype` scalar: an integer size through s32, a SymFloat (1 / (N*H*W)
        in a batch norm's backward) computed in f64 and rounded once, as Python computes it."""
        if not isinstance(expr, sympy.Integer) and expr.is_integer:
            return ops.convert(self.b, self.value(expr), dtype)
        return ops.convert(self.b, self._float(expr), dtype)

    def _float(self, e: sympy.Expr) -> Value:
        if isinstance(e, sympy.Number):
            return ops.constant(self.b, float(e), "f64")
        if e.is_integer:
            return ops.convert(self.b, self.value(e), "f64")
        if isinstance(e, fn.IntTrueDiv | fn.FloatTrueDiv):
            return ops.binary(self.b, "divide", self._float(e.args[0]), self._float(e.args[1]))
        if isinstance(e, fn.ToFloat):
            return self._float(e.args[0])
        if isinstance(e, sympy.Add | sympy.Mul):
            out = self._float(e.args[0])
            for a in e.args[1:]:
                out = ops.binary(self.b, "add" if isinstance(e, sympy.Add) else "multiply", out, self._float(a))
            return out
        raise SizeError(f"size expression {e} ({type(e).__name__}) is not lowered")

    def _build(self, e: sympy.Expr) -> Value:
        if isinstance(e, sympy.Integer):
            return ops.constant(self.b, int(e), "s32")
        if isinstance(e, sympy.Symbol):
            if e not in self.sources:
                raise SizeError(f"size {e} is not an input dim or SymInt input of the graph")
            return self.sources[e]()
        if isinstance(e, sympy.Add | sympy.Mul | fn.Max | fn.Min):
            opcode = {sympy.Add: "add", sympy.Mul: "multiply", fn.Max: "maximum", fn.Min: "minimum"}[type(e)]
            args = [self.value(a) for a in e.args]
            out = args[0]
            for a in args[1:]:
                out = ops.binary(self.b, opcode, out, a)
            return out
        if isinstance(e, fn.FloorDiv | fn.CleanDiv | fn.Mod | fn.PythonMod):
            opcode = "remainder" if isinstance(e, fn.Mod | fn.PythonMod) else "divide"
            return ops.binary(self.b, opcode, self.value(e.args[0]), self.value(e.args[1]))
        if isinstance(e, fn.CeilDiv):
            n, d = self.value(e.args[0]), self.value(e.args[1])
            one = ops.constant(self.b, 1, "s32")
            return ops.binary(self.b, "divide", ops.binary(self.b, "add", n, ops.binary(self.b, "subtract", d, one)), d)
        if isinstance(e, sympy.Pow | fn.PowByNatural) and isinstance(e.args[1], sympy.Integer) and e.args[1] > 0:
            base, out = self.value(e.args[0]), self.value(e.args[0])
            for _ in range(int(e.args[1]) - 1):
                out = ops.binary(self.b, "multiply", out, base)
            return out
        raise SizeError(f"size expression {e} ({type(e).__name__}) is not lowered")
