"""PTX backend: every IR test kernel compiles for every target its features allow and ptxas accepts it;
missing features are `unsupported-target`; versions, directives, shared layout, line info, determinism,
and end-to-end numerics through parse_ptx + the emulator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irc.backends.ptx import cache
from irc.backends.ptx.emit import compile_module
from irc.diagnostics import CompileError
from irc.ir.parser import parse_module
from irc.ptxas import find_ptxas, run_ptxas
from irc.target import ARCHES, GATE_FAMILIES

DATA = Path(__file__).parent / "data" / "ir"
FILES = sorted(p.stem for p in DATA.glob("*.ir"))
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not available")

# Which targets each test kernel needs (default: all); the rest must be refused with unsupported-target.
SM90 = GATE_FAMILIES["sm_90"]
REQUIRES: dict[str, tuple[str, ...]] = {
    "mbarrier90": SM90,
    "tma": SM90,
    "cluster": SM90,
    "tcgen05": GATE_FAMILIES["sm_100a"],
    "too_big": (),
}


def load(name: str):
    return parse_module((DATA / f"{name}.ir").read_text(), f"{name}.kdsl")


def compile_text(name: str, arch: str, **kw) -> str:
    return compile_module(load(name), arch, **kw).text


@needs_ptxas
@pytest.mark.parametrize("name", FILES)
def test_every_kernel_on_every_target(name: str) -> None:
    allowed = REQUIRES.get(name, tuple(ARCHES))
    for arch in ARCHES:
        if arch in allowed:
            r = compile_module(load(name), arch)
            res = run_ptxas(r.text, arch)
            assert res.ok, f"{name} {arch}: {[(e.line, e.message) for e in res.errors]}\n{r.text}"
        else:
            with pytest.raises(CompileError) as ei:
                compile_module(load(name), arch)
            checks = {d.check for d in ei.value.diagnostics}
            assert checks <= {"unsupported-target", "shared-overflow"} and checks, (name, arch, checks)


def test_unsupported_target_names_minimum_and_span() -> None:
    with pytest.raises(CompileError) as ei:
        compile_module(load("tcgen05"), "sm_90a")
    d = ei.value.diagnostics[0]
    assert d.check == "unsupported-target" and "sm_100a" in d.message and "sm_90a" in d.message
    with pytest.raises(CompileError) as ei:
        compile_module(load("mbarrier90"), "sm_86")
    msgs = [x.message for x in ei.value.diagnostics]
    assert any("`mbarrier_expect_tx` needs sm_90" in m for m in msgs)
    assert all(x.span is not None for x in ei.value.diagnostics)


def test_shared_overflow() -> None:
    with pytest.raises(CompileError) as ei:
        compile_module(load("too_big"), "sm_100a")
    assert [d.check for d in ei.value.diagnostics] == ["shared-overflow"]


@pytest.mark.parametrize(
    "name,arch,version",
    [
        ("vadd", "sm_80", "7.0"),
        ("mbarrier80", "sm_80", "7.1"),  # mbarrier.test_wait.parity needs 7.1
        ("mbarrier80", "sm_90", "7.8"),  # try_wait: target minimum 7.8
        ("elect", "sm_90a", "8.0"),
        ("tma", "sm_90", "8.0"),  # cp.async.bulk.tensor / fence.proxy.async
        ("tcgen05", "sm_100a", "8.6"),
        ("vadd", "sm_120a", "8.7"),
    ],
)
def test_version_is_minimal(name: str, arch: str, version: str) -> None:
    r = compile_module(load(name), arch)
    assert r.ptx.version == version
    assert f".version {version}\n" in r.text


def test_wait_and_elect_legalization_per_target() -> None:
    t80 = compile_text("mbarrier80", "sm_80")
    t90 = compile_text("mbarrier80", "sm_90")
    assert "mbarrier.test_wait.parity" in t80 and "try_wait" not in t80
    assert "mbarrier.try_wait.parity" in t90
    assert "elect.sync" not in compile_text("elect", "sm_80")
    assert "elect.sync _|%p" in compile_text("elect", "sm_90")


def test_kernel_interface_and_directives() -> None:
    r = compile_module(load("tma"), "sm_90a")
    fn = r.ptx.function("tma")
    assert fn.params[0].type == ".b8" and fn.params[0].align == 64 and fn.params[0].dims == [128]
    assert "mov.u64 %rd0, tma_param_0;" in r.text and "cvta.param.u64 %rd0, %rd0;" in r.text
    assert fn.directives["reqntid"] == [128, 1, 1] and fn.directives["reqnctapercluster"] == [1, 1, 1]
    m = compile_module(load("misc"), "sm_80")
    f = m.ptx.function("misc")
    assert f.params[0].type == ".u32"  # bool parameter passed as u32
    assert f.directives["maxnreg"] == [64] and f.directives["minnctapersm"] == [2]


def test_dynamic_shared_memory() -> None:
    r = compile_module(load("big_shared"), "sm_80")
    assert ".extern .shared .align 1024 .b8 irc_dyn_smem[];" in r.text
    assert r.stats["big"]["dynamic_shared_bytes"] == 16 + 65536
    assert r.ptx.function("big").meta["dynamic_shared_bytes"] == 65552
    small = compile_module(load("reduce_shared"), "sm_80")
    assert (
        ".shared .align 16 .b8 tile[512];" in small.text
        and small.stats["reduce"]["dynamic_shared_bytes"] == 0
    )


@needs_ptxas
def test_lineinfo_maps_to_source() -> None:
    r = compile_module(load("swap_loop"), "sm_80")
    assert '.file 1 "swap_loop.kdsl"' in r.text and "\t.loc 1 4 11\n" in r.text
    assert run_ptxas(r.text, "sm_80", lineinfo=True).ok


def test_deterministic_in_process_and_subprocess() -> None:
    texts = [compile_text(n, "sm_80") for n in ("swap_loop", "reduce_shared", "misc")]
    again = [compile_text(n, "sm_80") for n in ("swap_loop", "reduce_shared", "misc")]
    assert texts == again
    code = (
        "import sys; from pathlib import Path; from irc.ir.parser import parse_module;"
        "from irc.backends.ptx.emit import compile_module;"
        "d=Path(sys.argv[1]);"
        "sys.stdout.write(''.join(compile_module(parse_module((d/(n+'.ir')).read_text(), n+'.kdsl'),"
        " 'sm_80').text for n in ('swap_loop','reduce_shared','misc')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(DATA)],
        capture_output=True,
        text=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
        check=True,
    ).stdout
    assert out == "".join(texts)


def test_cache_roundtrip(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("IRC_CACHE_DIR", str(tmp_path))
    k = cache.make_key("src", {"O": 2}, "sm_80")
    assert k != cache.make_key("src", {"O": 2}, "sm_90") and k == cache.make_key("src", {"O": 2}, "sm_80")
    assert cache.get(k) is None
    cache.put(k, "PTX")
    assert cache.get(k) == "PTX" and (tmp_path / k[:2] / f"{k}.ptx").exists()


# -- end to end: IR -> PTX text -> parse_ptx -> emulator, against numpy --------------------------------
emu = pytest.importorskip("irc.emu.launch")


def run(name: str, kernel: str, grid, block, args, arch: str = "sm_80") -> None:
    from irc.frontend.ptx.parser import parse_ptx

    text = compile_text(name, arch)
    emu.run_kernel(parse_ptx(text, f"{name}.ptx"), kernel, grid, block, args)


def test_emu_vector_add() -> None:
    x = np.arange(300, dtype=np.float32)
    y = np.full(300, 2.5, np.float32)
    o = np.zeros(300, np.float32)
    run("vadd", "vadd", 3, 128, (x, y, o, np.uint32(300)))
    np.testing.assert_array_equal(o, x + y)


@pytest.mark.parametrize("n", [0, 1, 4, 7])
def test_emu_swap_cycles(n: int) -> None:
    out = np.zeros(128, np.uint32)
    run("swap_loop", "swap2", 1, 64, (out, np.uint32(n)))
    tid = np.arange(64, dtype=np.uint32)
    a, b = (tid, np.ones(64, np.uint32)) if n % 2 == 0 else (np.ones(64, np.uint32), tid)
    np.testing.assert_array_equal(out[0::2], a)
    np.testing.assert_array_equal(out[1::2], b)
    out3 = np.zeros(96, np.uint32)
    run("swap_loop", "rot3", 1, 32, (out3, np.uint32(n)))
    t = np.arange(32, dtype=np.uint32)
    vals = [t, np.ones(32, np.uint32), t + 2]
    for k in range(3):
        np.testing.assert_array_equal(out3[k::3], vals[(k + n) % 3])
    of = np.zeros(64, np.float32)
    run("swap_loop", "fswap", 1, 32, (of, np.uint32(n)))
    fv = [t.astype(np.float32), np.full(32, 0.5, np.float32)]
    np.testing.assert_array_equal(of[0::2], fv[n % 2])
    np.testing.assert_array_equal(of[1::2], fv[(n + 1) % 2])


def test_emu_lost_copy_loop() -> None:
    out = np.zeros(32, np.uint32)
    run("lost_copy", "lost", 1, 32, (out, np.uint32(9)))
    assert (out == 8).all()


def test_emu_shared_reduction_with_barriers() -> None:
    x = np.random.default_rng(0).standard_normal(512).astype(np.float32)
    out = np.zeros(4, np.float32)
    run("reduce_shared", "reduce", 4, 128, (x, out))
    np.testing.assert_allclose(out, x.reshape(4, 128).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_emu_big_shared_dynamic() -> None:
    from irc.frontend.ptx.parser import parse_ptx

    r = compile_module(load("big_shared"), "sm_80")
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    emu.run_kernel(
        parse_ptx(r.text),
        "big",
        1,
        256,
        (x, out),
        dynamic_shared_bytes=r.stats["big"]["dynamic_shared_bytes"],
    )
    np.testing.assert_array_equal(out, x[::-1])
