"""The PTX ISA 9.x instruction set, as a list of opcode stems, and the facts of the stems that have no
dedicated lowering in irc.

Why a list: `irc check` must never meet valid PTX it cannot place. Every stem here either has a row in
`irc.ptxisa.facts` (and lifts through a handler or generically) or is one of the deliberate opaque
ops below with known effects; `tests/test_isa_coverage.py` enumerates the list and checks both. The stems
follow the instruction chapters of the PTX ISA 9.0 manual (integer, extended-precision, float, half,
comparison, logic, data movement, texture/surface, control flow, synchronization, warp/warpgroup MMA,
tensor memory, stack, video, miscellaneous); modifiers are covered by prefix look-up, so one stem stands
for every spelling `stem.mod1.mod2...`.
"""

from __future__ import annotations

# Instruction stems of PTX ISA 9.x (chapter 9 of the manual), grouped as there.
ISA_STEMS: dict[str, tuple[str, ...]] = {
    "integer": (
        "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max",
        "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "szext", "bmsk", "dp4a", "dp2a",
    ),
    "extended-precision": ("add.cc", "addc", "sub.cc", "subc", "mad.cc", "madc"),
    "float": (
        "testp", "copysign", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh",
    ),
    "comparison": ("set", "setp", "selp", "slct"),
    "logic": ("and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr"),
    "data-movement": (
        "mov", "shfl", "shfl.sync", "prmt", "ld", "ldu", "st", "st.async", "st.bulk", "multimem.ld_reduce",
        "multimem.st", "multimem.red", "prefetch", "prefetchu", "applypriority", "discard", "createpolicy",
        "isspacep", "cvta", "cvt", "cvt.pack", "mapa", "getctarank", "cp.async", "cp.async.commit_group",
        "cp.async.wait_group", "cp.async.wait_all", "cp.async.bulk", "cp.reduce.async.bulk",
        "cp.async.bulk.prefetch", "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor",
        "cp.async.bulk.prefetch.tensor", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group",
        "tensormap.replace", "tensormap.cp_fenceproxy", "cp.async.mbarrier.arrive",
    ),
    "texture-surface": ("tex", "tld4", "txq", "istypep", "suld", "sust", "sured", "suq"),
    "control-flow": ("bra", "brx.idx", "call", "ret", "exit"),
    "synchronization": (
        "bar.sync", "bar.arrive", "bar.red", "barrier.sync", "barrier.arrive", "barrier.red",
        "barrier.cluster.arrive", "barrier.cluster.wait", "bar.warp.sync", "membar", "fence", "atom", "red",
        "red.async", "vote", "vote.sync", "match.sync", "activemask", "redux.sync", "griddepcontrol",
        "elect.sync", "mbarrier.init", "mbarrier.inval", "mbarrier.expect_tx", "mbarrier.complete_tx",
        "mbarrier.arrive", "mbarrier.arrive_drop", "mbarrier.test_wait", "mbarrier.try_wait",
        "mbarrier.pending_count", "clusterlaunchcontrol.try_cancel", "clusterlaunchcontrol.query_cancel",
    ),
    "warp-mma": (
        "wmma.load", "wmma.store", "wmma.mma", "mma", "mma.sp", "ldmatrix", "stmatrix", "movmatrix",
    ),
    "warpgroup-mma": (
        "wgmma.mma_async", "wgmma.mma_async.sp", "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group",
    ),
    "tensor-memory": (
        "tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit", "tcgen05.ld", "tcgen05.st",
        "tcgen05.wait", "tcgen05.cp", "tcgen05.shift", "tcgen05.mma", "tcgen05.mma.sp", "tcgen05.mma.ws",
        "tcgen05.commit", "tcgen05.fence",
    ),
    "stack": ("stacksave", "stackrestore", "alloca"),
    "video": (
        "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset",
        "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
        "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4",
    ),
    "miscellaneous": ("brkpt", "nanosleep", "pmevent", "trap", "setmaxnreg"),
}  # fmt: skip

ALL_STEMS: tuple[str, ...] = tuple(s for group in ISA_STEMS.values() for s in group)

# Rows for `irc.ptxisa.facts._TABLE` (InstrInfo field values) of the stems without a dedicated one.
# Video instructions are pure register arithmetic (the SIMD forms work on packed bytes/halves). The
# extended-precision forms read or write the carry flag, which is not a register: they are opaque, so
# their results are never assumed uniform. `movmatrix` is a `.sync.aligned` warp collective.
# `clusterlaunchcontrol.try_cancel` writes its response to shared memory asynchronously (an mbarrier
# completes it); `query_cancel` decodes that response.
EXTRA_ROWS: dict[str, dict] = {
    **{v: {"pure": True} for v in ISA_STEMS["video"]},
    "addc": {},
    "subc": {},
    "madc": {},
    "movmatrix": {"warp_collective": True},
    "clusterlaunchcontrol": {"mem": "readwrite"},
    "clusterlaunchcontrol.try_cancel": {"dests": 0, "mem": "readwrite", "is_async": True},
    "clusterlaunchcontrol.query_cancel": {"pure": True},
}
