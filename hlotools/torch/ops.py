"""HLO instructions with XLA's shape rules: the vocabulary the lowerings are written in.

Each function emits one instruction (or a few for a common idiom: numpy broadcasting, a
reduction with its scalar computation) through a Builder and returns its Value."""
from __future__ import annotations

from collections.abc import Sequence

from hlotools.torch.builder import Builder, Dims, Value, ints, literal

COMPARE = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}


def constant(b: Builder, value: complex | float | int | bool, dtype: str) -> Value:
    name = b.fresh("constant")
    b.lines.append(f"  {name} = {dtype}[] constant({literal(value, dtype)})")
    return Value(name, dtype, ())


def full(b: Builder, value: complex | float | int | bool, dtype: str, dims: Sequence[int]) -> Value:
    c = constant(b, value, dtype)
    return broadcast_in_dim(b, c, dims, ()) if dims else c


def convert(b: Builder, x: Value, dtype: str) -> Value:
    return x if x.dtype == dtype else b.emit("convert", [x], dtype, x.dims)


def reshape(b: Builder, x: Value, dims: Sequence[int]) -> Value:
    return x if tuple(dims) == x.dims else b.emit("reshape", [x], x.dtype, dims)


def transpose(b: Builder, x: Value, perm: Sequence[int]) -> Value:
    if list(perm) == list(range(x.rank)):
        return x
    return b.emit("transpose", [x], x.dtype, [x.dims[p] for p in perm], f"dimensions={ints(perm)}")


def broadcast_in_dim(b: Builder, x: Value, dims: Sequence[int], mapping: Sequence[int]) -> Value:
    """XLA's broadcast: operand dim i becomes result dim mapping[i]."""
    if tuple(dims) == x.dims and list(mapping) == list(range(x.rank)):
        return x
    return b.emit("broadcast", [x], x.dtype, dims, f"dimensions={ints(mapping)}")


def broadcast_to(b: Builder, x: Value, dims: Sequence[int]) -> Value:
    """numpy/torch broadcasting of `x` to `dims` (trailing dims aligned, size-1 dims stretched)."""
    dims = tuple(dims)
    if x.dims == dims:
        return x
    offset = len(dims) - x.rank
    keep = [i for i, d in enumerate(x.dims) if d == dims[i + offset]]
    squeezed = reshape(b, x, [x.dims[i] for i in keep])
    return broadcast_in_dim(b, squeezed, dims, [i + offset for i in keep])


def broadcast_shape(*shapes: Dims) -> Dims:
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for s in shapes:
        for i, d in enumerate(s):
            j = rank - len(s) + i
            out[j] = d if out[j] == 1 else out[j]
    return tuple(out)


def unary(b: Builder, opcode: str, x: Value) -> Value:
    return b.emit(opcode, [x], x.dtype, x.dims)


def binary(b: Builder, opcode: str, x: Value, y: Value) -> Value:
    """Elementwise `opcode` after broadcasting both operands to one shape (same element type)."""
    dims = broadcast_shape(x.dims, y.dims)
    return b.emit(opcode, [broadcast_to(b, x, dims), broadcast_to(b, y, dims)], x.dtype, dims)


def compare(b: Builder, direction: str, x: Value, y: Value) -> Value:
    dims = broadcast_shape(x.dims, y.dims)
    return b.emit("compare", [broadcast_to(b, x, dims), broadcast_to(b, y, dims)], "pred", dims,
                  f"direction={direction}")


def select(b: Builder, pred: Value, x: Value, y: Value) -> Value:
    dims = broadcast_shape(pred.dims, x.dims, y.dims)
    return b.emit("select", [broadcast_to(b, pred, dims), broadcast_to(b, x, dims), broadcast_to(b, y, dims)],
                  x.dtype, dims)


def scalar_computation(b: Builder, opcode: str, dtype: str) -> str:
    """`opcode` of two scalars as a computation (a reducer or a select-and-scatter part)."""
    name = f"{opcode}_{dtype}"
    shape = "pred" if opcode.startswith("compare") else dtype
    op = opcode.split("-")[0]
    attrs = f", direction={opcode.split('-')[1]}" if op == "compare" else ""
    text = (f"{name} {{\n  a = {dtype}[] parameter(0)\n  b = {dtype}[] parameter(1)\n"
            f"  ROOT r = {shape}[] {op}(a, b){attrs}\n}}\n")
    return b.computation(name, text)


def reduce(b: Builder, x: Value, axes: Sequence[int], opcode: str, init: complex | float | int | bool,
           keepdim: bool = False) -> Value:
    """Reduce `axes` of `x` with the scalar `opcode` (add, maximum, ...) from `init`."""
    axes = sorted({a % x.rank for a in axes}) if x.rank else []
    dims = [d for i, d in enumerate(x.dims) if i not in axes]
    out = b.emit("reduce", [x, constant(b, init, x.dtype)], x.dtype, dims,
                 f"dimensions={ints(axes)}, to_apply={scalar_computation(b, opcode, x.dtype)}")
    return reshape(b, out, keep_dims(x.dims, axes)) if keepdim else out


def keep_dims(dims: Dims, axes: Sequence[int]) -> list[int]:
    return [1 if i in axes else d for i, d in enumerate(dims)]


def iota(b: Builder, dtype: str, dims: Sequence[int], axis: int) -> Value:
    return b.emit("iota", [], dtype, dims, f"iota_dimension={axis}")


def slice_(b: Builder, x: Value, starts: Sequence[int], limits: Sequence[int], strides: Sequence[int]) -> Value:
    if list(starts) == [0] * x.rank and tuple(limits) == x.dims and set(strides) <= {1}:
        return x
    dims = [max(0, -(-(hi - lo) // st)) for lo, hi, st in zip(starts, limits, strides)]
    spec = ", ".join(f"[{lo}:{hi}:{st}]" for lo, hi, st in zip(starts, limits, strides))
    return b.emit("slice", [x], x.dtype, dims, f"slice={{{spec}}}")


def pad(b: Builder, x: Value, value: Value, low: Sequence[int], high: Sequence[int],
        interior: Sequence[int] | None = None) -> Value:
    interior = interior or [0] * x.rank
    dims = [lo + hi + d + max(0, d - 1) * i for d, lo, hi, i in zip(x.dims, low, high, interior)]
    spec = "x".join(f"{lo}_{hi}" + (f"_{i}" if i else "") for lo, hi, i in zip(low, high, interior))
    return b.emit("pad", [x, value], x.dtype, dims, f"padding={spec}")


def concatenate(b: Builder, values: Sequence[Value], axis: int) -> Value:
    if len(values) == 1:
        return values[0]
    dims = list(values[0].dims)
    dims[axis] = sum(v.dims[axis] for v in values)
    return b.emit("concatenate", values, values[0].dtype, dims, f"dimensions={{{axis}}}")


def dot(b: Builder, x: Value, y: Value, batch: int = 0, dtype: str | None = None) -> Value:
    """Batched matrix product: x[..., m, k] @ y[..., k, n] over `batch` leading dims."""
    bd = list(range(batch))
    dims = [*x.dims[:batch], x.dims[batch], y.dims[batch + 1]]
    return b.emit("dot", [x, y], dtype or x.dtype, dims,
                  f"lhs_batch_dims={ints(bd)}, lhs_contracting_dims={{{batch + 1}}}, "
                  f"rhs_batch_dims={ints(bd)}, rhs_contracting_dims={{{batch}}}")


def window_text(size: Sequence[int], stride: Sequence[int], pads: Sequence[tuple[int, int]],
                lhs_dilate: Sequence[int] | None = None, rhs_dilate: Sequence[int] | None = None) -> str:
    parts = [f"size={'x'.join(map(str, size))}", f"stride={'x'.join(map(str, stride))}",
             f"pad={'x'.join(f'{lo}_{hi}' for lo, hi in pads)}"]
    if lhs_dilate and set(lhs_dilate) != {1}:
        parts.append(f"lhs_dilate={'x'.join(map(str, lhs_dilate))}")
    if rhs_dilate and set(rhs_dilate) != {1}:
        parts.append(f"rhs_dilate={'x'.join(map(str, rhs_dilate))}")
    return "window={" + " ".join(parts) + "}"


def window_out(d: int, k: int, s: int, lo: int, hi: int, dil: int = 1, base_dil: int = 1) -> int:
    """XLA's output size of one window dimension."""
    base = (d - 1) * base_dil + 1 if d else 0
    eff = (k - 1) * dil + 1
    return max(0, (base + lo + hi - eff) // s + 1)


def reduce_window(b: Builder, x: Value, opcode: str, init: float, size: Sequence[int],
                  stride: Sequence[int], pads: Sequence[tuple[int, int]]) -> Value:
    dims = [window_out(d, k, s, lo, hi) for d, k, s, (lo, hi) in zip(x.dims, size, stride, pads)]
    return b.emit("reduce-window", [x, constant(b, init, x.dtype)], x.dtype, dims,
                  f"{window_text(size, stride, pads)}, to_apply={scalar_computation(b, opcode, x.dtype)}")
