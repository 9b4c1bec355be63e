"""Shared-memory layout of a kernel.

Every `SharedDecl` gets an offset honouring its alignment, in declaration order. Up to
`STATIC_SHARED_LIMIT` (48 KB) each declaration becomes its own `.shared .align A .b8 name[N]` (ptxas
places them); above it, PTX cannot declare the memory statically, so the whole layout moves into one
`.extern .shared .align 1024 .b8 irc_dyn_smem[]` with the computed offsets, and the kernel metadata says
how many dynamic bytes the launch must request. Above the target's per-block maximum the kernel cannot run
at all: a `shared-overflow` diagnostic.

A `dynamic` declaration (`shared x: [T] dynamic;`, sized at launch) comes after every static byte: with a
static layout it is its own `.extern .shared .align A .b8 x[]` (PTX places every extern array at the start
of the dynamic window); when the static layout itself lives in `irc_dyn_smem`, it is the aligned offset just
past the static bytes there, and the launch adds those bytes to what the caller asks for the array.
"""

from __future__ import annotations

from irc.diagnostics import Diagnostic, error
from irc.ir.core import Function
from irc.ir.types import size_of
from irc.records import field, record
from irc.target import STATIC_SHARED_LIMIT, max_shared_per_block

DYN_SMEM = "irc_dyn_smem"
DYN_ALIGN = 1024


@record
class SharedLayout:
    """`offsets[name]` within the kernel's shared block; `dynamic` when it lives in `irc_dyn_smem`."""

    offsets: dict[str, int] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    aligns: dict[str, int] = field(default_factory=dict)
    total: int = 0
    dynamic: bool = False
    externs: list[str] = field(default_factory=list)  # `dynamic` arrays declared `.extern .shared`
    dyn_array_offset: int = 0  # bytes of dynamic shared memory before the `dynamic` array (launch adds them)


def layout_shared(fn: Function, arch: str, diagnostics: list[Diagnostic] | None = None) -> SharedLayout:
    """Lay out `fn.shared`; report `shared-overflow` into `diagnostics` when the target cannot hold it."""
    lay = SharedLayout()
    off = 0
    for d in fn.shared:
        if d.dynamic:
            continue
        size = size_of(d.type)
        align = max(int(d.align or 1), 1)
        off = (off + align - 1) // align * align
        lay.offsets[d.name] = off
        lay.sizes[d.name] = size
        lay.aligns[d.name] = align
        off += size
    lay.total = off
    lay.dynamic = off > STATIC_SHARED_LIMIT
    for d in fn.shared:
        if d.dynamic:
            lay.aligns[d.name] = max(int(d.align or 1), 16)
            lay.sizes[d.name] = 0
            if lay.dynamic:
                a = lay.aligns[d.name]
                lay.offsets[d.name] = lay.dyn_array_offset = (off + a - 1) // a * a
            else:
                lay.externs.append(d.name)
    limit = max_shared_per_block(arch)
    if off > limit and diagnostics is not None:
        diagnostics.append(
            error(
                "shared-overflow",
                f"kernel `{fn.name}` needs {off} bytes of shared memory; {arch} allows at most {limit} "
                "per block",
                fn.shared[-1].span if fn.shared and fn.shared[-1].span else fn.span,
                help="reduce the tile sizes or pick a target with more shared memory",
            )
        )
    return lay
