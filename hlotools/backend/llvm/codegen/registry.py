"""The LLVM backend's dispatch tables, keyed by opcode (design rule 1: no opcode switch in
the compiler).

* ELEMENTAL[opcode] = fn(gen, inst, index) -> value: XLA's elemental IR emitter idea. The
  value of `inst` at a multi-index, built from the values of its operands (asked through
  `gen.value_at`). Elementwise and data-movement ops, reductions (an inner loop), ... A
  chain of elemental ops composes into one loop nest whose intermediates stay in
  registers.
* EMITTERS[opcode] = fn(fe, inst) -> None: ops that write their result buffer(s) themselves
  (control flow, in-place updates, dot, sort, scatter, ...). `fe` is the FunctionEmitter.
  An opcode with an elemental generator and no emitter gets the default loop emitter.
* ALIASES: opcodes whose result is (part of) an operand's buffers: no code, no memory.
* UNSUPPORTED[opcode] = reason: refused at compile time with HloUnsupportedError.
* SCRATCH[opcode] = fn(inst) -> [bytes...]: temporary buffers an emitter needs while it runs.
* TASK_WORK[opcode] = fn(inst) -> work or None: the work (multiply-adds) of an instruction
  with its own loop when it may run as one task of a concurrent set (codegen/concurrent.py);
  None when it is not such a loop (its own threads, BLAS). Elemental loops need no entry.
* NO_INLINE: elemental ops whose value at one index costs a loop (reduce, dot): they are
  loop roots, never recomputed inside a consumer's loop.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from hlotools.ir.dispatch import Table
from hlotools.ir.instruction import Instruction

if TYPE_CHECKING:
    from hlotools.backend.llvm.codegen.elemental import ElementalGen, Index
    from hlotools.backend.llvm.codegen.function import FunctionEmitter


class Elemental(Protocol):
    """fn(gen, inst, index) -> the value (an ir.Value, or a list for tuple shapes)."""

    def __call__(self, gen: ElementalGen, inst: Instruction, index: Index, /) -> Any: ...


class Emitter(Protocol):
    """fn(fe, inst): writes `inst`'s result buffer(s)."""

    def __call__(self, fe: FunctionEmitter, inst: Instruction, /) -> None: ...


ELEMENTAL: Table[Elemental] = Table("elemental generator")
EMITTERS: Table[Emitter] = Table("emitter")
elemental = ELEMENTAL.register
emitter = EMITTERS.register
ALIASES: set[str] = set()
UNSUPPORTED: dict[str, str] = {}
SCRATCH: dict[str, Callable[..., list[int]]] = {}
TASK_WORK: dict[str, Callable[..., int | None]] = {}
NO_INLINE: set[str] = set()
LOADED = False  # lower.load() has filled the tables (codegen only reads them)
# custom-call targets the backend lowers (custom_call_target -> emitter, like EMITTERS)
CUSTOM_CALLS: Table[Emitter] = Table("custom-call emitter")


def require_loaded() -> None:
    """Codegen reads the tables; the driver (or a test) fills them first with lower.load()."""
    if not LOADED:
        raise RuntimeError("the LLVM lowerings are not loaded: call hlotools.backend.llvm.load_emitters()")


def unsupported(reason: str, *opcodes: str) -> None:
    for op in opcodes:
        UNSUPPORTED[op] = reason


def supported_opcodes() -> set[str]:
    return set(ELEMENTAL) | set(EMITTERS) | ALIASES
