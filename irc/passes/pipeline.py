"""The default optimization pipeline the driver runs before the backend (and the analyzer after)."""

from __future__ import annotations

from irc.passes.addrfold import AddrFold
from irc.passes.addrsplit import AddrSplit
from irc.passes.boolarg import BoolArg
from irc.passes.constfold import ConstFold
from irc.passes.copyprop import CopyProp
from irc.passes.dce import DCE
from irc.passes.fdiv import FloatDiv
from irc.passes.gvn import GVN
from irc.passes.hoist import Hoist
from irc.passes.identities import Identities
from irc.passes.manager import Pass
from irc.passes.rangefold import RangeFold
from irc.passes.simplify_cfg import SimplifyCFG
from irc.passes.strength_reduce import StrengthReduce
from irc.passes.widemul import WideMul


def optimization_passes() -> list[Pass]:
    """Fresh pass instances in order: clean the CFG, fold and propagate, pass branch conditions for the
    boolean join arguments that restate them (short circuits with a folded side), reduce strength (which creates
    new constants and shifts to fold) and float division by powers of two,
    decide comparisons from launch bounds, hoist loop-invariant and guarded integer arithmetic, number
    values, widen address products (`mul.wide`), split constant offsets off addresses (hoisting
    and numbering the shared bases again), fold addresses, then remove what became dead."""
    return [
        SimplifyCFG(),
        ConstFold(),
        CopyProp(),
        BoolArg(),
        SimplifyCFG(),
        StrengthReduce(),
        FloatDiv(),
        ConstFold(),
        Identities(),
        RangeFold(),
        Hoist(),
        GVN(),
        WideMul(),
        AddrSplit(),
        Identities(),
        Hoist(),
        GVN(),
        AddrFold(),
        DCE(),
        BoolArg(),
        SimplifyCFG(),
        CopyProp(),
        DCE(),
    ]


def pass_names() -> list[str]:
    """The distinct pass names of the pipeline, in first-run order (what `--dump-after` accepts)."""
    return list(dict.fromkeys(p.name for p in optimization_passes()))
