"""Data races: the emulator's race checker (`RaceError`, irc/emu/racecheck.py) and the static
`shared-race` check (irc/analysis/races.py), on the kernels of tests/data/races/ (each wrong kernel has a
fixed twin) and on small PTX kernels for the dynamic rules (global memory across blocks, atomics,
same-value writes, syncwarp, fences, named barriers)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irc.analysis import check_module
from irc.compiler import CompileOptions, check_kdsl, compile_kdsl
from irc.emu import RaceError, run_kernel
from irc.frontend.kdsl.lower import compile_to_ir
from irc.frontend.ptx.parser import parse_ptx

DATA = Path(__file__).parent / "data" / "races"


def _static(name: str):
    text = (DATA / name).read_text()
    mod = compile_to_ir(text, name, defines={}, arch="sm_80")
    return [d for d in check_module(mod, arch="sm_80") if d.check == "shared-race"]


def _ptx(name: str):
    res = compile_kdsl((DATA / name).read_text(), name, CompileOptions(check=False))
    return parse_ptx(res.ptx_text), res.module.kernels[0].name


# (file, line of the later access the finding points at, line of the other access, words in the message)
STATIC = [
    (
        "neighbour.kdsl",
        7,
        6,
        "thread (0, 0, 0) writes `tile[0]` at line 6 while thread (1, 0, 0) reads `tile[0]`",
    ),
    ("sgemm_one_barrier.kdsl", 14, 17, "in iteration k+1 of the loop at line 12"),
    ("tree_reduce.kdsl", 11, 11, "iteration"),
    ("warp_reduce.kdsl", 10, 9, "lanes of one warp"),
]


@pytest.mark.parametrize("name,line,other,words", STATIC, ids=[s[0] for s in STATIC])
def test_static_finds_the_classic_races(name, line, other, words):
    ds = _static(name)
    assert ds, f"{name}: no shared-race finding"
    d = next((d for d in ds if d.span.line == line), None)
    assert d is not None, [(x.span.line, x.message) for x in ds]
    assert words in d.message
    assert other in {lb.span.line for lb in d.labels} | {d.span.line}
    assert "with no barrier between them" in d.message


def test_static_sgemm_names_the_second_barrier():
    ds = _static("sgemm_one_barrier.kdsl")
    assert any("second `barrier()`" in (d.help or "") for d in ds)
    assert {d.span.line for d in ds} <= {13, 14}


@pytest.mark.parametrize("name", ["neighbour_ok.kdsl", "sgemm_ok.kdsl", "tree_reduce_ok.kdsl"])
def test_static_silent_on_fixed_kernels(name):
    assert _static(name) == []


def test_static_parameter_index_is_decided_by_the_solver_and_a_contract_removes_it():
    """`tile[(tid.x + k) % 64]` against `tile[tid.x]`: the evaluation cannot decide a parameter, the
    solver shows k = 1; `assume(k % 64 == 0)` is exactly the launches without a race (near miss:
    `assume(k % 32 == 0)` still admits k = 32)."""
    ds = _static("rotate.kdsl")
    assert len(ds) == 1 and ds[0].witness is not None and "k = " in ds[0].witness["text"]
    assert ds[0].witness["params"]["k"] % 64 != 0
    text = (DATA / "rotate.kdsl").read_text()
    for cond, clean in (("k % 64 == 0", True), ("k % 32 == 0", False)):
        src = text.replace("kernel rotate(", f"// irc: assume({cond})\nkernel rotate(")
        found = [d for d in check_kdsl(src, "rotate.kdsl") if d.check == "shared-race"]
        assert (found == []) == clean, cond
        if not clean:
            assert "assuming `k % 32 == 0`" in found[0].witness["text"]


# (file, launch, (source line of one access, source line of the other))
def _args(name: str, rng):
    if name.startswith("sgemm"):
        n = 32
        a = rng.random((n, n), dtype=np.float32)
        b = rng.random((n, n), dtype=np.float32)
        return (2, 2), (16, 16), [np.zeros((n, n), np.float32), a, b, n], a @ b
    bs = 256 if name.startswith("tree") else 64
    x = rng.random(2 * bs, dtype=np.float32)
    ref = x.reshape(2, bs).sum(axis=1)
    if name.startswith("neighbour"):
        ref = x.reshape(-1, 2)[:, ::-1].reshape(-1)
    return 2, bs, [np.zeros(2 * bs, np.float32), x], ref


DYN = [
    ("neighbour.kdsl", {6, 7}, "syncwarp"),
    ("sgemm_one_barrier.kdsl", {13, 17}, "a loop came around"),
    ("tree_reduce.kdsl", {11}, "no barrier"),
    ("warp_reduce.kdsl", {9, 10}, "syncwarp"),
]


@pytest.mark.parametrize("name,lines,hint", DYN, ids=[d[0] for d in DYN])
def test_emulator_reports_the_race_at_both_lines(name, lines, hint):
    mod, k = _ptx(name)
    grid, block, args, _ = _args(name, np.random.default_rng(1))
    with pytest.raises(RaceError) as e:
        run_kernel(mod, k, grid, block, args)
    err = e.value
    assert err.kind == "data-race"
    a, b = err.accesses
    assert {int(x.source.split(":")[1]) for x in (a, b)} == lines
    assert a.thread != b.thread and a.space == b.space == "shared"
    assert {a.op, b.op} & {"write"}
    assert a.instr.startswith(("st.", "ld.")) and a.line > 0 and b.line > 0
    if hint:
        assert hint in err.message
    # without the race checker the lockstep emulator returns plausible numbers: the false confidence
    run_kernel(mod, k, grid, block, _args(name, np.random.default_rng(1))[2], racecheck=False)


@pytest.mark.parametrize("name", ["neighbour_ok.kdsl", "sgemm_ok.kdsl", "tree_reduce_ok.kdsl"])
def test_emulator_fixed_kernels_run_clean(name):
    mod, k = _ptx(name)
    grid, block, args, ref = _args(name, np.random.default_rng(2))
    st = run_kernel(mod, k, grid, block, args)
    assert st.race_notes == []
    got = args[0] if name.startswith(("sgemm", "neighbour")) else args[0][:2]
    np.testing.assert_allclose(got, ref, rtol=1e-4)


def test_emulator_sees_what_static_cannot():
    mod, k = _ptx("rotate.kdsl")
    x = np.arange(64, dtype=np.float32)
    run_kernel(mod, k, 1, 64, [np.zeros(64, np.float32), x, 64])  # k % 64 == 0: no race
    with pytest.raises(RaceError):
        run_kernel(mod, k, 1, 64, [np.zeros(64, np.float32), x, 1])


# ------------------------------------------------------------------------------------ PTX rules
HEAD = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 sm[256];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
"""


def _k(body: str):
    return parse_ptx(HEAD + body + "\n  ret;\n}\n")


def test_global_race_across_blocks_and_atomics_exempt():
    racy = _k("  st.global.u32 [%rd1], %r2;")  # every block's thread 0.. writes its block id to out[0]
    with pytest.raises(RaceError) as e:
        run_kernel(racy, "k", 2, 1, [np.zeros(1, np.uint32)])
    assert "different blocks" in e.value.message and e.value.accesses[0].buffer == "out"
    atom = _k("  atom.global.add.u32 %r3, [%rd1], 1;")
    out = np.zeros(1, np.uint32)
    run_kernel(atom, "k", 4, 32, [out])
    assert out[0] == 128


def test_same_value_writes_are_a_note_not_an_error():
    k = _k(
        "  mov.u32 %r3, 7;\n  st.shared.u32 [sm], %r3;\n  bar.sync 0;\n  ld.shared.u32 %r4, [sm];\n"
        "  mul.wide.u32 %rd2, %r1, 4;\n  add.u64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r4;"
    )
    out = np.zeros(64, np.uint32)
    st = run_kernel(k, "k", 1, 64, [out])
    assert (out == 7).all()
    assert len(st.race_notes) == 1 and "same value" in st.race_notes[0]


def test_different_values_to_one_address_race():
    k = _k("  st.shared.u32 [sm], %r1;")
    with pytest.raises(RaceError) as e:
        run_kernel(k, "k", 1, 64, [np.zeros(1, np.uint32)])
    assert "write-write" in e.value.message


EXCHANGE = """  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, sm;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r1;
{sync}
  xor.b32 %r6, %r1, 1;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r4, %r6;
  ld.shared.u32 %r7, [%r6];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;"""


@pytest.mark.parametrize(
    "sync", ["  bar.warp.sync -1;", "  bar.sync 0;", "  shfl.sync.idx.b32 %r9, %r1, 0, 31, -1;"]
)
def test_intra_warp_exchange_ordered_by_syncwarp_barrier_or_collective(sync):
    out = np.zeros(32, np.uint32)
    run_kernel(_k(EXCHANGE.replace("{sync}", sync)), "k", 1, 32, [out])
    np.testing.assert_array_equal(out, np.arange(32) ^ 1)


def test_intra_warp_exchange_without_sync_is_a_race_with_the_syncwarp_hint():
    with pytest.raises(RaceError) as e:
        run_kernel(_k(EXCHANGE.replace("{sync}", "")), "k", 1, 32, [np.zeros(32, np.uint32)])
    assert "syncwarp()" in e.value.message and e.value.block == (0, 0, 0)


def test_named_barrier_producer_consumer_is_ordered():
    k = _k(
        """  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra $consumer;
  shl.b32 %r3, %r1, 2;
  st.shared.u32 [sm+%r3], %r1;
  bar.arrive 1, 64;
  bra $done;
$consumer:
  bar.sync 1, 64;
  sub.u32 %r4, %r1, 32;
  shl.b32 %r4, %r4, 2;
  ld.shared.u32 %r5, [sm+%r4];
$done:""".replace("[sm+%r3]", "[%r6]")
        .replace("[sm+%r4]", "[%r7]")
        .replace("  st.shared", "  mov.u32 %r6, sm;\n  add.u32 %r6, %r6, %r3;\n  st.shared")
        .replace("  ld.shared", "  mov.u32 %r7, sm;\n  add.u32 %r7, %r7, %r4;\n  ld.shared")
    )
    run_kernel(k, "k", 1, 64, [np.zeros(1, np.uint32)])


def test_cli_run_reports_races_and_no_racecheck_turns_it_off(tmp_path, capsys):
    from irc.cli import main

    np.save(tmp_path / "out.npy", np.zeros(64, np.float32))
    np.save(tmp_path / "x.npy", np.arange(64, dtype=np.float32))
    src = tmp_path / "rotate.kdsl"  # the static finding waived, so `irc run` compiles it
    src.write_text((DATA / "rotate.kdsl").read_text().replace("@launch", "@allow(shared-race)\n@launch"))
    base = ["run", str(src), "--grid", "1", "--block", "64",
            "--arg", f"out={tmp_path / 'out.npy'}", "--arg", f"x={tmp_path / 'x.npy'}"]  # fmt: skip
    assert main([*base, "--arg", "k=1"]) == 1
    err = capsys.readouterr().err
    assert "data-race" in err and "rotate.kdsl:8" in err and "rotate.kdsl:9" in err  # one line added above
    assert main([*base, "--arg", "k=1", "--no-racecheck"]) == 0
    assert main([*base, "--arg", "k=0"]) == 0


MIXED = """  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, sm;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r1;
  bar.sync 0;
  add.u32 %r6, %r4, %r1;
  st.shared.u8 [%r6], %r1;
  bar.warp.sync -1;
  {read}
  add.u32 %r8, %r4, %r7;
  ld.shared.u8 %r9, [%r8];"""


@pytest.mark.parametrize("read,racy", [("mov.u32 %r7, %r1;", False), ("add.u32 %r7, %r1, 32;", True)])
def test_byte_accesses_after_word_accesses(read, racy):
    """Word-wide stores first (the shadow keeps one record per word), then byte stores and byte reads:
    reading your own byte is fine, reading another warp's byte is a race."""
    k = _k(MIXED.replace("{read}", read))
    if racy:
        with pytest.raises(RaceError) as e:
            run_kernel(k, "k", 1, 64, [np.zeros(1, np.uint32)])
        assert e.value.accesses[0].offset == e.value.accesses[1].offset
    else:
        run_kernel(k, "k", 1, 64, [np.zeros(1, np.uint32)])


# ------------------------------------------------------------------------------------ nvcc PTX (lifted)
CUDA = DATA / "cuda" / "races.ptx"  # tests/data/races/cuda/races.cu, compiled by regen.sh


def _src_line(ptx_lines: list[str], line: int) -> int:
    """The races.cu line of a PTX line: the nearest `.loc 1 N` above it."""
    for k in range(line - 1, -1, -1):
        parts = ptx_lines[k].split()
        if len(parts) >= 3 and parts[0] == ".loc" and parts[1] == "1":
            return int(parts[2])
    return 0


# kernel (mangled prefix) -> the races.cu lines its finding must involve, or None for a fixed kernel
CUDA_KERNELS = {
    "_Z9neighbour": {7, 8},
    # no launch bound in the PTX (CUDA cannot declare a 2-D block): judged with the common 2-D blocks
    # (16x16, 32x8, 8x8, 32x32), in each of which the next tile's stores race the last reads of this one
    "_Z17sgemm_one_barrier": {19, 20, 22},
    "_Z8sgemm_ok": None,
    "_Z11tree_reduce": {38},
    "_Z14tree_reduce_ok": None,
    "_Z11warp_reduce": {57, 59},
    "_Z14warp_reduce_ok": None,
}


def test_static_on_lifted_nvcc_ptx_at_the_source_lines():
    from irc.compiler import check_ptx

    text = CUDA.read_text()
    lines = text.splitlines()
    diags = [d for d in check_ptx(text, str(CUDA)) if d.check == "shared-race"]
    entries = sorted((i + 1, ln.split()[2].rstrip("(")) for i, ln in enumerate(lines) if ".entry" in ln)

    def kernel_of(line: int) -> str:
        return [name for start, name in entries if start <= line][-1]

    seen: dict[str, set[int]] = {}
    for d in diags:
        ptx = d.origin or d.span  # the PTX line (the report maps the primary span to the .cu line)
        k = next(p for p in CUDA_KERNELS if kernel_of(ptx.line).startswith(p + "P"))
        spans = [ptx, *(x.span for x in d.labels if x.span.file == str(CUDA))]
        seen.setdefault(k, set()).update(_src_line(lines, s.line) for s in spans)
    for k, want in CUDA_KERNELS.items():
        if want is None:
            assert k not in seen, f"{k}: false positive {seen.get(k)}"
        else:
            assert k in seen and seen[k] <= want and seen[k] & want, (k, seen.get(k))


@pytest.mark.parametrize(
    "kernel,block,lines",
    [
        ("_Z9neighbourPfPKf", 64, {7, 8}),
        ("_Z11tree_reducePfPKf", 256, {38}),
        ("_Z11warp_reducePfPKf", 64, {57, 59}),
        ("_Z14warp_reduce_okPfPKf", 64, None),
        ("_Z14tree_reduce_okPfPKf", 256, None),
    ],
)
def test_emulator_on_nvcc_ptx(kernel, block, lines):
    mod = parse_ptx(CUDA.read_text(), str(CUDA))
    x = np.random.default_rng(3).random(2 * block, dtype=np.float32)
    out = np.zeros(2 * block, np.float32)
    dyn = 4 * block if "tree" in kernel else 0
    if lines is None:
        run_kernel(mod, kernel, 2, block, [out, x], dynamic_shared_bytes=dyn)
        np.testing.assert_allclose(out[:2], x.reshape(2, block).sum(axis=1), rtol=1e-5)
        return
    with pytest.raises(RaceError) as e:
        run_kernel(mod, kernel, 2, block, [out, x], dynamic_shared_bytes=dyn)
    got = {int(a.source.rsplit(":", 1)[1]) for a in e.value.accesses}
    assert got <= lines and got & lines, got


def test_static_tree_reduction_asks_for_the_barrier_inside_the_loop():
    (d,) = _static("tree_reduce.kdsl")
    assert "inside the loop" in d.help and "iteration 0 of the loop at line 9" in d.message


def _static_src(src: str):
    mod = compile_to_ir(src, "near.kdsl", defines={}, arch="sm_80")
    return [d for d in check_module(mod, arch="sm_80") if d.check == "shared-race"]


LOOP = """
@launch(block = 64)
kernel k(out: *global f32, x: *global f32, n: u32) {{
    shared t: [f32; 64];
    var acc = 0.0;
    for i in 0u32..{trips} {{
        t[tid.x] = x[i * 64 + tid.x];
        barrier();
        acc += t[(tid.x + 32) % 64];
    }}
    out[tid.x] = acc;
}}
"""


def test_static_loop_trip_counts():
    """A parameter trip count is assumed to allow two iterations (the missing second barrier is found);
    a known single iteration has no next iteration to race with; with two it is found again."""
    assert _static_src(LOOP.format(trips="n"))
    assert _static_src(LOOP.format(trips="1u32")) == []
    assert _static_src(LOOP.format(trips="2u32"))


def test_static_uniform_branch_arms_do_not_race():
    """Both arms of a branch on a kernel parameter: every thread takes the same arm, so the store in one
    and the load in the other never meet (the condition is unknown: no assumption is made, silent)."""
    src = """
@launch(block = 64)
kernel k(out: *global f32, n: u32) {
    shared t: [f32; 64];
    if n > 32 {
        t[tid.x] = 1.0;
    } else {
        out[tid.x] = t[(tid.x + 1) % 64];
    }
}
"""
    assert _static_src(src) == []
    # the near miss: the same exchange without the branch is a race
    assert _static_src(src.replace("if n > 32 {", "{").replace("} else {", "}\n    {"))


def test_allow_comment_suppresses_shared_race(tmp_path):
    """The line comment waives `shared-race` (the kernel attribute `@allow(shared-race)` too:
    tests/test_edges.py)."""
    from irc.compiler import check_kdsl

    src = (DATA / "neighbour.kdsl").read_text()
    assert [d.check for d in check_kdsl(src, "n.kdsl")] == ["shared-race"]
    quiet = src.replace("tile[tid.x ^ 1];", "tile[tid.x ^ 1]; // irc: allow(shared-race)")
    assert check_kdsl(quiet, "n.kdsl") == []


def test_static_block_reached_under_a_disjunction_is_not_guessed():
    """Only thread 3 stores, reached from two branches (`tid == 3`, else again `tid == 3`): the store's
    block has two predecessors, so its guard is not decidable from dominating branches and nothing is
    reported (no thread is assumed to reach it). The near miss, one branch `tid < 3`, races."""
    from irc.ir.parser import parse_module

    ir = """module "m.kdsl" {
kernel @k(%out: *global u32) attributes {launch = [64, 1, 1]} {
  shared @t: [u32; 64] align 4
^bb0:
  %tid = sreg {name = "tid.x"} : u32
  %three = const {value = 3} : u32
  %c1 = cmp %tid, %three {pred = "COND"} : bool
  cbr %c1, ^bb2, ^bb1
^bb1:
  %c2 = cmp %tid, %three {pred = "eq"} : bool
  cbr %c2, ^bb2, ^bb3
^bb2:
  %s = shared_addr {sym = "t"} : *shared u32
  %c20 = const {value = 20} : u32
  %p = ptradd %s, %c20 : *shared u32
  store %p, %tid
  br ^bb3
^bb3:
  ret
}
}"""
    near_miss = ir.replace("COND", "lt").replace("cbr %c1, ^bb2, ^bb1", "cbr %c1, ^bb2, ^bb3")
    for text, racy in ((ir.replace("COND", "eq"), False), (near_miss, True)):
        mod = parse_module(text, "m.kdsl")
        found = [d for d in check_module(mod, arch="sm_80") if d.check == "shared-race"]
        assert bool(found) == racy, [d.message for d in found]


def test_static_early_exit_on_a_parameter_and_rejoining_selects_are_decided():
    """An early exit on a parameter (`if ctaid.y >= heads { return; }`) and a `? :` that loads before
    the access no longer make the evaluation give up: the exchange below them is a race (found
    without the solver), and the same kernel with its barrier is clean (the near miss)."""
    src = """
@launch(block = 64)
kernel k(out: *global f32, x: *global f32, heads: u32, n: u32) {
    shared t: [f32; 64];
    if ctaid.y >= heads {
        return;
    }
    let v = tid.x < n ? x[tid.x] : 0.0;
    t[tid.x] = v;
    BARRIER
    out[tid.x] = t[(tid.x + 1) % 64];
}
"""
    racy = _static_src(src.replace("BARRIER", ""))
    assert len(racy) == 1 and racy[0].witness is not None
    assert _static_src(src.replace("BARRIER", "barrier();")) == []


# --- one elected thread: `if warp == 0 && elect_one()` -------------------------------------------------------
_ELECT = """
@launch(block = 128)
kernel elected(out: *global f32, k: u32) {
    shared buf: [f32; 64];
    let warp = tid.x / 32;
    if WARPS && elect_one() {
        buf[k % 64] = 1.0;
        buf[(k + 1) % 64] = warp as f32;
    }
    barrier();
    if tid.x < 64 {
        out[tid.x] = buf[tid.x];
    }
}
"""


@pytest.mark.parametrize("warps,racy", [("warp == 0", False), ("warp < 2", True)])
def test_one_elected_thread_is_not_asked_of_the_solver_and_two_are(
    warps: str, racy: bool, monkeypatch
) -> None:
    """Two stores at parameter-dependent indices (the per-thread evaluation cannot place them) by the one
    thread `warp == 0 && elect_one()` picks: no pair of distinct threads exists, so the solver is not asked
    (it used to be, once per pair: most of the compile time of the sm_100a examples). Near miss: with
    `warp < 2` two warps elect a thread each, and they store different values to one element (k = 63:
    `buf[0]` gets 1.0 from one and `warp` from the other): still reported, with its witness."""
    import irc.analysis.checks.shared_race as sr

    asked: list[int] = []
    real = sr._symbolic_pair
    monkeypatch.setattr(sr, "_symbolic_pair", lambda *a: asked.append(1) or real(*a))
    ds = [d for d in check_kdsl(_ELECT.replace("WARPS", warps), "elected.kdsl") if d.check == "shared-race"]
    assert bool(ds) == racy, [d.message for d in ds]
    assert bool(asked) == racy
    if racy:
        assert ds[0].witness is not None


# --- plain reads next to atomics -----------------------------------------------------------------------------
_HIST = """
@launch(block = 128)
kernel hist(out: *global u32, data: *global u32, n: u32) {
    shared bins: [u32; 32];
    if tid.x < 32 { bins[tid.x] = 0u32; }
    barrier();
    for i in tid.x..n step 128u32 {
        atomic_add(&bins[data[i] % 32u32], 1u32);
    }
    MERGE
}
"""
_MERGE_PLAIN = "if tid.x < 32 { out[tid.x] = bins[tid.x]; }"
_MERGE_CAS = """if tid.x < 32 {
        var old = bins[(tid.x + 1u32) % 32u32];
        while true {
            let seen = atomic_cas(&bins[(tid.x + 1u32) % 32u32], old, old + 7u32);
            if seen == old { break; }
            old = seen;
        }
    }"""


@pytest.mark.parametrize(
    "merge,racy",
    [(_MERGE_PLAIN, True), ("barrier();\n    " + _MERGE_PLAIN, False), (_MERGE_CAS, False)],
    ids=["plain-read-no-barrier", "barrier", "cas-loop"],
)
def test_plain_read_next_to_atomics(merge: str, racy: bool) -> None:
    """A histogram read back with no barrier after its data-dependent atomics: the atomics say the bins
    collide, so any bin is fair game and the plain read races them. With the barrier it does not (near
    miss), nor does a CAS loop whose plain read only feeds the compare of a CAS on its own address (a
    stale value only makes the CAS retry)."""
    ds = _static_src(_HIST.replace("MERGE", merge))
    assert bool(ds) == racy, [d.message for d in ds]
    if racy:
        assert "atomically updates" in ds[0].message and ds[0].witness is not None
