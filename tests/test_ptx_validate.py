"""The PTX validator (irc/frontend/ptx/validate.py): what ptxas rejects is reported with file:line:col and
`irc check` exits 2; what ptxas accepts passes. Every case is also assembled by ptxas (when installed), so
the expectation is ptxas's own verdict, not ours."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from irc.compiler import check_ptx
from irc.frontend.ptx.parser import parse_ptx
from irc.frontend.ptx.validate import rejects, validate
from irc.ptxas import find_ptxas, run_ptxas
from irc.target import PTX_TARGETS, format_version, ptx_target

PTXAS = find_ptxas()
ROOT = Path(__file__).resolve().parent.parent


def kernel(body: str, target: str = "sm_80", version: str = "8.0", head: str | None = None) -> str:
    if head is None:
        head = f".version {version}\n.target {target}\n.address_size 64\n"
    return (
        f"{head}\n.visible .entry k(.param .u64 p)\n{{\n  .reg .b32 %r<8>;\n  .reg .f32 %f<4>;\n"
        f"  .reg .b64 %rd<4>;\n  .reg .pred %p<4>;\n  ld.param.u64 %rd1, [p];\n{body}\n  ret;\n}}\n"
    )


def findings(text: str) -> list:
    return validate(parse_ptx(text, "k.ptx"), text)


def ptxas_ok(text: str, target: str) -> bool | None:
    if PTXAS is None:
        return None
    from fuzz.ptxval import ptxas_arch

    return run_ptxas(text, ptxas_arch(text)).ok


# (name, PTX, check, message fragment, line) -- each is rejected by ptxas
BAD = [
    ("unknown target", kernel("", head=".version 8.0\n.target sm_999\n.address_size 64\n"), "invalid-ptx",
     "unknown target `sm_999`", 2),
    ("no .version", kernel("", head=".target sm_80\n.address_size 64\n"), "invalid-ptx",
     "must begin with `.version`", 1),
    ("version after target", kernel("", head=".target sm_80\n.version 8.0\n.address_size 64\n"), "invalid-ptx",
     "must begin with `.version`", 1),
    ("version too low for target", kernel("", "sm_90", "7.0"), "invalid-ptx", "does not support `.target sm_90`", 1),
    ("unknown version", kernel("", "sm_80", "7.9"), "invalid-ptx", "unknown PTX ISA version `7.9`", 1),
    ("address size 32", kernel("", head=".version 8.0\n.target sm_80\n.address_size 32\n"), "invalid-ptx",
     "32-bit compilation", 3),
    ("unknown modifier", kernel("  atom.shared.frobnicate.u32 %r1, [%r2], %r3;"), "invalid-ptx",
     "unknown modifier `.frobnicate` for `atom`", 12),
    ("doubled space", kernel("  ld.global.global.u32 %r1, [%rd1];"), "invalid-ptx", "`.global` given twice", 12),
    ("cvt needs an integer rounding", kernel("  cvt.rn.s32.f32 %r1, %f1;"), "invalid-ptx", "cvt", 12),
    ("mul needs a mode", kernel("  mul.s32 %r1, %r2, %r3;"), "invalid-ptx", "lacks", 12),
    ("undeclared register", kernel("  add.s32 %r1, %r999, 1;"), "invalid-ptx", "undeclared register `%r999`", 12),
    ("one past the range", kernel("  add.s32 %r1, %r8, 1;"), "invalid-ptx", "undeclared register `%r8`", 12),
    ("undeclared label", kernel("  bra.uni $L_nowhere;"), "invalid-ptx", "undeclared label `$L_nowhere`", 12),
    ("register type", kernel("  add.s32 %f1, %r2, %r3;"), "invalid-ptx", "`%f1` is a .f32 register", 12),
    ("integer immediate for a float", kernel("  add.f32 %f1, %f2, 1;"), "invalid-ptx", "does not fit type .f32", 12),
    ("operand count", kernel("  add.s32 %r1, %r2;"), "invalid-ptx", "expected 3 operands, found 2", 12),
    ("duplicate registers", kernel("  .reg .b32 %r<2>;"), "invalid-ptx", "duplicate definition", 12),
    ("duplicate label", kernel("L1:\nL1:"), "invalid-ptx", "duplicate label `L1`", 13),
    ("special register in add", kernel("  add.u32 %r1, %tid.x, 1;"), "invalid-ptx", "only of mov and cvt", 12),
    ("32-bit global address", kernel("  ld.global.u32 %r1, [%r2];"), "invalid-ptx", "64-bit address", 12),
    ("unknown opcode", kernel("  frobnicate.b32 %r1, %r2;"), "invalid-ptx", "unknown instruction", 12),
    ("version for a form", kernel("  mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r1], 1;", "sm_90", "7.8"),
     "invalid-ptx", "requires PTX ISA 8.0", 12),
    ("wgmma on sm_100a", kernel("  wgmma.fence.sync.aligned;", "sm_100a", "8.6"), "unsupported-target",
     "not available on `.target sm_100a`", 12),
    ("tcgen05 on sm_90a", kernel("  tcgen05.fence::before_thread_sync;", "sm_90a", "8.6"), "unsupported-target",
     "sm_100a-family", 12),
    ("cp.async on sm_75", kernel("  cp.async.ca.shared.global [%r1], [%rd1], 4;", "sm_75", "7.0"),
     "unsupported-target", "needs sm_80", 12),
    ("pragma newer than the module", kernel('  .pragma "used_bytes_mask 0xfff";', "sm_80", "8.2"), "invalid-ptx",
     "requires PTX ISA .version 8.3", 12),
    ("mixed-precision add before sm_100", kernel("  .reg .b16 %h<2>;\n  add.rn.f32.f16 %f1, %h1, %f2;", "sm_90", "8.6"),
     "unsupported-target", "sm_100", 13),
    ("vector red to shared", kernel("  red.shared.add.v2.f32 [%r1], {%f1, %f2};", "sm_90", "8.1"), "invalid-ptx",
     "`.v2` not allowed here", 12),
]  # fmt: skip

# near misses ptxas accepts: the validator must stay silent
GOOD = [
    ("modifiers in another order", kernel("  atom.add.shared.u32 %r1, [%r2], %r3;")),
    ("an older target", kernel("", "sm_75", "6.3")),
    ("a family target", kernel("", "sm_100f", "8.8")),
    ("a virtual target", kernel("", "compute_90", "7.8")),
    ("no .address_size", kernel("", head=".version 8.0\n.target sm_80\n")),
    ("last register of the range", kernel("  add.s32 %r1, %r7, 1;")),
    ("b32 register for an f32 instruction", kernel("  add.f32 %r1, %r2, 0f3F800000;")),
    ("wide register for ld", kernel("  ld.global.u8 %r1, [%rd1];")),
    ("doubled .sync (ptxas takes it)", kernel("  bar.sync.sync 0;")),
    ("shared address in 32 bits", kernel("  ld.shared.u32 %r1, [%r2];")),
    ("special register in mov", kernel("  mov.u32 %r1, %tid.x;")),
    ("label in an inner scope", kernel("L1:\n  {\n  L1:\n  }")),
    ("shadowing register in an inner scope", kernel("  {\n  .reg .f32 %r<2>;\n  add.f32 %r1, %r0, 0f3F800000;\n  }")),
    ("wgmma on sm_90a", kernel("  wgmma.fence.sync.aligned;", "sm_90a", "8.0")),
    ("WARP_SZ", kernel("  mov.u32 %r1, WARP_SZ;")),
    ("an unmodeled instruction", kernel("  tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [tx, {%f0, %f1}];").replace(
        ".visible", ".global .texref tx;\n.visible")),
    ("pragma at its version", kernel('  .pragma "used_bytes_mask 0xfff";', "sm_80", "8.3")),
    ("mixed-precision add and fma", kernel("  .reg .b16 %h<2>;\n  add.rn.f32.f16 %f1, %h1, %f2;\n"
                                           "  fma.rn.sat.f32.bf16 %f1, %h1, %h1, %f2;", "sm_100a", "8.6")),
    ("vector red", kernel("  red.global.gpu.relaxed.add.v4.f32 [%rd1], {%f0, %f1, %f2, %f3};\n"
                          "  red.global.add.noftz.v8.bf16 [%rd1], {%h0, %h1, %h0, %h1, %h0, %h1, %h0, %h1};".replace(
                              "  red.global.add.noftz", "  .reg .b16 %h<2>;\n  red.global.add.noftz"), "sm_90", "8.1")),
]  # fmt: skip


@pytest.mark.parametrize("name,text,check,fragment,line", BAD, ids=[b[0] for b in BAD])
def test_rejects_what_ptxas_rejects(name: str, text: str, check: str, fragment: str, line: int) -> None:
    ds = findings(text)
    hit = [d for d in ds if d.check == check and fragment in d.message]
    assert hit, [f"{d.check}: {d.message}" for d in ds]
    d = hit[0]
    assert d.span is not None and d.span.file == "k.ptx" and d.span.line == line and d.span.col >= 1
    assert rejects(d)
    target = ptx_target(parse_ptx(text).target)
    assert ptxas_ok(text, target.name if target else "sm_80") in (False, None)


@pytest.mark.parametrize("name,text", GOOD, ids=[g[0] for g in GOOD])
def test_accepts_what_ptxas_accepts(name: str, text: str) -> None:
    assert findings(text) == []
    target = parse_ptx(text).target
    assert ptxas_ok(text, target) in (True, None)


def test_undeclared_register_is_not_reported_as_uninitialized() -> None:
    ds = check_ptx(kernel("  add.s32 %r1, %r999, 1;\n  st.global.u32 [%rd1], %r1;"), "k.ptx")
    assert [d.check for d in ds] == ["invalid-ptx"] and "%r999" in ds[0].message


def test_caret_points_at_the_culprit() -> None:
    text = kernel("  atom.shared.frobnicate.u32 %r1, [%r2], %r3;")
    (d,) = findings(text)
    line = text.splitlines()[d.span.line - 1]
    assert line[d.span.col - 1 : d.span.end_col - 1] == ".frobnicate"


def test_every_ptx_target_has_a_min_version() -> None:
    assert ptx_target("sm_999") is None and ptx_target("sm_80a") is None
    assert ptx_target("sm_90a").min_version == (8, 0) and ptx_target("compute_100f").min_version == (8, 8)
    assert len(PTX_TARGETS) > 60


@pytest.mark.skipif(PTXAS is None, reason="ptxas not found")
@pytest.mark.parametrize("target", ["sm_52", "sm_75", "sm_87", "sm_100f", "sm_120a", "sm_121a"])
def test_target_min_version_measured(target: str) -> None:
    """The recorded minimum is accepted and the version below it rejected (a sample of PTX_TARGETS)."""
    from irc.target import KNOWN_PTX_VERSIONS

    v = PTX_TARGETS[target]
    below = [x for x in KNOWN_PTX_VERSIONS if x < v][-1]
    text = f".version {{}}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{{{\n  ret;\n}}}}\n"
    arch = target if int(target[3:].rstrip("af")) >= 75 else "sm_75"
    assert run_ptxas(text.format(format_version(v)), arch).ok
    assert not run_ptxas(text.format(format_version(below)), arch).ok
    assert findings(text.format(format_version(v))) == []
    assert findings(text.format(format_version(below)))


#: the five inputs of issue 30 that passed as "no findings" (or as another finding)
ISSUE_30 = [
    ("sm_999", kernel("", head=".version 8.0\n.target sm_999\n.address_size 64\n"), "invalid-ptx", "sm_999"),
    ("frobnicate", kernel("  atom.shared.frobnicate.u32 %r1, [%r2], %r3;"), "invalid-ptx", ".frobnicate"),
    ("no .version", kernel("", head=".target sm_80\n.address_size 64\n"), "invalid-ptx", ".version"),
    ("undeclared %r999", kernel("  add.s32 %r1, %r999, 1;"), "invalid-ptx", "undeclared register `%r999`"),
    ("wgmma on sm_100a", kernel("  wgmma.fence.sync.aligned;", "sm_100a", "8.6"), "unsupported-target", "wgmma"),
]  # fmt: skip


@pytest.mark.parametrize("name,text,check,fragment", ISSUE_30, ids=[c[0] for c in ISSUE_30])
def test_issue_30_inputs_exit_2_with_a_located_diagnostic(
    tmp_path: Path, name: str, text: str, check: str, fragment: str
) -> None:
    (tmp_path / "k.ptx").write_text(text)
    r = subprocess.run(
        [sys.executable, "-m", "irc.cli", "check", "--no-config", "k.ptx", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    import json

    found = json.loads(r.stdout)
    found = found["diagnostics"] if isinstance(found, dict) else found
    hit = [d for d in found if d["check"] == check and fragment in d["message"]]
    assert hit and hit[0]["line"] >= 1 and hit[0]["column"] >= 1, found


def test_cli_exit_status_2_for_invalid_ptx(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ptx"
    bad.write_text(kernel("  atom.shared.frobnicate.u32 %r1, [%r2], %r3;"))
    good = tmp_path / "good.ptx"
    good.write_text(kernel("  mov.u32 %r2, 0;\n  mov.u32 %r3, 1;\n  atom.shared.add.u32 %r1, [%r2], %r3;"))
    run = [sys.executable, "-m", "irc.cli", "check", "--no-config"]
    r = subprocess.run([*run, str(bad)], capture_output=True, text=True, cwd=tmp_path)
    assert (
        r.returncode == 2
        and "error[invalid-ptx]" in r.stdout + r.stderr
        and "bad.ptx:12:14" in r.stdout + r.stderr
    )
    r = subprocess.run([*run, str(good)], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_invalid_ptx_cannot_be_disabled(tmp_path: Path) -> None:
    (tmp_path / "irc.toml").write_text('[severity]\ninvalid-ptx = "off"\n')
    (tmp_path / "k.ptx").write_text(kernel(""))
    r = subprocess.run(
        [sys.executable, "-m", "irc.cli", "check", "k.ptx"], capture_output=True, text=True, cwd=tmp_path
    )
    assert r.returncode == 2 and "invalid-ptx" in r.stderr


# ------------------------------------------------------------------ the reference forms (targets-table.txt)

ALL10 = "sm_80 sm_86 sm_89 sm_90 sm_90a sm_100 sm_100a sm_100f sm_103a sm_120a".split()


def _reference_dir() -> Path | None:
    for up in ROOT.parents:
        p = up / "shared" / "ptx-reference"
        if (p / "targets-table.txt").is_file():
            return p
    return None


def _reference_cases() -> list[tuple[str, str, str, bool]]:
    """(form, target, PTX text at that target, ptxas accepted) for every form with a sample, every target
    in targets-table.txt; rejections only where ptxas named the target as the reason."""
    import re

    ref = _reference_dir()
    if ref is None:
        return []
    out = []
    for line in (ref / "targets-table.txt").read_text().splitlines():
        name, ver, acc, errs = (p.strip() for p in line.split("|", 3))
        path = ref / "forms" / f"{name}.ptx"
        if not path.is_file():
            continue
        text = path.read_text()
        accepted = ALL10 if acc == "all 10" else [] if acc == "NONE" else acc.split(",")
        for t in ALL10:
            need = max(
                ptx_target(t).min_version, tuple(map(int, ver.split("."))) if ver[0].isdigit() else (0, 0)
            )
            v = format_version(need)
            body = re.sub(r"^\.version .*$", f".version {v}", text, count=1, flags=re.M)
            body = re.sub(r"^\.target .*$", f".target {t}", body, count=1, flags=re.M)
            if t in accepted:
                out.append((name, t, body, True))
            else:
                reason = [e for e in errs.split(" ; ") if t in e.split("]")[0]]
                if reason and re.search(
                    r"requires \.target|not supported on \.target|cannot be compiled", reason[0]
                ):
                    out.append((name, t, body, False))
    return out


REFERENCE = _reference_cases()


@pytest.mark.skipif(not REFERENCE, reason="shared/ptx-reference not present")
def test_reference_forms_agree_with_the_targets_table() -> None:
    """Every reference form of targets-table.txt (ptxas-measured): accepted on each target ptxas accepted
    it on; rejected where ptxas rejected it for the target."""
    wrong = []
    for name, target, text, ok in REFERENCE:
        got = not findings(text)
        if got != ok:
            wrong.append(
                f"{name} on {target}: ptxas {'accepts' if ok else 'rejects'}, irc {'accepts' if got else 'rejects'}"
            )
    assert not wrong, "\n".join(wrong)
