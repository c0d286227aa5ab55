"""DCE and CSE details the goldens do not show: fuel (bisection), side effects through called
computations, structural equality of computations, and linear behaviour on wide fan-in."""
from __future__ import annotations

import hlotools
from hlotools.passes.base import PassContext
from hlotools.passes.cse import HloCSE
from hlotools.passes.dce import HloDCE


def parse(text: str):
    return hlotools.parse_module(text)


CHAIN = """HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(a)
  c = f32[4] abs(b)
  ROOT r = f32[4] copy(p)
}
"""


def names(module) -> list[str]:
    return [i.name for c in module.computations for i in c.instructions]


def test_dce_fuel_removes_users_first_and_stops() -> None:
    m = parse(CHAIN)
    ctx = PassContext(fuel=1, pass_name="dce")
    assert HloDCE().run(m, ctx)
    assert names(m) == ["p", "a", "b", "r"]  # only the last user went; its operands stay live
    assert ctx.rewrites == 1 and ctx.out_of_fuel
    assert HloDCE().run(m, PassContext())
    assert names(m) == ["p", "r"]


def test_dce_keeps_calls_of_effectful_computations() -> None:
    m = parse("""HloModule m
effect {
  x = f32[4] parameter(0)
  ROOT y = f32[4] custom-call(x), custom_call_target="log", custom_call_has_side_effect=true
}
pure {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
ENTRY main {
  p = f32[4] parameter(0)
  kept = f32[4] call(p), to_apply=effect
  gone = f32[4] call(p), to_apply=pure
  ROOT r = f32[4] copy(p)
}
""")
    assert HloDCE().run(m, PassContext())
    assert "kept" in names(m) and "gone" not in names(m)
    assert [c.name for c in m.computations] == ["effect", "main"]
    assert not HloDCE().run(m, PassContext())


def test_cse_fuel_merges_one_pair_at_a_time() -> None:
    m = parse("""HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  a1 = f32[4] negate(p)
  a2 = f32[4] negate(p)
  a3 = f32[4] negate(p)
  ROOT t = (f32[4], f32[4], f32[4]) tuple(a1, a2, a3)
}
""")
    ctx = PassContext(fuel=1, pass_name="cse")
    assert HloCSE().run(m, ctx)
    assert names(m) == ["p", "a1", "a3", "t"]
    assert [o.name for o in m.entry.root.operands] == ["a1", "a1", "a3"]


def test_cse_layout_sensitivity_option() -> None:
    text = """HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  a = f32[2,3]{1,0} negate(p)
  b = f32[2,3]{0,1} negate(p)
  ROOT t = (f32[2,3]{1,0}, f32[2,3]{0,1}) tuple(a, b)
}
"""
    m = parse(text)
    assert HloCSE(is_layout_sensitive=True).run(m, PassContext()) is False
    m = parse(text)
    assert HloCSE().run(m, PassContext())  # XLA's default: layouts are compared only after assignment
    assert names(m) == ["p", "a", "t"]


def test_cse_merges_thousands_of_duplicates_into_one() -> None:
    """Wide fan-in (one constant per layer, as in JAX output) stays exact and linear."""
    n = 3000
    body = "\n".join(f"  k{i} = f32[] constant(0.5)\n  b{i} = f32[4] broadcast(k{i}), dimensions={{}}\n"
                     f"  m{i} = f32[4] multiply(p, b{i})" for i in range(n))
    sums = ["m0"]
    for i in range(1, n):
        sums.append(f"acc{i}")
        body += f"\n  acc{i} = f32[4] add({sums[-2]}, m{i})"
    m = parse(f"HloModule m\nENTRY main {{\n  p = f32[4] parameter(0)\n{body}\n  ROOT r = f32[4] copy({sums[-1]})\n}}\n")
    assert HloCSE().run(m, PassContext())
    kinds = [i.opcode for i in m.entry.instructions]
    assert kinds.count("constant") == 1 and kinds.count("broadcast") == 1 and kinds.count("multiply") == 1
    const = next(i for i in m.entry.instructions if i.opcode == "constant")
    assert len(const.users) == 1 and len(const.users[0].users) == 1
    mult = const.users[0].users[0]
    assert len(mult.users) == n - 1  # every add (the first one twice: m0 + m1 -> m0 + m0)
    hlotools.verify_module(m)


CSE_PAIRS = """HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  s = f32[4] subtract(p, q)
  a1 = f32[4] add(p, q)
  t = f32[4] subtract(q, p)
  a2 = f32[4] add(q, p)
  e1 = f32[4] exponential(a1)
  e2 = f32[4] exponential(a2)
  b1 = f32[2,4] broadcast(e1), dimensions={1}
  b2 = f32[4,2] broadcast(e2), dimensions={0}
  ROOT r = (f32[4], f32[4], f32[2,4], f32[4,2]) tuple(s, t, b1, b2)
}
"""


def test_cse_keys_only_instructions_sharing_opcode_and_operands(monkeypatch) -> None:
    """The full key is built only when an earlier instruction has the same opcode and operand
    multiset (then for both): commutative operands in either order, and merges that make two
    users alike (the exponentials after the adds merge), still merge; same operands with
    other attributes (the broadcasts) or operand order (the subtracts) do not."""
    import hlotools.passes.cse as cse
    keyed: list[str] = []
    original = cse._instruction_key

    def counting(inst, *rest):  # type: ignore[no-untyped-def]
        keyed.append(inst.name)
        return original(inst, *rest)

    monkeypatch.setattr(cse, "_instruction_key", counting)
    m = parse(CSE_PAIRS)
    assert HloCSE().run(m, PassContext())
    assert names(m) == ["p", "q", "s", "a1", "t", "e1", "b1", "b2", "r"]
    assert sorted(keyed) == ["a1", "a2", "b1", "b2", "e1", "e2", "s", "t"]  # never p, q or r
