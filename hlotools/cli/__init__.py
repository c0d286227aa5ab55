"""Thin click front ends: hlo-opt, hlo-run, hlo-translate."""
