"""The emulator as a sanitizer (issue 29): the ordering, proxy, bulk-copy, mbarrier, mask and atomics rules
that a GPU leaves undefined, each a located error of its own kind, each with a near miss that stays quiet.
Small hand-written PTX kernels; the realistic ones are the async/race suite (tests/data/suite)."""

from __future__ import annotations

import numpy as np
import pytest
from emu_util import ptx_kernel

from irc.emu import (
    AsyncOverwriteError,
    AsyncRaceError,
    BarrierError,
    BulkRuleError,
    CollectiveMaskError,
    LimitError,
    MbarrierError,
    MbarrierReuseError,
    MisalignedAccessError,
    ProxyFenceError,
    RaceError,
    TensorMapError,
    encode_tensormap,
    run_kernel,
)

OUT = ".param .u64 out"


# ------------------------------------------------------------------------------------------------ proxies
def _tma_store(fence: str) -> object:
    """Every thread writes tile[t] with st.shared, (fence,) bar.sync, thread 0 stores the tile by TMA."""
    return ptx_kernel(
        f"""  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, tile;
  add.u32 %r4, %r3, %r2;
  st.shared.f32 [%r4], %f1;
  {fence}
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $done;
  cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tmap, {{%r1}}], [%r3];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
$done:
  ret;""",
        params=".param .align 64 .b8 tmap[128]",
        decls=".shared .align 128 .b8 tile[128];\n",
    )


def _tmap(y: np.ndarray) -> bytes:
    return encode_tensormap(y, shape=(32,), strides_bytes=(), box=(32,), dtype=np.float32)


def test_tma_store_of_generic_writes_without_proxy_fence_is_a_proxy_fence_error() -> None:
    y = np.zeros(32, np.float32)
    with pytest.raises(ProxyFenceError) as e:
        run_kernel(_tma_store(""), "k", block=32, args=[_tmap(y)])
    msg = e.value.message
    assert "cp.async.bulk.tensor" in msg and "st.shared.f32" in msg and "fence.proxy.async" in msg
    assert isinstance(e.value, AsyncRaceError) and e.value.kind == "proxy-fence"


@pytest.mark.parametrize("fence", ["fence.proxy.async.shared::cta;", "fence.proxy.async;"])
def test_tma_store_after_proxy_fence_matches(fence: str) -> None:
    y = np.zeros(32, np.float32)
    run_kernel(_tma_store(fence), "k", block=32, args=[_tmap(y)], schedules=4)
    np.testing.assert_array_equal(y, np.arange(32, dtype=np.float32))


_MBAR_TMA = """  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $wait;
  mbarrier.init.shared::cta.b64 [bar], 1;
  {fence}
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 128;
  mov.u32 %r2, 0;
  cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [tmap, {{%r2}}], [bar];
$wait:
  bar.sync 0;
$poll:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $poll;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, tile;
  add.u32 %r4, %r4, %r3;
  ld.shared.f32 %f1, [%r4];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.f32 [%rd2], %f1;
  ret;"""


def _mbar_tma(fence: str):
    return ptx_kernel(
        _MBAR_TMA.format(fence=fence),
        params=".param .align 64 .b8 tmap[128], .param .u64 out",
        decls=".shared .align 128 .b8 tile[128];\n.shared .align 8 .b64 bar;\n",
    )


def test_mbarrier_used_by_tma_without_fence_mbarrier_init() -> None:
    x, out = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    with pytest.raises(ProxyFenceError, match="fence.mbarrier_init") as e:
        run_kernel(_mbar_tma(""), "k", block=32, args=[_tmap(x), out])
    assert "mbarrier.init" in e.value.message


@pytest.mark.parametrize("fence", ["fence.mbarrier_init.release.cluster;", "fence.proxy.async.shared::cta;"])
def test_mbarrier_init_fenced_for_the_async_proxy_matches(fence: str) -> None:
    x, out = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    run_kernel(_mbar_tma(fence), "k", block=32, args=[_tmap(x), out], schedules=4)
    np.testing.assert_array_equal(out, x)


# ------------------------------------------------------------------------------------------ bulk / TMA rules
def _bulk(size: int, dst_off: int = 0):
    return ptx_kernel(
        f"""  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $done;
  mbarrier.init.shared::cta.b64 [bar], 1;
  fence.mbarrier_init.release.cluster;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {size};
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, buf;
  add.u32 %r2, %r2, {dst_off};
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], {size}, [bar];
$poll:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $poll;
$done:
  ret;""",
        decls=".shared .align 128 .b8 buf[512];\n.shared .align 8 .b64 bar;\n",
    )


def test_bulk_copy_size_not_a_multiple_of_16() -> None:
    with pytest.raises(BulkRuleError, match="200 bytes is not a multiple of 16") as e:
        run_kernel(_bulk(200), "k", block=32, args=[np.zeros(64, np.float32)])
    assert e.value.kind == "bulk-rule" and e.value.line > 0


def test_bulk_copy_misaligned_destination() -> None:
    with pytest.raises(MisalignedAccessError, match="16-byte aligned"):
        run_kernel(_bulk(208, dst_off=8), "k", block=32, args=[np.zeros(64, np.float32)])


def test_bulk_copy_by_the_rules_runs() -> None:
    run_kernel(_bulk(208), "k", block=32, args=[np.zeros(64, np.float32)], schedules=4)


def test_tensor_map_stride_not_a_multiple_of_16() -> None:
    k = ptx_kernel(
        """  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $done;
  mbarrier.init.shared::cta.b64 [bar], 1;
  fence.mbarrier_init.release.cluster;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 4096;
  mov.u32 %r2, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [tmap, {%r2, %r2}], [bar];
$done:
  ret;""",
        params=".param .align 64 .b8 tmap[128]",
        decls=".shared .align 128 .b8 tile[4096];\n.shared .align 8 .b64 bar;\n",
    )
    x = np.zeros((32, 33), np.float32)
    tm = encode_tensormap(x, shape=(33, 32), strides_bytes=(132,), box=(32, 32), dtype=np.float32)
    with pytest.raises(TensorMapError, match="132 bytes: it must be a multiple of 16"):
        run_kernel(k, "k", block=32, args=[tm])


def test_tensor_copy_to_shared_memory_not_128_byte_aligned() -> None:
    k = ptx_kernel(
        """  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $done;
  mbarrier.init.shared::cta.b64 [bar], 1;
  fence.mbarrier_init.release.cluster;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 128;
  mov.u32 %r2, 0;
  mov.u32 %r3, tile;
  add.u32 %r3, %r3, 16;
  cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [tmap, {%r2}], [bar];
$done:
  ret;""",
        params=".param .align 64 .b8 tmap[128]",
        decls=".shared .align 128 .b8 tile[256];\n.shared .align 8 .b64 bar;\n",
    )
    x = np.zeros(32, np.float32)
    with pytest.raises(MisalignedAccessError, match="128-byte aligned"):
        run_kernel(k, "k", block=32, args=[_tmap(x)])


def _bulk_store_loop(wait: str):
    """Two rounds of: every thread writes its word of `buf`, fence, bar.sync, thread 0 bulk-stores buf."""
    return ptx_kernel(
        f"""  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  ld.param.u64 %rd1, [out];
  mov.u32 %r5, 0;
$round:
  setp.eq.u32 %p2, %r5, 0;
  @%p2 bra $write;
  setp.ne.u32 %p3, %r1, 0;
  @%p3 bra $sync;
  {wait}
$sync:
  bar.sync 0;
$write:
  add.u32 %r6, %r1, %r5;
  st.shared.u32 [%r4], %r6;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $next;
  mul.wide.u32 %rd2, %r5, 128;
  add.s64 %rd3, %rd1, %rd2;
  cp.async.bulk.global.shared::cta.bulk_group [%rd3], [%r3], 128;
  cp.async.bulk.commit_group;
$next:
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p4, %r5, 2;
  @%p4 bra $round;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $end;
  cp.async.bulk.wait_group 0;
$end:
  ret;""",
        decls=".shared .align 128 .b8 buf[128];\n",
    )


@pytest.mark.parametrize("wait", ["", "cp.async.wait_all;"])
def test_bulk_store_source_overwritten_before_its_read_wait(wait: str) -> None:
    with pytest.raises(AsyncOverwriteError) as e:
        run_kernel(_bulk_store_loop(wait), "k", block=32, args=[np.zeros(64, np.uint32)], schedules=8)
    assert isinstance(e.value, RaceError) and "cp.async.bulk.wait_group.read" in e.value.message
    if wait:
        assert "cp.async.wait_all" in e.value.message  # the wrong wait is named


def test_bulk_store_source_reused_after_the_read_wait_matches() -> None:
    out = np.zeros(64, np.uint32)
    run_kernel(_bulk_store_loop("cp.async.bulk.wait_group.read 0;"), "k", block=32, args=[out], schedules=8)
    np.testing.assert_array_equal(out, np.concatenate([np.arange(32), np.arange(32) + 1]))


# --------------------------------------------------------------------------------------------- mbarriers
def _visibility(sync: str):
    """Thread 0 initialises the barrier; every thread arrives and waits on it."""
    return ptx_kernel(
        f"""  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $use;
  mbarrier.init.shared::cta.b64 [bar], 64;
  fence.mbarrier_init.release.cluster;
$use:
  {sync}
  mbarrier.arrive.shared::cta.b64 %rd1, [bar];
$poll:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $poll;
  ret;""",
        decls=".shared .align 8 .b64 bar;\n",
    )


def test_mbarrier_use_before_its_init_is_visible() -> None:
    with pytest.raises(MbarrierError, match="before its mbarrier.init .* is visible") as e:
        run_kernel(_visibility(""), "k", block=64, args=[np.zeros(1, np.uint32)])
    assert e.value.kind == "mbarrier-uninit"
    assert all(t[0] >= 32 for t in e.value.threads)  # the other warp; lanes of warp 0 are not named


def test_mbarrier_use_after_a_barrier_runs_under_every_schedule() -> None:
    run_kernel(_visibility("bar.sync 0;"), "k", block=64, args=[np.zeros(1, np.uint32)], schedules=8)


def _reuse(inval: str, reinit: bool = False):
    use = "mbarrier.init.shared::cta.b64 [bar], 1;" if reinit else "st.shared.u32 [bar], %r1;"
    return ptx_kernel(
        f"""  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $done;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.shared::cta.b64 %rd1, [bar];
  {inval}
  {use}
$done:
  ret;""",
        decls=".shared .align 8 .b64 bar;\n",
    )


@pytest.mark.parametrize("reinit", [False, True])
def test_mbarrier_memory_reused_without_inval(reinit: bool) -> None:
    with pytest.raises(MbarrierReuseError, match="mbarrier.inval") as e:
        run_kernel(_reuse("", reinit), "k", block=32, args=[np.zeros(1, np.uint32)])
    assert e.value.kind == "mbarrier-reuse" and "mbarrier.init" in e.value.message


@pytest.mark.parametrize("reinit", [False, True])
def test_mbarrier_memory_reused_after_inval_runs(reinit: bool) -> None:
    run_kernel(
        _reuse("mbarrier.inval.shared::cta.b64 [bar];", reinit), "k", block=32, args=[np.zeros(1, np.uint32)]
    )


# ----------------------------------------------------------------------------------------- member masks
def _ballot(mask: str, guard: str = ""):
    return ptx_kernel(
        f"""  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  {guard}
  vote.sync.ballot.b32 %r2, %p1, {mask};
$skip:
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r2;
  ret;"""
    )


def test_half_mask_collective_executed_by_the_whole_warp() -> None:
    with pytest.raises(CollectiveMaskError, match=r"executed by lanes \[16, 17") as e:
        run_kernel(_ballot("0x0000ffff"), "k", block=32, args=[np.zeros(32, np.uint32)])
    assert all(t[0] >= 16 for t in e.value.threads)


def test_half_mask_collective_executed_by_its_half_matches() -> None:
    out = np.zeros(32, np.uint32)
    run_kernel(_ballot("0x0000ffff", "@!%p1 bra $skip;"), "k", block=32, args=[out])
    assert (out[:16] == 0xFFFF).all()


# ------------------------------------------------------------------------------------ atomics and races
def _histogram(merge_sync: str):
    """Every thread bumps hist[t % 8] with a shared atomic; then thread t < 8 reads hist[t]."""
    return ptx_kernel(
        f"""  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 8;
  @%p1 bra $bump;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, hist;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], 0;
$bump:
  bar.sync 0;
  and.b32 %r4, %r1, 7;
  shl.b32 %r4, %r4, 2;
  mov.u32 %r5, hist;
  add.u32 %r5, %r5, %r4;
  atom.shared.add.u32 %r6, [%r5], 1;
  {merge_sync}
  @%p1 bra $done;
  ld.shared.u32 %r7, [%r3];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r7;
$done:
  ret;""",
        decls=".shared .align 4 .b8 hist[32];\n",
    )


def test_plain_read_of_an_atomic_histogram_without_barrier_is_a_race() -> None:
    with pytest.raises(RaceError, match="atomically updates hist") as e:
        run_kernel(_histogram(""), "k", block=64, args=[np.zeros(8, np.uint32)])
    ops = {a.op for a in e.value.accesses}
    assert ops == {"atomic", "read"}


def test_plain_read_of_an_atomic_histogram_after_a_barrier_matches() -> None:
    out = np.zeros(8, np.uint32)
    run_kernel(_histogram("bar.sync 0;"), "k", block=64, args=[out])
    np.testing.assert_array_equal(out, np.full(8, 8))


def test_cas_loop_plain_read_is_not_a_race() -> None:
    """atomicMax on floats by a CAS loop: the plain load feeds only the compare of atom.cas."""
    k = ptx_kernel(
        """  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $go;
  st.shared.u32 [m], 0;
$go:
  bar.sync 0;
  cvt.rn.f32.u32 %f1, %r1;
  ld.shared.u32 %r2, [m];
$retry:
  mov.b32 %f2, %r2;
  max.f32 %f3, %f2, %f1;
  mov.b32 %r3, %f3;
  atom.shared.cas.b32 %r4, [m], %r2, %r3;
  setp.ne.u32 %p2, %r4, %r2;
  mov.u32 %r2, %r4;
  @%p2 bra $retry;
  bar.sync 0;
  @%p1 bra $done;
  ld.shared.f32 %f4, [m];
  ld.param.u64 %rd1, [out];
  st.global.f32 [%rd1], %f4;
$done:
  ret;""",
        decls=".shared .align 4 .b8 m[4];\n",
    )
    out = np.zeros(1, np.float32)
    run_kernel(k, "k", block=64, args=[out], schedules=4)
    assert out[0] == 63.0


# ------------------------------------------------------------------------------------------- schedules
def test_interleaving_schedules_find_what_lockstep_hides() -> None:
    """A missing barrier between two rounds of writes and the reads of the other warp's values: in
    lockstep every warp writes before any reads (right numbers); with warps interleaved a warp reads the
    other's old values. With the race checker off, only the schedules can tell."""
    k = ptx_kernel(
        """  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, tile;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  shl.b32 %r5, %r1, 1;
  st.shared.u32 [%r4], %r5;
  add.u32 %r6, %r1, 32;
  and.b32 %r6, %r6, 63;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r3, %r6;
  ld.shared.u32 %r7, [%r6];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r7;
  ret;""",
        decls=".shared .align 4 .b8 tile[256];\n",
    )
    out = np.zeros(64, np.uint32)
    run_kernel(k, "k", block=64, args=[out], racecheck=False, seed=0)  # lockstep: right numbers
    np.testing.assert_array_equal(out, 2 * ((np.arange(64) + 32) % 64))
    with pytest.raises(AsyncRaceError, match="interleaved warps"):
        run_kernel(k, "k", block=64, args=[np.zeros(64, np.uint32)], racecheck=False, schedules=8)
    with pytest.raises(RaceError):  # and the race checker names the two accesses
        run_kernel(k, "k", block=64, args=[np.zeros(64, np.uint32)])


def test_spin_wait_on_a_flag_makes_progress() -> None:
    """Warp 1 spins on a flag (its loop comes first in the code) that warp 0 sets after a loop of its
    own: lockstep alone always runs the spinning warp and never warp 0; starvation relief lets it run."""
    k = ptx_kernel(
        """  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p4, %r1, 0;
  @%p4 bra $init;
  st.shared.u32 [flag], 0;
$init:
  bar.sync 0;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra $produce;
$spin:
  ld.acquire.cta.shared.u32 %r3, [flag];
  setp.eq.u32 %p3, %r3, 0;
  @%p3 bra $spin;
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r3;
  bra.uni $done;
$produce:
  mov.u32 %r2, 0;
$work:
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, 100;
  @%p2 bra $work;
  st.release.cta.shared.u32 [flag], %r2;
$done:
  ret;""",
        decls=".shared .align 4 .b8 flag[4];\n",
    )
    out = np.zeros(1, np.uint32)
    run_kernel(k, "k", block=64, args=[out])
    assert out[0] == 100
    run_kernel(k, "k", block=64, args=[out], schedules=4)


def test_divergent_barrier_is_named_not_a_later_one() -> None:
    """A barrier in a thread-dependent halo branch: lanes 0-1 wait there, the rest at the next one."""
    k = ptx_kernel(
        """  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 2;
  @%p1 bra $main;
  bar.sync 0;
$main:
  bar.sync 0;
  ret;"""
    )
    first = next(i.line for i in k.functions[0].instructions() if i.base == "bar")
    with pytest.raises(BarrierError, match=f"the barrier at line {first}") as e:
        run_kernel(k, "k", block=64, args=[np.zeros(1, np.uint32)])
    assert e.value.line == first and {t[0] for t in e.value.threads} == {0, 1}


# ------------------------------------------------------------------------------------------------ limits
def test_huge_local_array_is_a_limit_error_before_allocating() -> None:
    k = ptx_kernel(
        """  .local .align 4 .b8 big[4294967296];
  mov.u32 %r1, %tid.x;
  st.local.u32 [big], %r1;
  ret;"""
    )
    with pytest.raises(LimitError, match="emu_max_local_bytes") as e:
        run_kernel(k, "k", block=32, args=[np.zeros(1, np.uint32)])
    assert "IRC_LIMIT_EMU_MAX_LOCAL_BYTES" in e.value.message


def test_grid_too_large_for_the_emulator_is_a_limit_error() -> None:
    k = ptx_kernel("  ret;")
    with pytest.raises(LimitError, match="emu_max_threads"):
        run_kernel(k, "k", grid=(1 << 20, 1 << 10, 1), block=1024, args=[np.zeros(1, np.uint32)])


def test_global_initializer_with_a_function_address() -> None:
    """nvcc's vtables: `.global .u64 vt[2] = {0, f};` holds the address `mov.u64 %rd, f` gives."""
    k = ptx_kernel(
        """  mov.u64 %rd1, vt;
  ld.global.u64 %rd2, [%rd1+8];
  mov.u64 %rd3, f;
  setp.eq.u64 %p1, %rd2, %rd3;
  selp.u32 %r1, 1, 0, %p1;
  ld.param.u64 %rd4, [out];
  st.global.u32 [%rd4], %r1;
  ret;""",
        decls=".func f()\n{\n  ret;\n}\n.global .align 8 .u64 vt[2] = {0, f};\n",
    )
    out = np.zeros(1, np.uint32)
    run_kernel(k, "k", args=[out])
    assert out[0] == 1


# ------------------------------------------------------------------------------------------------ messages
def test_errors_in_cuda_headers_name_the_users_line() -> None:
    """`__shfl_down_sync` is inlined from sm_30_intrinsics.hpp; the error follows `inlined_at` out of the
    header to the user's call (bug_half_warp_shfl.cu:7)."""
    from pathlib import Path

    from irc.emu import CollectiveMaskError
    from irc.frontend.ptx.parser import parse_ptx

    p = Path(__file__).parent / "data" / "ptx" / "nvcc" / "bug_half_warp_shfl.sm_80.ptx"
    mod = parse_ptx(p.read_text(), str(p))
    with pytest.raises(CollectiveMaskError) as e:
        run_kernel(
            mod, mod.entries()[0].name, block=32, args=[np.ones(32, np.float32), np.zeros(32, np.float32)]
        )
    assert e.value.source.endswith("bug_half_warp_shfl.cu:7"), e.value.source
    assert "hpp" not in str(e.value)


def test_race_with_an_async_copy_hints_the_wait_not_syncwarp() -> None:
    """Each thread waits for its own cp.async, then reads its neighbour's slot (same warp) without a
    barrier: the hint is the wait plus a barrier; `syncwarp()` would not wait for the copy."""
    k = ptx_kernel(
        """  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, tile;
  add.u32 %r4, %r3, %r2;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  cp.async.ca.shared.global [%r4], [%rd3], 4;
  cp.async.commit_group;
  cp.async.wait_group 0;
  xor.b32 %r5, %r1, 1;
  shl.b32 %r5, %r5, 2;
  add.u32 %r5, %r3, %r5;
  ld.shared.u32 %r6, [%r5];
  ret;""",
        decls=".shared .align 4 .b8 tile[128];\n",
        target="sm_80",
    )
    with pytest.raises(RaceError) as e:
        run_kernel(k, "k", block=32, args=[np.zeros(32, np.uint32)])
    msg = e.value.message
    assert "asynchronous" in msg and "cp.async.wait_group" in msg and "add `syncwarp()`" not in msg
