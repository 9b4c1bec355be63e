"""The PTX instruction-facts table: destinations, uses, traits, and target gates cross-checked against
the ptxas results in /work/shared/ptx-reference/targets-table.txt."""

from __future__ import annotations

import os
import re

import pytest

from irc import target
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxisa import facts, forms, gates
from irc.ptxisa.model import Addr, Imm, Instr, Pair, Reg, Sink, Sym

TABLE = "/work/shared/ptx-reference/targets-table.txt"
FORMS = "/work/shared/ptx-reference/forms"

R = Reg


def one(text: str) -> Instr:
    src = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" + text + "\n}\n"
    (i,) = parse_ptx(src).functions[0].instructions()
    return i


@pytest.mark.parametrize(
    "text, dests",
    [
        ("st.global.u32 [%rd1], %r1;", 0),
        ("red.global.add.u32 [%rd1], 1;", 0),
        ("bar.sync 0;", 0),
        ("cp.async.ca.shared.global [%r1], [%rd1], 16;", 0),
        ("mbarrier.init.shared::cta.b64 [%r1], 1;", 0),
        ("tcgen05.mma.cta_group::1.kind::f16 [%r5], %rd10, %rd11, %r6, %p0;", 0),
        ("@%p1 bra L;", 0),
        ("shfl.sync.down.b32 %r3|%p1, %r0, 1, 0x1f, 0xffffffff;", 2),
        ("shfl.sync.down.b32 %r3, %r0, 1, 0x1f, 0xffffffff;", 1),
        ("mbarrier.arrive.release.cta.shared::cta.b64 _, [%r1];", 0),
        ("mbarrier.arrive.shared::cta.b64 %rd5, [%r1];", 1),
        ("ld.global.u32 %r1, [%rd1];", 1),
        ("add.s32 %r1, %r2, %r3;", 1),
        ("setp.lt.s32 %p1|%p2, %r1, %r2;", 2),
        ("elect.sync _|%p1, 0xffffffff;", 1),
        ("ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];", 4),
        ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r5];", 1),
        ("call.uni (retval0), f, (param0);", 0),
        ("atom.global.add.u32 %r1, [%rd1], 1;", 1),
    ],
)
def test_dest_count(text, dests):
    assert facts.dest_count(one(text)) == dests


def test_def_and_use_regs():
    i = one("@!%p3 st.global.u32 [%rd1+4], %r2;")
    assert facts.def_regs(i) == [] and facts.use_regs(i) == [R("%p3"), R("%rd1"), R("%r2")]
    i = one("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd6, {%r0, %r1}], [%r5];")
    assert facts.use_regs(i) == [R("%rd6"), R("%r0"), R("%r1"), R("%r5")]
    i = one("shfl.sync.down.b32 %r3|%p1, %r0, 1, 0x1f, 0xffffffff;")
    assert facts.def_regs(i) == [R("%r3"), R("%p1")] and facts.use_regs(i) == [R("%r0")]
    i = one("selp.b32 %r1, %r2, %r3, !%p1;")
    assert facts.use_regs(i) == [R("%r2"), R("%r3"), R("%p1")]


@pytest.mark.parametrize(
    "text, trait, value",
    [
        ("bar.sync 0;", "barrier", True),
        ("barrier.sync.aligned 0;", "barrier", True),
        ("barrier.cta.sync 0;", "barrier", True),
        ("bar.red.popc.u32 %r1, 0, %p1;", "barrier", True),
        ("bar.sync 1, 64;", "barrier", False),
        ("bar.sync 1, 64;", "warp_granular_barrier", True),
        ("bar.red.popc.u32 %r1, 1, 64, %p1;", "warp_granular_barrier", True),
        ("barrier.cluster.arrive;", "cluster_barrier", True),
        ("shfl.sync.bfly.b32 %r3, %r0, 1, 0x1f, 0xffffffff;", "warp_collective", True),
        ("vote.sync.ballot.b32 %r3, %p0, 0xffffffff;", "warp_collective", True),
        ("bar.warp.sync 0xffffffff;", "warp_collective", True),
        ("activemask.b32 %r3;", "warp_collective", False),
        ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];", "warp_collective", True),
        ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r5];", "warp_collective", True),
        ("tcgen05.mma.cta_group::1.kind::f16 [%r5], %rd10, %rd11, %r6, %p0;", "warp_collective", False),
        ("ret;", "terminator", True),
        ("@%p1 bra L;", "terminator", True),
        ("trap;", "terminator", True),
        ("add.s32 %r1, %r2, %r3;", "pure", True),
        ("ld.global.u32 %r1, [%rd1];", "pure", False),
        ("cp.async.bulk.commit_group;", "is_async", True),
        ("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r6], %r0, [%r9];", "is_async", True),
    ],
)
def test_traits(text, trait, value):
    assert getattr(facts.info(one(text)), trait) is value


def test_memory_effects_and_spaces():
    assert (
        facts.info(one("ld.global.nc.f32 %f1, [%rd1];")).mem,
        facts.info(one("ld.global.nc.f32 %f1, [%rd1];")).spaces,
    ) == (
        "read",
        ("global",),
    )
    st = facts.info(one("st.shared::cta.u32 [%r1], %r2;"))
    assert (st.mem, st.spaces) == ("write", ("shared::cta",))
    assert facts.info(one("ld.u32 %r1, [%rd1];")).spaces == ("generic",)
    assert facts.info(one("atom.shared.add.u32 %r1, [%r2], 1;")).mem == "readwrite"
    assert facts.info(one("add.s32 %r1, %r2, 1;")).mem == "none"


def test_unknown_opcode_default():
    i = Instr("frobnicate.b32", [Reg("%r1"), Reg("%r2")])
    inf = facts.info(i)
    assert (inf.known, inf.mem, inf.pure) == (False, "readwrite", False)
    assert facts.def_regs(i) == [Reg("%r1")]
    assert facts.dest_operands(Instr("frobnicate", [Addr(Reg("%rd1")), Reg("%r1")])) == 0
    assert facts.dest_count(Instr("frobnicate", [Sink(), Imm(1, "1")])) == 0
    assert facts.dest_count(Instr("frobnicate", [Pair(Reg("%r1"), Reg("%p1")), Sym("x")])) == 2


def test_info_is_cached_per_opcode():
    a = facts.opcode_info("add.s32")
    assert facts.opcode_info("add.s32") is a


def test_longest_prefix_wins():
    assert facts.opcode_info("mbarrier.arrive.expect_tx.shared::cta.b64").key == "mbarrier.arrive.expect_tx"
    assert facts.opcode_info("mbarrier.arrive.shared::cta.b64").key == "mbarrier.arrive"
    assert facts.opcode_info("tcgen05.fence::before_thread_sync").key == "tcgen05.fence"
    assert facts.opcode_info("cp.async.bulk.tensor.2d.shared::cluster.global").key == "cp.async.bulk.tensor"
    assert facts.opcode_info("st.async.u32").key == "st.async"
    assert facts.opcode_info("stmatrix.sync.aligned.m8n8.x4.shared.b16").key == "stmatrix"


# ------------------------------------------------------------------ gates


def _table_rows() -> dict[str, tuple[str | None, tuple[str, ...]]]:
    rows = {}
    with open(TABLE) as fh:
        for line in fh:
            parts = [p.strip() for p in line.split("|")]
            if len(parts) < 3:
                continue
            name, ver, targets = parts[:3]
            if targets.startswith("all"):
                tl = tuple(target.ARCHES)
            elif targets == "NONE":
                tl = ()
            else:
                tl = tuple(t for t in targets.split(",") if t in target.ARCHES)
            rows[name] = (None if ver in ("(target min)", "-") else ver, tl)
    return rows


@pytest.mark.skipif(not os.path.exists(TABLE), reason="targets-table.txt not present")
def test_gates_match_targets_table():
    rows = _table_rows()
    assert len(rows) > 100
    assert set(rows) == set(gates.GATES)
    for name, (ver, targets) in rows.items():
        g = gates.gate(name)
        assert (g.min_version, g.targets) == (ver, targets), name


@pytest.mark.skipif(not os.path.isdir(FORMS), reason="reference forms not present")
def test_gate_versions_match_form_headers():
    """Each form's header lists target@min-version; `Gate.version_for` must agree for every arch."""
    checked = 0
    for name in gates.GATES:
        path = os.path.join(FORMS, name + ".ptx")
        if not os.path.exists(path):
            continue
        with open(path) as fh:
            head = fh.read(2000)
        m = re.search(r"accepted \(target@min \.version\): (.*)", head)
        accepted = dict(x.split("@") for x in m.group(1).split()) if m else {}
        for arch in target.ARCHES:
            assert gates.gate(name).version_for(arch) == accepted.get(arch), (name, arch)
        checked += 1
    assert checked > 50


def test_gate_for_instruction_families():
    g = gates.gate_for(Instr("tcgen05.mma.cta_group::1.kind::f16"))
    assert g is not None and g.targets == ("sm_100a", "sm_103a")
    g = gates.gate_for(Instr("setmaxnreg.inc.sync.aligned.u32", [Imm(240, "240")]))
    assert g is not None and not g.accepts("sm_90", "8.0") and g.accepts("sm_90a", "8.0")
    assert gates.gate_for(Instr("add.s32")) is None
    assert gates.gate("elect_sync").accepts("sm_90", "8.0") and not gates.gate("elect_sync").accepts(
        "sm_90", "7.8"
    )


# ------------------------------------------------------------------ emitted forms (the `.version` source)


def _form_kernel(version: str, target: str, sample: str) -> str:
    return (
        f".version {version}\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n"
        ".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n" + sample + "\nret;\n}\n"
    )


def test_emitted_forms_match_their_own_samples():
    assert len({f.name for f in forms.EMITTED_FORMS}) == len(forms.EMITTED_FORMS)
    for f in forms.EMITTED_FORMS:
        ops = [ln.split()[0].rstrip(";") for ln in f.sample.splitlines()]
        assert any(forms.emitted_form(op) is f for op in ops), f.name
        v = tuple(int(x) for x in f.gate.min_version.split("."))
        assert all(forms.min_version_for(Instr(op)) == v for op in ops if forms.emitted_form(op) is f)
        assert f.gate.min_version is not None and f.lowest_target in target.ARCHES


@pytest.mark.parametrize(
    "opcode, version",
    [
        ("mbarrier.test_wait.parity.shared.b64", (7, 1)),  # reference `.shared::cta` form needs 7.8
        ("mbarrier.test_wait.parity.shared::cta.b64", (0, 0)),  # not emitted: no row
        ("mbarrier.try_wait.parity.shared.b64", (7, 8)),
        ("mbarrier.arrive.shared.b64", (7, 0)),
        ("mbarrier.arrive.expect_tx.shared.b64", (8, 0)),
        ("mbarrier.expect_tx.relaxed.cta.shared.b64", (8, 0)),
        ("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes", (8, 0)),
        ("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", (8, 0)),
        ("cp.async.bulk.wait_group.read", (8, 0)),
        ("cp.async.ca.shared.global", (0, 0)),
        ("cvta.param.u64", (7, 7)),
        ("cvta.to.global.u64", (0, 0)),
        ("elect.sync", (8, 0)),
        ("fence.proxy.async.shared::cta", (8, 0)),
        ("fence.acq_rel.cta", (0, 0)),
        ("redux.sync.add.u32", (7, 0)),
        ("redux.sync.xor.b32", (7, 0)),
        ("tcgen05.ld.sync.aligned.32x32b.x8.b32", (8, 6)),
        ("tcgen05.fence::after_thread_sync", (8, 6)),
        ("add.s32", (0, 0)),
    ],
)
def test_min_version_for_is_modifier_aware(opcode, version):
    assert forms.min_version_for(Instr(opcode)) == version


@pytest.mark.parametrize("form", forms.EMITTED_FORMS, ids=lambda f: f.name)
def test_emitted_form_min_version_measured_with_ptxas(form):
    """The recorded minimum is accepted on the form's lowest target and the previous PTX version is not."""
    from irc.ptxas import find_ptxas, run_ptxas
    from irc.target import previous_ptx_version

    if find_ptxas() is None:
        pytest.skip("ptxas not found")
    target, v = form.lowest_target, tuple(int(x) for x in form.gate.min_version.split("."))
    ok = run_ptxas(_form_kernel(f"{v[0]}.{v[1]}", target, form.sample), target)
    assert ok.ok, (form.name, ok.stderr)
    prev = previous_ptx_version(v)
    assert prev is not None
    assert not run_ptxas(_form_kernel(f"{prev[0]}.{prev[1]}", target, form.sample), target).ok, form.name
