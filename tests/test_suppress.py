"""`// irc: allow(...)` comments (spec section 7): own line and next line, named checks only, .kdsl and .ptx."""

from __future__ import annotations

from irc.diagnostics import Span, error, warning
from irc.tooling.suppress import Suppressions, filter

KDSL = """\
kernel k(x: ptr<f32>) {
    let d = m - m; // irc: allow(self-cancel)
    // irc: allow(barrier-divergence, warp-sync-divergence) reviewed: every thread arrives
    barrier();
    barrier();
    let e = m - m;
}
"""

PTX = """\
.visible .entry k()
{
  // irc: allow(barrier-divergence)
  bar.sync 0;
  bar.sync 0;
  ret;
}
"""


def test_own_line_and_next_line_only() -> None:
    sup = Suppressions.from_source(KDSL)
    assert sup.allows("self-cancel", 2)  # trailing comment, own line
    assert sup.allows("self-cancel", 3)  # next line
    assert not sup.allows("self-cancel", 4)
    assert not sup.allows("self-cancel", 6)
    assert not sup.allows("self-cancel", 1)  # not the line before
    assert sup.allows("barrier-divergence", 4) and sup.allows("warp-sync-divergence", 4)
    assert not sup.allows("barrier-divergence", 5)  # two lines below the comment


def test_only_named_checks() -> None:
    sup = Suppressions.from_source("x // irc: allow(all)\ny // irc: allow(self-cancel)\n")
    assert not sup.allows("barrier-divergence", 1)  # `all` is not a wildcard
    assert not sup.allows("uninitialized", 2)
    assert sup.allows("self-cancel", 2)


def test_ptx_text() -> None:
    sup = Suppressions.from_source(PTX)
    assert sup.allows("barrier-divergence", 4)
    assert not sup.allows("barrier-divergence", 5)


def test_spacing_variants_and_malformed_names() -> None:
    sup = Suppressions.from_source(
        "a //irc:allow( self-cancel ,uninitialized )\nb // irc: allow(bad name, )\n"
    )
    assert sup.allows("self-cancel", 1) and sup.allows("uninitialized", 2)
    assert sup.malformed == [(2, "bad name")]
    assert not Suppressions.from_source("// irc allow(self-cancel)\n")  # missing colon: not a suppression
    assert not Suppressions.from_source("let irc = 1;\n")


def test_filter_keeps_order_and_unlocatable_diagnostics() -> None:
    d_cancel = error("self-cancel", "m - m", Span("k.kdsl", 2, 13, 2, 18))
    d_bar1 = error("barrier-divergence", "b", Span("k.kdsl", 4, 5, 4, 14))
    d_bar2 = error("barrier-divergence", "b", Span("k.kdsl", 5, 5, 5, 14))
    d_cancel2 = warning("self-cancel", "m - m", Span("k.kdsl", 6, 13, 6, 18))
    d_nospan = error("self-cancel", "no span", None)
    d_other = error("self-cancel", "unknown file", Span("other.kdsl", 2, 1, 2, 2))
    d_ptx = error("barrier-divergence", "ptx", Span("k.ptx", 4, 3, 4, 13))
    diags = [d_cancel, d_bar1, d_bar2, d_cancel2, d_nospan, d_other, d_ptx]
    kept = filter(diags, {"k.kdsl": KDSL, "k.ptx": PTX})
    assert kept == [d_bar2, d_cancel2, d_nospan, d_other]
