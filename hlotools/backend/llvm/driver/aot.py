"""Ahead-of-time compilation: an HLO module as a relocatable object file exporting one C
function, plus the C header that documents it, for any target LLVM was built for.

The exported function (NAME is the module name made a C identifier, or --function-name):

    int NAME(const void *const *params, void *const *results, void *temp);

- `params[i]` points at array leaf i of the entry parameters (tuple parameters flattened
  depth-first; a token leaf takes NULL), `results[j]` at a caller-owned buffer for result
  leaf j. Each buffer is dense, in the layout given in the header (minor_to_major: for the
  default layout, C row-major order), NAME_PARAMi_BYTES / NAME_RESULTj_BYTES long, aligned
  at least to its element size (64 bytes is best for vector loads). Results must not
  overlap the parameters or each other.
- `temp` is scratch memory of NAME_TEMP_BYTES bytes aligned to NAME_TEMP_ALIGN, reused
  between calls; it may be NULL when NAME_TEMP_BYTES is 0. Calls running at the same time
  need separate temp (and result) buffers; nothing else is shared.
- Returns 0 on success, 1 when temp is NULL but needed (nothing is written then).

Storage per element: pred one byte (0/1); s1..s4/u1..u4 one byte each (sign- or
zero-extended); f16, bf16 and the f8/f6/f4 types their raw bits (uint16_t / uint8_t);
complex types (real, imag) pairs. The object needs nothing beyond libc and libm (checked on
every emit: link with -lm, plus -lpthread on glibc < 2.34 for the generated threads); the
compile steps are the JIT's (the -O2 passes, codegen, LLVM at -O3) except that dots use the
generated GEMM kernel, never a BLAS, and that the functions the JIT shares through its runtime
library (kernels/library.py: parallel_for, the GEMM kernels) are defined inside the object.
"""
from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import ENTRY_NAME, leaf_bytes
from hlotools.backend.llvm.native import targets
from hlotools.errors import HloError, HloUnsupportedError
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape

FORMS = ("llvm", "llvm-opt", "asm", "obj", "header")
TEMP_ALIGN = 64
_LINKER_DEFINED = frozenset({"_GLOBAL_OFFSET_TABLE_"})


class TargetError(HloError):
    """An unknown target triple, CPU or feature (a usage error on the command line)."""


@dataclass(frozen=True)
class AotOptions:
    function_name: str | None = None  # default: the module name as a C identifier
    triple: str | None = None  # default: the host's
    cpu: str | None = None  # default: the host's CPU for the host triple, else generic
    features: str | None = None  # default: the host's features with the host CPU, else none
    preset: str = "O2"  # HLO passes before codegen ('none': the module as given)
    opt_level: int = 3


@dataclass(frozen=True)
class Leaf:
    """One array leaf of the C interface."""

    index: int
    origin: str  # 'parameter %x', 'parameter %p leaf 1', 'result leaf 0'
    shape: Shape
    nbytes: int


@dataclass
class AotModule:
    """The LLVM IR of a module with its C entry point, and what the header says about it."""

    name: str
    module_name: str
    llvm_ir: str
    triple: str
    cpu: str
    features: str
    temp_bytes: int
    params: list[Leaf] = field(default_factory=list)
    results: list[Leaf] = field(default_factory=list)


def c_identifier(name: str) -> str:
    ident = re.sub(r"\W", "_", name)
    return ident if ident and not ident[0].isdigit() else "_" + ident


def build(module: Module, options: AotOptions = AotOptions()) -> AotModule:
    """Run the passes and codegen, and wrap the entry function in the C interface."""
    from hlotools.backend.llvm import lower
    from hlotools.backend.llvm.codegen import module as codegen
    from hlotools.backend.llvm.driver.pipeline import optimise_module
    from hlotools.backend.llvm.llvm_ir import denormals
    lower.load()
    name = options.function_name or c_identifier(module.name)
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise HloError(f"function name {name!r} is not a C identifier")
    triple, cpu, features = _target(options)
    tm = target_machine(triple, cpu, features, options.opt_level)  # a bad target fails before the work
    optimised = optimise_module(module, options.preset) if options.preset != "none" else module
    with denormals.target_triple(triple):  # FTZ/DAZ code for x86 targets only
        ir_module, stats = codegen.compile_module(optimised)
    ir_module.triple = triple
    ir_module.data_layout = str(tm.target_data)
    _add_c_entry(ir_module, name, ENTRY_NAME, stats.arena_bytes)
    entry = optimised.entry
    assert entry is not None and entry.root is not None
    params = [(f"parameter %{p.name}" + (f" leaf {k}" if p.shape.is_tuple else ""), s)
              for p in entry.parameters for k, s in enumerate(p.shape.leaves())]
    results = [(f"result leaf {k}" if entry.root.shape.is_tuple else "result", s)
               for k, s in enumerate(entry.root.shape.leaves())]
    return AotModule(name, module.name, str(ir_module), triple, cpu, features, stats.arena_bytes,
                     [Leaf(i, o, s, leaf_bytes(s)) for i, (o, s) in enumerate(params)],
                     [Leaf(i, o, s, leaf_bytes(s)) for i, (o, s) in enumerate(results)])


def _target(options: AotOptions) -> tuple[str, str, str]:
    from hlotools.backend.llvm.native import jit
    host = jit.target_description()
    triple = options.triple or host.triple
    native = triple == host.triple and options.cpu in (None, host.cpu)
    cpu = options.cpu if options.cpu is not None else (host.cpu if native else "")
    features = options.features if options.features is not None else (host.features if native else "")
    return triple, cpu, features


def target_machine(triple: str, cpu: str, features: str, opt_level: int) -> Any:
    from hlotools.backend.llvm.native import jit
    try:
        return jit.target_machine_checked(triple, cpu, features, opt_level)
    except ValueError as e:
        what = f"triple {triple}" + (f", cpu {cpu}" if cpu else "") + (f", features {features}" if features else "")
        raise TargetError(f"target ({what}): {re.sub(r' [(]ignoring [^)]*[)]', '', str(e))}") from None


def _add_c_entry(mod: ir.Module, name: str, entry_name: str, temp_bytes: int) -> None:
    """`int NAME(params, results, temp)` calling the (now internal) generated entry."""
    ptr = ir.PointerType(ir.IntType(8))
    i32 = ir.IntType(32)
    inner = mod.get_global(entry_name)
    inner.linkage = "internal"
    fn = ir.Function(mod, ir.FunctionType(i32, [ptr, ptr, ptr]), name)
    params, results, temp = fn.args
    params.name, results.name, temp.name = "params", "results", "temp"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    if temp_bytes > 0:
        missing = b.icmp_unsigned("==", temp, ir.Constant(ptr, None))
        with b.if_then(missing, likely=False):
            b.ret(ir.Constant(i32, 1))
    b.call(inner, [temp, params, results])
    b.ret(ir.Constant(i32, 0))
    _export_only(mod, name)


def _export_only(mod: ir.Module, name: str) -> None:
    """Every definition but the C function becomes internal, so objects of several modules
    link into one program (the JIT's exported globals, e.g. the thread-count knob, keep
    their default: in AOT code the thread count is the number of online CPUs)."""
    for g in mod.global_values:
        if g.name == name or g.linkage in ("internal", "private"):
            continue
        if isinstance(g, ir.Function) and not g.is_declaration:
            g.linkage = "internal"
        elif isinstance(g, ir.GlobalVariable) and g.initializer is not None:
            g.linkage = "internal"


def emit(aot: AotModule, form: str, opt_level: int = 3) -> str | bytes:
    """One of FORMS: LLVM IR before/after LLVM's optimiser, assembly, an object file
    (bytes, checked to need only libc/libm and to be for the requested machine), or the
    C header."""
    from hlotools.backend.llvm.native import jit
    if form == "header":
        return header(aot)
    if form == "llvm":
        return aot.llvm_ir
    tm = target_machine(aot.triple, aot.cpu, aot.features, opt_level)
    if form == "llvm-opt":
        return jit.optimised_ir(aot.llvm_ir, opt_level, tm)
    if form == "asm":
        return jit.emit_assembly(aot.llvm_ir, tm, opt_level)
    if form == "obj":
        data = jit.emit_object(aot.llvm_ir, tm, opt_level)
        check_object(data, aot.triple, aot.name)
        return data
    raise HloError(f"unknown form {form!r}; choose from {', '.join(FORMS)}")


def check_object(data: bytes, triple: str, name: str) -> None:
    """The object is for `triple`'s machine, exports `name`, and needs only symbols that
    libc or libm define (judged by the host's libraries: the names are the same on every
    glibc target). Non-ELF objects (Mach-O, COFF) are not inspected."""
    from hlotools.backend.llvm.native.objfile import read_object
    if data[:4] != b"\x7fELF":
        return
    info = read_object(data)
    target = targets.by_triple(triple)
    want = target.elf_name if target is not None else None
    if want is not None and info.machine != want:
        raise HloUnsupportedError(f"internal: object for {triple} has machine {info.machine}, expected {want}")
    if name not in info.defined:
        raise HloUnsupportedError(f"internal: object does not export {name}")
    foreign = [s for s in info.undefined if s not in _LINKER_DEFINED and not _in_libc_or_libm(s)]
    if foreign:
        hint = (" (compiler-rt helpers: the target has no FPU or lacks an instruction; give its features, "
                "e.g. --features=+f,+d for riscv64)" if any(s.startswith("__") for s in foreign) else "")
        raise HloUnsupportedError(f"the object needs symbols beyond libc/libm: {', '.join(sorted(foreign))}{hint}")


@cache
def _c_libraries() -> tuple[ctypes.CDLL, ...]:
    import ctypes.util
    libs = []
    for soname, short in (("libc.so.6", "c"), ("libm.so.6", "m")):
        for candidate in (soname, ctypes.util.find_library(short)):
            try:
                if candidate:
                    libs.append(ctypes.CDLL(candidate))
                    break
            except OSError:
                continue
    return tuple(libs)


def _in_libc_or_libm(symbol: str) -> bool:
    return any(hasattr(lib, symbol) for lib in _c_libraries())


# -- the header ---------------------------------------------------------------------------------

_C_TYPES: dict[str, str] = {"pred": "uint8_t", "s8": "int8_t", "s16": "int16_t", "s32": "int32_t",
                            "s64": "int64_t", "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t",
                            "u64": "uint64_t", "f32": "float", "f64": "double", "f16": "uint16_t",
                            "bf16": "uint16_t", "c64": "float", "c128": "double"}


def c_type(shape: Shape) -> str:
    """The C type one element is stored as (complex: the type of each half)."""
    et = shape.element_type
    assert et is not None
    if et.name in _C_TYPES:
        return _C_TYPES[et.name]
    if et.kind in ("signed", "unsigned") and et.bits < 8:
        return "int8_t" if et.kind == "signed" else "uint8_t"
    if et.kind == "float" and et.bits <= 8:
        return "uint8_t"
    return "uint8_t"


def _storage_note(shape: Shape) -> str:
    et = shape.element_type
    assert et is not None
    if et.name in ("f16", "bf16") or (et.kind == "float" and et.bits <= 8):
        return f", {et.name} bits"
    if et.kind == "complex":
        return ", (real, imag) pairs"
    if et.kind in ("signed", "unsigned") and et.bits < 8:
        return f", one {et.name} per byte"
    if et.kind == "pred":
        return ", 0 or 1 per byte"
    return ""


def _leaf_lines(prefix: str, leaf: Leaf, upper: str) -> list[str]:
    s = leaf.shape
    if s.is_token or s.element_type is None or not s.element_type.is_array:
        return [f"/* {upper}{leaf.index}: {leaf.origin}, token: pass NULL */",
                f"#define {prefix}_BYTES 0"]
    from hlotools.backend.llvm.abi import layout_of
    elements = 1
    for d in s.dims:
        elements *= d
    layout = ",".join(map(str, layout_of(s)))
    lines = [f"/* {upper}{leaf.index}: {leaf.origin}, {s.to_text(True)}: {elements} x {c_type(s)}"
             f"{'[2]' if s.element_type is not None and s.element_type.kind == 'complex' else ''}"
             f"{_storage_note(s)}; minor_to_major {{{layout}}} */",
             f"#define {prefix}_BYTES {leaf.nbytes}",
             f"#define {prefix}_ELEMENTS {elements}",
             f"#define {prefix}_RANK {len(s.dims)}"]
    if s.dims:
        lines.append(f"#define {prefix}_DIMS {{{', '.join(map(str, s.dims))}}}")
    lines.append(f"typedef {c_type(s)} {prefix.lower()}_element_t;")
    return lines


def _c_list(values: list[int]) -> str:
    return "{" + ", ".join(map(str, values or [0])) + "}"


def header(aot: AotModule) -> str:
    import hlotools
    n = aot.name
    guard = f"HLOTOOLS_{n.upper()}_H"
    out = [f"/* {n}: HLO module {aot.module_name} compiled ahead of time by hlotools {hlotools.__version__}",
           f" * (hlo-translate --emit=obj / --emit=header) for {aot.triple}"
           f"{' cpu ' + aot.cpu if aot.cpu else ''}. Generated: do not edit.",
           " *",
           f" * int {n}(const void *const *params, void *const *results, void *temp);",
           " *",
           " *   params[i]  -> parameter leaf i (tuples flattened depth-first; tokens NULL)",
           " *   results[j] -> caller-owned buffer for result leaf j (must not overlap params)",
           f" *   temp       -> {n.upper()}_TEMP_BYTES bytes aligned to {n.upper()}_TEMP_ALIGN "
           "(NULL allowed when 0)",
           " *   returns 0 on success, 1 if temp is NULL but needed.",
           " * Buffers are dense in the layout given (minor_to_major {rank-1,...,0} is C row-major)",
           " * and aligned at least to their element size. Concurrent calls need their own temp and",
           " * result buffers. The object needs only libc and libm: link with -lm (and -lpthread",
           " * on glibc before 2.34, where the threads of large kernels live). */",
           f"#ifndef {guard}", f"#define {guard}", "", "#include <stdint.h>", "",
           "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
           f"#define {n.upper()}_NUM_PARAMS {len(aot.params)}",
           f"#define {n.upper()}_NUM_RESULTS {len(aot.results)}",
           f"#define {n.upper()}_TEMP_BYTES {aot.temp_bytes}",
           f"#define {n.upper()}_TEMP_ALIGN {TEMP_ALIGN}",
           "/* Buffer sizes in bytes, for loops: size_t sizes[] = NAME_PARAM_BYTES_LIST; */",
           f"#define {n.upper()}_PARAM_BYTES_LIST {_c_list([x.nbytes for x in aot.params])}",
           f"#define {n.upper()}_RESULT_BYTES_LIST {_c_list([x.nbytes for x in aot.results])}", ""]
    for what, leaves in (("PARAM", aot.params), ("RESULT", aot.results)):
        for leaf in leaves:
            out += _leaf_lines(f"{n.upper()}_{what}{leaf.index}", leaf, what.lower()) + [""]
    out += [f"int {n}(const void *const *params, void *const *results, void *temp);", "",
            "#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
    return "\n".join(out)


def compile_aot(module: Module, form: str, options: AotOptions = AotOptions()) -> str | bytes:
    """hlo-translate's LLVM forms in one call."""
    return emit(build(module, options), form, options.opt_level)

