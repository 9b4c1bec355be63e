"""PTX mutators: line-level (delete, duplicate, swap, splice from another file, truncate) and operand-level
(replace an instruction operand by a register, an immediate at a boundary, an infinite or NaN hex float, a
vector, an address, a label, garbage; change a type suffix; drop or add an operand).

The operand mutator works on the text of one instruction line (`opcode op, op, ...;`) so that mutants stay
close to real generator output and reach the lifter and the analyzer, not only the parser.
"""

from __future__ import annotations

import random
import re

IMMS = [
    "0", "1", "-1", "2", "15", "16", "31", "32", "255", "1048575", "1048576", "2147483647", "4294967295",
    "4294967296", "0x7fffffff", "0xffffffffffffffff", "99999999999999999999999", "0f7F800000", "0fFF800000",
    "0f7FC00000", "0d7FF0000000000000", "0dFFF0000000000000", "0f3F800000", "1.5", "0F7f800000",
]  # fmt: skip
WEIRD = [
    "{%r1, %r2}", "{%f1, %f2, %f3, %f4}", "{%rd1}", "[%rd1]", "[%rd1+4]", "[%r1+-8]", "%nosuch", "$L__BB0_99",
    "%tid.x", "%ctaid.w", "_", "%r", "[]", "{}", "%r99999", "%p1", "%rd1", "%f1", "%fd1", "%rs1",
]  # fmt: skip
TYPES = [
    ".u32",
    ".s32",
    ".b32",
    ".f32",
    ".u64",
    ".s64",
    ".b64",
    ".f64",
    ".f16",
    ".b16",
    ".pred",
    ".u8",
    ".v2",
    ".v4",
]
INSTR = re.compile(r"^(\s*(?:@!?%\w+\s+)?)([a-z][\w.:]*)(\s+)([^;]*)(;.*)$")
REG = re.compile(r"%[a-z]+\d+")


def _split_operands(s: str) -> list[str]:
    """Split at top-level commas (not inside `{}` or `[]`)."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def operand_mutate(text: str, rng: random.Random, corpus: list[str]) -> str:
    lines = text.split("\n")
    cand = [i for i, ln in enumerate(lines) if INSTR.match(ln) and not ln.lstrip().startswith(".")]
    if not cand:
        return text
    i = rng.choice(cand)
    m = INSTR.match(lines[i])
    assert m is not None
    pred, opcode, sp, ops_s, tail = m.groups()
    ops = _split_operands(ops_s)
    regs = REG.findall(text) or ["%r1"]
    op = rng.randrange(6)
    j = rng.randrange(len(ops))
    if op == 0:
        ops[j] = " " + rng.choice(IMMS)
    elif op == 1:
        ops[j] = " " + rng.choice(WEIRD)
    elif op == 2:
        ops[j] = " " + rng.choice(regs)
    elif op == 3:  # change a type suffix or add a modifier
        parts = opcode.split(".")
        if len(parts) > 1 and rng.random() < 0.7:
            parts[rng.randrange(1, len(parts))] = rng.choice(TYPES)[1:]
        else:
            parts.insert(rng.randrange(1, len(parts) + 1), rng.choice(TYPES)[1:])
        opcode = ".".join(parts)
    elif op == 4 and len(ops) > 1:
        del ops[j]
    else:
        ops.insert(j, " " + rng.choice(regs + IMMS))
    lines[i] = pred + opcode + sp + ",".join(ops).lstrip() + tail
    return "\n".join(lines)


def line_mutate(text: str, rng: random.Random, corpus: list[str]) -> str:
    lines = text.split("\n")
    if len(lines) < 2:
        return text
    i = rng.randrange(len(lines))
    op = rng.randrange(6)
    if op == 0:
        del lines[i]
    elif op == 1:  # duplicate a line, sometimes thousands of times (time must stay linear)
        lines[i:i] = [lines[i]] * rng.choice([1, 1, 1, 10, 1000, 20000])
    elif op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3:
        other = rng.choice(corpus).split("\n")
        lines.insert(i, rng.choice(other))
    elif op == 4:
        lines = lines[: max(1, i)]
    else:  # a label or a branch to one that may not exist
        lines.insert(
            i, rng.choice(["$L__fz:", "\tbra.uni $L__fz;", "\tbra.uni $L__nowhere;", "\t@%p1 bra $L__BB0_1;"])
        )
    return "\n".join(lines)


def mutate(text: str, rng: random.Random, corpus: list[str]) -> str:
    for _ in range(rng.choice([1, 1, 2, 3])):
        text = operand_mutate(text, rng, corpus) if rng.random() < 0.6 else line_mutate(text, rng, corpus)
    return text
