"""The entry signature's attributes, kept as XLA's translation keeps them.

Argument shardings (`mhlo.sharding = "{...}"`, or Shardy's `sdy.sharding = #sdy.sharding<...>`,
converted by sdy.py and also kept verbatim as the `xla.sdy.sharding` frontend attribute, as
XLA's Shardy export does) go on the parameters, result shardings on the root (a tuple sharding
for several results). `mhlo.frontend_attributes` and `jax.arg_info` become the parameter's
frontend attributes. XLA drops `jax.result_info`; here the result names are kept in the
module's frontend attributes (`jax.result_info`, a JSON list, one name per result) so that
hlo-run can label its outputs with them.
"""
from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from hlotools.text.stablehlo.sdy import Mesh, escaped, hlo_sharding, meshes_attribute
from hlotools.text.stablehlo.types import TensorType

if TYPE_CHECKING:
    from hlotools.ir.module import Module


def sharding_of(attrs: dict[str, Any], t: TensorType, meshes: dict[str, Mesh], pos: int) -> str | None:
    """The HLO sharding an argument's or result's attributes give, if any."""
    s = attrs.get("mhlo.sharding")
    if isinstance(s, str) and s.startswith("{"):
        return s
    s = attrs.get("sdy.sharding")
    if isinstance(s, str) and s.startswith("#sdy.sharding<"):
        return hlo_sharding(s, meshes, t.rank, pos)
    return None


def parameter_suffix(attrs: dict[str, Any], t: TensorType, meshes: dict[str, Mesh], pos: int) -> str:
    """`, sharding={...}, frontend_attributes={...}` for an entry parameter (or '')."""
    out = ""
    sharding = sharding_of(attrs, t, meshes, pos)
    if sharding is not None:
        out += f", sharding={sharding}"
    front: dict[str, str] = {}
    given = attrs.get("mhlo.frontend_attributes")
    if isinstance(given, dict):
        front.update({k: str(v) for k, v in given.items()})
    if isinstance(attrs.get("jax.arg_info"), str):
        front["jax.arg_info"] = attrs["jax.arg_info"]
    if isinstance(attrs.get("sdy.sharding"), str):
        front["xla.sdy.sharding"] = attrs["sdy.sharding"]
    if front:
        out += ", frontend_attributes={" + ", ".join(f'{k}="{escaped(v)}"' for k, v in front.items()) + "}"
    return out


def root_sharding(results: list[tuple[TensorType, dict[str, Any]]], meshes: dict[str, Mesh], pos: int) -> str | None:
    shardings = [sharding_of(a, t, meshes, pos) for t, a in results]
    if all(s is None for s in shardings):
        return None
    if len(shardings) == 1:
        return shardings[0]
    return "{" + ", ".join(s or "{replicated}" for s in shardings) + "}"


def module_frontend_attributes(meshes: dict[str, Mesh], results: list[tuple[TensorType, dict[str, Any]]]) -> str | None:
    parts = []
    if meshes:
        parts.append(meshes_attribute(meshes))
    names = [a.get("jax.result_info") for _, a in results]
    if any(isinstance(n, str) for n in names):
        listed = json.dumps([n if isinstance(n, str) else "" for n in names])
        parts.append(f'jax.result_info="{escaped(listed)}"')
    return "frontend_attributes={" + ", ".join(parts) + "}" if parts else None


def frontend_value(text: str, key: str) -> str | None:
    """The (unescaped) string value of `key="..."` in a frontend_attributes text, or None."""
    m = re.search(r'(?:^\{|,)\s*' + re.escape(key) + r'="((?:[^"\\]|\\.)*)"', text)
    return None if m is None else re.sub(r"\\(.)", r"\1", m.group(1))


def result_labels(module: Module) -> list[str] | None:
    """The result names a StableHLO import kept (module frontend attribute `jax.result_info`, a
    JSON list), or None."""
    listed = frontend_value(str(module.attrs.get("frontend_attributes", "")), "jax.result_info")
    if listed is None:
        return None
    try:
        names = json.loads(listed)
    except ValueError:
        return None
    return [str(n) for n in names] if isinstance(names, list) else None


__all__ = ["module_frontend_attributes", "frontend_value", "parameter_suffix", "result_labels", "root_sharding", "sharding_of"]
