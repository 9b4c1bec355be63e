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


# ------------------------------------------------------------------------------- validity mutations
# Mutations that decide whether ptxas accepts a file (the differential campaign tests/fuzz/ptxval.py):
# drop, double or replace a modifier, swap a type, change the target or the version, remove or repeat a
# declaration, rename a register, move an instruction from a file for another target. Each returns the
# mutant and a one-line description, or None when it does not apply to the text.

OPCODE_LINE = re.compile(r"^(\s*(?:@!?%?\w+\s+)?)([a-z][\w.:]*)((?:\s+[^;]*)?;.*)$")
TARGETS = [
    "sm_52", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f",
    "sm_103a", "sm_110a", "sm_120", "sm_120a", "sm_121a", "sm_999", "sm_80a", "sm_90f", "compute_90", "bogus",
]  # fmt: skip
VERSIONS = ["6.0", "6.5", "7.0", "7.4", "7.5", "7.8", "8.0", "8.3", "8.6", "8.7", "8.8", "9.0", "9.5", "6.6",
            "7.9", "9.9", "10.0", "8"]  # fmt: skip
GARBAGE_MODS = [".frobnicate", ".u33", ".sync2", ".L3::cache_hint", ".rnz", ".v3", ".b24", ".shared::gpu"]
REG_DECL = re.compile(r"^\s*\.reg\s+\.(\w+)\s+(%?[\w$]+)(?:<(\d+)>)?\s*;")


def instr_lines(lines: list[str]) -> list[int]:
    """Indexes of instruction lines (not directives, labels, braces or comments)."""
    out = []
    for i, ln in enumerate(lines):
        s = ln.lstrip()
        if not s or s[0] in ".}{/$" or s.endswith(":") or s.startswith("prototype"):
            continue
        if OPCODE_LINE.match(ln):
            out.append(i)
    return out


def _mods(opcode: str) -> tuple[str, list[str]]:
    parts = opcode.split(".")
    return parts[0], ["." + p for p in parts[1:]]


def _sub_opcode(line: str, opcode: str) -> str:
    m = OPCODE_LINE.match(line)
    assert m is not None
    return m.group(1) + opcode + m.group(3)


def _pick_instr(lines: list[str], rng: random.Random, with_mods: bool = True) -> tuple[int, str] | None:
    cand = instr_lines(lines)
    if with_mods:
        cand = [i for i in cand if "." in OPCODE_LINE.match(lines[i]).group(2)]  # type: ignore[union-attr]
    if not cand:
        return None
    i = rng.choice(cand)
    return i, OPCODE_LINE.match(lines[i]).group(2)  # type: ignore[union-attr]


def v_drop_mod(lines, rng, pools):  # type: ignore[no-untyped-def]
    got = _pick_instr(lines, rng)
    if got is None:
        return None
    i, op = got
    stem, mods = _mods(op)
    j = rng.randrange(len(mods))
    new = stem + "".join(mods[:j] + mods[j + 1 :])
    lines[i] = _sub_opcode(lines[i], new)
    return f"drop {mods[j]} from {op}"


def v_dup_mod(lines, rng, pools):  # type: ignore[no-untyped-def]
    got = _pick_instr(lines, rng)
    if got is None:
        return None
    i, op = got
    stem, mods = _mods(op)
    j = rng.randrange(len(mods))
    new = stem + "".join(mods[: j + 1] + [mods[j]] + mods[j + 1 :])
    lines[i] = _sub_opcode(lines[i], new)
    return f"double {mods[j]} in {op}"


def v_replace_mod(lines, rng, pools):  # type: ignore[no-untyped-def]
    """Replace a modifier by another this stem takes somewhere in the corpus (often valid), by one of
    another stem, or by garbage."""
    got = _pick_instr(lines, rng)
    if got is None:
        return None
    i, op = got
    stem, mods = _mods(op)
    j = rng.randrange(len(mods))
    r = rng.random()
    same = sorted(pools["mods"].get(stem, set()) - {mods[j]})
    if r < 0.7 and same:
        new_mod = rng.choice(same)
    elif r < 0.9:
        new_mod = rng.choice(pools["all_mods"])
    else:
        new_mod = rng.choice(GARBAGE_MODS)
    lines[i] = _sub_opcode(lines[i], stem + "".join(mods[:j] + [new_mod] + mods[j + 1 :]))
    return f"replace {mods[j]} by {new_mod} in {op}"


def v_add_mod(lines, rng, pools):  # type: ignore[no-untyped-def]
    got = _pick_instr(lines, rng, with_mods=False)
    if got is None:
        return None
    i, op = got
    stem, mods = _mods(op)
    pool = sorted(pools["mods"].get(stem, set()) - set(mods)) or pools["all_mods"]
    new_mod = rng.choice(pool)
    j = rng.randrange(len(mods) + 1)
    lines[i] = _sub_opcode(lines[i], stem + "".join(mods[:j] + [new_mod] + mods[j:]))
    return f"add {new_mod} to {op}"


TYPE_MODS = [".b8", ".b16", ".b32", ".b64", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64",
             ".f16", ".f16x2", ".bf16", ".f32", ".f64", ".pred", ".b128"]  # fmt: skip


def v_swap_type(lines, rng, pools):  # type: ignore[no-untyped-def]
    cand = [
        i
        for i in instr_lines(lines)
        if any(
            t in OPCODE_LINE.match(lines[i]).group(2).split(".")  # type: ignore[union-attr]
            for t in (x[1:] for x in TYPE_MODS)
        )
    ]
    if not cand:
        return None
    i = rng.choice(cand)
    op = OPCODE_LINE.match(lines[i]).group(2)  # type: ignore[union-attr]
    stem, mods = _mods(op)
    js = [j for j, m in enumerate(mods) if m in TYPE_MODS]
    j = rng.choice(js)
    t = rng.choice([x for x in TYPE_MODS if x != mods[j]])
    lines[i] = _sub_opcode(lines[i], stem + "".join(mods[:j] + [t] + mods[j + 1 :]))
    return f"type {mods[j]} -> {t} in {op}"


def _directive(lines: list[str], name: str) -> int | None:
    for i, ln in enumerate(lines):
        if ln.lstrip().startswith(name + " ") or ln.strip() == name:
            return i
    return None


def v_target(lines, rng, pools):  # type: ignore[no-untyped-def]
    i = _directive(lines, ".target")
    if i is None:
        return None
    t = rng.choice(TARGETS)
    old = lines[i].strip()
    lines[i] = re.sub(r"(\.target\s+)[\w]+", lambda m: m.group(1) + t, lines[i])
    return f"{old} -> {t}"


def v_version(lines, rng, pools):  # type: ignore[no-untyped-def]
    i = _directive(lines, ".version")
    if i is None:
        return None
    v = rng.choice(VERSIONS)
    old = lines[i].strip()
    lines[i] = f".version {v}"
    return f"{old} -> .version {v}"


def v_header(lines, rng, pools):  # type: ignore[no-untyped-def]
    """Remove `.version`, `.target` or `.address_size`, swap the first two, or set a bad address size."""
    iv, it, ia = (
        _directive(lines, ".version"),
        _directive(lines, ".target"),
        _directive(lines, ".address_size"),
    )
    r = rng.randrange(5)
    if r == 0 and iv is not None:
        del lines[iv]
        return "remove .version"
    if r == 1 and it is not None:
        del lines[it]
        return "remove .target"
    if r == 2 and iv is not None and it is not None:
        lines[iv], lines[it] = lines[it], lines[iv]
        return "swap .version and .target"
    if r == 3 and ia is not None:
        n = rng.choice(["32", "48", "16", "128"])
        lines[ia] = f".address_size {n}"
        return f".address_size {n}"
    if iv is not None:
        lines.insert(iv + 1, lines[iv])
        return "repeat .version"
    return None


def v_remove_decl(lines, rng, pools):  # type: ignore[no-untyped-def]
    """Remove a `.reg` line, a variable, or a label (the branches to it stay)."""
    decl = [i for i, ln in enumerate(lines) if REG_DECL.match(ln)]
    var = [
        i
        for i, ln in enumerate(lines)
        if re.match(r"^\s*(\.visible\s+|\.extern\s+)?\.(shared|global|const|local)\s", ln)
        and ln.rstrip().endswith(";")
    ]
    lab = [i for i, ln in enumerate(lines) if re.match(r"^\s*\$?[\w$]+:\s*$", ln)]
    pool = [("reg", i) for i in decl] + [("var", i) for i in var] + [("label", i) for i in lab]
    if not pool:
        return None
    kind, i = rng.choice(pool)
    old = lines[i].strip()
    del lines[i]
    return f"remove {kind} `{old}`"


def v_dup_decl(lines, rng, pools):  # type: ignore[no-untyped-def]
    """Repeat a declaration or a label; or declare one register of a range again."""
    decl = [i for i, ln in enumerate(lines) if REG_DECL.match(ln)]
    lab = [i for i, ln in enumerate(lines) if re.match(r"^\s*\$?[\w$]+:\s*$", ln)]
    if not decl and not lab:
        return None
    if lab and (not decl or rng.random() < 0.3):
        i = rng.choice(lab)
        lines.insert(i, lines[i])
        return f"repeat label {lines[i].strip()}"
    i = rng.choice(decl)
    m = REG_DECL.match(lines[i])
    assert m is not None
    if m.group(3) and rng.random() < 0.5:
        n = rng.randrange(max(1, int(m.group(3)) + 2))
        typ = rng.choice([m.group(1), "b32", "f32", "b64"])
        lines.insert(i + 1, f"\t.reg .{typ} {m.group(2)}{n};")
        return f"declare {m.group(2)}{n} again as .{typ}"
    lines.insert(i + 1, lines[i])
    return f"repeat `{lines[i].strip()}`"


REG_TOKEN = re.compile(r"%[a-z]+\d+\b")


def v_rename_reg(lines, rng, pools):  # type: ignore[no-untyped-def]
    """Replace a register operand by another declared register (another type, often), one past a range's
    end, or one whose prefix nobody declared."""
    cand = [i for i in instr_lines(lines) if REG_TOKEN.search(OPCODE_LINE.match(lines[i]).group(3))]  # type: ignore[union-attr]
    if not cand:
        return None
    i = rng.choice(cand)
    m = OPCODE_LINE.match(lines[i])
    assert m is not None
    regs = list(REG_TOKEN.finditer(m.group(3)))
    pick = rng.choice(regs)
    ranges = {}
    for ln in lines:
        d = REG_DECL.match(ln)
        if d and d.group(3):
            ranges[d.group(2)] = int(d.group(3))
    r = rng.random()
    if r < 0.6 and ranges:
        pre = rng.choice(sorted(ranges))
        new = f"{pre}{rng.randrange(max(1, ranges[pre]))}"
    elif r < 0.85 and ranges:
        pre = rng.choice(sorted(ranges))
        new = f"{pre}{ranges[pre] + rng.choice([0, 0, 1, 100])}"
    else:
        new = rng.choice(["%r999", "%q1", "%tid.x", "%laneid", "%rd0x"])
    tail = m.group(3)
    tail = tail[: pick.start()] + new + tail[pick.end() :]
    lines[i] = m.group(1) + m.group(2) + tail
    return f"{pick.group()} -> {new} in {m.group(2)}"


def v_transplant(lines, rng, pools):  # type: ignore[no-untyped-def]
    """Insert an instruction taken from another file (another target, often), with its registers renamed
    to ones this file declares when their prefixes match."""
    cand = instr_lines(lines)
    if not cand or not pools["instrs"]:
        return None
    src = rng.choice(pools["instrs"])
    i = rng.choice(cand)
    lines.insert(i, src)
    return f"insert `{src.strip()}`"


def v_operand(lines, rng, pools):  # type: ignore[no-untyped-def]
    """Drop or add an operand, or replace one by an immediate, a register of another width, or a vector."""
    got = _pick_instr(lines, rng, with_mods=False)
    if got is None:
        return None
    i, op = got
    m = INSTR.match(lines[i])
    if m is None:
        return None
    pred, opcode, sp, ops_s, tail = m.groups()
    ops = _split_operands(ops_s)
    j = rng.randrange(len(ops))
    r = rng.randrange(4)
    if r == 0 and len(ops) > 1:
        del ops[j]
        what = "drop an operand"
    elif r == 1:
        ops.insert(j, " " + rng.choice(["%r1", "%rd1", "%f1", "%p1", "1", "0f3F800000"]))
        what = "add an operand"
    elif r == 2:
        ops[j] = " " + rng.choice(["1", "-1", "0f3F800000", "0d3FF0000000000000", "1.5", "4294967296"])
        what = f"operand {j} -> immediate"
    else:
        ops[j] = " " + rng.choice(["{%r1, %r2}", "%rd1", "%r1", "%f1", "%fd1", "%rs1", "%p1", "[%rd1]"])
        what = f"operand {j} -> {ops[j].strip()}"
    lines[i] = pred + opcode + sp + ",".join(ops).lstrip() + tail
    return f"{what} of {op}"


VALIDITY_MUTATORS = {
    "drop-mod": (v_drop_mod, 10),
    "double-mod": (v_dup_mod, 5),
    "replace-mod": (v_replace_mod, 14),
    "add-mod": (v_add_mod, 8),
    "swap-type": (v_swap_type, 10),
    "target": (v_target, 8),
    "version": (v_version, 8),
    "header": (v_header, 4),
    "remove-decl": (v_remove_decl, 6),
    "double-decl": (v_dup_decl, 5),
    "rename-reg": (v_rename_reg, 10),
    "transplant": (v_transplant, 6),
    "operand": (v_operand, 6),
}


def validity_pools(texts: list[str]) -> dict:
    """Modifiers per stem, every modifier, and instruction lines, from the seed files."""
    mods: dict[str, set[str]] = {}
    instrs: list[str] = []
    for t in texts:
        lines = t.split("\n")
        for i in instr_lines(lines):
            op = OPCODE_LINE.match(lines[i]).group(2)  # type: ignore[union-attr]
            stem, ms = _mods(op)
            mods.setdefault(stem, set()).update(ms)
            if REG_TOKEN.search(lines[i]) is None or len(instrs) < 20000:
                instrs.append(lines[i])
    all_mods = sorted(set().union(*mods.values())) if mods else [".u32"]
    return {"mods": mods, "all_mods": all_mods, "instrs": instrs}


def validity_mutate(text: str, rng: random.Random, pools: dict) -> tuple[str, str] | None:
    """One validity mutation of `text`: (mutant, description), or None when the picked one does not apply."""
    names = list(VALIDITY_MUTATORS)
    weights = [VALIDITY_MUTATORS[n][1] for n in names]
    name = rng.choices(names, weights)[0]
    lines = text.split("\n")
    desc = VALIDITY_MUTATORS[name][0](lines, rng, pools)
    if desc is None:
        return None
    return "\n".join(lines), f"{name}: {desc}"
