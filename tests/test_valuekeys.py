"""`irc.analysis.valuekeys`: the all-threads walk answers every `same_stored_values` question the way the
per-thread walk does.

The all-threads walk is an optimisation of the per-thread one (one key list per value for the whole block
instead of one recursion per thread and value); shared-race's silence on stores of one value rests on
these answers. Each question of the Triton kernels that ask the most of it is put to both walks."""

from __future__ import annotations

from pathlib import Path

import pytest

import irc.analysis.valuekeys as vk
from irc.compiler import check_ptx

PTX = Path(__file__).parent / "data" / "triton_suite" / "ptx"


def _check_both(name: str, monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, bool]]:
    """Check `name`, asking a per-thread-only twin each question too; (all-threads walk answered, answer)
    per question."""
    same = vk.ValueKeys.same
    twins: dict[int, vk.ValueKeys] = {}
    asked: list[tuple[bool, bool]] = []

    def both(self: vk.ValueKeys, vals, es, ea, ec) -> bool:  # type: ignore[no-untyped-def]
        twin = twins.get(id(self))
        if twin is None or twin.ev is not self.ev:
            twin = twins[id(self)] = vk.ValueKeys(self.ev, self.groups)
            twin.vec = False  # the per-thread walk only
        fast = self.vec
        r = same(self, vals, es, ea, ec)
        asked.append((fast and self.vec, r))
        assert same(twin, vals, es, ea, ec) == r
        return r

    monkeypatch.setattr(vk.ValueKeys, "same", both)
    path = PTX / f"{name}.ptx"
    check_ptx(path.read_text(), str(path))
    return asked


@pytest.mark.parametrize("name", ["argmax_rows.sm_80", "topk_rows.sm_90a", "attn_bwd_delta.sm_80"])
def test_all_threads_walk_answers_as_the_per_thread_walk(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _check_both(name, monkeypatch)
    assert any(fast for fast, _ in asked)  # the all-threads walk answered
    assert any(r for _, r in asked)  # and found stores of one value


def test_per_thread_walk_takes_over_with_a_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain longer than the all-threads walk vouches for hands the questions to the per-thread walk,
    which first replays those already answered (here forced by a bound of 28: topk_rows' chains are longer)."""
    assert vk.VEC_DEPTH * 2 + 1 < vk.MAX_DEPTH  # within the bound, the per-thread walk never cuts a chain
    monkeypatch.setattr(vk, "VEC_DEPTH", 28)
    replayed: list[int] = []
    to_scalar = vk.ValueKeys._to_scalar  # noqa: SLF001

    def counted(self: vk.ValueKeys) -> None:
        replayed.append(len(self._calls))  # noqa: SLF001
        to_scalar(self)

    monkeypatch.setattr(vk.ValueKeys, "_to_scalar", counted)
    asked = _check_both("topk_rows.sm_90a", monkeypatch)
    assert any(fast for fast, _ in asked) and any(replayed), replayed
