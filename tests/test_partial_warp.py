"""A full-mask warp collective in the block's last, partial warp (a block of 80 threads: warp 2 has 16
lanes). The suite's `warp_shfl_partial_warp` is the CUDA bug; these are the .kdsl shapes and near misses."""

from __future__ import annotations

import pytest

from irc.compiler import check_kdsl

SRC = """
@launch(block = BLOCK)
kernel sums(out: *global f32, x: *global f32) {
    var v = x[ctaid.x * BLOCK + tid.x];
    if GUARD {
        for d in [16, 8, 4, 2, 1] {
            v += shfl_down(v, d);
        }
    }
    if tid.x % 32 == 0 {
        out[ctaid.x * 4 + tid.x / 32] = v;
    }
}
"""


def _found(block: int, guard: str = "true") -> list:
    src = SRC.replace("BLOCK", str(block)).replace("GUARD", guard)
    return [d for d in check_kdsl(src, "sums.kdsl") if d.check == "warp-sync-divergence"]


def test_full_mask_in_the_partial_last_warp_is_reported() -> None:
    (d,) = _found(80)
    assert "only 16 lanes (a block of 80 threads)" in d.message and "0x0000ffff" in (d.help or "")
    assert d.witness is not None and "lanes 16..31 do not exist" in d.witness["text"]


@pytest.mark.parametrize(
    "block,guard",
    [
        (96, "true"),  # a multiple of 32: every warp is whole
        (80, "tid.x < 64"),  # the partial warp never gets there (warp-uniform guard)
    ],
)
def test_near_misses_are_clean(block: int, guard: str) -> None:
    assert _found(block, guard) == []
