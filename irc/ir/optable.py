"""The op table: every IR op kind declared once.

The printer, parser, verifier, passes, analyzer and backend read this table instead of hard-coding op
knowledge: operand and result type constraints, required attributes, traits, memory effect, target gate
and the PTX template used by instruction selection.

Type constraints (one string per operand / result):
  "T"      a type variable: every "T" in one op must be the same type (any scalar or pointer)
  "int" "float" "num" (int or float) "scalar" (any scalar incl. bool) "any"
  "bool" "u32" "i32" "u64" "f32" ...  an exact scalar type
  "ptr" "gptr" "sptr" (any / global / shared pointer)  "tmap" (tensormap)
"..." repeats the constraint before it zero or more times (variadic), also mid-list: `sptr tmap i32 ... sptr`.
Results "decl" means: the result types are whatever the op was built with (checked by `verify` hooks).

Traits:
  pure             no side effects; may be CSE'd, folded, removed when unused
  terminator       ends a block
  barrier          block-wide barrier (all threads of the CTA must arrive)
  warp_collective  needs the lanes named by its mask (full warp by default) to execute it together
  commutative      operands may be swapped
  async            starts or completes asynchronous work
Effects: "none", "read", "write", "readwrite" (memory), plus the space in `space` when known.
Gates name a set of targets (see GATES); None means every supported target.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Targets each gate admits. Verified against ../shared/ptx-reference/targets-table.txt.
ALL_ARCHES = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103a", "sm_120a")
GATES: dict[str, tuple[str, ...]] = {
    "sm_80": ALL_ARCHES,
    "sm_90": ("sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103a", "sm_120a"),
    "sm_100a": ("sm_100a", "sm_103a"),
}


@dataclass(frozen=True)
class OperandRange:
    """A value range an operand must lie in (a fact ptxas enforces on immediates, or the hardware needs at
    run time). `where` is the operand index, or the attribute that holds the value when the op carries it
    as a constant. Checked on constants by `irc.ir.ranges` (front end, backend, lifted PTX) and at run time
    by the emulator (`irc.emu.ranges`) at the PTX operand positions in `ptx`: (opcode prefix, position)."""

    where: int | str
    lo: int
    hi: int
    multiple: int = 1
    what: str = "operand"
    ptx: tuple[tuple[str, int], ...] = ()
    pow2: bool = False  # a power of two as well

    def admits(self, v: int) -> bool:
        return self.lo <= v <= self.hi and v % self.multiple == 0 and (not self.pow2 or v & (v - 1) == 0)

    def describe(self) -> str:
        lim = f"{self.lo}..{self.hi}" if self.hi - self.lo > 1 else f"{self.lo} or {self.hi}"
        return (
            ("a power of two in " if self.pow2 else "")
            + lim
            + (f", a multiple of {self.multiple}" if self.multiple > 1 else "")
        )


@dataclass(frozen=True)
class OpDef:
    name: str
    operands: tuple[str, ...]
    results: tuple[str, ...]
    traits: frozenset[str] = frozenset()
    effect: str = "none"
    attrs: tuple[str, ...] = ()  # required attributes
    gate: str | None = None  # key of GATES
    ptx: str | None = None  # instruction-selection template (see irc.backends.ptx)
    doc: str = ""
    opt_attrs: tuple[str, ...] = field(default=())  # documented optional attributes
    ranges: tuple[OperandRange, ...] = ()  # operand value ranges (see OperandRange)

    def has(self, trait: str) -> bool:
        return trait in self.traits

    def admits(self, arch: str) -> bool:
        return self.gate is None or arch in GATES[self.gate]


OPS: dict[str, OpDef] = {}


def _op(
    name: str,
    operands: str,
    results: str,
    traits: str = "",
    effect: str = "none",
    attrs: str = "",
    gate: str | None = None,
    ptx: str | None = None,
    doc: str = "",
    opt: str = "",
    ranges: tuple[OperandRange, ...] = (),
) -> None:
    def split(s: str) -> tuple[str, ...]:
        return tuple(x for x in s.replace(",", " ").split() if x)

    if name in OPS:
        raise ValueError(f"op {name} declared twice")
    OPS[name] = OpDef(
        name,
        split(operands),
        split(results),
        frozenset(split(traits)),
        effect,
        split(attrs),
        gate,
        ptx,
        doc,
        split(opt),
        ranges,
    )


# --- values ------------------------------------------------------------------------------------------
_op("const", "", "decl", "pure", attrs="value", doc="a constant of the result type")
_op(
    "sreg",
    "",
    "u32",
    "pure",
    attrs="name",
    doc="special register: tid.x|y|z ntid.* ctaid.* nctaid.* laneid warpid cluster_ctarank ...",
)
_op("copy", "T", "T", "pure", doc="a register copy (out-of-SSA, lifted mov)")
_op("bitcast", "any", "decl", "pure", doc="reinterpret bits as another type of the same width")
_op(
    "cvt",
    "any",
    "decl",
    "pure",
    opt="rnd sat",
    doc="conversion with the spec's rounding (rnd: rn rz rm rp rni rzi ...)",
)
_op("undef", "", "decl", "pure", doc="an unspecified value (reading it is an `uninitialized` finding)")

# --- arithmetic --------------------------------------------------------------------------------------
for _n in ("add", "mul", "and", "or", "xor", "min", "max"):
    _op(_n, "T T", "T", "pure commutative")
for _n in ("sub", "div", "rem", "shl", "shr"):
    _op(_n, "T T", "T", "pure")
_op("mulhi", "int int", "T", "pure commutative", doc="high half of the product")
_op("mulwide", "int int", "decl", "pure commutative", doc="full-width product (mul.wide)")
for _n in (
    "neg",
    "not",
    "abs",
    "sqrt",
    "rsqrt",
    "rcp",
    "exp2",
    "log2",
    "sin",
    "cos",
    "tanh",
    "floor",
    "ceil",
    "trunc",
    "round",
    "popc",
    "clz",
    "brev",
):
    _op(_n, "T", "T", "pure")
_op("fma", "T T T", "T", "pure")
_op("cmp", "T T", "bool", "pure", attrs="pred", doc="pred: eq ne lt le gt ge (and PTX's ltu equ ... num nan)")
_op("select", "bool T T", "T", "pure")
_op("pack_half2", "f32 f32", "u32", "pure")
_op("unpack_half2", "u32", "f32 f32", "pure")
_op("smem_desc", "sptr u32 u32 u32", "u64", "pure", doc="tcgen05 shared-memory matrix descriptor")

# --- memory ------------------------------------------------------------------------------------------
_op("ptradd", "ptr int", "decl", "pure", doc="pointer plus a byte offset")
_op("shared_addr", "", "decl", "pure", attrs="sym", doc="address of a kernel's shared allocation")
_op("load", "ptr", "decl", effect="read", opt="offset volatile nc")
_op("store", "ptr any", "", effect="write", opt="offset volatile")
_op("load_vec", "ptr", "decl", effect="read", opt="offset")
_op("store_vec", "ptr any any ...", "", effect="write", opt="offset")
_op(
    "atomic",
    "ptr num",
    "T",
    effect="readwrite",
    attrs="kind",
    doc="kind: add min max and or xor exch inc dec",
)
_op("atomic_cas", "ptr num num", "T", effect="readwrite")


def _bar_ptx(k: int) -> tuple[tuple[str, int], ...]:
    return tuple((h, k) for h in ("bar.sync", "bar.arrive", "barrier.sync", "barrier.arrive"))


_MBAR_COUNT = OperandRange(1, 1, (1 << 20) - 1, what="mbarrier arrival count", ptx=(("mbarrier.init", 1),))
_PARITY = OperandRange(
    1,
    0,
    1,
    what="mbarrier phase parity",
    ptx=(("mbarrier.test_wait.parity", 2), ("mbarrier.try_wait.parity", 2)),
)

# --- synchronization and warp ops ---------------------------------------------------------------------
_op(
    "barrier",
    "u32 ...",
    "",
    "barrier",
    effect="readwrite",
    opt="id count kind",
    doc="bar.sync id[, count]; id/count as attrs when constant, else operands (id first)",
    ranges=(
        *(OperandRange(w, 0, 15, what="barrier id", ptx=_bar_ptx(0)) for w in ("id", 0)),
        *(OperandRange(w, 32, 1024, 32, "barrier thread count", _bar_ptx(1)) for w in ("count", 1)),
    ),
)
_op("syncwarp", "u32", "", "warp_collective", effect="readwrite")
_op("fence", "", "", effect="readwrite", attrs="scope", doc="scope: block gpu sys proxy_async mbarrier_init")
_op(
    "shfl",
    "scalar u32 u32",
    "T",
    "warp_collective",
    attrs="mode",
    doc="mode: down up bfly idx; (v, lane, mask)",
)
_op("vote", "bool u32", "decl", "warp_collective", attrs="mode", doc="mode: all any uni ballot")
_op("activemask", "", "u32")
_op("elect", "u32", "bool", "warp_collective", doc="true in exactly one active lane (elect.sync on sm_90+)")
_op("redux", "u32 u32", "u32", "warp_collective", attrs="kind")

# --- async copies and mbarriers ----------------------------------------------------------------------
_op("cp_async", "sptr gptr", "", "async", effect="readwrite", attrs="bytes")
_op("cp_async_commit", "", "", "async", effect="readwrite")
_op("cp_async_wait", "", "", "async", effect="readwrite", attrs="n")
_op("mbarrier_init", "sptr u32", "", effect="write", ranges=(_MBAR_COUNT,))
_op("mbarrier_arrive", "sptr", "u64", effect="readwrite")
_op("mbarrier_test_wait", "sptr u32", "bool", effect="readwrite", doc="parity wait test", ranges=(_PARITY,))
_op(
    "mbarrier_wait",
    "sptr u32",
    "",
    effect="readwrite",
    doc="blocks until the phase of that parity completes",
    ranges=(_PARITY,),
)
_op("mbarrier_inval", "sptr", "", effect="write")
_op("mbarrier_arrive_expect_tx", "sptr u32", "u64", effect="readwrite", gate="sm_90")
_op("mbarrier_expect_tx", "sptr u32", "", effect="readwrite", gate="sm_90")
_op("mbarrier_try_wait", "sptr u32", "bool", effect="readwrite", gate="sm_90", ranges=(_PARITY,))
_op("fence_mbarrier_init", "", "", effect="readwrite", gate="sm_90")

# --- TMA ---------------------------------------------------------------------------------------------
_op(
    "tma_load",
    "sptr tmap i32 ... sptr",
    "",
    "async",
    effect="readwrite",
    gate="sm_90",
    doc="(dst, map, coords..., mbarrier): coords outermost first; the last operand is the mbarrier",
)
_op(
    "tma_store",
    "tmap i32 ... sptr",
    "",
    "async",
    effect="readwrite",
    gate="sm_90",
    doc="(map, coords..., src)",
)
_op("tma_store_commit", "", "", "async", effect="readwrite", gate="sm_90")
_op("tma_store_wait", "", "", "async", effect="readwrite", attrs="n", gate="sm_90")
_op("tma_prefetch", "tmap i32 ...", "", "async", effect="read", gate="sm_90")
_op("fence_proxy_async", "", "", effect="readwrite", gate="sm_90")

# --- tensor cores ------------------------------------------------------------------------------------
_op("ldmatrix", "sptr", "decl", "warp_collective", effect="read", attrs="num", opt="trans")
_op(
    "mma_m16n8k16",
    "u32 u32 u32 u32 u32 u32 f32 f32 f32 f32",
    "f32 f32 f32 f32",
    "warp_collective pure",
    attrs="ab",
    doc="ab: f16 | bf16; mma.sync.aligned.m16n8k16.row.col.f32.ab.ab.f32",
)
_op("wmma_load", "ptr u32", "decl", "warp_collective", effect="read", attrs="frag", doc="frag: a | b")
_op(
    "wmma_mma",
    " ".join(["u32"] * 16 + ["f32"] * 8),
    " ".join(["f32"] * 8),
    "warp_collective pure",
    doc="8 a regs, 8 b regs, 8 f32 acc -> 8 f32",
)
_op(
    "wmma_store",
    "ptr " + " ".join(["f32"] * 8) + " u32",
    "",
    "warp_collective",
    effect="write",
    doc="(p, d0..d7, ld)",
)

# --- Blackwell tensor memory -------------------------------------------------------------------------
_TMEM_COLS = tuple(
    OperandRange(1, 32, 512, what="tensor-memory column count", ptx=((h, 1),), pow2=True)
    for h in ("tcgen05.alloc", "tcgen05.dealloc")
)
_op(
    "tmem_alloc", "sptr u32", "", "warp_collective", effect="readwrite", gate="sm_100a", ranges=_TMEM_COLS[:1]
)
_op("tmem_relinquish", "", "", "warp_collective", effect="readwrite", gate="sm_100a")
_op(
    "tmem_dealloc",
    "u32 u32",
    "",
    "warp_collective",
    effect="readwrite",
    gate="sm_100a",
    ranges=_TMEM_COLS[1:],
)
_op("tcgen05_mma", "u32 u64 u64 u32 bool", "", "async", effect="readwrite", gate="sm_100a")
_op("tcgen05_commit", "sptr", "", "async", effect="readwrite", gate="sm_100a")
_op("tcgen05_ld", "u32", "decl", "warp_collective", effect="read", attrs="n", gate="sm_100a")
_op("tcgen05_wait_ld", "", "", effect="readwrite", gate="sm_100a")
_op("tcgen05_fence", "", "", effect="readwrite", attrs="kind", gate="sm_100a", doc="kind: before | after")

# --- control flow ------------------------------------------------------------------------------------
_op("br", "", "", "terminator", doc="br ^dest(args)")
_op("cbr", "bool", "", "terminator", doc="cbr %c, ^then(args), ^else(args)")
_op("ret", "any ...", "", "terminator", doc="return from the kernel (ends the thread) or function")
_op("trap", "", "", "terminator", effect="readwrite")
_op("call", "any ...", "decl", effect="readwrite", attrs="callee", doc="call of a non-inlined function (PTX)")
_op(
    "ptx_pure",
    "any ...",
    "decl",
    "pure",
    attrs="text",
    doc="a lifted PTX instruction without its own op that is pure arithmetic (lop3, prmt, bfe, ...)",
)
_op(
    "ptx_collective",
    "any ...",
    "decl",
    "warp_collective",
    effect="readwrite",
    attrs="text",
    doc="a lifted warp-collective PTX instruction without its own op (wgmma, other mma shapes, match.sync)",
)
_op(
    "opaque",
    "any ...",
    "decl",
    effect="readwrite",
    attrs="text",
    doc="an instruction irc does not model (lifted PTX); conservative effects",
)


def opdef(name: str) -> OpDef:
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"unknown op `{name}`") from None


# --- low-level ops added by the PTX backend's legalization (irc/backends/ptx/legalize.py) -------------
_op("shlw", "int u32", "T", "pure", doc="shift left by a u32 amount (PTX's shl form for non-32-bit values)")
_op("shrw", "int u32", "T", "pure", doc="shift right by a u32 amount (PTX's shr form for non-32-bit values)")
_op(
    "unpack_b32",
    "u32",
    "decl",
    "pure",
    doc="split 32 bits into two 16-bit halves (low, high): mov.b32 {l, h}",
)
_op(
    "pack_b32",
    "any any",
    "decl",
    "pure",
    doc="join two 16-bit halves (low, high) into 32 bits: mov.b32 d, {l, h}",
)
_op(
    "unpack_b64",
    "any",
    "decl",
    "pure",
    doc="split 64 bits into two 32-bit halves (low, high): mov.b64 {l, h}, a",
)
_op(
    "pack_b64",
    "any any",
    "decl",
    "pure",
    doc="join two 32-bit halves (low, high) into 64 bits: mov.b64 d, {l, h}",
)
_op("popcw", "int", "u32", "pure", doc="population count of a 64-bit value, 32-bit result (popc.b64 d32, a)")
_op("clzw", "int", "u32", "pure", doc="leading zeros of a 64-bit value, 32-bit result (clz.b64 d32, a)")
