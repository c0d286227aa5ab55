"""Gathers and scatters."""
