"""hlo-opt --report=html: one self-contained page per compile (report.html + report.js, inlined)
drawn from the plain data cli/compile_report.py collects: per module, the pass applications with
their times and the counts after each, the pass decisions and the buffer assignment."""
from __future__ import annotations

from hlotools.graph.html import fill_template, html_escape, package_text, script_json


def report_to_html(data: dict) -> str:
    """`data`: {"pipeline": str, "command": str, "modules": [{"module", "file", "points",
    "decisions", "dropped_decisions", "buffers"}]} (see cli/compile_report.py)."""
    names = ", ".join(m["module"] for m in data.get("modules", [])) or "no module"
    return fill_template(package_text("report.html"), {
        "TITLE": html_escape(names) + " — hlo-opt report",
        "DATA": script_json(data),
        "SCRIPT": package_text("report.js"),
    })
