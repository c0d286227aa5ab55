"""torch is an optional extra (issue 13): only hlotools/torch may import it, so hlotools
without torch installed loses nothing but the front end."""
from __future__ import annotations

import ast

from tests.support import paths

ROOT = paths.ROOT / "hlotools"


def torch_imports(source: str, text: str) -> list[str]:
    """`file:line` of every import of torch (or a torch submodule) in `text`."""
    found = []
    for node in ast.walk(ast.parse(text, source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        if any(n == "torch" or n.startswith("torch.") for n in names):
            found.append(f"{source}:{node.lineno}")
    return found


def test_only_the_front_end_imports_torch() -> None:
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        source = path.relative_to(ROOT).as_posix()
        if not source.startswith("torch/"):
            bad.extend(torch_imports(source, path.read_text()))
    assert not bad, "torch imported outside hlotools/torch: " + ", ".join(bad)


def test_the_checker_finds_torch_imports() -> None:
    text = "import os\nimport torch.fx\nfrom torch import nn\nfrom .torch import x\nimport torchvision\n"
    assert torch_imports("x.py", text) == ["x.py:2", "x.py:3"]
