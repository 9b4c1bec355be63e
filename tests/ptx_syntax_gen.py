"""Instances of the PTX syntax rows (irc/ptxisa/syntax_table.py): one assembled kernel per form and choice
of modifiers, for the table tests (tests/test_ptx_syntax.py) and the measurements that produced the gates.

`instance(opcode)` spells the operands a matched form expects with registers of the right types from a
fixed prelude; `module(body, target, version)` wraps instructions in a kernel that declares them.
"""

from __future__ import annotations

from irc.ptxisa import syntax as S

PRELUDE = """\
  .reg .b32 %r<16>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<16>;
  .reg .f64 %fd<16>;
  .reg .b16 %rs<16>;
  .reg .pred %p<8>;
  .shared .align 16 .b8 sm[256];
  .param .align 8 .b8 pl[64];
  ld.param.u64 %rd1, [p];
"""


def module(body: str, target: str = "sm_90", version: str = "8.6") -> str:
    q = "  .reg .b128 %q<8>;\n" if "%q" in body else ""  # (b128 registers need PTX 8.3)
    return (
        f".version {version}\n.target {target}\n.address_size 64\n.const .align 8 .b8 cst[64];\n"
        f".visible .entry k(.param .u64 p)\n{{\n{PRELUDE}{q}{body}\n  ret;\n}}\n"
    )


def reg(t: str | None, i: int = 1) -> str:
    """A register of the prelude for type `t` (no dot)."""
    if t is None:
        return f"%r{i}"
    if t == "pred":
        return f"%p{i}"
    if t in ("f32",):
        return f"%f{i}"
    if t == "f64":
        return f"%fd{i}"
    size = S.type_size(t) or 32
    return {8: f"%rs{i}", 16: f"%rs{i}", 32: f"%r{i}", 64: f"%rd{i}", 128: f"%q{i}"}[size]


def imm(t: str | None) -> str:
    if t in ("f32", "f16", "f16x2", "bf16", "bf16x2"):
        return "0f3F800000"
    if t == "f64":
        return "0d3FF0000000000000"
    return "1"


def _address(opcode: str, index: int) -> str:
    mods = opcode.split(".")
    if opcode.startswith("cp.async") and index == 1:
        return "[%rd2]"
    if any(m.startswith("shared") for m in mods):
        return "[%r2]"
    if "param" in mods:
        return "[pl]" if opcode.startswith("st") else "[p]"
    if "const" in mods:
        return "[cst]"
    return "[%rd2]"


def _want(m: S.Match, spec: S.OpSpec) -> str | None:
    t = spec.type
    types = [x.lstrip(".") for x in m.types]
    if t == "*":
        return None
    if t == "T":
        return types[-1] if types else None
    if t[0] == "T" and t[1:].isdigit():
        i = int(t[1:])
        return types[i] if i < len(types) else None
    if t == "2T":
        return (types[-1][0] + str(2 * (S.type_size(types[-1]) or 32))) if types else None
    return t


def operands(opcode: str, imm_text: str = "1") -> list[str] | None:
    """The operand spellings for `opcode` (None: no form matches, or its operands are not described)."""
    m = S.match(opcode)
    if not isinstance(m, S.Match) or m.form.operands is None:
        return None
    out: list[str] = []
    nm = 0
    mods = opcode.split(".")
    for k, spec in enumerate(m.form.operands):
        if spec.optional and not (spec.iff is not None and spec.iff[1:] in mods):
            break
        want = _want(m, spec)
        i = k + 1
        if spec.kind == "m":
            out.append(_address(opcode, nm))
            nm += 1
        elif spec.kind == "mt":
            out.append("[%r2]")
        elif spec.kind in ("d", "d_", "r", "dp", "sp"):
            out.append(reg(want, i))
        elif spec.kind == "s":
            out.append(reg(want, i))
        elif spec.kind == "dq":
            out.append(reg(want, i))
        elif spec.kind == "dP":
            out.append(f"{reg(want, i)}|%p{i}")
        elif spec.kind in ("vd", "vs"):
            if m.vec > 1:
                out.append("{" + ", ".join(reg(want, i + j) for j in range(m.vec)) + "}")
            else:
                out.append(reg(want, i))
        elif spec.kind == "p":
            out.append(f"%p{i}")
        elif spec.kind == "n":
            out.append("%p2")
        elif spec.kind == "i":
            out.append(imm_text)
        elif spec.kind == "l":
            out.append("L1")
        else:
            return None
    return out


def instance(opcode: str, imm_text: str = "1") -> str | None:
    """`opcode` with operands, as one line (a label `L1:` follows a branch)."""
    ops = operands(opcode, imm_text)
    if ops is None:
        return None
    text = f"  {opcode} {', '.join(ops)};" if ops else f"  {opcode};"
    if "L1" in ops:
        text += "\nL1:"
    return text


def canonical_opcodes(form: S.Form) -> list[str]:
    """The form spelled with every required slot at each of its values in turn (others at their first),
    optional slots left out: the spellings a table test assembles."""
    base = [e.values[0] if not e.optional else None for e in form.elems]
    out = []

    def spell(vals: list[str | None]) -> str:
        return form.stem + "".join(v for v in vals if v)

    out.append(spell(base))
    for i, e in enumerate(form.elems):
        for v in e.values[1:] if not e.optional else e.values:
            vals = list(base)
            vals[i] = v
            out.append(spell(vals))
    seen: set[str] = set()
    return [o for o in out if not (o in seen or seen.add(o))]  # type: ignore[func-returns-value]
