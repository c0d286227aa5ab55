"""Code generators that turn an HLO module into something that runs (hlotools.backend.llvm)."""
