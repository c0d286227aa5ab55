"""The LLVM backend's the driver: HLO passes, compile (with the cache), CompiledModule, AOT objects."""
