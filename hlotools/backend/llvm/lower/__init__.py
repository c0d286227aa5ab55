"""The LLVM backend's one module per opcode family, named like hlotools/interpreter/'s; load_emitters discovers them."""
