"""`mbarrier-tx-mismatch` for a copy every thread issues (the `if (threadIdx.x == 0)` forgotten): N
identical copies complete N boxes on a barrier whose announcement covers fewer. The box is the host's,
so the rule compares thread counts, not bytes. Near misses stay silent: the guarded copy, copies whose
operands differ per thread (each warp its own tile), and announcements made by as many threads."""

from __future__ import annotations

import pytest

from irc.compiler import check_kdsl

KERNEL = """
@launch(block = 128)
kernel tile_sum(out: *global f32, map: tensormap<f32; 8, 32>) {{
    shared tile: [f32; 4, 8, 32] align 128;
    shared bar: [mbarrier; 1];
    if tid.x == 0 {{
        mbarrier_init(&bar[0], {count});
        fence_mbarrier_init();
    }}
    barrier();
{issue}
    mbarrier_wait(&bar[0], 0);
    if tid.x < 32 {{
        out[ctaid.x * 32 + tid.x] = tile[0, 0, tid.x] + tile[3, 7, tid.x];
    }}
}}
"""

ANNOUNCE_ONE = "    if tid.x == 0 {{ mbarrier_arrive_expect_tx(&bar[0], {bytes}); }}\n"


def _tx(issue: str, count: int = 1) -> list:
    src = KERNEL.format(issue=issue, count=count)
    return [d for d in check_kdsl(src, "k.kdsl", arch="sm_90a") if d.check == "mbarrier-tx-mismatch"]


COPY = "tma_load(&tile[0, 0, 0], map, [(ctaid.x * 32) as i32, 0], &bar[0]);"
WARP_COPY = (
    "tma_load(&tile[tid.x / 32, 0, 0], map, [(ctaid.x * 32) as i32, (tid.x / 32 * 8) as i32], &bar[0]);"
)


@pytest.mark.parametrize(
    "issue,count,bad",
    [
        (ANNOUNCE_ONE.format(bytes=1024) + "    " + COPY, 1, True),  # all 128 threads copy one box
        (ANNOUNCE_ONE.format(bytes=1024) + "    if tid.x == 0 { " + COPY + " }", 1, False),
        # one elected lane per warp copies its warp's own tile: four different copies, 4 KiB announced
        (ANNOUNCE_ONE.format(bytes=4096) + "    if elect_one() { " + WARP_COPY + " }", 1, False),
        # ... the same four lanes issuing one box each: four identical copies
        (ANNOUNCE_ONE.format(bytes=1024) + "    if elect_one() { " + COPY + " }", 1, True),
        # every thread announces its own copy's bytes (wasteful, but each copy is announced)
        ("    mbarrier_arrive_expect_tx(&bar[0], 1024);\n    " + COPY, 128, False),
    ],
)
def test_copies_issued_by_many_threads(issue: str, count: int, bad: bool) -> None:
    found = _tx(issue, count)
    dup = [d for d in found if "threads issue the same copy" in d.message]
    assert bool(dup) == bad, [d.message for d in found]
    if bad:
        n = "128" if "elect_one" not in issue else "4"
        assert dup[0].message.startswith(f"{n} threads issue the same copy")
        assert dup[0].witness is not None
