"""Structural diffs of HLO modules (hlo-diff, hlo-opt --xla-passes); depends on hlotools.ir only."""
from hlotools.diff.structural import Changed, FieldChange, FusionEvent, ModuleDiff, Ref, diff_modules

__all__ = ["Changed", "FieldChange", "FusionEvent", "ModuleDiff", "Ref", "diff_modules"]
