"""`barrier-count`: a named barrier's thread count against the warps that reach its instructions (the
suite's `bar_named_wrong_count` and `named_count` are the CUDA and .kdsl bugs; these are the near misses)."""

from __future__ import annotations

import pytest

from irc.compiler import check_kdsl

WS = """
@launch(block = 128)
kernel ws(out: *global f32, x: *global f32, k: u32) {
    shared staged: [f32; 96];
    if tid.x < 32 {
        for j in [0, 32, 64] { staged[tid.x + j] = x[tid.x + j]; }
        barrier(1, C1);
    } else {
        barrier(1, C1);
        if GUARD {
            barrier(2, C2);
        }
        out[tid.x] = staged[tid.x - 32];
    }
}
"""


def _findings(c1: int = 128, c2: int = 96, guard: str = "true") -> list:
    src = WS.replace("C1", str(c1)).replace("C2", str(c2)).replace("GUARD", guard)
    return [d for d in check_kdsl(src, "ws.kdsl") if d.check == "barrier-count"]


def test_counts_that_match_the_warps_are_clean() -> None:
    assert _findings() == []


@pytest.mark.parametrize(
    "c2,words",
    [
        (128, "only 96 threads (warps 1..3) ever arrive"),
        (64, "the last 32 threads wait for a phase that never completes"),
    ],
)
def test_a_count_other_than_the_arriving_warps_is_reported(c2: int, words: str) -> None:
    (d,) = _findings(c2=c2)
    assert f"named barrier 2 expects {c2} threads" in d.message and words in d.message
    assert d.span.line == 11 and "(96)" in (d.help or "")
    assert d.witness is not None and "threads 0..31 of block (0, 0, 0)" not in d.witness["text"]
    assert "never reach barrier 2" in d.witness["text"]


def test_producer_arrive_and_consumer_sync_are_summed() -> None:
    """Barrier 1 is `bar.arrive` by warp 0 and `bar.sync` by warps 1..3: 128. Near miss: 96 is wrong
    (one phase of 96, then 32 threads wait forever); 64 divides 128 (two whole phases, nothing hangs)."""
    (d,) = _findings(c1=96)
    assert "named barrier 1 expects 96 threads, but 128 threads (warps 0..3) arrive" in d.message
    assert _findings(c1=64) == []


def test_a_block_uniform_guard_is_taken_and_a_per_thread_one_is_not_judged() -> None:
    """`if k > 3`: every thread of the block takes the same side, and on the side with the barrier the
    three consumer warps reach it, so 128 hangs (reported). `if tid.x < k`: which warps reach it depends
    on `k` thread by thread: not decided, so not reported (a count of 128 is wrong for some k only)."""
    assert len(_findings(c2=128, guard="k > 3")) == 1
    assert _findings(c2=128, guard="tid.x < k") == []
