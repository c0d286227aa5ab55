"""The LLVM backend's module and function emitters: placement, buffers, elemental generation, concurrency, outlining."""
