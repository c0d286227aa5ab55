"""The LLVM backend's the runtime library: module-independent functions compiled once per machine."""
