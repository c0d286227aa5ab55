"""Helpers the test files share (HLO snippets, runners, corpus access, sandboxes); no tests here."""
