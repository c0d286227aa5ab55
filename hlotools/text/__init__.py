"""HLO text: lexer, grammar-driven parser, printer."""
