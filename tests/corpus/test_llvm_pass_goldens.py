"""Differential: every golden pass test's output module (testdata/passes/*/*.hlo run through
its pass, as tests/passes/test_goldens.py does) gives the interpreter's results on the LLVM
backend, for random inputs (hlotools/io/random_inputs.py, seed 0).

Two compiles per golden: the output module exactly as the pass left it (preset 'none': the
emitters see the pass's constructs, fusions, layouts and bitcasts as they are) and after
the -O2 pipeline hlo-run uses; goldens with integer arguments once more after -O2 with
integers over their types' whole range ('O2-wild': out-of-bounds indices must clamp, never
crash). Each runs in the sandboxed worker (tests/support/llvm_sandbox.py),
so a crash fails its test only. Tolerances are the corpus tests' (op class of the module).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.passes.test_goldens import CASES, run_hlo_opt_in_process
from tests.support.llvm_sandbox import run_in_sandbox

PRESETS = ("none", "O2")

# golden -> the op the LLVM backend refuses in its output module (strict xfail naming it).
MISSING: dict[str, str] = {}
# golden -> why LLVM and the interpreter may differ (HLO leaves the result unspecified).
XFAIL: dict[str, str] = {}
# golden -> the random seed to use instead of 0, and why.
SEEDS: dict[str, tuple[int, str]] = {
    "while-loop-simplifier/pass_through_element": (5, "the loop steps by parameter `step`; seed 0 draws -4, "
                                                      "which runs ~2^31 iterations before s32 wraps"),
}


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _takes_integers(path: Path) -> bool:
    import hlotools
    module = hlotools.parse_module(path.read_text(), str(path))
    return any(leaf.element_type is not None and leaf.element_type.kind in ("signed", "unsigned")
               for p in module.entry.parameters for leaf in p.shape.leaves())  # type: ignore[union-attr]


def _cases() -> list:
    out = []
    for path in CASES:
        presets = PRESETS + (("O2-wild",) if _takes_integers(path) else ())
        for preset in presets:
            key = _id(path)
            marks = []
            if key in MISSING:
                marks.append(pytest.mark.xfail(reason=f"the LLVM backend refuses {MISSING[key]}", strict=True))
            elif key in XFAIL:
                marks.append(pytest.mark.xfail(reason=XFAIL[key], strict=True))
            out.append(pytest.param(path, preset, marks=marks, id=f"{key}-{preset}"))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("path,preset", _cases())
def test_llvm_matches_interpreter_on_golden_output(path: Path, preset: str) -> None:
    from hlotools.errors import HloUnsupportedError
    text = run_hlo_opt_in_process(path)
    what = f"{_id(path)} ({preset})"
    seed = SEEDS.get(_id(path), (0, ""))[0]
    try:
        run_in_sandbox({"fn": "check_against_interpreter", "text": text, "filename": _id(path) + ".out.hlo",
                        "preset": preset.removesuffix("-wild"), "seed": seed, "wild_ints": preset.endswith("-wild")},
                       what, timeout=120.0)
    except HloUnsupportedError as e:
        key = _id(path)
        if key in MISSING:
            assert MISSING[key] in str(e), f"expected the refused op {MISSING[key]!r} in: {e}"
        raise


def test_sandbox_reports_a_crash_and_recovers(tmp_path: Path) -> None:
    """A worker that dies mid-request fails the request naming the signal; the next request
    gets a fresh worker."""
    import tests.support.llvm_sandbox as _llvm_sandbox
    with pytest.raises(AssertionError, match="crashed the process"):
        run_in_sandbox({"fn": "crash_for_test"}, "crash probe", timeout=60.0)
    text = "HloModule m\nENTRY e {\n  p = f32[3] parameter(0)\n  ROOT n = f32[3] negate(p)\n}\n"
    answer = run_in_sandbox({"fn": "check_against_interpreter", "text": text, "filename": "neg.hlo",
                             "preset": "none"}, "negate", timeout=120.0)
    assert answer["status"] == "pass" and _llvm_sandbox._WORKER.proc is not None
