"""Integer values of PTX immediates written as float bit patterns.

Why: PTX lets a bit-pattern float literal (`0fFF800000`, `0d3FF0000000000000`) stand for an integer
operand; `mov.b32 %r1, 0fFF800000;` (Triton's flash attention, -inf) moves the 32-bit pattern. The
lexer parses such literals to a Python float (the emulator needs the exact float), so an integer context
must take the literal's bits back, not `int(value)` (which fails on infinities and NaNs and truncates
every other value).
"""

from __future__ import annotations

import math
import struct


def float_imm_bits(value: float, text: str, bits: int) -> int:
    """The unsigned integer an integer-typed operand `text` (value `value`) denotes, `bits` wide."""
    t = text.lstrip("-")
    neg = text.startswith("-")
    mask = (1 << bits) - 1
    if len(t) > 2 and t[0] == "0" and t[1] in "fFdD":
        raw = int(t[2:], 16)
        return (-raw if neg else raw) & mask
    if math.isfinite(value):
        return int(value) & mask
    # a decimal spelling of a non-finite value: its IEEE pattern at the operand's width
    return (struct.unpack(">Q", struct.pack(">d", value))[0] if bits > 32 else
            struct.unpack(">I", struct.pack(">f", value))[0]) & mask  # fmt: skip
