"""Just enough of an ELF reader to check object files: the machine they are for, the
symbols they define and the ones they need from elsewhere.

The JIT path asks it before handing a cached object to MCJIT (which aborts the process on an
unresolvable symbol), and the AOT path asks it to prove an object needs nothing beyond
libc/libm and was made for the requested machine. 32- and 64-bit, either byte order.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from hlotools.backend.llvm.native import targets
from hlotools.errors import HloError

_SHT_SYMTAB = 2
_SHN_UNDEF = 0
_STB_LOCAL = 0


@dataclass(frozen=True)
class ObjectInfo:
    machine: str  # the elf_name of its targets.py row, or "machine-N"
    bits: int
    little_endian: bool
    defined: tuple[str, ...]  # global or weak symbols with a definition
    undefined: tuple[str, ...]  # symbols the object needs from a library or the linker


def read_object(data: bytes) -> ObjectInfo:
    """Read the header and symbol table of an ELF relocatable object."""
    if data[:4] != b"\x7fELF" or len(data) < 52:
        raise HloError("not an ELF object file")
    bits = {1: 32, 2: 64}.get(data[4])
    order = {1: "<", 2: ">"}.get(data[5])
    if bits is None or order is None:
        raise HloError("ELF object file with an unknown class or byte order")
    try:
        return _read(data, bits, order)
    except struct.error:
        raise HloError("truncated ELF object file") from None


def _read(data: bytes, bits: int, order: str) -> ObjectInfo:
    machine = struct.unpack_from(order + "H", data, 18)[0]
    if bits == 64:
        shoff, = struct.unpack_from(order + "Q", data, 40)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 58)
    else:
        shoff, = struct.unpack_from(order + "I", data, 32)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 46)
    sections = [_section(data, bits, order, shoff + k * shentsize) for k in range(shnum)]
    defined: list[str] = []
    undefined: list[str] = []
    for sh_type, offset, size, link, entsize in sections:
        if sh_type != _SHT_SYMTAB or not entsize:
            continue
        strtab = sections[link]
        for k in range(1, size // entsize):  # entry 0 is the null symbol
            name_off, info, shndx = _symbol(data, bits, order, offset + k * entsize)
            if info >> 4 == _STB_LOCAL:
                continue
            name = _cstring(data, strtab[1] + name_off)
            (undefined if shndx == _SHN_UNDEF else defined).append(name)
    return ObjectInfo(_machine_name(machine), bits, order == "<",
                      tuple(defined), tuple(undefined))


def _section(data: bytes, bits: int, order: str, at: int) -> tuple[int, int, int, int, int]:
    if bits == 64:
        _, sh_type, _, _, offset, size, link, _, _, entsize = struct.unpack_from(order + "IIQQQQIIQQ", data, at)
    else:
        _, sh_type, _, _, offset, size, link, _, _, entsize = struct.unpack_from(order + "IIIIIIIIII", data, at)
    return sh_type, offset, size, link, entsize


def _symbol(data: bytes, bits: int, order: str, at: int) -> tuple[int, int, int]:
    if bits == 64:
        name, info, _, shndx = struct.unpack_from(order + "IBBH", data, at)
    else:
        name, _, _, info, _, shndx = struct.unpack_from(order + "IIIBBH", data, at)
    return name, info, shndx


def _cstring(data: bytes, at: int) -> str:
    end = data.index(b"\0", at)
    return data[at:end].decode("utf-8", "replace")


def _machine_name(machine: int) -> str:
    target = targets.by_elf_machine(machine)
    return target.elf_name if target is not None else f"machine-{machine}"


# A module compiled as several LLVM modules (its entry and its kernels) is several objects,
# kept as one payload: MAGIC, a count, then each object's length and bytes. A lone ELF object
# is its own payload.
_MAGIC = b"HLOOBJS1"


def pack(objects: list[bytes]) -> bytes:
    if len(objects) == 1:
        return objects[0]
    parts = [_MAGIC, struct.pack("<I", len(objects))]
    for o in objects:
        parts += [struct.pack("<Q", len(o)), o]
    return b"".join(parts)


def unpack(data: bytes) -> list[bytes]:
    """The objects of a payload `pack` made (HloError if it is damaged)."""
    if not data.startswith(_MAGIC):
        return [data]
    try:
        (n,), at = struct.unpack_from("<I", data, len(_MAGIC)), len(_MAGIC) + 4
        out = []
        for _ in range(n):
            (size,), at = struct.unpack_from("<Q", data, at), at + 8
            if at + size > len(data):
                raise HloError("truncated object payload")
            out.append(data[at:at + size])
            at += size
    except struct.error:
        raise HloError("truncated object payload") from None
    return out


def read_objects(data: bytes) -> ObjectInfo:
    """read_object of a payload of several objects linked together: what they define, and
    what they need that none of them defines."""
    infos = [read_object(o) for o in unpack(data)]
    defined = {s for i in infos for s in i.defined}
    undefined = dict.fromkeys(s for i in infos for s in i.undefined if s not in defined)
    first = infos[0]
    return ObjectInfo(first.machine, first.bits, first.little_endian, tuple(sorted(defined)), tuple(undefined))
