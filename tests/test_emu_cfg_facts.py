"""The emulator's block structure comes from the PTX facts (`irc.ptxisa.facts`), not from opcode prefixes:
terminators and barrier waits end a block, mbarrier wait tests start one; a barrier's arrive half, a warp
barrier and a cluster arrive do not park the thread."""

from __future__ import annotations

import pytest

from irc.emu.cfg import ends_block, is_barrier, starts_block
from irc.ptxisa.facts import opcode_info
from irc.ptxisa.model import Instr

ENDS = ["bra", "bra.uni", "ret", "exit", "trap", "brkpt", "bar.sync", "barrier.sync.aligned", "bar.red.popc.u32",
        "barrier.cta.sync", "barrier.cluster.wait", "barrier.cluster.wait.aligned"]  # fmt: skip
NOT_ENDS = ["bar.arrive", "barrier.cluster.arrive", "bar.warp.sync", "add.s32", "mbarrier.try_wait.parity.shared.b64",
            "call", "membar.gl"]  # fmt: skip


@pytest.mark.parametrize("opcode", ENDS)
def test_ends_block(opcode: str) -> None:
    assert ends_block(Instr(opcode))
    f = opcode_info(opcode)
    assert f.terminator or f.parks


@pytest.mark.parametrize("opcode", NOT_ENDS)
def test_does_not_end_block(opcode: str) -> None:
    assert not ends_block(Instr(opcode)) and not is_barrier(Instr(opcode))


@pytest.mark.parametrize(
    ("opcode", "want"),
    [("mbarrier.try_wait.parity.shared::cta.b64", True), ("mbarrier.test_wait.shared.b64", True),
     ("mbarrier.arrive.shared.b64", False), ("bar.sync", False)],
)  # fmt: skip
def test_starts_block(opcode: str, want: bool) -> None:
    assert starts_block(Instr(opcode)) is want
