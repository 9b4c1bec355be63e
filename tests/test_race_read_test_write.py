"""`shared-race` on a read-test-write of one shared location (`if v > s_max { s_max = v; }`): the guard
depends on loaded data, which the race question otherwise leaves alone, but here the data is the
contested location itself. Next to it, the near misses that must stay silent: the same update by one
thread, the atomic, and a guard on other loaded data (not judged: a data invariant may keep the
threads apart)."""

from __future__ import annotations

import pytest

from irc.compiler import check_kdsl

KERNEL = """
@launch(block = 128)
kernel block_max(x: *global f32, out: *global f32, n: u32) {{
    shared s_max: [f32; 1];
    shared s_hits: [u32; 1];
    if tid.x == 0 {{
        s_max[0] = -1.0e30;
        s_hits[0] = 0;
    }}
    barrier();
    var v = -1.0e30;
    var i = tid.x;
    while i < n {{
        v = max(v, x[ctaid.x * n + i]);
        i += 128;
    }}
{update}
    barrier();
    if tid.x == 0 {{
        out[ctaid.x] = s_max[0];
    }}
}}
"""


def _races(update: str) -> list:
    src = KERNEL.format(update=update)
    return [d for d in check_kdsl(src, "k.kdsl", arch="sm_80") if d.check == "shared-race"]


@pytest.mark.parametrize(
    "update,racy",
    [
        ("    if v > s_max[0] { s_max[0] = v; }", True),
        # one thread updates: no second writer, and nobody else reads the slot in the interval
        ("    if tid.x == 0 { if v > s_max[0] { s_max[0] = v; } }", False),
        # the integer atomic on the hit counter: atomics against atomics are not a race
        ("    if v > 0.0 { atomic_add(&s_hits[0], 1); }", False),
        # the guard reads other per-thread data (global), not the slot: not judged (silent, not a guess:
        # the host may guarantee that one element passes)
        ("    if x[ctaid.x * n + tid.x] > 100.0 { s_max[0] = v; }", False),
        # ... while a guard on block-uniform data lets every thread through together: a race
        ("    if x[ctaid.x * n] > 0.0 { s_max[0] = v; }", True),
    ],
)
def test_read_test_write(update: str, racy: bool) -> None:
    found = _races(update)
    assert bool(found) == racy, [d.message for d in found]
    if racy:
        d = found[0]
        assert "s_max" in d.message and d.witness is not None and d.witness["threads"]
        lines = KERNEL.format(update=update).split("\n")
        assert d.span is not None and "s_max[0] = v" in lines[d.span.line - 1]


def test_the_read_test_write_is_what_admits_the_data_guard() -> None:
    """The first case's guard alone: without the slot in the condition it is the per-thread data case
    above, which stays silent; with the slot it is found by the solver (no per-thread evaluation can
    decide a guard on loaded data)."""
    assert _races("    if v > s_max[0] { s_max[0] = v; }")
    assert not _races("    if v > x[ctaid.x * n + tid.x] { s_max[0] = v; }")
