"""Injected-bug twins of the Triton corpus: each twin is a clean kernel's PTX with one documented defect,
and the check irc must report for it, at a PTX line this module computes.

Why at the PTX level: Triton hides synchronisation (barriers, shuffles, mbarrier phases, proxy fences,
async waits are inserted by its compiler), so most bug classes cannot be written in Triton at all. The
mutation step below makes the smallest edit a miscompile or a hand-patched kernel would: one line
dropped, one operand changed, or one instruction put under a lane-dependent guard. Each `Mutation`:

    drop       delete the nth line matching `find`
    sub        on the nth line matching `find`, replace regex `old` by `new`
    lane_guard put the nth instruction matching `find` under `if (%laneid < 16)` (a branch around it);
               a shuffle's destination is first set to its source, so only the guard is new
    tid_guard  put the nth instruction matching `find` under `if (%tid.x < 64)`

`nth` counts from 0; a negative `nth` counts from the end. The expected line is `at` searched from the
edit: "edit" (the edited or guarded instruction itself), or ("next", regex) / ("prev", regex), the first
line after / before the edit that matches.

Triton-level twins (`Twin(triton=case)`, kernels/bugs_triton.py) are kernels whose defect is written in
Triton itself, through `tl.inline_asm_elementwise`; their expected line is the first PTX line matching
`at`. A twin takes one mutation, so the guard's `%bug_*` registers and `$BUG_skip` label are unique.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import suite

AT = str | tuple[str, str]


@dataclass(frozen=True)
class Mutation:
    kind: str  # drop | sub | lane_guard | tid_guard
    find: str
    nth: int = 0
    old: str = ""
    new: str = ""


@dataclass(frozen=True)
class Twin:
    """A bug twin: `case` on `arch` with `mutation` applied (or `triton`, a Triton-level bug case)."""

    slug: str
    case: str
    arch: str
    check: str
    why: str
    mutation: Mutation | None = None
    at: AT = "edit"
    triton: suite.Case | None = None

    @property
    def file_stem(self) -> str:
        return f"{self.case}.{self.slug}"


_INSTR = re.compile(r"^\s+(\{[^}]*)?(@!?%\w+\s+)?[a-z]")  # an instruction, maybe in an inline-asm `{ ... }`


def _nth_line(lines: list[str], find: str, nth: int) -> int:
    hits = [i for i, ln in enumerate(lines) if re.search(find, ln)]
    if not hits or not -len(hits) <= nth < len(hits):
        raise ValueError(f"mutation: {len(hits)} lines match {find!r}, wanted index {nth}")
    return hits[nth]


def _guard(lines: list[str], i: int, kind: str) -> tuple[list[str], int]:
    """Put instruction i under a lane (or thread) guard; returns the new lines and the instruction's index."""
    line = lines[i]
    indent = re.match(r"\s*", line).group(0)
    src = "%laneid" if kind == "lane_guard" else "%tid.x"
    bound = 16 if kind == "lane_guard" else 64
    pre = [
        f"{indent}.reg .b32 \t%bug_sel;",
        f"{indent}.reg .pred \t%bug_p;",
        f"{indent}mov.u32 \t%bug_sel, {src};",
        f"{indent}setp.lt.u32 \t%bug_p, %bug_sel, {bound};",
    ]
    shfl = re.match(r"\s*shfl\.sync\.\w+\.b32\s+(%\w+),\s*(%\w+),", line)
    if shfl:  # keep the destination defined on the lanes that skip the shuffle
        pre.append(f"{indent}mov.b32 \t{shfl.group(1)}, {shfl.group(2)};")
    pre.append(f"{indent}@!%bug_p bra \t$BUG_skip;")
    new = lines[:i] + pre + [line, "$BUG_skip:"] + lines[i + 1 :]
    return new, i + len(pre)


def mutate(ptx: str, m: Mutation) -> tuple[str, int]:
    """Apply `m`; returns the new text and the 0-based index of the edit (the line after a dropped one)."""
    lines = ptx.split("\n")
    i = _nth_line(lines, m.find, m.nth)
    if m.kind == "drop":
        del lines[i]
    elif m.kind == "sub":
        new = re.sub(m.old, m.new, lines[i], count=1)
        if new == lines[i]:
            raise ValueError(f"mutation: {m.old!r} not in {lines[i]!r}")
        lines[i] = new
    elif m.kind in ("lane_guard", "tid_guard"):
        lines, i = _guard(lines, i, m.kind)
    else:
        raise ValueError(f"unknown mutation {m.kind}")
    return "\n".join(lines), i


def _locate(lines: list[str], start: int, at: AT) -> int:
    if at == "edit":
        return start
    way, pat = at
    rng = range(start, len(lines)) if way == "next" else range(start - 1, -1, -1)
    for j in rng:
        if re.search(pat, lines[j]) and _INSTR.match(lines[j]):
            return j
    raise ValueError(f"no line {way} of {start + 1} matches {pat!r}")


def build(twin: Twin, ptx_dir: Path) -> tuple[str, int]:
    """The twin's PTX text and its expected 1-based line."""
    if twin.triton is not None:
        text = suite.compile_case(twin.triton, twin.arch)
        return text, _locate(text.split("\n"), 0, ("next", twin.at[1])) + 1
    assert twin.mutation is not None
    clean = (ptx_dir / suite.ptx_name(twin.case, twin.arch)).read_text()
    text, i = mutate(clean, twin.mutation)
    return text, _locate(text.split("\n"), i, twin.at) + 1


_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(?:.*inlined_at\s+(\d+)\s+(\d+)\s+\d+)?")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')


def py_line(text: str, line: int) -> str | None:
    """The kernel source line (`kernels/x.py:N`) of PTX line `line`, from the nearest `.loc` before it
    (its `inlined_at` when the `.loc` is in Triton's own library)."""
    lines = text.split("\n")
    files = {m.group(1): m.group(2) for ln in lines if (m := _FILE.match(ln))}
    for j in range(line - 1, -1, -1):
        m = _LOC.match(lines[j])
        if not m:
            continue
        f, n = m.group(1), m.group(2)
        if "site-packages" in files.get(f, "") and m.group(3):
            f, n = m.group(3), m.group(4)
        path = files.get(f, "")
        return f"{Path(path).parent.name}/{Path(path).name}:{n}" if "kernels" in path else None
    return None


def manifest_entry(twin: Twin, text: str, line: int) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "kernel": twin.case,
        "arch": twin.arch,
        "check": twin.check,
        "line": line,
        "instruction": text.split("\n")[line - 1].strip(),
        "py": py_line(text, line),
        "why": twin.why,
    }
    if twin.mutation is not None:
        m = twin.mutation
        entry["mutation"] = {k: v for k, v in vars(m).items() if v not in ("", 0) or k == "nth"}
    else:
        entry["mutation"] = "triton-level (tl.inline_asm_elementwise)"
    return entry


def twins() -> list[Twin]:
    """Every twin (a function: kernels/bugs_triton.py imports this module)."""
    from kernels import bugs_triton

    shfl = r"shfl\.sync\.bfly\.b32"
    return [
        Twin(
            "no-bar-partials",
            "row_sum",
            "sm_80",
            "shared-race",
            "the bar.sync between the per-warp partial stores and the cross-warp read is gone",
            Mutation("drop", r"^\s*bar\.sync\s+0;", 0),
            ("next", r"ld\.shared"),
        ),
        Twin(
            "no-bar-reuse",
            "softmax_row",
            "sm_90a",
            "shared-race",
            "the bar.sync that ends the max reduction's reads of the slots before the sum reuses them is gone",
            Mutation("drop", r"^\s*bar\.sync\s+0;", 1),
            ("next", r"st\.shared"),
        ),
        Twin(
            "shfl-lane-guard",
            "layernorm_fwd",
            "sm_100a",
            "warp-sync-divergence",
            "a full-mask butterfly shuffle runs only on lanes 0-15",
            Mutation("lane_guard", shfl, 2),
        ),
        Twin(
            "shfl-lane-guard",
            "cross_entropy_fwd",
            "sm_80",
            "warp-sync-divergence",
            "the first shuffle of the max reduction runs only on lanes 0-15",
            Mutation("lane_guard", shfl, 0),
        ),
        Twin(
            "shfl-partial-mask",
            "rmsnorm_fwd",
            "sm_80",
            "warp-sync-divergence",
            "a shuffle names lanes 0-15 in its member mask but every lane executes it (undefined behaviour)",
            Mutation("sub", shfl, 0, r"-1;", "0x0000ffff;"),
        ),
        Twin(
            "bar-tid-guard",
            "layernorm_bwd_dwdb",
            "sm_80",
            "barrier-divergence",
            "the bar.sync before the column reduction's shared reads runs only on threads 0-63",
            Mutation("tid_guard", r"^\s*bar\.sync\s+0;", 0),
        ),
        Twin(
            "no-cp-async-wait",
            "matmul",
            "sm_80",
            "async-unwaited",
            "the cp.async.wait_group before the first (peeled) K step is gone: ldmatrix reads stage 0 in flight",
            Mutation("drop", r"cp\.async\.wait_group", 0),
            ("next", r"ldmatrix|ld\.shared"),
        ),
        Twin(
            "cp-async-wait-short",
            "matmul_s4",
            "sm_80",
            "async-unwaited",
            # the prologue's wait: the loop head's is redundant (the end of each K step already waits with
            # wait_group 4 before its next-stage reads), so shortening that one is no bug
            "the prologue waits with wait_group 5 instead of 4: the first (peeled) K step reads stage 0 while "
            "its copies may still be in flight",
            Mutation("sub", r"cp\.async\.wait_group\s+[0-9]+;", 0, r"wait_group\s+4", "wait_group 5"),
            ("next", r"ldmatrix\.sync\.aligned\.m8n8\.x4\.trans"),  # wait_group 5 retires A0: B0 is in flight
        ),
        Twin(
            "parity-const",
            "tma_matmul",
            "sm_90a",
            "mbarrier-phase",
            "the K loop waits on parity 0 in every iteration instead of the stage's phase bit",
            Mutation("sub", r"mbarrier\.try_wait\.parity", 0, r",\s*%r\d+;", ", 0;"),
        ),
        Twin(
            "parity-const",
            "tma_matmul_host",
            "sm_100a",
            "mbarrier-phase",
            "the K loop's TMA wait uses parity 0 in every iteration instead of the stage's phase bit",
            Mutation("sub", r"mbarrier\.try_wait\.parity", 2, r",\s*%r\d+;", ", 0;"),
        ),
        Twin(
            "no-proxy-fence",
            "tma_matmul",
            "sm_90a",
            "async-proxy-fence",
            "the fence.proxy.async between the epilogue's shared stores and the TMA store is gone",
            Mutation("drop", r"^\s*fence\.proxy\.async\.shared::cta;", -1),
            ("next", r"cp\.async\.bulk\.tensor\.\dd\.global\.shared"),
        ),
        Twin(
            "no-wgmma-wait",
            "tma_matmul",
            "sm_90a",
            "async-unwaited",
            "the wgmma.wait_group 0 after the K loop is gone: the epilogue reads accumulators still being written",
            Mutation("drop", r"wgmma\.wait_group\.sync\.aligned\s+0;", -1),
            ("next", r"cvt|mov|st\.shared"),
        ),
        Twin(
            "no-wgmma-wait",
            "attn_fwd",
            "sm_90a",
            "async-unwaited",
            "the wgmma.wait_group after the QK^T product is gone: the softmax reads S before the MMA completes",
            Mutation("drop", r"wgmma\.wait_group\.sync\.aligned\s+0;", 0),
            ("next", r"mul\.f32|max\.f32|fma"),
        ),
        Twin(
            "tx-bytes",
            "tma_matmul",
            "sm_100a",
            "mbarrier-tx-mismatch",
            "expect_tx announces half the bytes the two TMA loads of a stage deliver",
            Mutation("sub", r"mbarrier\.arrive\.expect_tx", 0, r"(\d+);\s*$", "16384;"),
        ),
        Twin(
            "no-mbar-init",
            "tma_matmul",
            "sm_90a",
            "mbarrier-uninitialized",
            "the mbarrier.init of pipeline stage 0 is gone: its first expect_tx arrives on an uninitialised barrier",
            Mutation("drop", r"mbarrier\.init\.shared", 0),
            ("next", r"mbarrier\.arrive\.expect_tx"),
        ),
        Twin(
            "no-proxy-fence",
            "tma_matmul",
            "sm_100a",
            "async-proxy-fence",
            "the fence.proxy.async between the epilogue's st.shared and the TMA store is gone",
            Mutation("drop", r"^\s*fence\.proxy\.async\.shared::cta;", -1),
            ("next", r"cp\.async\.bulk\.tensor\.\dd\.global\.shared"),
        ),
        Twin(
            "init-count",
            "tma_matmul_host",
            "sm_90a",
            "mbarrier-arrival-mismatch",
            "a stage barrier is initialised for 2 arrivals but one expect_tx arrival completes each phase",
            Mutation("sub", r"mbarrier\.init\.shared::cta\.b64", 0, r"\], 1;", "], 2;"),
        ),
        Twin(
            "tmem-st-before-wait",
            "attn_fwd",
            "sm_100a",
            "async-overwrite",
            "the tcgen05.wait::ld after the accumulator's load is gone: the rescaled accumulator is stored back "
            "(tcgen05.st) over the columns the load may still be reading",
            Mutation("drop", r"tcgen05\.wait::ld", 1),
            ("next", r"tcgen05\.st\."),
        ),
        *bugs_triton.TWINS,
    ]
