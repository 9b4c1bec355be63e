"""The emulator's asynchronous completion (irc/emu/async_engine.py) on our own nvcc PTX (tests/data/async)
and .kdsl kernels: correct pipelines match numpy under 8 schedules; reads of in-flight copies raise
AsyncRaceError naming both instructions and the thread; protocol hangs report the mbarrier state.

The sweep of every example and async test under 8 schedules is `test_schedule_sweep` (marked slow)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irc
from irc.emu import AsyncRaceError, BarrierError, DeadlockError, EmuError, encode_tensormap, run_kernel
from irc.frontend.ptx.parser import parse_ptx

ROOT = Path(__file__).parent
DATA = ROOT / "data" / "async"
KDSL = ROOT / "data" / "check_kdsl"


def _tiles(ntiles: int, ncta: int, seed: int = 0):
    rows, cols = 32 * ntiles, 16 * ncta
    x = np.random.default_rng(seed).standard_normal((rows, cols)).astype(np.float32)
    tm = encode_tensormap(x, shape=(cols, rows), strides_bytes=(cols * 4,), box=(16, 32), dtype=np.float32)
    return x, tm


def _run_driver(stem: str, ntiles: int = 4, ncta: int = 2, **kw) -> tuple[np.ndarray, np.ndarray]:
    mod = parse_ptx((DATA / f"{stem}.sm_100a.ptx").read_text(), f"{stem}.ptx")
    x, tm = _tiles(ntiles, ncta)
    out = np.zeros(16 * ncta, np.float32)
    run_kernel(mod, mod.functions[-1].name, grid=ncta, block=128, args=[tm, out, ntiles], **kw)
    return out, x.sum(axis=0)


@pytest.mark.parametrize("stem", ["ok_tma_driver", "ok_tma_ring"])
def test_correct_cuda_pipelines_match_numpy_under_8_schedules(stem: str) -> None:
    out, ref = _run_driver(stem, ntiles=9, schedules=8)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_correct_driver_under_each_schedule_seed() -> None:
    for s in range(8):
        out, ref = _run_driver("ok_tma_driver", seed=s)
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_fixed_parity_is_a_race_or_protocol_hang_never_barrier_divergence() -> None:
    kinds = set()
    for s in range(8):
        with pytest.raises(EmuError) as e:
            _run_driver("bug_fixed_parity", seed=s)
        assert not isinstance(e.value, BarrierError), e.value
        assert isinstance(e.value, (AsyncRaceError, DeadlockError)), e.value
        if isinstance(e.value, DeadlockError):
            assert "mbarrier at smem+0x" in e.value.message and "phase" in e.value.message
        kinds.add(type(e.value))
    assert AsyncRaceError in kinds  # some completion orders let the consumer read the tile in flight


def test_bytes_as_count_hang_reports_the_mbarrier_state() -> None:
    with pytest.raises(DeadlockError) as e:
        _run_driver("bug_bytes_as_count", schedules=2)
    msg = e.value.message
    assert "2047 of 2048 arrivals pending" in msg and "no thread left that can arrive" in msg


def test_no_expect_tx_hang_shows_negative_tx_count() -> None:
    with pytest.raises(DeadlockError) as e:
        _run_driver("bug_no_expect_tx", seed=0)
    assert "tx-count -" in e.value.message


def test_commit_group_for_tensor_copy_is_a_race() -> None:
    with pytest.raises(AsyncRaceError) as e:
        _run_driver("bug_commit_group", schedules=8)
    msg = e.value.message
    assert "ld.shared.f32" in msg and "cp.async.bulk.tensor" in msg and "issued by thread (0, 0, 0)" in msg


@pytest.mark.parametrize("arch", ["sm_80", "sm_100a"])
def test_cp_async_read_before_wait_group_raises(arch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IRC_EMU_SCHEDULES", raising=False)  # this test is about the default too
    mod = parse_ptx((DATA / f"bug_cp_async_early_read.{arch}.ptx").read_text(), "k.ptx")
    x = np.arange(256, dtype=np.float32)
    y = np.zeros_like(x)
    # completing every copy at issue (the default) hides the bug: the values are right
    run_kernel(mod, "cp_async_early_read", grid=2, block=128, args=[x, y])
    np.testing.assert_array_equal(y, 2 * x)
    with pytest.raises(AsyncRaceError) as e:
        run_kernel(mod, "cp_async_early_read", grid=2, block=128, args=[x, y], schedules=8)
    msg = e.value.message
    assert "ld.volatile.shared.f32" in msg and "cp.async.ca.shared.global" in msg and "thread" in msg
    assert e.value.threads


def test_kdsl_tma_loop_and_ring_match_numpy_under_8_schedules() -> None:
    for name, kernel in (("ok_tma_loop.kdsl", "tma_loop"), ("ok_tma_ring.kdsl", "tma_ring")):
        mod = irc.compile((KDSL / name).read_text(), arch="sm_100a", path=name)
        x = np.random.default_rng(1).standard_normal((32 * 7, 32)).astype(np.float32)
        out = np.zeros(32, np.float32)
        mod[kernel].launch(grid=2, block=128, args=[out, irc.TensorMap(x, box=(32, 16)), 7], schedules=8)
        np.testing.assert_allclose(out, x.sum(axis=0), rtol=1e-5, atol=1e-5)


RACY = """// the read of the thread's own cp.async destination comes before the wait (allowed here to run it)
@launch(block = 128)
kernel racy(x: *global f32, y: *global f32) {
    shared buf: [f32; 128];
    let i = ctaid.x * 128 + tid.x;
    cp_async(&buf[tid.x], &x[i], 4);
    cp_async_commit();
    let v = buf[tid.x]; // irc: allow(async-unwaited)
    cp_async_wait(0);
    y[i] = v * 2.0;
}
"""


def test_run_cli_schedules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from irc.cli import main

    monkeypatch.delenv("IRC_EMU_SCHEDULES", raising=False)

    src = tmp_path / "racy.kdsl"
    src.write_text(RACY)
    np.save(tmp_path / "x.npy", np.arange(256, dtype=np.float32))
    np.save(tmp_path / "y.npy", np.zeros(256, np.float32))
    base = ["run", str(src), "--grid", "2", "--block", "128",
            "--arg", f"x={tmp_path / 'x.npy'}", "--arg", f"y={tmp_path / 'y.npy'}"]  # fmt: skip
    assert main(base) == 0  # every copy completes at issue: the race is invisible
    capsys.readouterr()
    assert main([*base, "--schedules", "8"]) == 1
    err = capsys.readouterr().err
    assert "async-race" in err and "cp.async" in err


@pytest.mark.slow
def test_schedule_sweep() -> None:
    """Every example kernel and every async emulator test still matches numpy under 8 schedules."""
    env = dict(os.environ, IRC_EMU_SCHEDULES="8")
    files = ["tests/test_examples.py", "tests/test_async_e2e.py", "tests/test_emu_tensor.py",
             "tests/test_emu_tcgen05.py", "tests/test_emu_nvcc.py", "tests/test_async_protocol.py",
             "tests/test_emu_async.py"]  # fmt: skip
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", *files],
        cwd=ROOT.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=3000,
    )
    assert r.returncode == 0, r.stdout[-4000:]


HANG_AT_BAR = """
const TILE_BYTES: u32 = 32 * 16 * 4;

@launch(block = 128)
@allow(mbarrier-arrival-mismatch)
kernel hang(out: *global f32, map: tensormap<f32; 32, 16>) {
    shared tile: [f32; 32, 16] align 128;
    shared full: mbarrier;
    if tid.x == 0 { mbarrier_init(&full, TILE_BYTES); fence_mbarrier_init(); }
    barrier();
    if tid.x == 0 {
        mbarrier_arrive_expect_tx(&full, TILE_BYTES);
        tma_load(&tile[0, 0], map, [0, 0], &full);
    }
    if tid.x < 16 {
        mbarrier_wait(&full, 0);
        out[tid.x] = tile[0, tid.x];
    }
    barrier();
}
"""


@pytest.mark.parametrize("schedules", [None, 4])
def test_hang_at_a_barrier_reports_the_mbarrier_not_barrier_divergence(schedules) -> None:
    """Threads 16..127 wait at `barrier()` for threads 0..15 parked on an mbarrier that can never
    complete: the error names the mbarrier and its state, not a divergent `bar.sync`."""
    mod = irc.compile(HANG_AT_BAR, arch="sm_100a", path="hang.kdsl")
    x = np.zeros((32, 16), np.float32)
    out = np.zeros(16, np.float32)
    opts = {} if schedules is None else {"schedules": schedules}
    with pytest.raises(DeadlockError) as e:
        mod["hang"].launch(grid=1, block=128, args=[out, irc.TensorMap(x, box=(32, 16))], **opts)
    msg = e.value.message
    assert "mbarrier at smem+0x" in msg and "2047 of 2048 arrivals pending" in msg
    assert "blocked elsewhere" in msg


@pytest.mark.parametrize("stem", ["bug_fixed_parity", "bug_no_expect_tx"])
def test_schedules_prefer_the_race_over_the_hang(stem: str) -> None:
    """Under the 'complete at once' order these hang; `schedules=8` reports the read of the tile in flight."""
    with pytest.raises(AsyncRaceError) as e:
        _run_driver(stem, schedules=8)
    assert "ld.shared.f32" in e.value.message and "cp.async.bulk.tensor" in e.value.message
