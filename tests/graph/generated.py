"""A generated module of any size for the graph views: a lattice of `lanes` x `levels` blocks, each
a loop fusion of four elementwise ops fed by two blocks of the level above, then a dot and a
negate; 9 instructions per block (6 in the fusion body, 3 in the entry)."""
from __future__ import annotations


def lattice_module(lanes: int, levels: int, dim: int = 16) -> str:
    t = f"f32[{dim},{dim}]"
    body = [f"fused_body {{\n  a = {t} parameter(0)\n  b = {t} parameter(1)\n  m = {t} multiply(a, b)\n"
            f"  e = {t} exponential(m)\n  s = {t} add(e, a)\n  ROOT r = {t} tanh(s)\n}}\n"]
    entry = [f"  p{j} = {t} parameter({j})" for j in range(lanes)]
    prev = [f"p{j}" for j in range(lanes)]
    bodies = []
    for i in range(levels):
        cur = []
        for j in range(lanes):
            name = f"b{i}_{j}"
            bodies.append(body[0].replace("fused_body", f"fused_{name}"))
            a, b = prev[j], prev[(j + 1) % lanes]
            entry.append(f"  f{name} = {t} fusion({a}, {b}), kind=kLoop, calls=fused_{name}")
            entry.append(f"  d{name} = {t} dot(f{name}, {b}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, "
                         f'metadata={{op_name="jit(f)/block_{i}/dot" source_file="model.py" source_line={i + 1}}}')
            entry.append(f"  n{name} = {t} negate(d{name})")
            cur.append(f"n{name}")
        prev = cur
    entry.append(f"  ROOT out = ({', '.join([t] * lanes)}) tuple({', '.join(prev)})")
    return ("HloModule lattice\n\n" + "\n".join(bodies) + "\nENTRY main {\n" + "\n".join(entry) + "\n}\n")
