"""bench/run.py's parts: hlotools (hlo-run) and real XLA (../shared/tools/xla_ref.py) measured as
child processes on the same module files and inputs, in one run on one machine."""
