"""Triton kernel families of the corpus; each module exports `CASES` (a list of suite.Case)."""
