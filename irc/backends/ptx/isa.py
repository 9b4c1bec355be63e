"""Compatibility re-export: the PTX instruction facts, gates and emitted forms live in `irc.ptx`
(`irc.ptx.facts`, `irc.ptx.gates`, `irc.ptx.forms`). New code imports those modules directly."""

from __future__ import annotations

from irc.ptx.facts import InstrInfo, def_regs, dest_count, dest_operands, info, opcode_info, use_regs
from irc.ptx.forms import EMITTED_FORMS, EmittedForm, emitted_form, min_version_for
from irc.ptx.gates import GATES, Gate, gate, gate_for
from irc.target import ARCHES

__all__ = [
    "ARCHES",
    "Gate",
    "InstrInfo",
    "info",
    "opcode_info",
    "dest_operands",
    "dest_count",
    "def_regs",
    "use_regs",
    "gate",
    "gate_for",
    "GATES",
    "EmittedForm",
    "EMITTED_FORMS",
    "emitted_form",
    "min_version_for",
]
