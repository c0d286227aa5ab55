"""The HLO text grammar (grammar/hlo.lark), shipped as package data."""
