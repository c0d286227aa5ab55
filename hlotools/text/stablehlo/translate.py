"""Statement tree -> HLO text, with XLA's MLIR->HLO conventions.

`func.func`s become computations (@main the entry; callees are written before callers, as the
HLO parser needs), regions become called computations (reducers, comparators, loop bodies,
branches: values a branch or loop uses from outside are passed in, as XLA's translation does),
multi-result ops become tuples with get-tuple-elements, `loc(...)` becomes metadata.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hlotools.text.lexer import LineMap
from hlotools.text.stablehlo.attributes import AttrError, unquote, value
from hlotools.text.stablehlo.emit import Computation, Emitter, ModuleText, Value
from hlotools.text.stablehlo.entry_attrs import module_frontend_attributes, parameter_suffix, root_sharding
from hlotools.text.stablehlo.locations import Locations
from hlotools.text.stablehlo.reader import OpView, block_args, read_op
from hlotools.text.stablehlo.sdy import Mesh, escaped, hlo_sharding, parse_mesh
from hlotools.text.stablehlo.syntax import BlockLabel, FuncHead, Group, LocDef, Op, Region, Stmt
from hlotools.text.stablehlo.types import TensorType, TypeError_

_LAYOUT = re.compile(r"\{\s*\d+(?:\s*,\s*\d+)*\s*\}")
TERMINATORS = frozenset({"stablehlo.return", "func.return", "return", "mhlo.return"})


class TranslateError(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


@dataclass
class Function:
    name: str
    pos: int
    args: list[tuple[str, TensorType | None, dict[str, Any]]]
    results: list[tuple[TensorType, dict[str, Any]]]
    body: Region | None
    public: bool
    comp: Computation | None = None
    busy: bool = False


@dataclass
class Scope:
    """MLIR value names -> HLO values inside one computation."""
    emitter: Emitter
    values: dict[str, Value] = field(default_factory=dict)

    def lookup(self, name: str, pos: int) -> Value:
        v = self.values.get(name)
        if v is None:
            if name.endswith("#0"):  # %x#0: the one result of a single-result op
                v = self.values.get(name[:-2])
            if v is None:
                raise TranslateError(f"use of undefined value '{name}'", pos)
        return v


class Translator:
    def __init__(self, lines: LineMap, locations: Locations, resources: dict[str, bytes]) -> None:
        self.lines = lines
        self.locations = locations
        self.resources = resources
        self.module = ModuleText("module")
        self.functions: dict[str, Function] = {}
        self.meshes: dict[str, Mesh] = {}
        self.return_pos = 0

    # -- module and functions ----------------------------------------------------------------
    def translate(self, stmts: list[Stmt]) -> ModuleText:
        body = stmts
        modules = [s for s in stmts if isinstance(s, Op) and s.name in ("module", "builtin.module")]
        if len(modules) > 1:
            raise TranslateError("a second module: one StableHLO module per input (files split with "
                                 "'// -----' are not read as StableHLO)", modules[1].pos)
        if modules:
            body = self._module(modules[0])
        for s in body:
            if isinstance(s, FuncHead):
                if s.name in self.functions:
                    raise TranslateError(f"redefinition of function '@{s.name}'", s.pos)
                self.functions[s.name] = Function(s.name, s.pos, s.args, s.results, s.body, s.public)
            elif isinstance(s, Op) and s.name == "func.func":
                try:
                    f = self._function(s)
                except (IndexError, KeyError, ValueError, TypeError, AttributeError) as e:
                    raise TranslateError(f"malformed func.func ({type(e).__name__}: {str(e)[:80]})", s.pos) from None
                if f.name in self.functions:
                    raise TranslateError(f"redefinition of function '@{f.name}'", s.pos)
                self.functions[f.name] = f
            elif isinstance(s, Op) and s.name == "sdy.mesh":
                self._mesh(s)
            elif isinstance(s, (Op, OpView)) and s.name not in ("module", "builtin.module"):
                raise TranslateError(f"expected func.func at module level, but found '{s.name}'", s.pos)
        if not self.functions:
            raise TranslateError("no func.func in the input (expected a StableHLO module)", 0)
        entry = self.functions.get("main") or next(
            (f for f in self.functions.values() if f.public), next(iter(self.functions.values())))
        comp = self.function_computation(entry.name, entry.pos, is_entry=True)
        comp.is_entry = True
        self._entry_layout(entry)
        front = module_frontend_attributes(self.meshes, entry.results)
        if front is not None:
            self.module.header_attrs.append(front)
        return self.module

    def _mesh(self, op: Op) -> None:
        view = read_op(op)
        if view.symbol is None or view.angle is None:
            raise TranslateError("expected 'sdy.mesh @name = <[\"axis\"=size, ...]>'", op.pos)
        try:
            self.meshes[view.symbol] = parse_mesh(view.angle, op.pos)
        except AttrError as e:
            raise TranslateError(e.message, e.pos) from None

    def _module(self, op: Op) -> list[Stmt]:
        view = read_op(op)
        if view.symbol:
            self.module.name = view.symbol
        attrs = dict(view.attrs)
        if "sym_name" in attrs:
            self.module.name = attrs["sym_name"]
        for key, hlo in (("mhlo.num_partitions", "num_partitions"), ("mhlo.num_replicas", "replica_count")):
            if isinstance(attrs.get(key), int):
                self.module.header_attrs.append(f"{hlo}={attrs[key]}")
        if len(view.regions) != 1:
            raise TranslateError("expected the module's body { func.func ... }", op.pos)
        return view.regions[0].stmts

    def _function(self, op: Op) -> Function:
        view = read_op(op)
        if view.generic or "function_type" in view.attrs:
            return self._generic_function(op, view)
        items = op.items
        groups = [it for it in items if isinstance(it, Group) and it.kind == "("]
        if view.symbol is None or not groups:
            raise TranslateError("expected 'func.func @name(%arg: type, ...)'", op.pos)
        args = _signature_args(groups[0])
        results: list[tuple[TensorType, dict[str, Any]]] = []
        arrow = next((i for i, it in enumerate(items) if isinstance(it, tuple) and it[0] == "ARROW"), None)
        if arrow is not None:
            nxt = items[arrow + 1] if arrow + 1 < len(items) else None
            if isinstance(nxt, Group) and nxt.kind == "(":
                results = [(t or TensorType(""), a) for _, t, a in _signature_args(nxt, named=False)]
            elif isinstance(nxt, tuple) and nxt[0] == "TYPE":
                results = [(_type(nxt), {})]
            else:
                raise TranslateError("expected the function's result types after '->'", op.pos)
        body = view.regions[0] if view.regions else None
        return Function(view.symbol, op.pos, args, results, body, view.word(0) != "private")

    def _generic_function(self, op: Op, view: OpView) -> Function:
        ftype = view.attrs.get("function_type")
        name = view.attrs.get("sym_name")
        if not isinstance(ftype, tuple) or not isinstance(name, str):
            raise TranslateError("expected sym_name and function_type properties on func.func", op.pos)
        ins, outs = ftype
        arg_attrs = view.attrs.get("arg_attrs")
        res_attrs = view.attrs.get("res_attrs")
        arg_attrs = arg_attrs if isinstance(arg_attrs, list) else [{}] * len(ins)
        res_attrs = res_attrs if isinstance(res_attrs, list) else [{}] * len(outs)
        body = view.regions[0] if view.regions else None
        names = [f"%arg{i}" for i in range(len(ins))]
        if body is not None and body.stmts and isinstance(body.stmts[0], BlockLabel):
            names = [n for n, _ in _label_args(body.stmts[0])]
        args = [(n, t, a if isinstance(a, dict) else {}) for n, t, a in zip(names, ins, arg_attrs)]
        results = [(t, a if isinstance(a, dict) else {}) for t, a in zip(outs, res_attrs)]
        return Function(name, op.pos, args, results, body, view.attrs.get("sym_visibility") != "private")

    def function_computation(self, name: str, pos: int, is_entry: bool = False) -> Computation:
        f = self.functions.get(name)
        if f is None:
            raise TranslateError(f"call to undefined function '@{name}'", pos)
        if f.comp is not None:
            return f.comp
        if f.busy:
            raise TranslateError(f"function '@{name}' calls itself: HLO has no recursion", pos)
        if f.body is None:
            raise TranslateError(f"function '@{name}' has no body (an external declaration)", f.pos)
        f.busy = True
        comp = Computation(self.module.comp_name("main" if is_entry else name), is_entry=is_entry)
        em = Emitter(self.module, comp)
        em.pos = f.pos
        scope = Scope(em)
        for i, (arg, t, attrs) in enumerate(f.args):
            if t is None:
                raise TranslateError(f"argument {arg} of '@{name}' has no type", f.pos)
            v = em.parameter(i, t, attrs.get("_loc_name") or "Arg")
            if is_entry:
                text, p = comp.lines[-1]
                comp.lines[-1] = (text + _located(f.pos, parameter_suffix, attrs, t, self.meshes, f.pos), p)
            scope.values[arg] = v
        returned = self.block(f.body, scope)
        self._check_results(f, returned)
        root = self._set_root(em, returned, f.pos)
        sharding = _located(f.pos, root_sharding, f.results, self.meshes, f.pos) if is_entry else None
        if sharding is not None:
            self._shard_root(em, root, sharding)
        f.busy = False
        f.comp = comp
        self.module.computations.append(comp)
        return comp

    def _shard_root(self, em: Emitter, root: Value, sharding: str) -> None:
        """The result sharding on the root (on a copy of it when the root is a parameter or
        already carries a sharding of its own)."""
        line, _ = em.comp.lines[em.comp.index[root.name]]
        if " parameter(" in line or ", sharding=" in line:
            root = em.emit("copy", [root], root.type)
            em.set_root(root)
        self._add_attribute(em, root, f"sharding={sharding}")

    def _check_results(self, f: Function, returned: list[Value]) -> None:
        want = [t.text for t, _ in f.results]
        got = [v.type.text for v in returned]
        if want != got:
            raise TranslateError(f"'@{f.name}' returns ({', '.join(got)}), but its signature says "
                                 f"({', '.join(want)})", self.return_pos)

    def _entry_layout(self, f: Function) -> None:
        """entry_computation_layout from the signature: row-major, or an explicit
        `mhlo.layout_mode = "{0,1}"` (the minor-to-major order JAX records for a chosen layout)."""
        def layout(t: TensorType, attrs: dict[str, Any]) -> str:
            if t.elements is not None:
                return "(" + ", ".join(layout(e, {}) for e in t.elements) + ")"
            if t.element == "token" or not t.dims:
                return t.text
            mode = attrs.get("mhlo.layout_mode")
            if isinstance(mode, str) and _LAYOUT.fullmatch(mode) and len(mode.strip("{}").split(",")) == t.rank:
                return t.text + mode.replace(" ", "")
            return t.text + "{" + ",".join(str(d) for d in reversed(range(t.rank))) + "}"
        params = ", ".join(layout(t, a) for _, t, a in f.args if t is not None)
        outs = [layout(t, a) for t, a in f.results]
        result = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
        self.module.header_attrs.insert(0, f"entry_computation_layout={{({params})->{result}}}")

    # -- blocks and regions ---------------------------------------------------------------------
    def block(self, region: Region, scope: Scope) -> list[Value]:
        """Translate a region's ops into scope's computation; returns what its terminator returns."""
        for stmt in region.stmts:
            if isinstance(stmt, BlockLabel):
                if stmt is not region.stmts[0]:
                    raise TranslateError("regions with several blocks have no HLO form", stmt.pos)
                continue
            if isinstance(stmt, LocDef):
                continue
            if isinstance(stmt, FuncHead):
                raise TranslateError("a func.func inside a region: functions are defined at module level", stmt.pos)
            if isinstance(stmt, OpView):
                if stmt.name in TERMINATORS:
                    self.return_pos = stmt.pos
                    return [scope.lookup(n, p) for n, p in stmt.operands]
                self.op_view(stmt, scope)
                continue
            if stmt.name in TERMINATORS:
                self.return_pos = stmt.pos
                view = read_op(stmt)
                return [scope.lookup(n, p) for n, p in view.operands]
            self.op(stmt, scope)
        raise TranslateError("region has no terminator (stablehlo.return or func.return)", region.pos)

    def op(self, stmt: Op, scope: Scope) -> None:
        try:
            view = read_op(stmt)
        except AttrError as e:
            raise TranslateError(e.message, e.pos if e.pos >= 0 else stmt.pos) from None
        except TypeError_ as e:
            raise TranslateError(e.message, stmt.pos) from None
        self.op_view(view, scope)

    def op_view(self, view: OpView, scope: Scope) -> None:
        em = scope.emitter
        pos = em.pos = view.pos
        loc = view.loc
        if loc:
            em.metadata = self.locations.metadata(loc)
            em.name_hint = self.locations.op_name(loc)
        else:
            em.metadata, em.name_hint = "", None
        fn = _translators().get(view.name)
        if fn is None:
            from hlotools.text.stablehlo.ops import unsupported
            raise unsupported(view)
        try:
            results = fn(self, scope, view)
        except AttrError as e:
            raise TranslateError(e.message, e.pos if e.pos >= 0 else pos) from None
        except TypeError_ as e:
            raise TranslateError(e.message, pos) from None
        except (IndexError, KeyError, ValueError, TypeError, AttributeError, ZeroDivisionError) as e:
            raise TranslateError(f"malformed '{view.name}' op ({type(e).__name__}: {str(e)[:80]})", pos) from None
        names = view.results
        if len(results) != len(names):
            raise TranslateError(f"'{view.name}' has {len(results)} results, but {len(names)} are named", pos)
        if view.attrs:
            sharding = self._op_sharding(view, results)
            if sharding is not None:
                self._add_attribute(em, results[0], f"sharding={sharding}")
            front = view.attrs.get("mhlo.frontend_attributes")
            if isinstance(front, dict) and front and results:  # on the instruction, as XLA's translation puts them
                self._add_attribute(em, _defining(em, results[0]), "frontend_attributes={" + ",".join(
                    f'{k}="{escaped(str(v))}"' for k, v in front.items()) + "}")
        values = scope.values
        for name, v in zip(names, results):
            values[name] = v

    def _op_sharding(self, view: OpView, results: list[Value]) -> str | None:
        """An op's `mhlo.sharding = "{...}"`, or its `sdy.sharding = #sdy.sharding_per_value<[<@mesh,
        [...]>]>` (one result)."""
        if len(results) != 1:
            return None
        sharding = view.attrs.get("mhlo.sharding")
        if isinstance(sharding, str) and sharding.startswith("{"):
            return sharding
        per_value = view.attrs.get("sdy.sharding")
        if isinstance(per_value, str) and per_value.startswith("#sdy.sharding_per_value<["):
            return _located(view.pos, hlo_sharding, per_value[len("#sdy.sharding_per_value<["):-2], self.meshes,
                            results[0].type.rank, view.pos)
        return None

    def _add_attribute(self, em: Emitter, v: Value, attr: str) -> None:
        """An attribute on the instruction that defines v (mhlo.sharding -> sharding={...}), unless
        it has one of that name already."""
        at = em.comp.index.get(v.name)
        if at is not None:
            line, pos = em.comp.lines[at]
            if f", {attr.split('=', 1)[0]}=" not in line:
                em.comp.lines[at] = (f"{line}, {attr}", pos)

    def region_computation(self, region: Region, args: list[tuple[str, TensorType]], hint: str,
                           outer: Scope | None = None, captures: list[str] | None = None,
                           tuple_params: bool = False, pos: int = 0) -> tuple[Computation, list[Value]]:
        """A region as a computation. Its parameters: args, one per parameter (or, with
        tuple_params, all in one tuple parameter, as while bodies and branches take them), then
        the `captures` (values of `outer` the region uses)."""
        comp = Computation(self.module.comp_name(self.module.fresh(hint)))
        em = Emitter(self.module, comp)
        em.pos = pos
        scope = Scope(em)
        captured = [(name, outer.lookup(name, pos)) for name in (captures or [])] if outer else []
        all_args = [(n, t) for n, t in args] + [(n, v.type) for n, v in captured]
        if tuple_params and len(all_args) != 1:
            whole = em.parameter(0, TensorType("", elements=tuple(t for _, t in all_args)), "arg_tuple")
            for (n, _), v in zip(all_args, em.untuple(whole)):
                scope.values[n] = v
        else:
            for i, (n, t) in enumerate(all_args):
                scope.values[n] = em.parameter(i, t)
        returned = self.block(region, scope)
        self._set_root(em, returned, region.pos)
        self.module.computations.append(comp)
        return comp, [v for _, v in captured]

    def _set_root(self, em: Emitter, returned: list[Value], pos: int) -> Value:
        em.pos = pos
        root = returned[0] if len(returned) == 1 else em.tuple(returned)
        em.set_root(root)
        return root

    def region_args(self, region: Region, given: list[tuple[str, TensorType | None]] | None) -> list[tuple[str, TensorType]]:
        """A region's block arguments: from its ^bb0(...) label, else as the pretty form gave them."""
        found = given
        if region.stmts and isinstance(region.stmts[0], BlockLabel):
            found = _label_args(region.stmts[0])
        out: list[tuple[str, TensorType]] = []
        for n, t in found or []:
            if t is None:
                raise TranslateError(f"block argument {n} has no type", region.pos)
            out.append((n, t))
        return out


_TRANSLATORS: dict[str, Translate] | None = None


def _translators() -> dict[str, Translate]:
    """ops.py's table (it imports this module, so it is looked up once, on first use)."""
    global _TRANSLATORS
    if _TRANSLATORS is None:
        from hlotools.text.stablehlo.ops import TRANSLATORS
        _TRANSLATORS = TRANSLATORS
    return _TRANSLATORS


def _defining(em: Emitter, v: Value) -> Value:
    """The op behind v: v itself, or the multi-result op whose get-tuple-element v is."""
    line, _ = em.comp.lines[em.comp.index[v.name]]
    if " get-tuple-element(" in line:
        return Value(line.split(" get-tuple-element(", 1)[1].split(")", 1)[0], v.type)
    return v


def _located(pos: int, fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args), its AttrError reported at its own place (or at pos)."""
    try:
        return fn(*args)
    except AttrError as e:
        raise TranslateError(e.message, e.pos if e.pos >= 0 else pos) from None


def free_values(region: Region) -> list[str]:
    """Values a region uses but does not define (in first-use order): XLA passes them in."""
    defined: set[str] = set()
    used: dict[str, None] = {}

    def items(its: list, in_parens: bool) -> None:
        for k, it in enumerate(its):
            if isinstance(it, tuple):
                if it[0] == "VALUE":
                    nxt = its[k + 1] if k + 1 < len(its) else None
                    if in_parens and isinstance(nxt, tuple) and nxt[0] in ("COLON", "EQ"):
                        defined.add(it[1])  # a block argument `(%a: type)`, a loop's `(%iterArg = %x)`
                    else:
                        used.setdefault(it[1], None)
            elif isinstance(it, Group):
                items(it.items, it.kind == "(")
            else:
                stmts(it.stmts)

    def stmts(ss: list[Stmt]) -> None:
        from hlotools.text.stablehlo.reader import result_names
        for s in ss:
            if isinstance(s, Op):
                for n in result_names(s.results):
                    defined.add(n)
                    defined.add(n.split("#")[0])
                items(s.items, False)
            elif isinstance(s, BlockLabel):
                items(s.items, False)
            elif isinstance(s, OpView):
                defined.update(s.results)
                for n, _ in s.operands:
                    used.setdefault(n, None)
    stmts(region.stmts)
    return [n for n in used if n not in defined and n.split("#")[0] not in defined]


def _label_args(label: BlockLabel) -> list[tuple[str, TensorType | None]]:
    groups = [it for it in label.items if isinstance(it, Group) and it.kind == "("]
    return block_args(groups[0].items) if groups else []


def _type(tok: tuple) -> TensorType:
    from hlotools.text.stablehlo.types import parse_type
    try:
        return parse_type(tok[1])
    except TypeError_ as e:
        raise TranslateError(e.message, tok[2] + e.offset) from None


def _signature_args(group: Group, named: bool = True) -> list[tuple[str, TensorType | None, dict[str, Any]]]:
    """`(%arg0: tensor<f32> {attrs}, ...)` or `(tensor<f32> {attrs}, ...)`."""
    from hlotools.text.stablehlo.attributes import attr_dict, split_items
    out: list[tuple[str, TensorType | None, dict[str, Any]]] = []
    for chunk in split_items(group.items):
        name = ""
        rest = chunk
        if named:
            if len(chunk) < 3 or not isinstance(chunk[0], tuple) or chunk[0][0] != "VALUE":
                raise TranslateError("expected '%name: type'", chunk[0][2] if chunk and isinstance(chunk[0], tuple)
                                     else group.pos)
            name, rest = chunk[0][1], chunk[2:]
        if not rest or not isinstance(rest[0], tuple) or rest[0][0] != "TYPE":
            raise TranslateError("expected a type", rest[0][2] if rest and isinstance(rest[0], tuple) else group.pos)
        attrs: dict[str, Any] = {}
        for it in rest[1:]:
            if isinstance(it, Group) and it.kind == "{":
                attrs = {**attr_dict(it), **attrs}
            elif isinstance(it, tuple) and it[0] == "LOC":  # loc("x"): XLA names the parameter x
                stem = Locations({}).op_name(it[1])
                if stem:
                    attrs["_loc_name"] = stem
        out.append((name, _type(rest[0]), attrs))
    return out


def to_hlo_text(stmts: list[Stmt], lines: LineMap, resources: dict[str, bytes],
                locdefs: dict[str, str]) -> tuple[str, list[int]]:
    t = Translator(lines, Locations(locdefs), resources)
    return t.translate(stmts).text()


Translate = Callable[[Translator, Scope, OpView], list[Value]]

__all__ = ["Scope", "Translate", "TranslateError", "Translator", "free_values", "to_hlo_text", "unquote", "value"]
