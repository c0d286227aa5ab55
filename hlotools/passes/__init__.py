"""HLO passes: each one module, registered by XLA's name in registry.py."""
