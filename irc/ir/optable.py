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

Every word of a row is checked against the closed sets below when the table is built (`_op` raises on
`'puer commutatve'`): `TRAITS`, `EFFECTS`, `UNIFORMITY`, `CONSTRAINTS`, the gate families, and attribute
names that a template or a semantics reads must be declared (`attrs` / `opt`).

Traits:
  pure             no side effects; may be CSE'd, folded, removed when unused
  terminator       ends a block
  barrier          block-wide barrier (all threads of the CTA must arrive)
  warp_collective  needs the lanes named by its mask (full warp by default) to execute it together
  commutative      operands may be swapped
  async            starts or completes asynchronous work
Effects: "none", "read", "write", "readwrite" (memory), plus the space in `space` when known.
Gates name a gate family of targets (`irc.target.GATE_FAMILIES`); None means every supported target.

What each row owns besides its types (the readers never keep their own per-op lists):
  ptx          the PTX spelling (instruction selection spells every templated op through one generic
               path; the PTX lifter inverts the templates into its PTX -> IR map). A template is
               "OPCODE OPERANDS" or a dict of variants {selector: template} (first match wins; selectors:
               "int" "float" "bool" on the result type, "int0" "float0" "bool0" on operand 0's,
               "ATTR=v1|v2", "*"; a None template: not selectable, an internal error). In OPCODE, `{a}` `{i}` `{s}` `{b}` `{w}` `{h}` are the
               result type as arithmetic / integer / signed / bit / exact-width bit / at-least-16-bit
               type suffix (`{a0}`: of operand 0), `{sel}` selp's type (f16/bf16 as b16), `{m1}` the memory type of operand 1, `{sp0}` the
               state space of operand 0's pointer, `{fpred}` the float spelling of `pred`, any other
               `{name}` an attribute. OPERANDS: `%k` result k, `$k` operand k, `[$k]` its address, `{..}`
               a vector, `%*` all results, `$i..j` operands i to j, `#name` an attribute as an
               immediate, `@name` / `%@name` the symbol / special register an attribute names,
               `[$k+name]` an address plus the offset attribute, `_|%k` a sink pair, an integer an
               immediate; omitted: all results, then all operands.
               Ops the generic path cannot spell are on `CUSTOM_PTX` with the reason.
  imm          operand slots where PTX accepts an immediate (legalization materializes the rest);
               None: every slot
  mask         the index of a collective's member-mask operand (absent: the whole warp)
  uniformity   how the result's uniformity follows from the operands' (irc.analysis.uniformity):
               "operands" (the meet of the operands; the default for pure ops), "varying" (never uniform),
               "collective" (warp-uniform when control and mask are), "vote" / "shuffle" (their rules)
  shared_write the operand holding the shared-memory pointer the op writes through (None: none)
  sem          what the op computes (`irc.ir.semantics`), written once over an abstract domain: constant
               folding and the TMA evaluator read it on constants (`OpDef.fold`, `irc.ir.fold`), the race
               evaluator on per-thread vectors (`irc.analysis.lanes`), a symbolic encoding on z3 terms
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from irc.ir import semantics as S
from irc.ir.fold import fold as _fold
from irc.ir.types import Type
from irc.records import field, record
from irc.target import GATE_FAMILIES, family_admits

#: A PTX template: one string or a dict of variants. The hard cases are not templates: they are on
#: `CUSTOM_PTX`, and instruction selection has one function (arm) for each.
Template = str | dict[str, str | None]


@record(frozen=True)
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


@record(frozen=True)
class OpDef:
    name: str
    operands: tuple[str, ...]
    results: tuple[str, ...]
    traits: frozenset[str] = frozenset()
    effect: str = "none"
    attrs: tuple[str, ...] = ()  # required attributes
    gate: str | None = None  # key of irc.target.GATE_FAMILIES
    ptx: Template | None = None  # PTX spelling (see the module docstring); None: on CUSTOM_PTX
    doc: str = ""
    opt_attrs: tuple[str, ...] = field(default=())  # documented optional attributes
    imm: frozenset[int] | None = frozenset()  # operand slots that may be immediates (None: all)
    mask: int | None = None  # member-mask operand of a warp collective
    uniformity: str = "operands"  # see the module docstring
    shared_write: int | None = None  # operand index of the shared pointer written through
    sem: S.Sem | None = None  # what it computes (irc.ir.semantics)
    ranges: tuple[OperandRange, ...] = ()  # operand value ranges (see OperandRange)

    def has(self, trait: str) -> bool:
        return trait in self.traits

    def fold(self, vals: Sequence[Any], rt: Type, attrs: Mapping[str, Any], ots: Sequence[Type]) -> Any:
        """The value on constant operands (as `const` ops hold them), or None (`irc.ir.fold`)."""
        return _fold(self.sem, vals, rt, attrs, ots)

    def admits(self, arch: str) -> bool:
        return family_admits(self.gate, arch)


OPS: dict[str, OpDef] = {}

#: The closed sets every row is checked against (see the module docstring).
TRAITS = frozenset({"pure", "terminator", "barrier", "warp_collective", "commutative", "async"})
EFFECTS = frozenset({"none", "read", "write", "readwrite"})
UNIFORMITY = frozenset({"operands", "varying", "collective", "vote", "shuffle", "load"})
#: Operand / result constraints (`irc.ir.verifier` decides each), "..." (repeat the one before) and, for
#: results only, "decl".
CONSTRAINTS = frozenset(
    {
        "T",
        "any",
        "scalar",
        "int",
        "float",
        "num",
        "ptr",
        "gptr",
        "sptr",
        "tmap",
        "u32",
        "u64",
        "i32",
        "bool",
        "f32",
    }
)


class OpTableError(ValueError):
    """A malformed op-table row (raised at import: the table is built when `irc.ir` is imported)."""


def _check_row(d: OpDef) -> None:
    """Each field of a row against its closed set: a misspelt trait must not silently mean "impure"."""

    def bad(what: str) -> None:
        raise OpTableError(f"op-table row `{d.name}`: {what}")

    if not d.traits <= TRAITS:
        bad(f"unknown trait(s) {sorted(d.traits - TRAITS)}; traits are {sorted(TRAITS)}")
    if d.effect not in EFFECTS:
        bad(f"unknown effect {d.effect!r}; effects are {sorted(EFFECTS)}")
    if d.uniformity not in UNIFORMITY:
        bad(f"unknown uniformity rule {d.uniformity!r}; rules are {sorted(UNIFORMITY)}")
    if d.gate is not None and d.gate not in GATE_FAMILIES:
        bad(f"unknown gate family {d.gate!r}; families are {sorted(GATE_FAMILIES)}")
    for where, cons in (("operand", d.operands), ("result", d.results)):
        if cons == ("decl",) and where == "result":
            continue
        for k, c in enumerate(cons):
            if c == "..." and k > 0 and cons[k - 1] != "...":
                continue
            if c not in CONSTRAINTS:
                bad(f"unknown {where} constraint {c!r}; constraints are {sorted(CONSTRAINTS)}, '...', 'decl'")
    fixed = len([c for c in d.operands if c != "..."])
    variadic = "..." in d.operands
    for name, idx in (("mask", d.mask), ("shared_write", d.shared_write)):
        if idx is not None and not (0 <= idx < fixed or variadic):
            bad(f"{name} operand {idx} out of range")
    if d.imm is not None and any(not (0 <= i < fixed or variadic) for i in d.imm):
        bad(f"immediate slot out of range: {sorted(d.imm)}")
    if d.sem is not None:
        if not isinstance(d.sem, S.Sem):
            bad("sem must be an irc.ir.semantics.Sem")
        undeclared = set(d.sem.attrs) - set(d.attrs) - set(d.opt_attrs)
        if undeclared:
            bad(f"the semantics reads undeclared attribute(s) {sorted(undeclared)}")


def _op(
    name: str,
    operands: str,
    results: str,
    traits: str = "",
    effect: str = "none",
    attrs: str = "",
    gate: str | None = None,
    ptx: Template | None = None,
    doc: str = "",
    opt: str = "",
    *,
    imm: str | None = "",
    mask: int | None = None,
    uniformity: str | None = None,
    shared_write: int | None = None,
    sem: S.Sem | None = None,
    ranges: tuple[OperandRange, ...] = (),
) -> None:
    def split(s: str) -> tuple[str, ...]:
        return tuple(x for x in s.replace(",", " ").split() if x)

    if name in OPS:
        raise OpTableError(f"op {name} declared twice")
    d = OpDef(
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
        None if imm is None else frozenset(int(x) for x in split(imm)),
        mask,
        uniformity or ("operands" if "pure" in traits.split() else "varying"),
        shared_write,
        sem,
        ranges,
    )
    _check_row(d)
    OPS[name] = d


# --- values ------------------------------------------------------------------------------------------
_op("const", "", "decl", "pure", attrs="value", doc="a constant of the result type")
_op(
    "sreg",
    "",
    "u32",
    "pure",
    attrs="name",
    doc="special register: tid.x|y|z ntid.* ctaid.* nctaid.* laneid warpid cluster_ctarank ...",
    ptx="mov.u32 %0, %@name",
)
_op("copy", "T", "T", "pure", doc="a register copy (out-of-SSA, lifted mov)", imm="0", sem=S.copy)
_op("bitcast", "any", "decl", "pure", ptx="mov.{h}", doc="reinterpret bits as another type of the same width",
    sem=S.bitcast)  # fmt: skip
_op(
    "cvt",
    "any",
    "decl",
    "pure",
    opt="rnd sat",
    doc="conversion with the spec's rounding (rnd: rn rz rm rp rni rzi ...)",
    sem=S.cvt,
)
_op("undef", "", "decl", "pure", doc="an unspecified value (reading it is an `uninitialized` finding)")

# --- arithmetic --------------------------------------------------------------------------------------
_op("add", "T T", "T", "pure commutative", ptx={"rnd=rn": "add.rn.{a}", "*": "add.{a}"}, imm="1", sem=S.add,
    opt="rnd")  # fmt: skip
_op("mul", "T T", "T", "pure commutative", ptx={"rnd=rn": "mul.rn.{a}", "float": "mul.{a}", "*": "mul.lo.{a}"},
    imm="1", sem=S.mul, opt="rnd")  # fmt: skip
_op("and", "T T", "T", "pure commutative", ptx="and.{b}", imm="1", sem=S.and_)
_op("or", "T T", "T", "pure commutative", ptx="or.{b}", imm="1", sem=S.or_)
_op("xor", "T T", "T", "pure commutative", ptx="xor.{b}", imm="1", sem=S.xor)
_op("min", "T T", "T", "pure commutative", ptx="min.{i}", imm="1", sem=S.min_)
_op("max", "T T", "T", "pure commutative", ptx="max.{i}", imm="1", sem=S.max_)
_op("sub", "T T", "T", "pure", ptx={"rnd=rn": "sub.rn.{a}", "*": "sub.{a}"}, imm="1", sem=S.sub, opt="rnd")
_op("div", "T T", "T", "pure", ptx={"float": "div.rn.{a}", "*": "div.{i}"}, imm="1", sem=S.div)
_op("rem", "T T", "T", "pure", ptx="rem.{i}", imm="1", sem=S.rem)
_op("shl", "T T", "T", "pure", ptx="shl.{b}", imm="1", sem=S.shl)
_op("shr", "T T", "T", "pure", ptx="shr.{a}", imm="1", sem=S.shr)
_op(
    "mulhi",
    "T T",
    "T",
    "pure commutative",
    ptx="mul.hi.{i}",
    imm="1",
    sem=S.mulhi,
    doc="high half of the full product (mul.hi.s32 / .u32, 16/32/64-bit; signedness from the type)",
)
_op("mulwide", "int int", "decl", "pure commutative", ptx="mul.wide.{i0}", imm="1", sem=S.mulwide,
    doc="full-width product (mul.wide)")  # fmt: skip
# PTX forms with their own meaning (lifted exactly; .kdsl does not spell them)
_op("addsat", "i32 i32", "i32", "pure commutative", ptx="add.sat.s32", imm="1", sem=S.addsat,
    doc="add.sat.s32: the sum clamped to the i32 range")  # fmt: skip
_op("subsat", "i32 i32", "i32", "pure", ptx="sub.sat.s32", imm="1", sem=S.subsat,
    doc="sub.sat.s32: the difference clamped to the i32 range")  # fmt: skip
_op("minrelu", "i32 i32", "i32", "pure commutative", ptx="min.relu.s32", imm="1", sem=S.minrelu, gate="sm_90",
    doc="min.relu.s32: max(min(a, b), 0)")  # fmt: skip
_op("maxrelu", "i32 i32", "i32", "pure commutative", ptx="max.relu.s32", imm="1", sem=S.maxrelu, gate="sm_90",
    doc="max.relu.s32: max(max(a, b), 0)")  # fmt: skip
_op(
    "prmt",
    "u32 u32 u32",
    "u32",
    "pure",
    opt="mode",
    ptx={"mode=" + "|".join(S.PRMT_MODES): "prmt.b32.{mode}", "*": "prmt.b32"},
    imm=None,
    sem=S.prmt,
    doc="prmt.b32{.mode} (a, b, selector): a byte permutation of {b, a}; mode: f4e b4e rc8 ecl ecr rc16",
)
_op("bfe", "u32 u32 u32", "u32", "pure", ptx="bfe.u32", imm=None, sem=S.bfe,
    doc="bfe.u32 (a, pos, len): len bits of a from bit pos, zero-extended (Triton's lane and warp bit tests)")  # fmt: skip
_op("bfi", "u32 u32 u32 u32", "u32", "pure", ptx="bfi.b32", imm=None, sem=S.bfi,
    doc="bfi.b32 (f, b, pos, len): b with len bits at pos replaced by f's low bits (nvcc's packed indices)")  # fmt: skip

#: The unary float math ops and their PTX spelling (one list: the intrinsics, legalization's half
#: widening and the lifter all derive theirs from it).
UNARY_MATH: dict[str, str] = {
    "sqrt": "sqrt.rn",
    "rsqrt": "rsqrt.approx",
    "rcp": "rcp.rn",
    "exp2": "ex2.approx",
    "log2": "lg2.approx",
    "sin": "sin.approx",
    "cos": "cos.approx",
    "tanh": "tanh.approx",
}
#: The unary math ops PTX has no f64 form of (`ex2.approx.f64`, `sin.approx.f64`, ... are rejected by
#: ptxas on every target): an f64 operand is an `unsupported-target` error (front end and legalization).
NO_F64: frozenset[str] = frozenset({"exp2", "log2", "sin", "cos", "tanh"})
#: Float rounding to an integral value, spelled as a same-type `cvt` with an integer rounding mode.
ROUNDING: dict[str, str] = {"floor": "rmi", "ceil": "rpi", "trunc": "rzi", "round": "rni"}

_op("neg", "T", "T", "pure", ptx="neg.{s}", sem=S.neg)
_op("not", "T", "T", "pure", ptx="not.{b}", sem=S.not_)
_op("abs", "T", "T", "pure", ptx="abs.{s}", sem=S.abs_)
for _n, _spell in UNARY_MATH.items():
    _op(_n, "T", "T", "pure", ptx=_spell + ".{a}")
for _n, _rnd in ROUNDING.items():
    _op(_n, "T", "T", "pure", ptx=f"cvt.{_rnd}.{{a}}.{{a}}")
_op("popc", "T", "T", "pure", ptx="popc.{w}")
_op("clz", "T", "T", "pure", ptx="clz.{w}")
_op("brev", "T", "T", "pure", ptx="brev.{w}")
_op("fma", "T T T", "T", "pure", ptx={"float": "fma.rn.{a}", "*": "mad.lo.{a}"}, imm="1 2")
_op(
    "cmp",
    "T T",
    "bool",
    "pure",
    attrs="pred",
    ptx={"bool0": None, "float0": "setp.{fpred}.{a0}", "*": "setp.{pred}.{a0}"},
    imm="1",
    sem=S.cmp,
    doc="pred: eq ne lt le gt ge (floats: `ne` is unordered; PTX's one equ ltu ... num nan, irc.ir.semantics)",
)
_op(
    "select",
    "bool T T",
    "T",
    "pure",
    ptx={"bool": None, "*": "selp.{sel} %0, $1, $2, $0"},
    imm="1 2",
    sem=S.select,
    doc="select(c, a, b) = c ? a : b (selp; bools are legalized away)",
)
_op("pack_half2", "f32 f32", "u32", "pure", ptx="cvt.rn.f16x2.f32 %0, $1, $0")
_op("unpack_half2", "u32", "f32 f32", "pure")
_op("smem_desc", "sptr u32 u32 u32", "u64", "pure", doc="tcgen05 shared-memory matrix descriptor")

# --- packed halves (two f16 in a u32, as pack_half2 makes them) ---------------------------------
_op(
    "half2",
    "u32 ...",
    "u32",
    "pure",
    attrs="kind ty",
    ptx={"kind=add|sub|mul|fma": "{kind}.rn.{ty}", "*": "{kind}.{ty}"},
    doc="lane-wise arithmetic on packed halves; kind: add sub mul fma min max neg abs; ty: f16x2 or bf16x2 "
    "(add/sub/mul.bf16x2 only on sm_90+)",
)

# --- memory ------------------------------------------------------------------------------------------
_op(
    "ptradd",
    "ptr int",
    "decl",
    "pure",
    ptx="add.{a}",
    imm="1",
    doc="pointer plus a byte offset",
    sem=S.ptradd,
)
_op("shared_addr", "", "decl", "pure", attrs="sym", doc="address of a kernel's shared allocation",
    ptx="mov.u32 %0, @sym")  # fmt: skip
_op("load", "ptr", "decl", effect="read", opt="offset volatile nc strong bytes", uniformity="load")
_op("store", "ptr any", "", effect="write", opt="offset volatile strong bytes", imm="1", shared_write=0,
    ptx={"volatile=True|1": "st.volatile.{sp0}.{m1} [$0+offset], $1", "*": "st.{sp0}.{m1} [$0+offset], $1"})  # fmt: skip
_op("load_vec", "ptr", "decl", effect="read", opt="offset nc bytes", uniformity="load")
_op("store_vec", "ptr any any ...", "", effect="write", opt="offset bytes", shared_write=0)
_op(
    "atomic",
    "ptr num",
    "T",
    effect="readwrite",
    attrs="kind",
    doc="kind: add min max and or xor exch inc dec",
    imm="1",
    shared_write=0,
)
_op("atomic_cas", "ptr num num", "T", effect="readwrite", imm="1 2", shared_write=0,
    ptx="atom.{sp0}.cas.{w} %0, [$0], $1, $2")  # fmt: skip


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
    imm=None,
    ranges=(
        *(OperandRange(w, 0, 15, what="barrier id", ptx=_bar_ptx(0)) for w in ("id", 0)),
        *(OperandRange(w, 32, 1024, 32, "barrier thread count", _bar_ptx(1)) for w in ("count", 1)),
    ),
)
_op("syncwarp", "u32", "", "warp_collective", effect="readwrite", ptx="bar.warp.sync", imm="0", mask=0)
_op(
    "fence",
    "",
    "",
    effect="readwrite",
    attrs="scope",
    doc="scope: block gpu sys proxy_async mbarrier_init",
    ptx={
        "scope=block|cta": "fence.acq_rel.cta",
        "scope=gpu": "fence.acq_rel.gpu",
        "scope=sys": "fence.acq_rel.sys",
        "scope=proxy_async": "fence.proxy.async.shared::cta",
        "scope=mbarrier_init": "fence.mbarrier_init.release.cluster",
    },
)
_op(
    "shfl",
    "scalar u32 u32",
    "T",
    "warp_collective",
    attrs="mode",
    doc="mode: down up bfly idx; (v, lane, mask)",
    ptx={"mode=up": "shfl.sync.up.b32 %0, $0, $1, 0, $2", "*": "shfl.sync.{mode}.b32 %0, $0, $1, 31, $2"},
    imm="1 2",
    mask=2,
    uniformity="shuffle",
)
_op(
    "vote",
    "bool u32",
    "decl",
    "warp_collective",
    attrs="mode",
    doc="mode: all any uni ballot",
    ptx={"mode=ballot": "vote.sync.ballot.b32", "*": "vote.sync.{mode}.pred"},
    imm="1",
    mask=1,
    uniformity="vote",
)
_op("activemask", "", "u32", ptx="activemask.b32")
_op("elect", "u32", "bool", "warp_collective", doc="true in exactly one active lane (elect.sync on sm_90+)",
    imm="0", mask=0, ptx="elect.sync _|%0, $0")  # fmt: skip


_op(
    "redux",
    "int u32",
    "decl",
    "warp_collective",
    attrs="kind",
    doc="redux.sync (v, mask): kind add min max on u32 / i32 (signedness from the type), and or xor (b32)",
    ptx={"kind=and|or|xor": "redux.sync.{kind}.b32", "*": "redux.sync.{kind}.{i}"},
    imm="1",
    mask=1,
    uniformity="collective",
    sem=S.redux,
)

# --- async copies and mbarriers ----------------------------------------------------------------------
_op("cp_async", "sptr gptr", "", "async", effect="readwrite", attrs="bytes", shared_write=0,
    ptx="cp.async.ca.shared.global [$0], [$1], #bytes")  # fmt: skip
_op("cp_async_commit", "", "", "async", effect="readwrite", ptx="cp.async.commit_group")
_op("cp_async_wait", "", "", "async", effect="readwrite", attrs="n", ptx="cp.async.wait_group #n")
_op("mbarrier_init", "sptr u32", "", effect="write", ptx="mbarrier.init.shared.b64 [$0], $1", imm="1",
    shared_write=0, ranges=(_MBAR_COUNT,))  # fmt: skip
_op("mbarrier_arrive", "sptr", "u64", effect="readwrite", opt="count drop",
    ptx="mbarrier.arrive.shared.b64 %0, [$0]")  # fmt: skip
_op("mbarrier_test_wait", "sptr int", "bool", effect="readwrite", opt="state",
    doc="parity wait test (attr state: the operand is an arrive token, not a parity)",
    ptx="mbarrier.test_wait.parity.shared.b64 %0, [$0], $1", imm="1", ranges=(_PARITY,))  # fmt: skip
_op(
    "mbarrier_wait",
    "sptr u32",
    "",
    effect="readwrite",
    doc="blocks until the phase of that parity completes",
    ranges=(_PARITY,),
)
_op("mbarrier_inval", "sptr", "", effect="write", ptx="mbarrier.inval.shared.b64 [$0]", shared_write=0)
_op("mbarrier_arrive_expect_tx", "sptr u32", "u64", effect="readwrite", gate="sm_90",
    ptx="mbarrier.arrive.expect_tx.shared.b64 %0, [$0], $1", imm="1")  # fmt: skip
_op("mbarrier_expect_tx", "sptr u32", "", effect="readwrite", gate="sm_90",
    ptx="mbarrier.expect_tx.relaxed.cta.shared.b64 [$0], $1", imm="1")  # fmt: skip
_op("mbarrier_try_wait", "sptr int", "bool", effect="readwrite", gate="sm_90", opt="state",
    ptx="mbarrier.try_wait.parity.shared.b64 %0, [$0], $1", imm="1", ranges=(_PARITY,))  # fmt: skip
_op(
    "fence_mbarrier_init", "", "", effect="readwrite", gate="sm_90", ptx="fence.mbarrier_init.release.cluster"
)
# forms lifted from PTX (irc/frontend/ptx/lift_async.py) that .kdsl does not spell
_op("mbarrier_complete_tx", "sptr u32", "", effect="readwrite", gate="sm_90", doc="mbarrier.complete_tx")
_op("cp_async_mbarrier_arrive", "sptr", "", "async", effect="readwrite", opt="noinc")
_op(
    "bulk_load",
    "sptr gptr u32 sptr",
    "",
    "async",
    effect="readwrite",
    gate="sm_90",
    opt="multicast",
    doc="cp.async.bulk shared <- global (dst, src, bytes, mbarrier): complete_tx on the mbarrier",
)
_op("bulk_store", "gptr sptr u32", "", "async", effect="readwrite", gate="sm_90", doc="cp.async.bulk.global")

# --- TMA ---------------------------------------------------------------------------------------------
_op(
    "tma_load",
    "sptr tmap i32 ... sptr",
    "",
    "async",
    effect="readwrite",
    gate="sm_90",
    doc="(dst, map, coords..., mbarrier): coords outermost first; the last operand is the mbarrier",
    shared_write=0,
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
_op("tma_store_commit", "", "", "async", effect="readwrite", gate="sm_90", ptx="cp.async.bulk.commit_group")
_op("tma_store_wait", "", "", "async", effect="readwrite", attrs="n", gate="sm_90",
    ptx="cp.async.bulk.wait_group.read #n")  # fmt: skip
_op("tma_prefetch", "tmap i32 ...", "", "async", effect="read", gate="sm_90")
_op("fence_proxy_async", "", "", effect="readwrite", gate="sm_90", ptx="fence.proxy.async.shared::cta")

# --- tensor cores ------------------------------------------------------------------------------------
_op("ldmatrix", "sptr", "decl", "warp_collective", effect="read", attrs="num", opt="trans",
    ptx={"trans=True|1": "ldmatrix.sync.aligned.m8n8.x{num}.trans.shared.b16 {%*}, [$0]",
         "*": "ldmatrix.sync.aligned.m8n8.x{num}.shared.b16 {%*}, [$0]"})  # fmt: skip
_op(
    "mma_m16n8k16",
    "u32 u32 u32 u32 u32 u32 f32 f32 f32 f32",
    "f32 f32 f32 f32",
    "warp_collective pure",
    attrs="ab",
    doc="ab: f16 | bf16; mma.sync.aligned.m16n8k16.row.col.f32.ab.ab.f32",
    ptx="mma.sync.aligned.m16n8k16.row.col.f32.{ab}.{ab}.f32 {%*}, {$0..3}, {$4..5}, {$6..9}",
    uniformity="varying",
)
_op("wmma_load", "ptr u32", "decl", "warp_collective", effect="read", attrs="frag", doc="frag: a | b | c", imm="1",
    ptx={"frag=c": "wmma.load.c.sync.aligned.row.m16n16k16.{sp0}.f32 {%*}, [$0], $1",
         "frag=a": "wmma.load.a.sync.aligned.row.m16n16k16.{sp0}.f16 {%*}, [$0], $1",
         "frag=b": "wmma.load.b.sync.aligned.col.m16n16k16.{sp0}.f16 {%*}, [$0], $1"})  # fmt: skip
_op(
    "wmma_mma",
    " ".join(["u32"] * 16 + ["f32"] * 8),
    " ".join(["f32"] * 8),
    "warp_collective pure",
    doc="8 a regs, 8 b regs, 8 f32 acc -> 8 f32",
    ptx="wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%*}, {$0..7}, {$8..15}, {$16..23}",
    uniformity="varying",
)
_op(
    "wmma_store",
    "ptr " + " ".join(["f32"] * 8) + " u32",
    "",
    "warp_collective",
    effect="write",
    doc="(p, d0..d7, ld)",
    shared_write=0,
    ptx="wmma.store.d.sync.aligned.row.m16n16k16.{sp0}.f32 [$0], {$1..8}, $9",
)

# --- Blackwell tensor memory -------------------------------------------------------------------------
_TMEM_COLS = tuple(
    OperandRange(1, 32, 512, what="tensor-memory column count", ptx=((h, 1),), pow2=True)
    for h in ("tcgen05.alloc", "tcgen05.dealloc")
)
_op("tmem_alloc", "sptr u32", "", "warp_collective", effect="readwrite", gate="sm_100a",
    ptx="tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [$0], $1", imm="1", shared_write=0, ranges=_TMEM_COLS[:1])  # fmt: skip
_op("tmem_relinquish", "", "", "warp_collective", effect="readwrite", gate="sm_100a",
    ptx="tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned")  # fmt: skip
_op("tmem_dealloc", "u32 u32", "", "warp_collective", effect="readwrite", gate="sm_100a",
    ptx="tcgen05.dealloc.cta_group::1.sync.aligned.b32", imm="1", ranges=_TMEM_COLS[1:])  # fmt: skip
_op("tcgen05_mma", "u32 u64 u64 u32 bool", "", "async", effect="readwrite", gate="sm_100a",
    ptx="tcgen05.mma.cta_group::1.kind::f16 [$0], $1, $2, $3, $4", imm="3")  # fmt: skip
_op("tcgen05_commit", "sptr", "", "async", effect="readwrite", gate="sm_100a",
    ptx="tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [$0]")  # fmt: skip
_op("tcgen05_ld", "u32", "decl", "warp_collective", effect="read", attrs="n", gate="sm_100a",
    ptx="tcgen05.ld.sync.aligned.32x32b.x{n}.b32 {%*}, [$0]")  # fmt: skip
_op("tcgen05_wait_ld", "", "", effect="readwrite", gate="sm_100a", ptx="tcgen05.wait::ld.sync.aligned")
_op("tcgen05_st", "u32 any ...", "", "warp_collective", effect="write", gate="sm_100a", doc="32x32b.xN store")
_op("tcgen05_wait_st", "", "", effect="readwrite", gate="sm_100a", ptx="tcgen05.wait::st.sync.aligned")
_op("tcgen05_fence", "", "", effect="readwrite", attrs="kind", gate="sm_100a", doc="kind: before | after",
    ptx="tcgen05.fence::{kind}_thread_sync")  # fmt: skip

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
    opt="mask_operand n offset",
    doc="a lifted warp-collective PTX instruction without its own op (wgmma, other mma shapes, match.sync); "
    "mask_operand: the operand naming the lanes; n: `wgmma.wait_group`'s pending-group count; offset: the "
    "constant of its `[%r+offset]` address (the operand is %r)",
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
_op("shlw", "int u32", "T", "pure", ptx="shl.{b}", imm="1", sem=S.shl,
    doc="shift left by a u32 amount (PTX's shl form for non-32-bit values)")  # fmt: skip
_op("shrw", "int u32", "T", "pure", ptx="shr.{a}", imm="1", sem=S.shr,
    doc="shift right by a u32 amount (PTX's shr form for non-32-bit values)")  # fmt: skip
_op("unpack_b32", "u32", "decl", "pure", ptx="mov.b32 {%0, %1}, $0",
    doc="split 32 bits into two 16-bit halves (low, high): mov.b32 {l, h}")  # fmt: skip
_op("pack_b32", "any any", "decl", "pure", ptx="mov.b32 %0, {$0, $1}",
    doc="join two 16-bit halves (low, high) into 32 bits: mov.b32 d, {l, h}")  # fmt: skip
_op("unpack_b64", "any", "decl", "pure", ptx="mov.b64 {%0, %1}, $0",
    doc="split 64 bits into two 32-bit halves (low, high): mov.b64 {l, h}, a")  # fmt: skip
_op("pack_b64", "any any", "decl", "pure", ptx="mov.b64 %0, {$0, $1}",
    doc="join two 32-bit halves (low, high) into 64 bits: mov.b64 d, {l, h}")  # fmt: skip
_op("popcw", "int", "u32", "pure", ptx="popc.{w0}",
    doc="population count of a 64-bit value, 32-bit result (popc.b64 d32, a)")  # fmt: skip
_op(
    "clzw",
    "int",
    "u32",
    "pure",
    ptx="clz.{w0}",
    doc="leading zeros of a 64-bit value, 32-bit result (clz.b64 d32, a)",
)

#: Ops the generic template path does not spell, and why (the op-table test checks every other op has a
#: template). Instruction selection has one function per entry (`irc.backends.ptx.isel`).
CUSTOM_PTX: dict[str, str] = {
    "const": "no instruction: an immediate operand of its users",
    "undef": "no instruction (legalization materializes a zero)",
    "copy": "the mov type is the allocated register class, not the value type",
    "cvt": "rounding and saturation modifiers depend on the type pair; same-width pointer casts are movs",
    "unpack_half2": "legalized into cvt of the halves before selection",
    "smem_desc": "legalized into shifts and ors before selection",
    "load": "state space from the pointer type, optional volatile / nc / offset / strong attributes (strong: a "
    "PTX .relaxed/.acquire access, an atomic for the memory model)",
    "load_vec": "vector width from the result count, state space from the pointer",
    "store_vec": "vector width from the operand count, state space from the pointer",
    "atomic": "the type suffix depends on the kind (b for bitwise, u32 for inc/dec, u64 for 64-bit add)",
    "barrier": "id and count are attributes when constant, operands otherwise; arrive or sync",
    "mbarrier_wait": "legalized into a try_wait / test_wait loop before selection",
    "tma_load": "the rank is the coordinate count; coordinates reversed into a vector in the address",
    "tma_store": "the rank is the coordinate count; coordinates reversed into a vector in the address",
    "tma_prefetch": "the rank is the coordinate count; coordinates reversed into a vector in the address",
    "br": "terminator: edge copies and fall-through decide the branches",
    "cbr": "terminator: edge copies and fall-through decide the branches",
    "ret": "terminator",
    "trap": "terminator",
    "call": "only in lifted PTX (never selected)",
    "tcgen05_st": "the .xN shape is the count of value operands (a vector of them)",
    "mbarrier_complete_tx": "only in lifted PTX (irc/frontend/ptx/lift_async.py; never selected)",
    "cp_async_mbarrier_arrive": "only in lifted PTX (irc/frontend/ptx/lift_async.py; never selected)",
    "bulk_load": "only in lifted PTX (irc/frontend/ptx/lift_async.py; never selected)",
    "bulk_store": "only in lifted PTX (irc/frontend/ptx/lift_async.py; never selected)",
    "ptx_pure": "only in lifted PTX (never selected)",
    "ptx_collective": "only in lifted PTX (never selected)",
    "opaque": "only in lifted PTX (never selected)",
}
