"""The spelling of a few attribute values as XLA prints them (dim_labels, case-insensitive enums,
CEscape'd strings). Attribute order and defaults are IR facts: hlotools/ir/canonical.py.
"""
from __future__ import annotations

from hlotools.ir.attributes import ConvDimLabels

# Enumerations XLA's parser reads case-insensitively, in the case its printer writes them.
ENUM_CASE = {"distribution": str.lower, "algorithm": str.lower, "api_version": str.upper}


def dim_labels_text(d: ConvDimLabels) -> str:
    """ConvolutionDimensionNumbersToString: `b`/`f` (`i`/`o`) and spatial indices by position."""
    def part(first: int, first_char: str, second: int, second_char: str, spatial: tuple[int, ...]) -> str:
        chars = ["?"] * (2 + len(spatial))
        chars[first] = first_char
        chars[second] = second_char
        for i, pos in enumerate(spatial):
            chars[pos] = str(i)
        return "".join(chars)
    try:
        return (part(d.input_batch, "b", d.input_feature, "f", d.input_spatial) + "_"
                + part(d.kernel_input_feature, "i", d.kernel_output_feature, "o", d.kernel_spatial) + "->"
                + part(d.output_batch, "b", d.output_feature, "f", d.output_spatial))
    except IndexError:  # dimension numbers that no label string can spell: keep the source text
        return d.text


def escape(text: str) -> str:
    """absl::CEscape: backslash, quotes and non-printable bytes escaped."""
    out = []
    for ch in text:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "'":
            out.append("\\'")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\{o:03o}")
        else:
            out.append(ch)
    return "".join(out)
