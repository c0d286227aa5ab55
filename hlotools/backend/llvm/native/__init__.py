"""The LLVM backend's native code: the JIT (the only llvmlite.binding importer), targets, objects, cache storage, shared libraries."""
