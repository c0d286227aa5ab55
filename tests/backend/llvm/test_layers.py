"""The LLVM backend's layers (issue 11, change 3), read from the source: every import in
hlotools/backend/llvm, function-level and TYPE_CHECKING ones included (a lazy import is still a
dependency; it only moves the cost), must point at the importer's own layer or one to its left:

    abi  <-  native  <-  llvm_ir  <-  kernels  <-  codegen  <-  lower  <-  driver

abi.py is the base every layer may use; the package's
__init__ (compile_module, load_emitters) is the facade on top, which any layer may import
(the driver calls lower.load(); codegen only reads the tables the lowerings fill).
llvm_ir sits below kernels because the runtime library generates its code with the same
types, loops and scalar ops as the lowerings (the GEMM epilogue reuses the elementwise scalar
code bit for bit). Outside the backend: ir/ and errors everywhere, passes only from driver/, the
text printer and the package's version.
Only native/jit.py imports llvmlite.binding.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

import hlotools

PACKAGE = "hlotools.backend.llvm"
HLOTOOLS = Path(hlotools.__file__).resolve().parent
ROOT = HLOTOOLS / "backend" / "llvm"
LAYERS = ("abi", "native", "llvm_ir", "kernels", "codegen", "lower", "driver")
BASE = {"abi"}  # top-level modules of layer "abi"
JIT = f"{PACKAGE}.native.jit"
# Outside the backend, for every layer.
ANYWHERE = ("hlotools.ir", "hlotools.errors", "hlotools.log", "hlotools.text.printer")
# Outside the backend, per layer (and the layers to its right).
FROM_LAYER = {"driver": ("hlotools.passes",)}


@dataclass(frozen=True)
class Import:
    module: str  # the importer, relative to PACKAGE ("lower.gemm"; "" for the package's __init__)
    target: str  # the imported module, absolute
    where: str  # file:line

    @property
    def layer(self) -> str:
        return layer_of(self.module)


def layer_of(relative: str) -> str:
    """The layer of a backend module given relative to PACKAGE ("" is the facade)."""
    if relative == "":
        return "facade"
    head = relative.split(".")[0]
    return "abi" if head in BASE else head


def imports_of(source: str, relative: str, path: str) -> list[Import]:
    """Every import in `source` (module `relative` of the backend), at any depth."""
    package = f"{PACKAGE}.{relative}".rstrip(".")
    is_package = path.endswith("__init__.py")
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [Import(relative, a.name, f"{path}:{node.lineno}") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the importer's package
                parts = package.split(".") if is_package else package.split(".")[:-1]
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for a in node.names:
                # `from pkg import mod` imports pkg.mod when that is a module
                # (outside hlotools always: `from llvmlite import binding` is llvmlite.binding)
                name = f"{base}.{a.name}"
                target = name if _is_module(name) or not base.startswith("hlotools") else base
                found.append(Import(relative, target, f"{path}:{node.lineno}"))
    return found


def _is_module(name: str) -> bool:
    """Is `name` a module or package of hlotools (not a name defined in one)?"""
    if not name.startswith("hlotools."):
        return False
    rel = HLOTOOLS.joinpath(*name.split(".")[1:])
    return rel.with_suffix(".py").is_file() or (rel / "__init__.py").is_file()


def backend_imports() -> list[Import]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        found += imports_of(path.read_text(), ".".join(parts), f"hlotools/backend/llvm/{path.relative_to(ROOT)}")
    return found


def violations(found: list[Import]) -> list[str]:
    """One message per import that breaks the layer order (or reaches outside where it may not)."""
    out = []
    for imp in found:
        if imp.layer == "facade":
            continue
        rank = LAYERS.index(imp.layer)
        if imp.target == PACKAGE:
            continue  # the facade: load_emitters
        if imp.target.startswith(PACKAGE + "."):
            target = layer_of(imp.target[len(PACKAGE) + 1:])
            if target == "facade" or target not in LAYERS:
                continue
            if LAYERS.index(target) > rank:
                out.append(f"{imp.where}: {imp.layer} module {imp.module} imports {imp.target} "
                           f"({target} is to its right: {' <- '.join(LAYERS)})")
        elif imp.target.startswith("hlotools."):  # (the package itself: its version, parse/print)
            allowed = ANYWHERE + tuple(p for layer, ps in FROM_LAYER.items() if LAYERS.index(layer) <= rank for p in ps)
            if not any(imp.target == p or imp.target.startswith(p + ".") for p in allowed):
                out.append(f"{imp.where}: {imp.layer} module {imp.module} imports {imp.target} "
                           f"(outside the backend it may use {', '.join(allowed)})")
    return out


def binding_importers(found: list[Import]) -> list[str]:
    return [f"{imp.where}: {imp.module} imports {imp.target} (only native/jit.py may)"
            for imp in found if imp.target.startswith("llvmlite.binding") and f"{PACKAGE}.{imp.module}" != JIT]


def test_every_backend_module_is_in_a_layer() -> None:
    modules = {imp.module for imp in backend_imports()}
    assert {layer_of(m) for m in modules} <= set(LAYERS) | {"facade"}, sorted(modules)
    assert {m.split(".")[0] for m in modules if "." in m} == set(LAYERS) - {"abi"}


def test_the_backend_imports_follow_the_layer_order() -> None:
    found = backend_imports()
    assert len(found) > 300  # the walk sees function-level imports too
    assert violations(found) == []


def test_only_native_jit_imports_llvmlite_binding() -> None:
    found = backend_imports()
    assert any(imp.target == "llvmlite.binding" and imp.module == "native.jit" for imp in found)
    assert binding_importers(found) == []


@pytest.mark.parametrize(("module", "source", "expected"), [
    ("kernels.gemm", "def f():\n    from hlotools.backend.llvm.codegen.function import FunctionEmitter\n",
     "kernels module kernels.gemm imports hlotools.backend.llvm.codegen.function"),
    ("codegen.elemental", "from hlotools.backend.llvm.lower import elementwise\n",
     "codegen module codegen.elemental imports hlotools.backend.llvm.lower.elementwise"),
    ("native.cache", "if True:\n    from hlotools.backend.llvm.driver.runtime import CompiledModule\n",
     "native module native.cache imports hlotools.backend.llvm.driver.runtime"),
    ("llvm_ir.arith", "from ..lower.elementwise import raw_bits\n",
     "llvm_ir module llvm_ir.arith imports hlotools.backend.llvm.lower.elementwise"),
    ("lower.gemm", "import hlotools.passes.fusion_rules\n",
     "lower module lower.gemm imports hlotools.passes.fusion_rules"),
    ("abi", "from hlotools.backend.llvm import native\n", "abi module abi imports hlotools.backend.llvm.native"),
])
def test_the_checker_catches_a_planted_violation(module: str, source: str, expected: str) -> None:
    path = f"hlotools/backend/llvm/{module.replace('.', '/')}.py"
    found = imports_of(source, module, path)
    got = violations(found)
    assert len(got) == 1 and got[0].startswith(f"{path}:") and expected in got[0], got


def test_the_checker_allows_what_the_rule_allows() -> None:
    allowed = ("from hlotools.backend.llvm.abi import layout_of\n"
               "from hlotools.backend.llvm.kernels import parallel_for\n"
               "def f():\n    from hlotools.backend.llvm import load_emitters\n"
               "from hlotools.ir.shape import Shape\n")
    assert violations(imports_of(allowed, "codegen.outline", "hlotools/backend/llvm/codegen/outline.py")) == []
    assert violations(imports_of("from hlotools.passes.pipeline import PRESETS\n", "driver.pipeline", "x.py")) == []


@pytest.mark.parametrize("source", ["def f():\n    import llvmlite.binding as llvm\n",
                                    "def f():\n    from llvmlite import binding\n",
                                    "def f():\n    from llvmlite.binding.newpassmanagers import NewPassManager\n"])
def test_the_checker_catches_a_planted_binding_import(source: str) -> None:
    found = imports_of(source, "native.host", "hlotools/backend/llvm/native/host.py")
    got = binding_importers(found)
    assert len(got) == 1 and got[0].startswith("hlotools/backend/llvm/native/host.py:2: native.host imports llvmlite.binding")


def test_the_runtime_library_key_covers_every_module_it_may_import() -> None:
    """kernels/library.sources() is what the runtime library's cache key fingerprints: every file
    exists (files_fingerprint skips missing ones silently, so a stale path would go unnoticed)
    and every backend module a kernels/ module imports, at any depth, is in it."""
    from hlotools.backend.llvm.kernels import library
    sources = set(library.sources())
    assert all((HLOTOOLS / rel).is_file() for rel in sources), sorted(s for s in sources if not (HLOTOOLS / s).is_file())
    reached = {"kernels.library"}
    todo = ["kernels.library"]
    found = backend_imports()
    while todo:
        module = todo.pop()
        for imp in found:
            if imp.module == module and imp.target.startswith(PACKAGE + "."):
                rel = imp.target[len(PACKAGE) + 1:]
                if layer_of(rel) in LAYERS and rel not in reached and rel != "registry" and \
                        _is_module(imp.target) and not (ROOT / rel.replace(".", "/") / "__init__.py").is_file():
                    reached.add(rel)
                    todo.append(rel)
    # the native modules that load, cache, link or time the library, not the code it holds
    missing = sorted(r for r in reached if f"backend/llvm/{r.replace('.', '/')}.py" not in sources
                     and r.split(".")[0] == "native" and r not in ("native.jit", "native.cache", "native.objfile",
                                                                   "native.shared_library", "native.background_link",
                                                                   "native.load_clock"))
    assert missing == []
    in_layers = {r for r in reached if r.split(".")[0] in ("kernels", "llvm_ir")}
    assert {f"backend/llvm/{r.replace('.', '/')}.py" for r in in_layers} <= sources


def test_codegen_refuses_to_compile_before_the_lowerings_are_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    from hlotools.backend.llvm.codegen import registry
    from hlotools.backend.llvm.codegen.module import ModuleCompiler
    monkeypatch.setattr(registry, "LOADED", False)
    with pytest.raises(RuntimeError, match="load_emitters"):
        ModuleCompiler(hlotools.parse_module("HloModule m\nENTRY e { ROOT p = f32[2] parameter(0) }"))
