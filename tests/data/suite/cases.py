"""Launch specs and numpy references of the async/race bug suite (README.md in this folder).

Each `Case` names a kernel with an injected bug and its corrected twin:

- CUDA (`lang="cuda"`): `cuda/<name>.cu`, compiled by `regen.sh` into `cuda/<name>.bug.<arch>.ptx`
  (`-DIRC_BUG`) and `cuda/<name>.ok.<arch>.ptx`;
- .kdsl (`lang="kdsl"`): `kdsl/<name>.bug.kdsl` and `kdsl/<twin or name>.ok.kdsl`.

The bug's source marks the line a kernel engineer wants the caret on with `// EXPECT: <check>`. `check` is
the `irc check` finding expected there, `error` the emulator error expected from running the bug: a class
of `irc.emu.errors` (or one of its `kind` strings), or a class proposed in `NEW_ERRORS`. `make(rng)` builds
fresh arguments (`Launch.args`, positional, one per `.param`) and names every host array (`Launch.host`,
also those only reachable through a tensor map); `ref(host)` gives, from copies of the inputs, the values
the twin must leave in some host arrays.

Nothing from irc is imported at module level; the tensor-map builders import `irc.emu` when called.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent

CLASSES = ("cp.async", "mbarrier", "tma", "shared-race", "warp", "barrier")

# Checks the suite expects that `irc check --list-checks` does not have yet (proposals).
NEW_CHECKS = {
    "tensormap-stride": "host code: a tensor map whose global strides are not multiples of 16 bytes (not in the "
    "PTX: for a checker of host code, or `irc.TensorMap` / `Kernel.launch` for .kdsl)",
}
# `error=CLEAN`: a protocol mistake that no execution can observe (the static check is its only detector):
# the emulator must run the bug clean and match numpy, as the hardware does (docs/emulator.md section 13).
CLEAN = "clean"
# Emulator error classes the suite expects that irc.emu.errors does not have yet (proposals).
NEW_ERRORS = {
    "BulkRuleError": "a cp.async.bulk whose size is not a multiple of 16 (or another bulk-copy rule)",
    "ProxyFenceError": "the async proxy (TMA, bulk copy, tcgen05) reads shared memory written through the "
    "generic proxy, or an mbarrier initialised through it, with no fence.proxy.async / "
    "fence.mbarrier_init in between",
    "MbarrierReuseError": "an mbarrier reinitialised, or its memory used as data, without mbarrier.inval",
    "TensorMapError": "a tensor map the driver would reject (cuTensorMapEncodeTiled: a global stride that is "
    "not a multiple of 16, a box beyond 256 elements, ...)",
}


@dataclass
class Launch:
    args: list
    host: dict[str, Any]


@dataclass(frozen=True)
class Case:
    name: str
    lang: str  # "cuda" | "kdsl"
    cls: str  # one of CLASSES
    bug: str  # the bug in one line
    check: str | None  # expected static finding; None: not visible in the kernel (host-side)
    error: str  # expected emulator error (class name of irc.emu.errors, a kind, or NEW_ERRORS)
    arch: str
    grid: int | tuple
    block: int | tuple
    make: Callable[[np.random.Generator], Launch]
    ref: Callable[[dict], dict[str, np.ndarray]]
    kernel: str | None = None  # None: the module's only kernel
    twin: str | None = None  # .kdsl: the stem of a twin shared by several bug variants
    bug_make: Callable[[np.random.Generator], Launch] | None = None  # host-side bugs: the bug's arguments
    dynamic_smem: int = 0
    schedules: int | None = 8  # emulator completion orders (irc.emu.schedules)
    max_steps: int | None = None
    rtol: float = 1e-5
    atol: float = 1e-5
    notes: str = ""

    @property
    def bug_path(self) -> Path:
        if self.lang == "cuda":
            return HERE / "cuda" / f"{self.name}.bug.{self.arch}.ptx"
        return HERE / "kdsl" / f"{self.name}.bug.kdsl"

    @property
    def ok_path(self) -> Path:
        if self.lang == "cuda":
            return HERE / "cuda" / f"{self.name}.ok.{self.arch}.ptx"
        return HERE / "kdsl" / f"{self.twin or self.name}.ok.kdsl"

    @property
    def source_path(self) -> Path:
        """The file whose `// EXPECT:` lines mark the bug."""
        return HERE / "cuda" / f"{self.name}.cu" if self.lang == "cuda" else self.bug_path


CASES: list[Case] = []


def case(**kw: Any) -> None:
    CASES.append(Case(**kw))


def f32(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def zeros(*shape: int, dtype=np.float32) -> np.ndarray:
    return np.zeros(shape, dtype)


# ================================================================================================ cp.async
def _sgemm(M: int, N: int, K: int) -> Callable[[np.random.Generator], Launch]:
    def make(rng: np.random.Generator) -> Launch:
        A, B, C = f32(rng, M, K), f32(rng, K, N), zeros(M, N)
        return Launch([A, B, C, M, N, K], {"A": A, "B": B, "C": C})

    return make


case(
    name="cpa_gemm_nowait",
    lang="cuda",
    cls="cp.async",
    bug="double-buffered cp.async SGEMM (inline PTX) without its cp.async.wait_group before the barrier",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_80",
    grid=(1, 2),
    block=128,
    make=_sgemm(64, 32, 64),
    ref=lambda h: {"C": h["A"] @ h["B"]},
    rtol=1e-4,
    atol=1e-4,
)


def _tiles(nblk: int, ntiles: int):
    def make(rng: np.random.Generator) -> Launch:
        x = f32(rng, nblk, ntiles, 128)
        w = f32(rng, ntiles)
        out = zeros(nblk, 128)
        return Launch([x, w, out, ntiles], {"x": x, "w": w, "out": out})

    return make


case(
    name="cpa_wait_depth",
    lang="cuda",
    cls="cp.async",
    bug="3-stage __pipeline_memcpy_async ring waits with __pipeline_wait_prior(STAGES - 1) instead of STAGES - 2",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_tiles(2, 7),
    ref=lambda h: {"out": np.einsum("k,bkt->bt", h["w"], np.roll(h["x"], -1, axis=2))},
    rtol=1e-4,
    atol=1e-4,
)


def _smooth(n: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y = f32(rng, n), zeros(n)
        return Launch([x, y, n], {"x": x, "y": y})

    return make


def _smooth_ref(h: dict) -> dict:
    x = h["x"]
    left = np.concatenate([x[:1], x[:-1]])
    right = np.concatenate([x[1:], x[-1:]])
    return {"y": np.float32(0.25) * left + np.float32(0.5) * x + np.float32(0.25) * right}


case(
    name="cpa_no_commit",
    lang="cuda",
    cls="cp.async",
    bug="cp.async copies never committed: cp.async.wait_group 0 waits for committed groups only",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_smooth(250),
    ref=_smooth_ref,
)


def _rev_scaled(nblk: int, ntiles: int):
    def make(rng: np.random.Generator) -> Launch:
        x, s, out = f32(rng, nblk, ntiles, 128), f32(rng, ntiles), zeros(nblk, 128)
        return Launch([x, s, out, ntiles], {"x": x, "s": s, "out": out})

    return make


case(
    name="cpa_read_filling_stage",
    lang="cuda",
    cls="cp.async",
    bug="cuda::pipeline double buffer: the consumer reads stage (k + 1) % 2, the one being filled",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_rev_scaled(2, 5),
    ref=lambda h: {"out": np.einsum("k,bkt->bt", h["s"], h["x"][:, :, ::-1])},
    rtol=1e-4,
    atol=1e-4,
)


def _tile_sum(nblk: int, ntiles: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, nblk, ntiles, 128), zeros(nblk, 128)
        return Launch([x, out, ntiles], {"x": x, "out": out})

    return make


case(
    name="cpa_guarded_prefetch_peek",
    lang="cuda",
    cls="cp.async",
    bug="pipeline primitives, prefetch guarded by `k + 1 < ntiles`: the sum reads the stage being filled "
    "before the wait",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_tile_sum(2, 7),
    ref=lambda h: {"out": h["x"][:, :, ::-1].sum(axis=1)},
    rtol=1e-4,
    atol=1e-4,
)


def _scale_tile(nblk: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y = f32(rng, nblk, 64, 32), zeros(nblk, 64, 32)
        return Launch([x, y, 1.5], {"x": x, "y": y})

    return make


case(
    name="cpa_bulk_wait_for_cp_async",
    lang="cuda",
    cls="cp.async",
    bug="non-bulk cp.async copies waited for with cp.async.bulk.commit_group / cp.async.bulk.wait_group",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_scale_tile(2),
    ref=lambda h: {"y": np.float32(1.5) * np.roll(h["x"], -1, axis=1)},
)


def _transpose(n: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y = f32(rng, n, n), zeros(n, n)
        return Launch([y, x, n], {"x": x, "y": y})

    return make


case(
    name="cpa_no_sync_after_wait",
    lang="cuda",
    cls="cp.async",
    bug="transpose reads other threads' cp.async copies after its own wait_group, with no __syncthreads",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=(2, 2),
    block=256,
    make=_transpose(64),
    ref=lambda h: {"y": h["x"].T.copy()},
)


def _rows(nrows: int, cols: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y = f32(rng, nrows, cols), zeros(nrows, cols)
        return Launch([x, y, cols, 1e-5], {"x": x, "y": y})

    return make


def _rms_ref(h: dict) -> dict:
    x = h["x"].astype(np.float64)
    return {"y": (x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-5)).astype(np.float32)}


case(
    name="cpa_cg_memcpy_async",
    lang="cuda",
    cls="cp.async",
    bug="cooperative_groups::memcpy_async: cg::wait(block) moved below the first loop that reads the row",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_rows(2, 320),
    ref=_rms_ref,
    rtol=1e-4,
    atol=1e-5,
)


def _persistent(ntiles: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y = f32(rng, ntiles, 128), zeros(ntiles, 128)
        return Launch([x, y, ntiles], {"x": x, "y": y})

    return make


case(
    name="cpa_persistent_tail",
    lang="cuda",
    cls="cp.async",
    bug="persistent prefetch loop commits only inside `if (next < ntiles)`: the last step's wait_group 1 "
    "leaves the current tile pending",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_persistent(5),
    ref=lambda h: {"y": np.roll(h["x"], -1, axis=1) * np.arange(1, 6, dtype=np.float32)[:, None]},
)


# ================================================================================================ mbarrier
def tensormap(x: np.ndarray, box_rows: int, box_cols: int, pitch_bytes: int | None = None) -> bytes:
    """The emulator's descriptor of a row-major 2-D float array (irc.emu.encode_tensormap): box_cols x
    box_rows boxes, innermost first as in CUDA."""
    from irc.emu import encode_tensormap

    rows, cols = x.shape
    pitch = cols * x.itemsize if pitch_bytes is None else pitch_bytes
    return encode_tensormap(
        x, shape=(cols, rows), strides_bytes=(pitch,), box=(box_cols, box_rows), dtype=x.dtype
    )


def _colsum(nblk: int, ntiles: int, rows: int = 32, cols: int = 16):
    """A (rows * ntiles) x (cols * nblk) matrix as a tensor map, out: one column sum per thread c < cols."""

    def make(rng: np.random.Generator) -> Launch:
        x = f32(rng, rows * ntiles, cols * nblk)
        out = zeros(cols * nblk)
        return Launch([tensormap(x, rows, cols), out, ntiles], {"x": x, "out": out})

    return make


def _colsum_ref(h: dict) -> dict:
    return {"out": h["x"].astype(np.float64).sum(axis=0).astype(np.float32)}


def _ring160(nblk: int, ntiles: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, nblk, ntiles, 128), zeros(nblk, 128)
        return Launch([x, out, ntiles], {"x": x, "out": out})

    return make


case(
    name="mbar_count_one",
    lang="cuda",
    cls="mbarrier",
    bug="consumer-release mbarrier initialised with count 1 while 128 consumer threads arrive on it",
    check="mbarrier-arrival-mismatch",
    error="DeadlockError",
    arch="sm_80",
    grid=2,
    block=160,
    make=_ring160(2, 5),
    ref=lambda h: {"out": np.roll(h["x"], -5, axis=2).sum(axis=1)},
    rtol=1e-4,
    atol=1e-4,
)
case(
    name="mbar_no_init_fence",
    lang="cuda",
    cls="mbarrier",
    bug="cuda::ptx TMA loop: no fence.mbarrier_init / fence.proxy.async between mbarrier.init and the TMA "
    "that completes on it",
    check="async-proxy-fence",
    error="ProxyFenceError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_colsum(2, 4),
    ref=_colsum_ref,
    rtol=1e-4,
    atol=1e-4,
)
case(
    name="mbar_pipestate_phase",
    lang="cuda",
    cls="mbarrier",
    bug="CUTLASS-like PipelineState flips the phase on every advance instead of when the stage index wraps",
    check="mbarrier-phase",
    error="UninitSharedReadError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_colsum(2, 9),
    ref=_colsum_ref,
    rtol=1e-4,
    atol=1e-4,
)
case(
    name="mbar_init_not_visible",
    lang="cuda",
    cls="mbarrier",
    bug="warp-specialised ring: consumers poll mbarriers thread 0 initialised, with no __syncthreads after "
    "the init (only fence.mbarrier_init)",
    check="mbarrier-uninitialized",
    error="mbarrier-uninit",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_colsum(2, 5),
    ref=_colsum_ref,
    rtol=1e-4,
    atol=1e-4,
    notes="the emulator's `mbarrier-uninit` kind is a plain EmuError today; a RaceError on the barrier "
    "object (init by thread 0, poll by others, unordered) would do as well",
)
case(
    name="mbar_release_wrong_stage",
    lang="cuda",
    cls="mbarrier",
    bug="3-stage TMA ring: the consumer releases empty[(s + 1) % 3] after reading stage s",
    check="mbarrier-stage-mismatch",
    error=CLEAN,
    arch="sm_90a",
    grid=2,
    block=128,
    make=_colsum(2, 8),
    ref=_colsum_ref,
    rtol=1e-4,
    atol=1e-4,
    notes="latent, not observable: the producer's refill of stage 0 waits for the release that follows the "
    "read of stage 2, i.e. for the whole previous round, so no refill can overlap a read (every interleaving); "
    "an H100 ran it correctly (tests/asyncsuite/gpu.py, 3 of 3 runs; racecheck 0 hazards)",
)


def _tile_sum(nblk: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, 32 * nblk, 32), zeros(nblk)
        return Launch([tensormap(x, 16, 32), out], {"x": x, "out": out})

    return make


case(
    name="mbar_reuse_no_inval",
    lang="cuda",
    cls="mbarrier",
    bug="mbarrier memory recycled as reduction scratch (a union) with no mbarrier.inval",
    check="mbarrier-reuse",
    error="MbarrierReuseError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_tile_sum(2),
    ref=lambda h: {"out": h["x"].reshape(2, 32 * 32).astype(np.float64).sum(axis=1).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
)


def _coldot(nblk: int, ntiles: int):
    def make(rng: np.random.Generator) -> Launch:
        a, b = f32(rng, 32 * ntiles, 16 * nblk), f32(rng, 32 * ntiles, 16 * nblk)
        out = zeros(16 * nblk)
        return Launch([tensormap(a, 32, 16), tensormap(b, 32, 16), out, ntiles], {"a": a, "b": b, "out": out})

    return make


case(
    name="mbar_tx_too_few",
    lang="cuda",
    cls="mbarrier",
    bug="two TMA copies complete on one mbarrier but arrive.expect_tx announces the bytes of one",
    check="mbarrier-tx-mismatch",
    error="AsyncRaceError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_coldot(2, 3),
    ref=lambda h: {"out": (h["a"].astype(np.float64) * h["b"]).sum(axis=0).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
)


def _strided(n: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, n), zeros(128)
        return Launch([x, out, n], {"x": x, "out": out})

    return make


def _strided_ref(h: dict) -> dict:
    x = h["x"].astype(np.float64)
    pad = np.zeros(-len(x) % 128)
    return {"out": np.concatenate([x, pad]).reshape(-1, 128).sum(axis=0).astype(np.float32)}


case(
    name="mbar_tx_too_many",
    lang="cuda",
    cls="mbarrier",
    bug="1-D bulk copies in 4 KiB chunks: expect_tx announces a whole chunk for the shorter last copy",
    check="mbarrier-tx-mismatch",
    error="DeadlockError",
    arch="sm_90a",
    grid=1,
    block=128,
    make=_strided(2 * 1024 + 200),
    ref=_strided_ref,
    rtol=1e-4,
    atol=1e-4,
)


def _rev1024(nblk: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, nblk, 1024), zeros(nblk, 1024)
        return Launch([x, out], {"x": x, "out": out})

    return make


case(
    name="mbar_cuda_barrier_no_tx",
    lang="cuda",
    cls="mbarrier",
    bug="cuda::barrier + cuda::device::memcpy_async_tx: the issuing thread arrives with bar.arrive() instead "
    "of barrier_arrive_tx",
    check="mbarrier-tx-mismatch",
    error="AsyncRaceError",
    arch="sm_90a",
    grid=2,
    block=256,
    make=_rev1024(2),
    ref=lambda h: {"out": 2 * h["x"][:, ::-1]},
)
case(
    name="mbar_noinc_count",
    lang="cuda",
    cls="mbarrier",
    bug="cp.async.mbarrier.arrive.noinc on a barrier counted for one arrival per thread (each thread also "
    "arrives): two phases per step",
    check="mbarrier-arrival-mismatch",
    error="AsyncRaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=lambda rng: _persistent_like(rng, 2, 5),
    ref=lambda h: {"out": h["x"][:, :, ::-1].sum(axis=1)},
    rtol=1e-4,
    atol=1e-4,
)


def _persistent_like(rng: np.random.Generator, nblk: int, ntiles: int) -> Launch:
    x, out = f32(rng, nblk, ntiles, 128), zeros(nblk, 128)
    return Launch([x, out, ntiles], {"x": x, "out": out})


def _tc_gemm(ktiles: int):
    def make(rng: np.random.Generator) -> Launch:
        a = rng.standard_normal((128, 16 * ktiles)).astype(np.float16)
        b = rng.standard_normal((64, 16 * ktiles)).astype(np.float16)
        d = np.full((128, 64), np.nan, np.float32)
        return Launch([tensormap(a, 128, 8), tensormap(b, 64, 8), d, ktiles], {"a": a, "b": b, "d": d})

    return make


case(
    name="mbar_tma_mma_alternate",
    lang="cuda",
    cls="mbarrier",
    bug="one mbarrier alternates TMA and tcgen05.commit phases (two per step); the MMA wait uses the step's "
    "parity kt & 1 as if it completed one phase per step",
    check="mbarrier-phase",
    error="AsyncRaceError",
    arch="sm_100a",
    grid=1,
    block=128,
    make=_tc_gemm(4),
    ref=lambda h: {"d": (h["a"].astype(np.float64) @ h["b"].astype(np.float64).T).astype(np.float32)},
    rtol=1e-4,
    atol=1e-3,
    notes="the twin waits with fixed parities 0 and 1 in every step: a correct loop a per-wait parity rule "
    "must not report",
)


# ===================================================================================================== TMA
def _features(nrows: int):
    def make(rng: np.random.Generator) -> Launch:
        x, w, out = f32(rng, nrows, 40), f32(rng, 40), zeros(nrows, 40)
        return Launch([x, w, out], {"x": x, "w": w, "out": out})

    return make


def _features_ref(h: dict) -> dict:
    out = np.zeros_like(h["x"])
    out[:, :37] = h["x"][:, :37] * h["w"][:37]
    return {"out": out}


case(
    name="bulk_size_not16",
    lang="cuda",
    cls="tma",
    bug="1-D cp.async.bulk of a 37-float row: 148 bytes, not a multiple of 16 (the padded row is 160)",
    check="tma-misaligned",
    error="BulkRuleError",
    arch="sm_90a",
    grid=3,
    block=64,
    make=_features(3),
    ref=_features_ref,
)


def _mirror(nblk: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, nblk, 256), zeros(nblk, 256)
        return Launch([x, out], {"x": x, "out": out})

    return make


case(
    name="bulk_dst_misaligned",
    lang="cuda",
    cls="tma",
    bug="bulk copy into a float array that follows an 8-byte mbarrier in a struct: destination at offset 8",
    check="tma-misaligned",
    error="MisalignedAccessError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_mirror(2),
    ref=lambda h: {"out": h["x"] + h["x"][:, ::-1]},
)


def _transpose_tma(n: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y = f32(rng, n, n), zeros(n, n)
        return Launch([tensormap(x, 32, 32), tensormap(y, 32, 32)], {"x": x, "y": y})

    return make


case(
    name="tma_store_no_proxy_fence",
    lang="cuda",
    cls="tma",
    bug="TMA store of a tile written with st.shared, no fence.proxy.async before the barrier and the store",
    check="async-proxy-fence",
    error="ProxyFenceError",
    arch="sm_90a",
    grid=(2, 2),
    block=256,
    make=_transpose_tma(64),
    ref=lambda h: {"y": h["x"].T.copy()},
)


def _square(nchunks: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y = f32(rng, nchunks * 1024), zeros(nchunks * 1024)
        return Launch([x, y, nchunks], {"x": x, "y": y})

    return make


case(
    name="bulk_store_wrong_wait",
    lang="cuda",
    cls="tma",
    bug="bulk store's staging buffer reused after cp.async.wait_all (a non-bulk wait) instead of "
    "cp.async.bulk.wait_group.read",
    check="async-overwrite",
    error="RaceError",
    arch="sm_90a",
    grid=1,
    block=256,
    make=_square(3),
    ref=lambda h: {"y": h["x"] * h["x"] + np.float32(1)},
)


case(
    name="bulk_store_double_buffer",
    lang="cuda",
    cls="tma",
    bug="double-buffered bulk-store staging (thread 0 stores, commits and waits): wait_group.read 2 lets the "
    "store of chunk c - 2 still read the buffer chunk c overwrites",
    check="async-overwrite",
    error="RaceError",
    arch="sm_90a",
    grid=1,
    block=256,
    make=_square(4),
    ref=lambda h: {"y": h["x"] * h["x"] + np.float32(1)},
)


def _corner(gy: int, gx: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, 64 * gy, 32 * gx), zeros(64 * gy, 32 * gx)
        return Launch([tensormap(x, 64, 32), out, 32 * gx], {"x": x, "out": out})

    return make


def _corner_ref(h: dict) -> dict:
    x = h["x"]
    corner = np.repeat(np.repeat(x[::64, ::32], 64, axis=0), 32, axis=1)
    return {"out": x - corner}


case(
    name="tma_read_before_wait",
    lang="cuda",
    cls="tma",
    bug="cuda::barrier TMA (programming-guide style): the tile's first element is read before bar.wait",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_90a",
    grid=(2, 2),
    block=128,
    make=_corner(2, 2),
    ref=_corner_ref,
)


def _rowsum_box(rows: int, pitch: int):
    def make(rng: np.random.Generator) -> Launch:
        from irc.emu import encode_tensormap

        x = f32(rng, rows, pitch)
        out = zeros(rows)
        tm = encode_tensormap(x, shape=(33, rows), strides_bytes=(4 * pitch,), box=(32, 32), dtype=np.float32)
        return Launch([tm, out], {"x": x, "out": out})

    return make


case(
    name="tma_tensormap_stride",
    lang="cuda",
    cls="tma",
    bug="host side: tensor map of a 33-float-pitch matrix, a 132-byte global stride (must be a multiple of 16)",
    check=None,
    error="TensorMapError",
    arch="sm_90a",
    grid=2,
    block=32,
    make=_rowsum_box(64, 36),
    bug_make=_rowsum_box(64, 33),
    ref=lambda h: {"out": h["x"][:, :32].sum(axis=1)},
    rtol=1e-4,
    atol=1e-4,
    notes="the kernel is the same in both variants (the PTX files are identical); the bug is the tensor map",
)
case(
    name="tma_dyn_smem_misaligned",
    lang="cuda",
    cls="tma",
    bug="hand-carved dynamic shared memory: TMA tiles placed right after two mbarriers, at offset 16 (not 128)",
    check="tma-misaligned",
    error="MisalignedAccessError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_colsum(2, 5),
    ref=_colsum_ref,
    dynamic_smem=128 + 2 * 2048,
    rtol=1e-4,
    atol=1e-4,
)


def _epilogue(nblk: int, ntiles: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y = f32(rng, 32 * ntiles, 32 * nblk), zeros(32 * ntiles, 32 * nblk)
        return Launch([tensormap(y, 32, 32), x, 32 * nblk, ntiles], {"x": x, "y": y})

    return make


case(
    name="tma_store_missing_read_wait",
    lang="cuda",
    cls="tma",
    bug="TMA-store epilogue loop overwrites its staging tile with no cp.async.bulk.wait_group.read for the "
    "previous store",
    check="async-overwrite",
    error="RaceError",
    arch="sm_90a",
    grid=2,
    block=256,
    make=_epilogue(2, 3),
    ref=lambda h: {"y": h["x"] + 2 * np.repeat(np.arange(3, dtype=np.float32), 32)[:, None]},
)


# ============================================================================================ shared races
def _sq(n: int, order: str = "CAB"):
    def make(rng: np.random.Generator) -> Launch:
        A, B, C = f32(rng, n, n), f32(rng, n, n), zeros(n, n)
        h = {"A": A, "B": B, "C": C}
        return Launch([h[k] for k in order] + [n], h)

    return make


case(
    name="race_sgemm_no_second_barrier",
    lang="cuda",
    cls="shared-race",
    bug="16x16 tiled SGEMM (trip count n / 16 from a parameter) without the barrier at the end of the K step",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=(2, 2),
    block=256,
    make=_sq(32),
    ref=lambda h: {"C": h["A"] @ h["B"]},
    rtol=1e-4,
    atol=1e-4,
)
case(
    name="race_sgemm_no_first_barrier",
    lang="cuda",
    cls="shared-race",
    bug="register-blocked SGEMM (K loop bound from a parameter) without the barrier between staging and use",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=(1, 2),
    block=256,
    make=_sgemm(64, 32, 24),
    ref=lambda h: {"C": h["A"] @ h["B"]},
    rtol=1e-4,
    atol=1e-4,
)


def _square_mm(n: int) -> Callable[[np.random.Generator], Launch]:
    def make(rng: np.random.Generator) -> Launch:
        A, B, C = f32(rng, n, n), f32(rng, n, n), zeros(n, n)
        return Launch([A, B, C, n], {"A": A, "B": B, "C": C})

    return make


case(
    name="race_tiled_2d_unbounded",
    lang="cuda",
    cls="shared-race",
    bug="the textbook 16x16 tiled matmul (2-D blocks, no launch bound) without the barrier between staging and use",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=(2, 2),
    block=(16, 16),
    make=_square_mm(32),
    ref=lambda h: {"C": h["A"] @ h["B"]},
    rtol=1e-4,
    atol=1e-4,
)


def _column_sums(nblk: int, rows: int) -> Callable[[np.random.Generator], Launch]:
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, rows, 32), zeros(nblk * 32)
        return Launch([x, out, rows], {"x": x, "out": out})

    return make


case(
    name="race_2d_bounded_tree",
    lang="cuda",
    cls="shared-race",
    bug="32x16-block column sums (`__launch_bounds__(512)`: a thread bound, not a shape) whose row tree drops "
    "the barriers of its last two steps",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=(32, 16),
    make=_column_sums(2, 40),
    ref=lambda h: {"out": np.tile(h["x"].sum(axis=0), 2)},
    rtol=1e-4,
    atol=1e-4,
)


def _blocks(nblk: int, per: int, nout: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, nblk, per), zeros(nblk * nout)
        return Launch([x, out], {"x": x, "out": out})

    return make


case(
    name="race_tree_reduce_loop",
    lang="cuda",
    cls="shared-race",
    bug="shared-memory tree reduction (range from blockDim.x) without the barrier inside the halving loop",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=256,
    make=_blocks(2, 256, 1),
    ref=lambda h: {"out": h["x"].astype(np.float64).sum(axis=1).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
)


def _moments_ref(h: dict) -> dict:
    x = h["x"].astype(np.float64)
    return {"out": np.stack([x.mean(axis=1), (x * x).mean(axis=1)], axis=1).reshape(-1).astype(np.float32)}


case(
    name="race_reduce_noinline",
    lang="cuda",
    cls="shared-race",
    bug="tree reduction in a __noinline__ __device__ helper (called twice) without the barrier in its loop",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_blocks(2, 128, 2),
    ref=_moments_ref,
    rtol=1e-4,
    atol=1e-4,
)


def _bytes(n: int):
    def make(rng: np.random.Generator) -> Launch:
        data = rng.integers(0, 256, n, dtype=np.uint8)
        hist = np.zeros(64, np.uint32)
        return Launch([data, n, hist], {"data": data, "hist": hist})

    return make


case(
    name="race_histogram_merge",
    lang="cuda",
    cls="shared-race",
    bug="shared-atomic histogram merged into global memory with no barrier after the atomics (plain reads of "
    "bins other threads are still adding to)",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=256,
    make=_bytes(3000),
    ref=lambda h: {"hist": np.bincount(h["data"] % 64, minlength=64).astype(np.uint32)},
)


def _max_rows(nblk: int, per: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, nblk * per), zeros(nblk)
        return Launch([x, out, per], {"x": x, "out": out})

    return make


case(
    name="race_cas_max",
    lang="cuda",
    cls="shared-race",
    bug="block max through one shared slot updated with a plain read-modify-write (the twin: the atomicCAS "
    "loop idiom, whose plain first read is not a race)",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_max_rows(2, 300),
    ref=lambda h: {"out": h["x"].reshape(2, 300).max(axis=1)},
)


def _ring(nblk: int, ntiles: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, nblk, ntiles, 128), zeros(nblk, 128)
        return Launch([x, out, ntiles], {"x": x, "out": out})

    return make


case(
    name="race_cpasync_refill_early",
    lang="cuda",
    cls="shared-race",
    bug="3-stage cp.async ring issues the refill of the previous step's stage before the step's barrier "
    "(cp.async destination overwritten while others read it)",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_ring(2, 6),
    ref=lambda h: {
        "out": np.einsum("bkt,k->bt", np.roll(h["x"], -7, axis=2), np.arange(1, 7, dtype=np.float32))
    },
    rtol=1e-4,
    atol=1e-4,
)


def _wmma(rng: np.random.Generator) -> Launch:
    a = rng.standard_normal((32, 16)).astype(np.float16)
    bt = rng.standard_normal((32, 16)).astype(np.float16)  # B col-major: B[k, n] = bt[n, k]
    c = zeros(32, 32)
    return Launch([a, bt, c, 0.5], {"a": a, "bt": bt, "c": c})


case(
    name="race_wmma_epilogue",
    lang="cuda",
    cls="shared-race",
    bug="wmma::store_matrix_sync of each warp into a staging tile read block-wide with no __syncthreads",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=1,
    block=128,
    make=_wmma,
    ref=lambda h: {
        "c": (0.5 * (h["a"].astype(np.float64) @ h["bt"].astype(np.float64).T)).astype(np.float32)
    },
    rtol=1e-3,
    atol=1e-3,
)


def _stm(rng: np.random.Generator) -> Launch:
    x = rng.standard_normal((4, 16, 16)).astype(np.float16)
    out = zeros(4, 16, 16)
    return Launch([x, out], {"x": x, "out": out})


case(
    name="race_stmatrix",
    lang="cuda",
    cls="shared-race",
    bug="stmatrix.x4 of each warp's fragment tile, read by the next warp with no __syncthreads",
    check="shared-race",
    error="RaceError",
    arch="sm_90a",
    grid=1,
    block=128,
    make=_stm,
    ref=lambda h: {"out": np.roll(h["x"], -1, axis=0).astype(np.float32)},
)


def _handoff(nblk: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y, out = f32(rng, nblk, 32), f32(rng, nblk, 96), zeros(nblk, 96)
        return Launch([x, y, out], {"x": x, "y": y, "out": out})

    return make


case(
    name="race_flag_handoff",
    lang="cuda",
    cls="shared-race",
    bug="producer/consumer hand-off through a shared flag with relaxed atomics (no release/acquire): the "
    "payload read is not ordered after its stores",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_handoff(2),
    ref=lambda h: {"out": np.tile(np.cumsum(h["x"], axis=1, dtype=np.float32), 3) + h["y"]},
    schedules=None,
    max_steps=4000,
    notes="consumers spin on the flag: an emulator whose scheduler never switches away from a spinning warp "
    "exceeds max_steps on the twin (a livelock the hardware does not have)",
)


def _conv(n: int):
    def make(rng: np.random.Generator) -> Launch:
        x, w, y = f32(rng, n), f32(rng, 7), zeros(n)
        return Launch([x, w, y, n], {"x": x, "w": w, "y": y})

    return make


def _conv_ref(h: dict) -> dict:
    x, w = h["x"].astype(np.float64), h["w"].astype(np.float64)
    xp = np.concatenate([np.zeros(3), x, np.zeros(3)])
    return {"y": sum(w[d] * xp[d : d + len(x)] for d in range(7)).astype(np.float32)}


case(
    name="race_halo_exchange",
    lang="cuda",
    cls="shared-race",
    bug="1-D radius-3 stencil with a shared halo (guards joined by &&) and no barrier before the window reads",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=3,
    block=128,
    make=_conv(300),
    ref=_conv_ref,
    rtol=1e-4,
    atol=1e-4,
)
case(
    name="race_scan_inplace",
    lang="cuda",
    cls="shared-race",
    bug="in-place Hillis-Steele scan: each step reads s[t - off] and writes s[t] with no barrier in between",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=256,
    make=lambda rng: (lambda x, y: Launch([x, y], {"x": x, "y": y}))(f32(rng, 2, 256), zeros(2, 256)),
    ref=lambda h: {"y": np.cumsum(h["x"].astype(np.float64), axis=1).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
)
case(
    name="race_warp_sync_reduce",
    lang="cuda",
    cls="shared-race",
    bug="pre-Volta warp-synchronous reduction tail (volatile, no __syncwarp) on sm_80",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=256,
    make=_blocks(2, 256, 1),
    ref=lambda h: {"out": h["x"].astype(np.float64).sum(axis=1).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
)


# ======================================================================================= warp collectives
def _vec(n: int, out_shape: tuple, out_dtype=np.float32, in_dtype=np.float32, scalars: tuple = ()):
    def make(rng: np.random.Generator) -> Launch:
        if np.issubdtype(in_dtype, np.integer):
            x = rng.integers(-5, 6, n).astype(in_dtype)
        else:
            x = f32(rng, n)
        out = np.zeros(out_shape, out_dtype)
        return Launch([x, out, *scalars], {"x": x, "out": out})

    return make


def _half_pos_ref(h: dict) -> dict:
    pos = (h["x"] > 0).reshape(-1, 16).sum(axis=1)
    return {"out": np.repeat(pos, 16).astype(np.uint32)}


case(
    name="warp_ballot_half_mask",
    lang="cuda",
    cls="warp",
    bug="__ballot_sync(0x0000ffff, ...) executed by all 32 lanes of the warp",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_vec(256, (256,), np.uint32),
    ref=_half_pos_ref,
)
case(
    name="warp_shfl_partial_warp",
    lang="cuda",
    cls="warp",
    bug="full-mask __shfl_down_sync reduction in the 16-lane last warp of an 80-thread block",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    arch="sm_80",
    grid=2,
    block=80,
    make=_vec(160, (6,)),
    ref=lambda h: {
        "out": np.stack(
            [
                h["x"].reshape(2, 80)[:, a:b].astype(np.float64).sum(axis=1)
                for a, b in ((0, 32), (32, 64), (64, 80))
            ],
            axis=1,
        )
        .reshape(-1)
        .astype(np.float32)
    },
    rtol=1e-5,
    atol=1e-5,
)


def _half_reverse_ref(h: dict) -> dict:
    x = h["x"].reshape(-1, 2, 16).copy()
    x[:, 0, :] = x[:, 0, ::-1]
    return {"out": x.reshape(-1)}


case(
    name="warp_syncwarp_divergent",
    lang="cuda",
    cls="warp",
    bug="__syncwarp() (full mask) inside `if (lane < 16)`",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    arch="sm_80",
    grid=2,
    block=64,
    make=_vec(128, (128,)),
    ref=_half_reverse_ref,
)


def _group8_ref(h: dict) -> dict:
    x = h["x"][:300].astype(np.float64)
    sums = np.concatenate([x, np.zeros(-300 % 8)]).reshape(-1, 8).sum(axis=1)
    out = np.zeros(48, np.float32)
    out[: len(sums)] = sums
    return {"out": out}


case(
    name="warp_shfl_width_tail",
    lang="cuda",
    cls="warp",
    bug="width-8 __shfl_xor_sync with the full mask inside the `if (i < n)` tail branch (n = 300)",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    arch="sm_80",
    grid=3,
    block=128,
    make=_vec(384, (48,), scalars=(300,)),
    ref=_group8_ref,
    rtol=1e-5,
    atol=1e-5,
)


def _items(rng: np.random.Generator) -> Launch:
    item = (rng.random(256) < 0.4).astype(np.int32)
    count = np.zeros(2, np.uint32)
    return Launch([item, count], {"item": item, "count": count})


case(
    name="warp_elect_divergent",
    lang="cuda",
    cls="warp",
    bug="elect.sync with the full member mask inside a data-dependent branch",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_items,
    ref=lambda h: {"count": (h["item"].reshape(2, 128) != 0).sum(axis=1).astype(np.uint32)},
)
case(
    name="warp_cg_reduce_divergent",
    lang="cuda",
    cls="warp",
    bug="cg::reduce over tiled_partition<32> inside a data-dependent branch (the twin reduces over "
    "cg::coalesced_threads())",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_vec(256, (2,), np.int32, np.int32),
    ref=lambda h: {"out": np.where(h["x"] > 0, h["x"], 0).reshape(2, 128).sum(axis=1).astype(np.int32)},
)


def _walk(rng: np.random.Generator) -> Launch:
    rows = f32(rng, 128, 8)
    length = rng.integers(0, 9, 128).astype(np.int32)
    out = zeros(128)
    return Launch([rows, length, out], {"rows": rows, "len": length, "out": out})


def _walk_ref(h: dict) -> dict:
    rows, n = h["rows"].astype(np.float64), h["len"]
    out = np.zeros(128)
    for i in range(128):
        if i % 32 != 31:
            k = min(n[i], n[i + 1])
            out[i] = rows[i + 1, :k].sum()
    return {"out": out.astype(np.float32)}


case(
    name="warp_shfl_loop_break",
    lang="cuda",
    cls="warp",
    bug="full-mask __shfl_down_sync in a loop whose trip count is the lane's own list length",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    arch="sm_80",
    grid=2,
    block=64,
    make=_walk,
    ref=_walk_ref,
    rtol=1e-5,
    atol=1e-5,
)


# =================================================================================== barrier divergence
def _image(nx: int, ny: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y = f32(rng, ny, nx), zeros(ny, nx)
        return Launch([x, y, nx, ny], {"x": x, "y": y})

    return make


def _smooth_tile_ref(h: dict) -> dict:
    x = h["x"]
    ny, nx = x.shape
    y = x.copy()
    for j in range(ny):
        for i in range(nx):
            tx, ty = i % 16, j % 16
            if 0 < tx < 15 and 0 < ty < 15 and i + 1 < nx and j + 1 < ny:
                y[j, i] = np.float32(0.2) * (x[j, i] + x[j, i - 1] + x[j, i + 1] + x[j - 1, i] + x[j + 1, i])
    return {"y": y}


case(
    name="bar_parity114_and",
    lang="cuda",
    cls="barrier",
    bug="PARITY-114: threads outside the image (`x < nx && y < ny` false) return before __syncthreads",
    check="barrier-divergence",
    error="BarrierError",
    arch="sm_80",
    grid=(3, 2),
    block=256,
    make=_image(40, 20),
    ref=_smooth_tile_ref,
    rtol=1e-5,
    atol=1e-5,
)


def _center_ref(h: dict) -> dict:
    x = h["x"].astype(np.float64)
    y = np.empty_like(x)
    for b in range(0, len(x), 128):
        y[b : b + 128] = x[b : b + 128] - x[b : b + 128].mean()
    return {"y": y.astype(np.float32)}


case(
    name="bar_param_trip_loop",
    lang="cuda",
    cls="barrier",
    bug="per-thread loop `for (i = tid; i < n; i += blockDim.x)` around __syncthreads (n not a multiple of the "
    "block)",
    check="barrier-divergence",
    error="BarrierError",
    arch="sm_80",
    grid=1,
    block=128,
    make=_vec(300, (300,), scalars=(300,)),
    ref=lambda h: {"out": _center_ref({"x": h["x"]})["y"]},
    rtol=1e-4,
    atol=1e-5,
)
case(
    name="bar_named_wrong_count",
    lang="cuda",
    cls="barrier",
    bug="warp specialisation: the consumers-only named barrier is given the producer+consumer count (128 "
    "instead of 96)",
    check="barrier-count",
    error="BarrierError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_vec(192, (2,)),
    ref=lambda h: {"out": (2 * h["x"].reshape(2, 96).astype(np.float64)).sum(axis=1).astype(np.float32)},
    rtol=1e-5,
    atol=1e-5,
)


def _pair_ref(h: dict) -> dict:
    x = h["x"]
    n = len(x)
    partner = np.array([x[i ^ 1] if (i ^ 1) < n else np.float32(0) for i in range(n)], np.float32)
    return {"out": x / (np.abs(x) + np.abs(partner))}


case(
    name="bar_persistent_early_exit",
    lang="cuda",
    cls="barrier",
    bug="persistent tile loop: threads past the last row return inside the loop, before the tile's __syncthreads",
    check="barrier-divergence",
    error="BarrierError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_vec(333, (333,), scalars=(333,)),
    ref=_pair_ref,
)


def _masked(rng: np.random.Generator) -> Launch:
    x = f32(rng, 256)
    keep = (rng.random(256) < 0.5).astype(np.int32)
    out = zeros(2)
    return Launch([x, keep, out, 250], {"x": x, "keep": keep, "out": out})


def _masked_ref(h: dict) -> dict:
    v = np.where((h["keep"] != 0) & (np.arange(256) < 250), h["x"], 0).astype(np.float64)
    return {"out": v.reshape(2, 128).sum(axis=1).astype(np.float32)}


case(
    name="bar_noinline_helper",
    lang="cuda",
    cls="barrier",
    bug="block reduction in a __noinline__ helper (with __syncthreads) called only by threads passing a "
    "data-dependent `&&` filter",
    check="barrier-divergence",
    error="BarrierError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_masked,
    ref=_masked_ref,
    rtol=1e-5,
    atol=1e-5,
)


def _mirror_active_ref(h: dict) -> dict:
    x = h["x"].reshape(2, 128)
    out = np.zeros_like(x)
    out[:, :100] = x[:, 99::-1]
    return {"out": out.reshape(-1)}


case(
    name="bar_cg_sync_divergent",
    lang="cuda",
    cls="barrier",
    bug="cooperative_groups block.sync() inside `if (t < active)` (active a kernel parameter)",
    check="barrier-divergence",
    error="BarrierError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_vec(256, (256,), scalars=(100,)),
    ref=_mirror_active_ref,
)


def _ws_mirror(rng: np.random.Generator) -> Launch:
    x, out = f32(rng, 256), zeros(256)
    return Launch([x, out, 1.5], {"x": x, "out": out})


def _ws_mirror_ref(h: dict) -> dict:
    s = np.float32(1.5) * h["x"].reshape(2, 128)
    res = s[:, ::-1] + s
    return {"out": np.roll(res, -64, axis=1).reshape(-1)}


case(
    name="bar_ws_producer_exit",
    lang="cuda",
    cls="barrier",
    bug="warp-specialised kernel: the producer warp exits, and the consumers synchronise with __syncthreads "
    "(the whole block) instead of a named barrier",
    check="barrier-divergence",
    error="BarrierError",
    arch="sm_80",
    grid=2,
    block=160,
    make=_ws_mirror,
    ref=_ws_mirror_ref,
)


# ================================================================================================== .kdsl
def kcase(**kw: Any) -> None:
    kw.setdefault("lang", "kdsl")
    kw.setdefault("arch", "sm_80")
    case(**kw)


def _mats(n: int):
    """C, A, B (n x n) in .kdsl parameter order (c, a, b, n)."""
    return _sq(n, "CAB")


_GEMM = dict(
    cls="cp.async", grid=(3, 3), block=256, make=_mats(48), twin="gemm_cp_async", rtol=1e-4, atol=1e-4
)


def _gemm_ref(h: dict) -> dict:
    return {"C": h["A"] @ h["B"]}


kcase(
    name="gemm_cp_async_nowait",
    bug="a new user's double-buffered cp.async GEMM without its cp_async_wait",
    check="async-unwaited",
    error="AsyncRaceError",
    ref=_gemm_ref,
    **_GEMM,
)
kcase(
    name="gemm_cp_async_wait_count",
    bug='the same GEMM waiting with cp_async_wait(2) ("two buffers") instead of 1',
    check="async-unwaited",
    error="AsyncRaceError",
    ref=_gemm_ref,
    **_GEMM,
)
kcase(
    name="gemm_cp_async_no_first_barrier",
    bug="the same GEMM without the barrier after the wait (each thread waited for its own copies only)",
    check="shared-race",
    error="RaceError",
    ref=_gemm_ref,
    **_GEMM,
)
kcase(
    name="gemm_cp_async_no_second_barrier",
    bug="the same GEMM without the barrier at the end of the step (the next copies refill a buffer in use)",
    check="shared-race",
    error="RaceError",
    ref=_gemm_ref,
    **_GEMM,
)


def _out_x(n_in: int, n_out: int, *scalars: Any, out_dtype=np.float32):
    """(out, x, scalars...) in .kdsl parameter order."""

    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, n_in), np.zeros(n_out, out_dtype)
        return Launch([out, x, *scalars], {"x": x, "out": out})

    return make


kcase(
    name="reduce_fn",
    cls="shared-race",
    bug="tree reduction in a device function (fn) without the barrier inside its halving loop",
    check="shared-race",
    error="RaceError",
    grid=2,
    block=256,
    make=_out_x(512, 2),
    ref=lambda h: {"out": h["x"].reshape(2, 256).astype(np.float64).sum(axis=1).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
    notes="the twin is correct and gets a false shared-race today (irc compile refuses it)",
)


def _k_colsum(nblk: int, ntiles: int | None, rows: int = 32, cols: int = 16):
    """(out, map[, ntiles]) in .kdsl parameter order; x is (rows * ntiles) x (cols * nblk)."""

    def make(rng: np.random.Generator) -> Launch:
        x = f32(rng, rows * (ntiles or 1), cols * nblk)
        out = zeros(cols * nblk)
        args = [out, tensormap(x, rows, cols)] + ([ntiles] if ntiles is not None else [])
        return Launch(args, {"x": x, "out": out})

    return make


kcase(
    name="ring_empty_count",
    cls="mbarrier",
    bug="warp-specialised TMA ring: `empty` initialised with count 1 while 96 consumer threads arrive",
    check="mbarrier-arrival-mismatch",
    error="DeadlockError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_k_colsum(2, 6),
    ref=_colsum_ref,
    rtol=1e-4,
    atol=1e-4,
)
kcase(
    name="mbar_phase_flip",
    cls="mbarrier",
    bug="2-stage TMA ring whose phase variable flips every step instead of when the stage wraps",
    check="mbarrier-phase",
    error="AsyncRaceError",
    arch="sm_90a",
    grid=2,
    block=64,
    make=_k_colsum(2, 6),
    ref=_colsum_ref,
    rtol=1e-4,
    atol=1e-4,
)
kcase(
    name="mbar_init_visible",
    cls="mbarrier",
    bug="mbarrier initialised by thread 0 with no barrier before the other threads wait on it",
    check="mbarrier-uninitialized",
    error="mbarrier-uninit",
    arch="sm_90a",
    grid=2,
    block=64,
    make=_k_colsum(2, None),
    ref=lambda h: {"out": h["x"][0].copy()},
)


def _k_coldot(nblk: int, ntiles: int):
    def make(rng: np.random.Generator) -> Launch:
        a, b = f32(rng, 32 * ntiles, 16 * nblk), f32(rng, 32 * ntiles, 16 * nblk)
        out = zeros(16 * nblk)
        return Launch([out, tensormap(a, 32, 16), tensormap(b, 32, 16), ntiles], {"a": a, "b": b, "out": out})

    return make


kcase(
    name="tma_tx_two_copies",
    cls="tma",
    bug="two TMA loads on one mbarrier, expect_tx announces one tile",
    check="mbarrier-tx-mismatch",
    error="AsyncRaceError",
    arch="sm_90a",
    grid=2,
    block=64,
    make=_k_coldot(2, 3),
    ref=lambda h: {"out": (h["a"].astype(np.float64) * h["b"]).sum(axis=0).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
)


def _k_strip(nblk: int, kind: str):
    """x: 32 x (16 nblk). kind "corner": (out, map, ld); "store": (x, map_y, ld) with y written by TMA."""

    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, 32, 16 * nblk), zeros(32, 16 * nblk)
        if kind == "corner":
            return Launch([out, tensormap(x, 32, 16), 16 * nblk], {"x": x, "out": out})
        return Launch([x, tensormap(out, 32, 16), 16 * nblk], {"x": x, "out": out})

    return make


kcase(
    name="tma_corner_before_wait",
    cls="tma",
    bug="a tile element read before the mbarrier wait of its TMA copy",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_k_strip(2, "corner"),
    ref=lambda h: {"out": h["x"] - np.repeat(h["x"][0, ::16], 16)[None, :]},
)
kcase(
    name="tma_store_fence",
    cls="tma",
    bug="TMA store of a tile written with ordinary stores, no fence_proxy_async()",
    check="async-proxy-fence",
    error="ProxyFenceError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_k_strip(2, "store"),
    ref=lambda h: {"out": np.float32(3) * h["x"]},
)
kcase(
    name="tma_align",
    cls="tma",
    bug="TMA destination declared `align 16` after a small shared header (TMA needs 128)",
    check="tma-misaligned",
    error="MisalignedAccessError",
    arch="sm_90a",
    grid=2,
    block=64,
    make=_k_colsum(2, None),
    ref=lambda h: {"out": (0.5 * h["x"].astype(np.float64).sum(axis=0)).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
)
kcase(
    name="sgemm_second_barrier",
    cls="shared-race",
    bug="tiled SGEMM (1-D block, trip count n / 16) without the barrier at the end of the K step",
    check="shared-race",
    error="RaceError",
    grid=(2, 2),
    block=256,
    make=_mats(32),
    ref=_gemm_ref,
    rtol=1e-4,
    atol=1e-4,
)


def _k_hist(n: int):
    def make(rng: np.random.Generator) -> Launch:
        data = rng.integers(0, 1000, n).astype(np.uint32)
        hist = np.zeros(32, np.uint32)
        return Launch([hist, data, n], {"data": data, "hist": hist})

    return make


kcase(
    name="hist_merge",
    cls="shared-race",
    bug="shared-atomic histogram merged with no barrier after the atomics",
    check="shared-race",
    error="RaceError",
    grid=2,
    block=128,
    make=_k_hist(1000),
    ref=lambda h: {"hist": np.bincount(h["data"] % 32, minlength=32).astype(np.uint32)},
)
kcase(
    name="ballot_mask",
    cls="warp",
    bug="ballot with the half-warp mask 0x0000ffff executed by all 32 lanes",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    grid=2,
    block=128,
    make=_out_x(256, 256, out_dtype=np.uint32),
    ref=_half_pos_ref,
)
kcase(
    name="syncwarp_branch",
    cls="warp",
    bug="syncwarp() (full mask) inside a `laneid < 16` branch",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    grid=2,
    block=64,
    make=_out_x(128, 128),
    ref=_half_reverse_ref,
)
kcase(
    name="shfl_tail",
    cls="warp",
    bug="full-mask shfl_xor inside the `i < n` tail guard",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    grid=3,
    block=128,
    make=_out_x(384, 48, 300),
    ref=_group8_ref,
    rtol=1e-5,
    atol=1e-5,
)
kcase(
    name="persistent_exit",
    cls="barrier",
    bug="persistent tile loop: threads past the last row return before the tile's barrier",
    check="barrier-divergence",
    error="BarrierError",
    grid=2,
    block=128,
    make=_out_x(333, 333, 333),
    ref=lambda h: {"out": _pair_ref({"x": h["x"]})["out"]},
)
kcase(
    name="named_count",
    cls="barrier",
    bug="consumers-only named barrier given the producer+consumer count (128 instead of 96)",
    check="barrier-count",
    error="BarrierError",
    grid=2,
    block=128,
    make=_out_x(192, 2),
    ref=lambda h: {"out": (2 * h["x"].reshape(2, 96).astype(np.float64)).sum(axis=1).astype(np.float32)},
    rtol=1e-5,
    atol=1e-5,
)


def _halo_ref(h: dict) -> dict:
    x = h["x"][:300]
    xp = np.concatenate([[0], x, [0]]).astype(np.float32)
    y = np.zeros(384, np.float32)
    y[:300] = xp[:-2] + np.float32(2) * xp[1:-1] + xp[2:]
    return {"out": y}


kcase(
    name="halo",
    cls="shared-race",
    bug="three-point stencil with a shared halo and no barrier before the neighbour reads",
    check="shared-race",
    error="RaceError",
    grid=3,
    block=128,
    make=_out_x(384, 384, 300),
    ref=_halo_ref,
)
kcase(
    name="release_stage",
    cls="mbarrier",
    bug="3-stage TMA ring: consumers release empty[(s + 1) % 3] after reading stage s",
    check="mbarrier-stage-mismatch",
    error=CLEAN,
    arch="sm_90a",
    grid=2,
    block=128,
    make=_k_colsum(2, 8),
    ref=_colsum_ref,
    rtol=1e-4,
    atol=1e-4,
    notes="latent, not observable: the producer's refill of stage 0 waits for the release that follows the "
    "read of stage 2, i.e. for the whole previous round, so no refill can overlap a read (every interleaving); "
    "an H100 ran it correctly (tests/asyncsuite/gpu.py, 3 of 3 runs; racecheck 0 hazards)",
)
kcase(
    name="cp_async_commit",
    cls="cp.async",
    bug="cp_async without cp_async_commit before cp_async_wait(0)",
    check="async-unwaited",
    error="AsyncRaceError",
    grid=2,
    block=128,
    make=_out_x(256, 256),
    ref=lambda h: {"out": np.roll(h["x"].reshape(2, 128), -1, axis=1).reshape(-1)},
)


def _k_epilogue(nblk: int, ntiles: int):
    def make(rng: np.random.Generator) -> Launch:
        x, y = f32(rng, 32 * ntiles, 16 * nblk), zeros(32 * ntiles, 16 * nblk)
        return Launch([x, tensormap(y, 32, 16), 16 * nblk, ntiles], {"x": x, "y": y})

    return make


kcase(
    name="tma_store_reuse",
    cls="tma",
    bug="TMA-store epilogue loop rewrites its staging tile without tma_store_wait for the previous store",
    check="async-overwrite",
    error="RaceError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_k_epilogue(2, 3),
    ref=lambda h: {"y": 2 * h["x"] + np.repeat(np.arange(3, dtype=np.float32), 32)[:, None]},
)
kcase(
    name="mbar_reinit",
    cls="mbarrier",
    bug="mbarrier re-initialised (new count) for a second use without mbarrier_inval",
    check="mbarrier-reuse",
    error="MbarrierReuseError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_k_colsum(2, None),
    ref=lambda h: {"out": (2 * h["x"].astype(np.float64).sum(axis=0)).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
)


# ============================================================================= more CUDA shapes (breadth)
case(
    name="cpa_leader_only_wait",
    lang="cuda",
    cls="cp.async",
    bug="only thread 0 executes cp.async.wait_all before the barrier (a wait covers the waiting thread's copies)",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_80",
    grid=2,
    block=64,
    make=lambda rng: (lambda x, y: Launch([x, y], {"x": x, "y": y}))(f32(rng, 2, 256), zeros(2, 256)),
    ref=lambda h: {"y": h["x"][:, ::-1].copy()},
)


def _gemv(rows: int, k: int):
    def make(rng: np.random.Generator) -> Launch:
        x, w, y = f32(rng, rows, k), f32(rng, k), zeros(rows)
        return Launch([x, w, y, k], {"x": x, "w": w, "y": y})

    return make


case(
    name="cpa_triton_prefetch_stage",
    lang="cuda",
    cls="cp.async",
    bug="Triton-like 3-stage cp.async pipeline (global_smem offsets, zero-fill masks) prefetches into the "
    "stage the step reads",
    check="async-unwaited",
    error="AsyncRaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_gemv(8, 70),
    ref=lambda h: {"y": (h["x"].astype(np.float64) @ h["w"]).astype(np.float32)},
    dynamic_smem=3 * 512 + 3 * 128,
    rtol=1e-4,
    atol=1e-4,
)
case(
    name="mbar_stale_token",
    lang="cuda",
    cls="mbarrier",
    bug="sm_80 token wait: the mbarrier.arrive token is taken once before the loop and reused by "
    "mbarrier.test_wait in every step",
    check="mbarrier-phase",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_ring(2, 5),
    ref=lambda h: {"out": np.roll(h["x"], -1, axis=2).sum(axis=1)},
    rtol=1e-4,
    atol=1e-4,
)


def _strip(ntiles: int, ncols: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, 32 * ntiles, 96), zeros(96)
        return Launch([tensormap(x, 32, 96), out, ntiles, ncols], {"x": x, "out": out})

    return make


def _strip_ref(h: dict) -> dict:
    out = np.zeros(96, np.float32)
    out[:64] = h["x"][:, :64].astype(np.float64).sum(axis=0)
    return {"out": out}


case(
    name="mbar_exit_without_drop",
    lang="cuda",
    cls="mbarrier",
    bug="an idle consumer warp returns without mbarrier.arrive_drop on the `empty` barriers counting it",
    check="mbarrier-arrival-mismatch",
    error="DeadlockError",
    arch="sm_90a",
    grid=1,
    block=128,
    make=_strip(5, 64),
    ref=_strip_ref,
    rtol=1e-4,
    atol=1e-4,
)
case(
    name="mbar_init_off_by_one",
    lang="cuda",
    cls="mbarrier",
    bug="Triton-like global_smem layout: the mbarrier init loop stops one stage short (`< NUM_STAGES - 1`)",
    check="mbarrier-uninitialized",
    error="mbarrier-uninit",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_colsum(2, 7),
    ref=_colsum_ref,
    dynamic_smem=3 * 2048 + 64,
    rtol=1e-4,
    atol=1e-4,
)


def _tile_colsum32(nblk: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, 32 * nblk, 32), zeros(32 * nblk)
        return Launch([tensormap(x, 32, 32), out], {"x": x, "out": out})

    return make


case(
    name="tma_all_threads_issue",
    lang="cuda",
    cls="tma",
    bug="the TMA copy is not guarded: all 128 threads issue it against one thread's expect_tx",
    check="mbarrier-tx-mismatch",
    error="AsyncRaceError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_tile_colsum32(2),
    ref=lambda h: {
        "out": h["x"].reshape(2, 32, 32).astype(np.float64).sum(axis=1).reshape(-1).astype(np.float32)
    },
    rtol=1e-4,
    atol=1e-4,
)
case(
    name="race_dyn_smem_overlap",
    lang="cuda",
    cls="shared-race",
    bug="two arrays carved from dynamic shared memory overlap (offset in bytes, not floats)",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=128,
    make=lambda rng: (lambda x, y: Launch([x, y], {"x": x, "out": y}))(f32(rng, 256), zeros(256)),
    ref=lambda h: {"out": (h["x"] - h["x"] * h["x"]).reshape(2, 128)[:, ::-1].reshape(-1)},
    dynamic_smem=1024,
)


def _int_rows(nrows: int):
    def make(rng: np.random.Generator) -> Launch:
        x, out = rng.integers(-4, 5, (nrows, 256)).astype(np.float32), zeros(nrows, 256)
        return Launch([x, out, nrows], {"x": x, "out": out})

    return make


case(
    name="race_persistent_reset",
    lang="cuda",
    cls="shared-race",
    bug="persistent loop: thread 0 resets the shared row accumulator in the barrier interval in which the "
    "other threads read it",
    check="shared-race",
    error="RaceError",
    arch="sm_80",
    grid=2,
    block=256,
    make=_int_rows(5),
    ref=lambda h: {"out": h["x"] - h["x"].sum(axis=1, keepdims=True) / np.float32(256)},
)


def _weighted(rng: np.random.Generator) -> Launch:
    x = f32(rng, 256)
    w = rng.integers(0, 100, 256).astype(np.uint32)
    out = np.full(8, 7, np.uint32)
    return Launch([x, w, out, 0.5], {"x": x, "w": w, "out": out})


case(
    name="warp_redux_divergent",
    lang="cuda",
    cls="warp",
    bug="__reduce_add_sync (redux.sync) with the full mask inside a data-dependent branch",
    check="warp-sync-divergence",
    error="CollectiveMaskError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_weighted,
    ref=lambda h: {"out": np.where(h["x"] > 0.5, h["w"], 0).reshape(8, 32).sum(axis=1).astype(np.uint32)},
)


def _csr(rng: np.random.Generator) -> Launch:
    v = f32(rng, 256, 8)
    length = rng.integers(0, 9, 256).astype(np.int32)
    out = zeros(256)
    return Launch([v, length, out, 8], {"v": v, "len": length, "out": out})


def _csr_ref(h: dict) -> dict:
    v, n = h["v"].astype(np.float64), h["len"]
    out = np.zeros(256)
    for r in range(256):
        p = r ^ 1
        for k in range(n[r]):
            out[r] += 0.5 * (v[r, k] + (v[p, k] if k < n[p] else 0.0))
    return {"out": out.astype(np.float32)}


case(
    name="bar_data_dependent_loop",
    lang="cuda",
    cls="barrier",
    bug="__syncthreads inside a loop whose trip count is the thread's own (loaded) row length",
    check="barrier-divergence",
    error="BarrierError",
    arch="sm_80",
    grid=2,
    block=128,
    make=_csr,
    ref=_csr_ref,
    rtol=1e-5,
    atol=1e-5,
)


def _lagged(nblk: int, ntiles: int):
    """x: (8 ntiles) x (32 nblk) rows through 8x32 TMA boxes; out[c]: the column's summed |row difference|."""

    def make(rng: np.random.Generator) -> Launch:
        x, out = f32(rng, 8 * ntiles, 32 * nblk), zeros(32 * nblk)
        return Launch([tensormap(x, 8, 32), out, ntiles], {"x": x, "out": out})

    return make


case(
    name="tma_tx_prefetch_ring",
    lang="cuda",
    cls="tma",
    bug="a 2-stage TMA ring's issue helper (run before the loop and as its prefetch) announces one of the step's two tiles",
    check="mbarrier-tx-mismatch",
    error="AsyncRaceError",
    arch="sm_90a",
    grid=2,
    block=128,
    make=_coldot(2, 4),
    ref=lambda h: {"out": (h["a"].astype(np.float64) * h["b"]).sum(axis=0).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
)

case(
    name="tma_tx_lagged_rows",
    lang="cuda",
    cls="tma",
    bug="expect_tx announces half of each 3-stage ring tile (the twin also reads the previous stage's last row)",
    check="mbarrier-tx-mismatch",
    error="DeadlockError",
    arch="sm_90a",
    grid=2,
    block=32,
    make=_lagged(2, 5),
    ref=lambda h: {"out": np.abs(np.diff(h["x"].astype(np.float64), axis=0)).sum(axis=0).astype(np.float32)},
    rtol=1e-4,
    atol=1e-4,
)
