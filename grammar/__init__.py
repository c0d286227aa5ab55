"""The HLO and StableHLO text grammars (grammar/hlo.lark, grammar/stablehlo.lark), shipped as package data."""
