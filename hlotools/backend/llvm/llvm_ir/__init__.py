"""The LLVM backend's LLVM IR building blocks shared by the runtime library and the lowerings: types, loops, scalar ops."""
