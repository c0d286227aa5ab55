"""Dispatch tables: a key (an opcode, a custom-call target) -> the function that implements it.

Every layer keeps its implementations in tables keyed by opcode instead of an opcode switch
(design rule 1): shape rules, verifier checks, interpreter kernels, LLVM lowerings, algsimp
rules. They share this one class, so registration behaves the same everywhere: registering
a key twice is a bug (with a plain dict the second function silently wins, and which one
that is depends on import order), so `register` refuses it and names the key and both
functions. A deliberate override (a faster lowering over its fallback) says so with
`replace`. `missing(names)` is what a coverage test asks ("every opcode is implemented or
refused with a reason").

A table is a read-only Mapping for its users (`op in T`, `T.get(op)`, `T[op]`), with the
lookups delegated straight to a dict: they sit on the interpreter's and the compiler's
per-instruction paths.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar, overload

F = TypeVar("F", bound=Callable[..., Any])
_V = TypeVar("_V")
_D = TypeVar("_D")


def _name(fn: object) -> str:
    """`module.qualname` of a registered function (what the duplicate error shows)."""
    fn = getattr(fn, "__wrapped__", fn)
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


class _Keyed(Mapping[str, _V], Generic[F, _V]):
    """What both tables share: registration by decorator, and read-only dict lookups."""

    __slots__ = ("kind", "_fns")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._fns: dict[str, _V] = {}

    def add(self, key: str, fn: F) -> None:
        raise NotImplementedError

    def register(self, *keys: str) -> Callable[[F], F]:
        """Decorator: `fn` implements each of `keys`."""
        def register(fn: F) -> F:
            for key in keys:
                self.add(key, fn)
            return fn
        return register

    def missing(self, names: Iterable[str]) -> list[str]:
        """The names (sorted) that have nothing registered here: for coverage tests."""
        return sorted(n for n in set(names) if n not in self._fns)

    def __getitem__(self, key: str) -> _V:
        return self._fns[key]

    def __contains__(self, key: object) -> bool:
        return key in self._fns

    def __iter__(self) -> Iterator[str]:
        return iter(self._fns)

    def __len__(self) -> int:
        return len(self._fns)

    @overload
    def get(self, key: str, /) -> _V | None: ...
    @overload
    def get(self, key: str, default: _V | _D, /) -> _V | _D: ...

    def get(self, key: str, default: Any = None, /) -> Any:
        return self._fns.get(key, default)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.kind!r}, {len(self._fns)} keys)"


class Table(_Keyed[F, F]):
    """key -> one function of kind F; `kind` names the functions in error messages ("kernel").

    `wrap`, when given, is applied to each function as it is registered (the interpreter
    turns numpy failures into HloErrors this way); `register` still returns the function
    itself, so direct callers see the plain function."""

    __slots__ = ("_wrap",)

    def __init__(self, kind: str, wrap: Callable[[F], F] | None = None) -> None:
        super().__init__(kind)
        self._wrap = wrap

    def add(self, key: str, fn: F) -> None:
        """Register `fn` for `key`; a second registration is an error naming both functions."""
        old = self._fns.get(key)
        if old is not None:
            raise AssertionError(f"two {self.kind}s for {key!r}: {_name(old)} and {_name(fn)}")
        self._fns[key] = fn if self._wrap is None else self._wrap(fn)

    def replace(self, key: str, fn: F) -> F:
        """Put `fn` in place of the function registered for `key` (which must exist: a
        replacement loaded before its fallback is an ordering bug); returns the old one."""
        old = self._fns.get(key)
        if old is None:
            raise AssertionError(f"no {self.kind} for {key!r} to replace with {_name(fn)}")
        self._fns[key] = fn
        return old


class RuleTable(_Keyed[F, tuple[F, ...]]):
    """key -> functions of kind F tried in registration order (algsimp: the first rule
    that matches wins). The same rule twice for one key is an error: it would run twice,
    and it hides that the second registration meant another rule."""

    __slots__ = ()

    def add(self, key: str, fn: F) -> None:
        """Append `fn` to the rules of `key`."""
        old = self._fns.get(key, ())
        name = _name(fn)
        if any(_name(f) == name for f in old):
            raise AssertionError(f"{self.kind} {name} registered twice for {key!r}")
        self._fns[key] = (*old, fn)
