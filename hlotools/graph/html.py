"""A module as one self-contained HTML page: the graph view (viewer.html + viewer.js, shipped as
package data and inlined) with the module's model (graph/model.py) embedded as JSON.

The page loads nothing: its Content-Security-Policy forbids every fetch, so it opens the same
from a laptop, a CI artefact or an air-gapped machine.
"""
from __future__ import annotations

import json
import re
from importlib import resources

from hlotools.graph.model import module_model
from hlotools.ir.module import Module

_PLACEHOLDER = re.compile(r"__([A-Z]+)__")


def package_text(name: str) -> str:
    """A text file shipped in hlotools/graph (a template or a script)."""
    return resources.files("hlotools.graph").joinpath(name).read_text(encoding="utf-8")


def script_json(data: object) -> str:
    """JSON that is safe inside <script>: no '</' can close the element early."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")


def html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def fill_template(template: str, parts: dict[str, str]) -> str:
    """Replaces the __NAME__ placeholders named in `parts` in one pass (inserted text is never
    scanned again)."""
    return _PLACEHOLDER.sub(lambda m: parts.get(m.group(1), m.group(0)), template)


def module_to_html(module: Module) -> str:
    return fill_template(package_text("viewer.html"), {
        "TITLE": html_escape(module.name) + " — HLO graph",
        "MODEL": script_json(module_model(module)),
        "SCRIPT": package_text("viewer.js"),
    })
