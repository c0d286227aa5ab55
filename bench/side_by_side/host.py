"""The host CPU in one line (model, vector ISA, cores): the table's figures belong to it."""
from __future__ import annotations

import os
import platform


def cpu() -> dict[str, object]:
    """Model name, the widest x86 vector ISA it has, CPUs online and usable by this process."""
    model, flags = "", set[str]()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and not model:
                    model = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    model = model or platform.processor() or platform.machine()
    isa = ("AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags
           else "SSE" if "sse2" in flags else "unknown")
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"model": model, "isa": isa, "fma": "fma" in flags, "avx512f": "avx512f" in flags,
            "avx2": "avx2" in flags, "cpus_online": os.cpu_count(), "cpus_usable": usable,
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None}


def describe(info: dict[str, object]) -> str:
    load = info.get("load_average")
    extra = f", load average {load[0]:.2f}" if isinstance(load, list) else ""
    return (f"host CPU: {info['model']} ({info['isa']}{', FMA' if info['fma'] else ''}), "
            f"{info['cpus_usable']} of {info['cpus_online']} CPUs usable{extra}")
