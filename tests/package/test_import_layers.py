"""The packages of hlotools form a DAG (design.md §1, issue 11): every import, at top level, inside a
function or under TYPE_CHECKING, goes down the pipeline. Function-level imports are there for start-up
time; they must not hide an edge that points up, so they count here as much as top-level ones."""
from __future__ import annotations

import ast
from dataclasses import dataclass

import pytest

from tests.support import paths

ROOT = paths.ROOT / "hlotools"
SHARED = {"errors", "log", "grammar"}  # shared by all; hlotools.__version__ counts as shared too
TOP = {"cli", "hlotools"}  # command lines and the package root's parse_module/print_module may use all
PRINTER = ("text.printer", "text.print_attrs", "text.print_async", "text.literal_format")
# package -> the packages (or "package.module" prefixes) it may import
ALLOWED: dict[str, tuple[str, ...]] = {
    "ir": (),
    "text": ("ir",),
    "interpreter": ("ir",),
    "passes": ("ir", "interpreter", "text.printer"),  # interpreter: constant folding only (see allowed)
    "backend": ("ir", "passes", *PRINTER),  # passes: only the driver (see _driver)
    "io": ("ir", "text"),
    "graph": ("ir", *PRINTER),
    "diff": ("ir",),  # structural diffs (hlo-diff): the IR alone
    # the PyTorch front end sits on top, as cli does, but may not use cli
    "torch": ("ir", "text", "passes", "backend", "interpreter", "io"),
}
# Passes that compute constants with the interpreter's numerics: constant folding runs the
# evaluator, as XLA's HloConstantFolding does; algsimp folds 1/C (InvertConstant) with them.
FOLDING = {"passes/constant_folding.py", "passes/algsimp_core.py"}


@dataclass(frozen=True)
class Edge:
    source: str  # path relative to hlotools/, e.g. "ir/verifier.py"
    line: int
    target: str  # module relative to hlotools, e.g. "text.parser"; "hlotools" for the root
    lazy: bool  # inside a function (or under TYPE_CHECKING)

    @property
    def where(self) -> str:
        return f"hlotools/{self.source}:{self.line}"


def package_of(source: str) -> str:
    """'passes/dce.py' -> 'passes'; 'errors.py' -> 'errors'; '__init__.py' -> 'hlotools'."""
    head = source.split("/")[0]
    return "hlotools" if head == "__init__.py" else head.removesuffix(".py")


def target_package(target: str) -> str:
    return target.split(".")[0]


def _module_name(source: str) -> list[str]:
    """The dotted package path a relative import in `source` starts from."""
    parts = source.removesuffix(".py").split("/")
    return parts[:-1] if parts[-1] != "__init__" else parts[:-1]


def _targets(node: ast.Import | ast.ImportFrom, source: str, is_module) -> list[str]:
    if isinstance(node, ast.Import):
        # a bare `import hlotools` reads hlotools.__version__: shared, as errors.py is
        return [a.name.removeprefix("hlotools.") if a.name != "hlotools" else "errors"
                for a in node.names if a.name == "hlotools" or a.name.startswith("hlotools.")]
    if node.level:
        base = _module_name(source)[: len(_module_name(source)) - node.level + 1]
        module = ".".join([*base, *(node.module.split(".") if node.module else [])])
    elif node.module == "hlotools" or (node.module or "").startswith("hlotools."):
        module = node.module.removeprefix("hlotools").removeprefix(".")
    else:
        return []
    out: list[str] = []
    for alias in node.names:
        name = f"{module}.{alias.name}" if module else alias.name
        if is_module(name):
            out.append(name)
        elif module:
            out.append(module)
        else:
            out.append("errors" if alias.name == "__version__" else "hlotools")
    return out


def edges_of(source: str, text: str, is_module=lambda name: False) -> list[Edge]:
    """Every hlotools import in one file. An import at module level (also under `if`/`try`) is
    top-level; inside a def or under `if TYPE_CHECKING:` it is lazy."""
    found: list[Edge] = []

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.extend(Edge(source, child.lineno, t, lazy) for t in _targets(child, source, is_module))
            inner = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                inner = True
            visit(child, inner)

    visit(ast.parse(text, source), False)
    unique = dict.fromkeys(e for e in found if target_package(e.target) != package_of(source))
    return list(unique)


def _driver(source: str) -> bool:
    """Backend modules that run the pass pipeline: the driver."""
    return "/driver/" in source


def allowed(edge: Edge) -> bool:
    src, dst = package_of(edge.source), target_package(edge.target)
    if dst in SHARED or src in TOP:
        return True
    if src in SHARED:
        return False
    if src == "backend" and dst == "passes" and not _driver(edge.source):
        return False
    if src == "passes" and dst == "interpreter" and edge.source not in FOLDING:
        return False
    return any(edge.target == a or edge.target.startswith(a + ".") for a in ALLOWED.get(src, ()))


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def all_edges() -> list[Edge]:
    out: list[Edge] = []
    for path in sorted(ROOT.rglob("*.py")):
        source = path.relative_to(ROOT).as_posix()
        out.extend(edges_of(source, path.read_text(), _is_module))
    return out


def bad_edges(edges: list[Edge]) -> list[Edge]:
    return [e for e in edges if not allowed(e)]


def test_every_import_goes_down_the_layers() -> None:
    bad = bad_edges(all_edges())
    assert not bad, "imports against the layering (design.md §1):\n" + "\n".join(
        f"  {e.where}: {package_of(e.source)} -> {e.target}{' (lazy)' if e.lazy else ''}" for e in bad)



PLANTED = '''
from typing import TYPE_CHECKING
from hlotools.errors import HloError
from .shape import Shape
if TYPE_CHECKING:
    from hlotools.passes.base import HloPass
def f():
    from hlotools.text.parser import parse
    from .. import print_module
'''


def test_the_checker_catches_planted_edges() -> None:
    edges = edges_of("ir/planted.py", PLANTED, _is_module)
    assert [(e.line, e.target, e.lazy) for e in edges] == [
        (3, "errors", False), (6, "passes.base", True), (8, "text.parser", True), (9, "hlotools", True)]
    assert [e.where for e in bad_edges(edges)] == [
        "hlotools/ir/planted.py:6", "hlotools/ir/planted.py:8", "hlotools/ir/planted.py:9"]


@pytest.mark.parametrize(("source", "target", "ok"), [
    ("backend/llvm/emit_dot.py", "passes.fusion_rules", False),
    ("backend/llvm/driver/pipeline.py", "passes.manager", True),
    ("backend/llvm/driver/compile.py", "passes.manager", True),
    ("backend/llvm/emit_dot.py", "text.printer", True),
    ("backend/llvm/emit_dot.py", "text.parser", False),
    ("backend/llvm/emit_sort.py", "interpreter.patterns", False),
    ("passes/dce.py", "text.printer", True),
    ("passes/constant_folding.py", "interpreter.registry", True),
    ("passes/algsimp.py", "interpreter.evaluator", False),
    ("passes/dce.py", "io.npz", False),
    ("passes/dce.py", "hlotools", False),
    ("ir/module.py", "text.printer", False),
    ("text/parser.py", "passes.dce", False),
    ("interpreter/evaluator.py", "ir.module", True),
    ("io/npz.py", "text.parse_literal", True),
    ("graph/dot.py", "text.parser", False),
    ("cli/bisect.py", "io.npz", True),
    ("errors.py", "ir.shape", False),
    ("torch/dynamo.py", "backend.llvm.driver.compile", True),
    ("torch/dynamo.py", "cli.run", False),
])
def test_layer_rules(source: str, target: str, ok: bool) -> None:
    assert allowed(Edge(source, 1, target, False)) is ok
