"""Precision of the mbarrier protocol checks: each rule next to its near miss (a correct variant that
differs in one detail must stay silent), on small .kdsl kernels."""

from __future__ import annotations

from pathlib import Path

import pytest

from irc.compiler import check_kdsl

LOOP = """
@launch(block = 128)
kernel k(out: *global f32, map: tensormap<f32; 32, 16>, n: u32) {{
    shared tiles: [f32; {stages}, 32, 16] align 128;
    shared full: [mbarrier; {stages}];
    if tid.x == 0 {{
        for s in 0..{stages} {{ mbarrier_init(&full[s], {count}); }}
        fence_mbarrier_init();
    }}
    barrier();
    var acc: f32 = 0.0;
    for k in 0..n {{
        let s = k % {stages};
        if {who} {{
            mbarrier_arrive_expect_tx(&full[s], 2048);
            tma_load(&tiles[s, 0, 0], map, [(k * 32) as i32, 0], &full[s]);
        }}
        mbarrier_wait(&full[s], {parity});
        if tid.x < 16 {{ acc = acc + tiles[s, 0, tid.x]; }}
        barrier();
    }}
    if tid.x < 16 {{ out[tid.x] = acc; }}
}}
"""


def _checks(src: str, arch: str = "sm_100a") -> list[str]:
    return sorted(d.check for d in check_kdsl(src, "k.kdsl", arch=arch) if d.check != "unsupported-target")


@pytest.mark.parametrize(
    "stages,count,who,parity,want",
    [
        (1, 1, "tid.x == 0", "k % 2", []),
        (1, 1, "tid.x == 0", "0", ["mbarrier-phase"]),
        (1, 1, "tid.x == 0", "(k + 1) % 2 + k % 2 - 1", ["mbarrier-phase"]),  # always 0, computed
        (2, 1, "tid.x == 0", "(k / 2) % 2", []),
        (2, 1, "tid.x == 0", "k % 2", ["mbarrier-phase"]),
        (3, 1, "tid.x == 0", "k % 2", []),  # odd stage count: k % 2 happens to flip per use of a stage
        (4, 1, "tid.x == 0", "(k / 4) % 2", []),
        (1, 2048, "tid.x == 0", "k % 2", ["mbarrier-arrival-mismatch"]),
        (1, 32, "tid.x < 32", "k % 2", []),
        (1, 64, "tid.x < 32", "k % 2", ["mbarrier-arrival-mismatch"]),
        (1, 1, "tid.x < 32", "k % 2", ["mbarrier-arrival-mismatch"]),
        (1, 4, "elect_one()", "k % 2", []),  # one elected lane in each of the 4 warps
        (1, 1, "elect_one()", "k % 2", ["mbarrier-arrival-mismatch"]),
    ],
)
def test_loop_protocol(stages: int, count: int, who: str, parity: str, want: list[str]) -> None:
    src = LOOP.format(stages=stages, count=count, who=who, parity=parity)
    assert _checks(src) == want


ONE_SHOT = """
@launch(block = 128)
kernel k(out: *global f32, map: tensormap<f32; 32, 16>, n: u32) {
    shared tile: [f32; 32, 16] align 128;
    shared ready: mbarrier;
    if tid.x == 0 { mbarrier_init(&ready, 1); fence_mbarrier_init(); }
    barrier();
    if tid.x == 0 {
        mbarrier_arrive_expect_tx(&ready, 2048);
        tma_load(&tile[0, 0], map, [0, 0], &ready);
    }
    var acc: f32 = 0.0;
    for k in 0..n {
        mbarrier_wait(&ready, 0); // the barrier completes once: every iteration waits on that phase
        if tid.x < 16 { acc = acc + tile[k % 32, tid.x]; }
    }
    if tid.x < 16 { out[tid.x] = acc; }
}
"""


def test_fixed_parity_on_a_barrier_completed_once_is_fine() -> None:
    assert _checks(ONE_SHOT) == []


def test_no_init_at_all_is_reported() -> None:
    src = ONE_SHOT.replace("if tid.x == 0 { mbarrier_init(&ready, 1); fence_mbarrier_init(); }", "")
    assert _checks(src) == ["mbarrier-uninitialized"]


def test_init_without_barrier_is_reported_with_barrier_is_not() -> None:
    no_bar = ONE_SHOT.replace("fence_mbarrier_init(); }\n    barrier();", "fence_mbarrier_init(); }")
    assert "mbarrier-uninitialized" in _checks(no_bar)


CP = """
@launch(block = 128)
kernel k(x: *global f32, y: *global f32, n: u32) {{
    shared buf: [f32; 2, 128];
    cp_async(&buf[0, tid.x], &x[tid.x], 4);
    cp_async_commit();
    var acc: f32 = 0.0;
    for i in 0..n {{
        cp_async(&buf[(i + 1) % 2, tid.x], &x[(i + 1) * 128 + tid.x], 4);
        cp_async_commit();
        cp_async_wait({n_wait});
        barrier();
        acc = acc + buf[i % 2, 127 - tid.x];
        barrier();
    }}
    y[tid.x] = acc;
}}
"""


@pytest.mark.parametrize("n_wait", [0, 1])
def test_double_buffered_cp_async_is_clean(n_wait: int) -> None:
    assert _checks(CP.format(n_wait=n_wait), "sm_80") == []


GEMM = (Path(__file__).parent.parent / "examples" / "tma_gemm_sm100.kdsl").read_text()


@pytest.mark.parametrize(
    "old,new,want",
    [
        ("", "", []),
        ("mbarrier_wait(&full[s], (kt / 2) % 2);", "", ["async-unwaited"]),  # MMA role reads stage in flight
        ("    mbarrier_wait(&done, 0);\n", "", ["async-unwaited"]),  # epilogue reads TMEM before the commit
        ("mbarrier_wait(&full[s], (kt / 2) % 2);", "mbarrier_wait(&full[s], 0);", ["mbarrier-phase"]),
        (
            "mbarrier_wait(&empty[s], (kt / 2 - 1) % 2);",
            "mbarrier_wait(&empty[s], kt % 2);",
            ["mbarrier-phase"],
        ),
    ],
)
def test_warp_specialised_gemm_mutants(old: str, new: str, want: list[str]) -> None:
    src = GEMM.replace(old, new) if old else GEMM
    assert src != GEMM or not old
    assert _checks(src) == want
