"""The IR: module -> computations -> instructions, shapes, literals, the opcode table."""
