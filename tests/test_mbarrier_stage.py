"""`mbarrier-stage-mismatch`: a ring consumer that releases a stage it does not hold, next to the near
misses that must stay silent (the release of the stage it read, a release that lags one stage behind
the wait, two roles releasing one stage in one iteration, a stage acquired before the loop)."""

from __future__ import annotations

import pytest

from irc.compiler import check_kdsl

RING = """
@launch(block = 128)
kernel ring(out: *global f32, map: tensormap<f32; 32, 16>, ntiles: u32) {{
    shared tiles: [f32; 3, 32, 16] align 128;
    shared full: [mbarrier; 3];
    shared empty: [mbarrier; 3];
    if tid.x == 0 {{
        for s in 0..3 {{
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], 96);
        }}
        fence_mbarrier_init();
    }}
    barrier();
    if tid.x / 32 == 0 {{
        if elect_one() {{
            for k in 0..ntiles {{
                let s = k % 3;
                if k >= 3 {{
                    mbarrier_wait(&empty[s], (k / 3 - 1) % 2);
                }}
                mbarrier_arrive_expect_tx(&full[s], 2048);
                tma_load(&tiles[s, 0, 0], map, [(k * 32) as i32, (ctaid.x * 16) as i32], &full[s]);
            }}
        }}
    }} else {{
        let c = tid.x - 32;
        var acc = 0.0;
{before}
        for k in 0..ntiles {{
            let s = k % 3;
            mbarrier_wait(&full[s], (k / 3) % 2);
            if c < 16 {{
                acc += tiles[s, 0, c];
            }}
{release}
        }}
{after}
        if c < 16 {{
            out[ctaid.x * 16 + c] = acc;
        }}
    }}
}}
"""

CHECK = "mbarrier-stage-mismatch"


def _findings(release: str, before: str = "", after: str = "") -> list:
    src = RING.format(release=release, before=before, after=after)
    return [d for d in check_kdsl(src, "ring.kdsl", arch="sm_90a") if d.check == CHECK]


@pytest.mark.parametrize(
    "release,after,bad",
    [
        ("mbarrier_arrive(&empty[s]);", "", False),
        ("mbarrier_arrive(&empty[(s + 1) % 3]);", "", True),
        ("mbarrier_arrive(&empty[(s + 2) % 3]);", "", True),
        ("mbarrier_arrive(&empty[0]);", "", False),  # one element only: not a ring the check can index
        # the CUTLASS lag: stage k - 1 is released in iteration k, after the wait for stage k
        ("if k > 0 { mbarrier_arrive(&empty[(k - 1) % 3]); }", "", False),
        # the same lag without its guard: iteration 0 releases stage 2, which nobody acquired
        ("mbarrier_arrive(&empty[(k + 2) % 3]);", "", True),
        # two roles release the same stage in one iteration: one release, not two
        ("if c < 48 { mbarrier_arrive(&empty[s]); } else { mbarrier_arrive(&empty[s]); }", "", False),
    ],
)
def test_release_against_acquire(release: str, after: str, bad: bool) -> None:
    found = _findings(release, after=after)
    assert bool(found) == bad, [d.message for d in found]
    if bad:
        lines = RING.format(release=release, before="", after=after).split("\n")
        want = next(i for i, x in enumerate(lines, 1) if release in x)
        assert found[0].span is not None and found[0].span.line == want
        assert found[0].witness is not None and "iteration" in found[0].witness["text"]


def test_release_of_the_next_stage_names_iteration_and_elements() -> None:
    (d,) = _findings("mbarrier_arrive(&empty[(s + 1) % 3]);")
    assert "iteration 0" in d.message and "`empty[1]`" in d.message and "`full[1]`" in d.message
    assert d.witness["iterations"] and set(d.witness["iterations"].values()) == {0}
    assert any("acquired stage 0" in lab.message for lab in d.labels)


def test_a_stage_acquired_before_the_loop_is_not_judged() -> None:
    """A wait on `full` before the loop (a peeled first iteration) may hand the loop a stage: walking
    the loop from an empty hand would be a guess, so the check stays silent even for a wrong-looking
    release."""
    before = "        mbarrier_wait(&full[0], 0);"
    assert _findings("mbarrier_arrive(&empty[(s + 1) % 3]);", before=before) == []


def test_a_producer_that_skips_its_first_round_starts_holding_every_stage() -> None:
    """sm_80 style: the producer stores the tile itself and arrives on `full[s]` (a plain arrival, like a
    release), waiting on `empty[s]` only from the second round on. Its first releases come before any
    acquisition because the ring starts empty: no finding. The consumer's wrong release is still found."""
    producer = """                if k >= 3 {
                    mbarrier_wait(&empty[s], (k / 3 - 1) % 2);
                }
                mbarrier_arrive_expect_tx(&full[s], 2048);
                tma_load(&tiles[s, 0, 0], map, [(k * 32) as i32, (ctaid.x * 16) as i32], &full[s]);"""
    plain = """                if k >= 3 {
                    mbarrier_wait(&empty[s], (k / 3 - 1) % 2);
                }
                tiles[s, 0, 0] = 1.0;
                mbarrier_arrive(&full[s]);"""
    for release, bad in (
        ("mbarrier_arrive(&empty[s]);", False),
        ("mbarrier_arrive(&empty[(s + 1) % 3]);", True),
    ):
        text = RING.format(release=release, before="", after="")
        assert producer in text
        text = text.replace(producer, plain)
        found = [d for d in check_kdsl(text, "ring.kdsl", arch="sm_90a") if d.check == CHECK]
        assert bool(found) == bad, [d.message for d in found]
