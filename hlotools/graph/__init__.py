"""Graph views of a module (Graphviz)."""
