"""The pass protocol.

A pass is a dataclass whose fields are its options (`fusion{max-fused-instructions=16}` sets
`max_fused_instructions`). `run(module, ctx)` rewrites through a Rewriter and returns whether
it changed the module. Passes that make many independent decisions ask `ctx.consume_fuel()`
before each one, which is what `--bisect-limit=N:M` bisects over (XLA's --xla_fuel).
"""
from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hlotools.errors import HloError
from hlotools.ir.module import Module

log = logging.getLogger("hlotools.passes")


@dataclass
class PassContext:
    """What a running pass may consult: fuel for bisection and a logger for its decisions."""

    fuel: int | None = None  # rewrites this pass application may still make (None = unlimited)
    rewrites: int = 0  # rewrites made so far in this application
    out_of_fuel: bool = False
    pass_name: str = ""
    logger: logging.Logger = field(default_factory=lambda: log)

    def consume_fuel(self, what: str = "") -> bool:
        """True if the pass may make one more rewrite; logs BISECT lines like XLA's fuel."""
        if self.fuel is not None and self.rewrites >= self.fuel:
            if not self.out_of_fuel:
                self.logger.info("BISECT: out of fuel for %s: NOT running rewrite (%d) %s",
                                 self.pass_name, self.rewrites + 1, what)
                self.out_of_fuel = True
            return False
        self.rewrites += 1
        if self.fuel is not None:
            self.logger.info("BISECT: running rewrite (%d) of %s %s", self.rewrites, self.pass_name, what)
        return True

    def decision(self, message: str, *args: object) -> None:
        """A pass decision (fused X into Y / not fused: reason): shown with -vv."""
        self.logger.debug("%s: " + message, self.pass_name, *args)


class HloPass:
    """Base class: subclasses are @dataclass with option fields and set `name`/`description`."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""

    def run(self, module: Module, ctx: PassContext) -> bool:
        raise NotImplementedError

    # -- options ---------------------------------------------------------------------
    @classmethod
    def option_names(cls) -> list[str]:
        return [f.name.replace("_", "-") for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else []

    @classmethod
    def from_options(cls, options: dict[str, str]) -> HloPass:
        """Build the pass from `{key=value}` text options, converting to the field types."""
        if not options:
            return cls()
        fields: dict[str, dataclasses.Field[Any]] = {f.name: f for f in _fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, text in options.items():
            fname = key.replace("-", "_")
            if fname not in fields:
                allowed = ", ".join(cls.option_names()) or "none"
                raise HloError(f"pass '{cls.name}' has no option '{key}' (options: {allowed})")
            kwargs[fname] = _convert(cls.name, key, text, fields[fname])
        return cls(**kwargs)

    def options_text(self) -> str:
        fields = _fields(type(self))
        if not fields:
            return ""
        parts = []
        for f in fields:
            value = getattr(self, f.name)
            if value != f.default:
                parts.append(f"{f.name.replace('_', '-')}={str(value).lower() if isinstance(value, bool) else value}")
        return "{" + ",".join(parts) + "}" if parts else ""


_FIELDS: dict[type, tuple[dataclasses.Field[Any], ...]] = {}


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    """dataclasses.fields of a pass class, looked up once: options_text runs for every pass
    application (its record), and fields() costs more than the pass itself on small modules."""
    known = _FIELDS.get(cls)
    if known is None:
        known = _FIELDS[cls] = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
    return known


def _convert(pass_name: str, key: str, text: str, f: dataclasses.Field[Any]) -> Any:
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    try:
        if kind.startswith("bool"):
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError(text)
            return text.lower() in ("true", "1")
        if kind.startswith("int"):
            return int(text)
        if kind.startswith("float"):
            return float(text)
        return text
    except ValueError:
        raise HloError(f"pass '{pass_name}' option '{key}' expects {kind}, got '{text}'") from None
