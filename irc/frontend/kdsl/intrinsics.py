"""The intrinsic table (spec section 6): one row per intrinsic, read by semantic analysis (argument and
result types, compile-time-constant arguments, minimum target) and meant to be read by later stages too
(`collective` for warp-sync-divergence, `barrier` for barrier-divergence, `pure` for dead-code elimination).

Parameter kinds (`Arg`):
  * scalars: `allowed` names the scalar types accepted; `var` names a type variable ("T") that all
    arguments with the same `var` share (the first typed argument binds it; unsuffixed literals adapt);
  * pointers (`ptr`): `spaces`, and the element as `allowed` / `var` ("mbarrier" for barrier objects);
  * register arrays (`array`): element `allowed`/`var`, length fixed (`length=4`), bound to a length
    variable (`length="N"`), constrained by `lengths`;
  * `tensormap`: binds `var` to the element type and "R" to the box rank; `coords`: `[i32; R]`;
  * `const`: the argument must be a compile-time constant (e.g. `cp_async`'s byte count); `values` and
    `multiple_of` constrain a constant argument (checked whenever the value is known); `binds` makes a
    constant argument set a length variable (`load_vec(p, 4) -> [T; 4]`).
Optional trailing arguments (`optional`) are the `mask`s (default 0xffffffff) and `barrier`'s id/count.
"""

from __future__ import annotations

from irc.ir.optable import ROUNDING, UNARY_MATH
from irc.records import field, record
from irc.target import ARCHES, GATE_FAMILIES, family_admits

# Targets and requirement families come from irc.target (the one source of target facts): "sm_80" (every
# target), "sm_90" (sm_90 and newer), "sm_100a" (the arch-specific datacenter Blackwell targets that have
# tensor memory and tcgen05; not sm_100 and not sm_120a).
TARGETS = tuple(ARCHES)
FAMILIES: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in GATE_FAMILIES.items()}


def target_supports(requirement: str, arch: str) -> bool:
    return family_admits(requirement, arch)


INTS = frozenset({"i32", "u32", "i64", "u64"})
FLOATS = frozenset({"f16", "bf16", "f32", "f64"})
NUMS = INTS | FLOATS
WORDS = frozenset({"i32", "u32", "i64", "u64", "f32", "f64"})  # 32- and 64-bit scalars
SCALARS = NUMS | {"bool"}


@record(frozen=True)
class Arg:
    name: str
    kind: str = "scalar"  # scalar | ptr | array | tensormap | coords
    allowed: frozenset[str] | None = None  # scalar (or element) type names
    var: str | None = None
    spaces: tuple[str, ...] = ("global", "shared")
    length: int | str | None = None
    lengths: frozenset[int] | None = None
    const: bool = False
    values: frozenset[int] | None = None
    multiple_of: int | None = None
    binds: str | None = None  # a constant argument that sets a length variable (`load_vec`'s n -> "N")
    lane: bool = (
        False  # a shuffle's lane or lane offset: a constant outside 0..31 is a `shuffle-lane` warning
    )


@record(frozen=True)
class Ret:
    kind: str = "void"  # void | scalar | var | array
    name: str | None = None  # scalar name, or the type variable for var / array element
    length: int | str | None = None  # array length or its variable


@record(frozen=True)
class Intrinsic:
    name: str
    args: tuple[Arg, ...]
    ret: Ret = field(default_factory=Ret)
    optional: int = 0  # how many trailing args may be omitted
    target: str = "sm_80"  # requirement family, see FAMILIES
    collective: bool = False  # warp-collective (all lanes of the mask execute it together)
    barrier: bool = False  # block-wide barrier (`barrier(id, n)`: a named barrier for n threads)
    pure: bool = False  # no side effects, result depends only on the arguments
    doc: str = ""
    # the IR op this intrinsic is, when it is exactly one op of the op table: the arguments are its operands
    # (an omitted trailing `mask` is the full mask), `op_attrs` its attributes. Lowered generically
    # (`lower_intr`), so a new instruction needs only its op-table row and this intrinsic row.
    op: str | None = None
    op_attrs: tuple[tuple[str, object], ...] = ()


def _s(name: str, *allowed: str, var: str | None = None, **kw) -> Arg:
    return Arg(name, "scalar", frozenset(allowed) if allowed else None, var, **kw)


def _v(name: str, allowed: frozenset[str], var: str = "T") -> Arg:
    return Arg(name, "scalar", allowed, var)


def _p(name: str, *elem: str, var: str | None = None, spaces: tuple[str, ...] = ("global", "shared")) -> Arg:
    return Arg(name, "ptr", frozenset(elem) if elem else None, var, spaces)


def _a(name: str, elem: str, length: int | str, lengths: frozenset[int] | None = None) -> Arg:
    return Arg(
        name,
        "array",
        frozenset({elem}) if elem != "T" else None,
        "T" if elem == "T" else None,
        length=length,
        lengths=lengths,
    )


# Packed-half arithmetic (CUDA's __hadd2 ...): name -> arity; the op is name[1:-1] (`hadd2` -> add.f16x2).
HALF2_OPS = {"hadd2": 2, "hsub2": 2, "hmul2": 2, "hfma2": 3, "hmin2": 2, "hmax2": 2, "hneg2": 1, "habs2": 1}
# The same on two bf16 packed in a u32 (`hadd2_bf16` -> add.bf16x2; fma forms below sm_90, see lower_intr).
HALF2_OPS.update({f"{n}_bf16": k for n, k in list(HALF2_OPS.items())})


U32, MASK = "u32", _s("mask", "u32")
MBAR = _p("b", "mbarrier", spaces=("shared",))
VOID = Ret()
T_RET = Ret("var", "T")


def _ret(name: str) -> Ret:
    return Ret("scalar", name)


def _arr(elem: str, length: int | str) -> Ret:
    return Ret("array", elem, length)


_TMEM_NS = frozenset({1, 2, 4, 8, 16, 32, 64, 128})  # tcgen05.ld/st .num: x1 .. x128


def _table() -> dict[str, Intrinsic]:
    rows: list[Intrinsic] = []
    add = rows.append
    # ---- math
    for n in ("min", "max"):
        add(Intrinsic(n, (_v("a", NUMS), _v("b", NUMS)), T_RET, pure=True, doc=f"{n} of two numbers"))
    add(Intrinsic("abs", (_v("x", NUMS),), T_RET, pure=True, doc="absolute value"))
    add(
        Intrinsic(
            "mulhi", (_v("a", INTS), _v("b", INTS)), T_RET, pure=True, op="mulhi", doc="high half of a*b"
        )
    )
    add(
        Intrinsic(
            "fma",
            (_v("a", FLOATS), _v("b", FLOATS), _v("c", FLOATS)),
            T_RET,
            pure=True,
            doc="fused multiply-add a*b+c, rounded once",
        )
    )
    for n in (*UNARY_MATH, "exp", "log", *ROUNDING):  # exp / log lower to exp2 / log2 times a constant
        add(Intrinsic(n, (_v("x", FLOATS),), T_RET, pure=True, doc=f"{n} (floats)"))
    add(
        Intrinsic(
            "erf",
            (_v("x", frozenset({"f32"})),),
            T_RET,
            pure=True,
            doc="error function (f32; PTX has no instruction: a polynomial times ex2, abs. error < 1e-6)",
        )
    )
    add(
        Intrinsic(
            "select",
            (_s("c", "bool"), _v("a", SCALARS), _v("b", SCALARS)),
            T_RET,
            pure=True,
            doc="c ? a : b without branching",
        )
    )
    for n in ("popc", "clz"):
        add(Intrinsic(n, (_s("x", "u32", "u64"),), _ret("u32"), pure=True, doc=f"{n} (bit count)"))
    # ---- synchronization
    add(
        Intrinsic(
            "barrier",
            (_s("id", "u32"), _s("nthreads", "u32", multiple_of=32)),
            VOID,
            optional=2,
            barrier=True,
            doc="bar.sync id[, nthreads]; nthreads is a multiple of 32",
        )
    )
    add(Intrinsic("syncwarp", (MASK,), VOID, optional=1, collective=True, doc="bar.warp.sync mask"))
    for n in ("fence_block", "fence_gpu", "fence_system"):
        add(Intrinsic(n, (), VOID, doc="memory fence"))
    # ---- warp
    for n in ("shfl_down", "shfl_up", "shfl_xor"):
        add(
            Intrinsic(
                n,
                (_v("v", WORDS), _s("delta", "u32", lane=True), MASK),
                T_RET,
                optional=1,
                collective=True,
                doc=f"{n}.sync of a 32- or 64-bit scalar",
            )
        )
    add(
        Intrinsic(
            "shfl_idx",
            (_v("v", WORDS), _s("lane", "u32", lane=True), MASK),
            T_RET,
            optional=1,
            collective=True,
            doc="shfl.sync.idx",
        )
    )
    for n in ("vote_all", "vote_any"):
        add(Intrinsic(n, (_s("p", "bool"), MASK), _ret("bool"), optional=1, collective=True, doc="vote.sync"))
    add(
        Intrinsic(
            "ballot",
            (_s("p", "bool"), MASK),
            _ret("u32"),
            optional=1,
            collective=True,
            doc="vote.sync.ballot",
        )
    )
    add(Intrinsic("activemask", (), _ret("u32"), doc="activemask.b32"))
    for k in ("add", "min", "max", "and", "or", "xor"):
        add(Intrinsic(f"redux_{k}", (_v("v", frozenset({"i32", "u32"})), MASK), T_RET, optional=1, collective=True,
                      op="redux", op_attrs=(("kind", k),), doc=f"redux.sync.{k} over the lanes of the mask"))  # fmt: skip
    add(
        Intrinsic(
            "elect_one",
            (),
            _ret("bool"),
            collective=True,
            doc="true in exactly one active lane (elect.sync on sm_90+, emulated before)",
        )
    )
    # ---- atomics (return the old value)
    atom_types = {
        "atomic_add": INTS | {"f32", "f64"},
        "atomic_min": INTS,
        "atomic_max": INTS,
        "atomic_and": INTS,
        "atomic_or": INTS,
        "atomic_xor": INTS,
        "atomic_exch": WORDS,
    }
    for n, allowed in atom_types.items():
        add(
            Intrinsic(n, (_p("p", *sorted(allowed), var="T"), _v("v", allowed)), T_RET, doc=f"{n}, old value")
        )
    add(
        Intrinsic(
            "atomic_cas",
            (_p("p", *sorted(WORDS), var="T"), _v("expected", WORDS), _v("new", WORDS)),
            T_RET,
            doc="compare and swap, old value",
        )
    )
    # ---- vector memory
    add(
        Intrinsic(
            "load_vec",
            (
                _p("p", *sorted(NUMS), var="T"),
                Arg("n", "scalar", frozenset({U32}), const=True, values=frozenset({2, 4}), binds="N"),
            ),
            _arr("T", "N"),
            doc="vector load of 2 or 4 elements (p aligned to n*sizeof(T))",
        )
    )
    add(
        Intrinsic(
            "store_vec",
            (_p("p", *sorted(NUMS), var="T"), _a("arr", "T", "N", frozenset({2, 4}))),
            VOID,
            doc="vector store of a [T; 2|4]",
        )
    )
    for n, arity in HALF2_OPS.items():
        add(
            Intrinsic(
                n,
                tuple(_s(x, "u32") for x in "abc"[:arity]),
                _ret("u32"),
                pure=True,
                doc=f"{n[1:].split('2')[0]}.{'bf16x2' if n.endswith('_bf16') else 'f16x2'} on two halves "
                "packed in a u32",
            )
        )
    add(
        Intrinsic(
            "pack_half2", (_s("a", "f32"), _s("b", "f32")), _ret("u32"), pure=True, doc="cvt.rn.f16x2.f32"
        )
    )
    add(Intrinsic("unpack_half2", (_s("x", "u32"),), _arr("f32", 2), pure=True, doc="two f16 halves to f32"))
    # ---- async copy (sm_80)
    add(
        Intrinsic(
            "cp_async",
            (
                _p("dst", var="T", spaces=("shared",)),
                _p("src", var="T", spaces=("global",)),
                Arg("bytes", "scalar", frozenset({U32}), const=True, values=frozenset({4, 8, 16})),
            ),
            VOID,
            doc="cp.async of 4, 8 or 16 bytes",
        )
    )
    add(Intrinsic("cp_async_commit", (), VOID, doc="cp.async.commit_group"))
    add(
        Intrinsic(
            "cp_async_wait",
            (Arg("n", "scalar", frozenset({U32}), const=True),),
            VOID,
            doc="cp.async.wait_group n",
        )
    )
    # ---- mbarrier
    add(Intrinsic("mbarrier_init", (MBAR, _s("count", "u32")), VOID, doc="mbarrier.init"))
    add(Intrinsic("mbarrier_arrive", (MBAR,), _ret("u64"), doc="mbarrier.arrive, returns the state"))
    add(Intrinsic("mbarrier_test_wait", (MBAR, _s("parity", "u32")), _ret("bool"), doc="test_wait.parity"))
    add(Intrinsic("mbarrier_wait", (MBAR, _s("parity", "u32")), VOID, doc="block until the phase completes"))
    add(Intrinsic("mbarrier_inval", (MBAR,), VOID, doc="mbarrier.inval"))
    add(
        Intrinsic(
            "mbarrier_arrive_expect_tx",
            (MBAR, _s("bytes", "u32")),
            _ret("u64"),
            target="sm_90",
            doc="mbarrier.arrive.expect_tx",
        )
    )
    add(Intrinsic("mbarrier_expect_tx", (MBAR, _s("bytes", "u32")), VOID, target="sm_90", doc="expect_tx"))
    add(
        Intrinsic(
            "mbarrier_try_wait",
            (MBAR, _s("parity", "u32")),
            _ret("bool"),
            target="sm_90",
            doc="try_wait.parity",
        )
    )
    add(Intrinsic("fence_mbarrier_init", (), VOID, target="sm_90", doc="fence.mbarrier_init.release.cluster"))
    # ---- TMA (sm_90)
    tmap, coords = Arg("m", "tensormap", var="T"), Arg("coords", "coords")
    add(
        Intrinsic(
            "tma_load",
            (_p("dst", var="T", spaces=("shared",)), tmap, coords, MBAR),
            VOID,
            target="sm_90",
            doc="cp.async.bulk.tensor global->shared, completes box bytes on b",
        )
    )
    add(
        Intrinsic(
            "tma_store",
            (tmap, coords, _p("src", var="T", spaces=("shared",))),
            VOID,
            target="sm_90",
            doc="cp.async.bulk.tensor shared->global",
        )
    )
    add(Intrinsic("tma_store_commit", (), VOID, target="sm_90", doc="cp.async.bulk.commit_group"))
    add(
        Intrinsic(
            "tma_store_wait",
            (Arg("n", "scalar", frozenset({U32}), const=True),),
            VOID,
            target="sm_90",
            doc="cp.async.bulk.wait_group.read n",
        )
    )
    add(Intrinsic("tma_prefetch", (tmap, coords), VOID, target="sm_90", doc="cp.async.bulk.prefetch.tensor"))
    add(Intrinsic("fence_proxy_async", (), VOID, target="sm_90", doc="fence.proxy.async.shared::cta"))
    # ---- tensor cores (sm_80)
    lds = _p("p", "f16", "bf16", spaces=("shared",))
    for n, k in (
        ("ldmatrix_x1", 1),
        ("ldmatrix_x2", 2),
        ("ldmatrix_x4", 4),
        ("ldmatrix_x2_trans", 2),
        ("ldmatrix_x4_trans", 4),
    ):
        add(Intrinsic(n, (lds,), _arr("u32", k), collective=True, doc=f"ldmatrix.sync.aligned.m8n8.x{k}"))
    for n in ("mma_m16n8k16_f16", "mma_m16n8k16_bf16"):
        add(
            Intrinsic(
                n,
                (_a("a", "u32", 4), _a("b", "u32", 2), _a("c", "f32", 4)),
                _arr("f32", 4),
                collective=True,
                pure=True,
                doc="mma.sync.aligned.m16n8k16.row.col.f32",
            )
        )
    for n in ("wmma_load_a", "wmma_load_b"):
        add(
            Intrinsic(
                n,
                (_p("p", "f16"), _s("ld", "u32")),
                _arr("u32", 8),
                collective=True,
                doc="wmma.load m16n16k16 f16",
            )
        )
    add(
        Intrinsic(
            "wmma_mma",
            (_a("a", "u32", 8), _a("b", "u32", 8), _a("c", "f32", 8)),
            _arr("f32", 8),
            collective=True,
            pure=True,
            doc="wmma.mma m16n16k16 f32 accumulate",
        )
    )
    add(
        Intrinsic(
            "wmma_store",
            (_p("p", "f32"), _a("d", "f32", 8), _s("ld", "u32")),
            VOID,
            collective=True,
            doc="wmma.store row-major",
        )
    )
    # ---- Blackwell (sm_100a)
    bw = "sm_100a"
    add(
        Intrinsic(
            "tmem_alloc",
            (
                _p("dst", "u32", spaces=("shared",)),
                Arg("ncols", "scalar", frozenset({U32}), values=frozenset({32, 64, 128, 256, 512})),
            ),
            VOID,
            target=bw,
            collective=True,
            doc="tcgen05.alloc: ncols a power of two in 32..512",
        )
    )
    add(
        Intrinsic(
            "tmem_relinquish", (), VOID, target=bw, collective=True, doc="tcgen05.relinquish_alloc_permit"
        )
    )
    add(
        Intrinsic(
            "tmem_dealloc",
            (
                _s("taddr", "u32"),
                Arg("ncols", "scalar", frozenset({U32}), values=frozenset({32, 64, 128, 256, 512})),
            ),
            VOID,
            target=bw,
            collective=True,
            doc="tcgen05.dealloc",
        )
    )
    add(
        Intrinsic(
            "smem_desc",
            (_p("p", spaces=("shared",)), _s("lbo", "u32"), _s("sbo", "u32"), _s("swizzle", "u32")),
            _ret("u64"),
            target=bw,
            pure=True,
            doc="shared-memory matrix descriptor",
        )
    )
    add(
        Intrinsic(
            "tcgen05_mma_f16",
            (
                _s("d_tmem", "u32"),
                _s("a_desc", "u64"),
                _s("b_desc", "u64"),
                _s("idesc", "u32"),
                _s("accumulate", "bool"),
            ),
            VOID,
            target=bw,
            doc="tcgen05.mma.cta_group::1.kind::f16 (issued by one thread)",
        )
    )
    add(Intrinsic("tcgen05_commit", (MBAR,), VOID, target=bw, doc="tcgen05.commit to an mbarrier"))
    add(
        Intrinsic(
            "tcgen05_ld_32x32b",
            (
                _s("taddr", "u32"),
                Arg(
                    "n",
                    "scalar",
                    frozenset({U32}),
                    const=True,
                    values=frozenset({1, 2, 4, 8, 16, 32, 64, 128}),
                    binds="N",
                ),
            ),
            _arr("u32", "N"),
            target=bw,
            collective=True,
            doc="tcgen05.ld.sync.aligned.32x32b.xN",
        )
    )
    # f32 view of the same load (accumulators in tensor memory are f32), and the store back (the
    # softmax/correction role rescales O in place: ld, multiply, st).
    add(
        Intrinsic(
            "tcgen05_ld_32x32b_f32",
            (
                _s("taddr", "u32"),
                Arg("n", "scalar", frozenset({U32}), const=True, values=_TMEM_NS, binds="N"),
            ),
            _arr("f32", "N"),
            target=bw,
            collective=True,
            doc="tcgen05.ld.sync.aligned.32x32b.xN into f32 registers",
        )
    )
    add(
        Intrinsic(
            "tcgen05_st_32x32b",
            (
                _s("taddr", "u32"),
                Arg("v", "array", frozenset({"u32", "f32"}), "T", length="N", lengths=_TMEM_NS),
            ),
            VOID,
            target=bw,
            collective=True,
            doc="tcgen05.st.sync.aligned.32x32b.xN",
        )
    )
    for n in ("tcgen05_wait_ld", "tcgen05_wait_st", "tcgen05_fence_before", "tcgen05_fence_after"):
        add(Intrinsic(n, (), VOID, target=bw, doc=n.replace("_", ".", 1)))
    return {r.name: r for r in rows}


INTRINSICS: dict[str, Intrinsic] = _table()

# CUDA spellings authors type from habit -> the .kdsl spelling (a did-you-mean for unknown names).
CUDA_SPELLINGS = {
    "__syncthreads": "barrier()",
    "__syncwarp": "syncwarp()",
    "threadIdx": "tid",
    "blockIdx": "ctaid",
    "blockDim": "ntid",
    "gridDim": "nctaid",
    "warpSize": "32",
    "__threadfence_block": "fence_block()",
    "__threadfence": "fence_gpu()",
    "__threadfence_system": "fence_system()",
    "__shfl_sync": "shfl_idx",
    "__shfl_down_sync": "shfl_down",
    "__shfl_up_sync": "shfl_up",
    "__shfl_xor_sync": "shfl_xor",
    "__ballot_sync": "ballot",
    "__all_sync": "vote_all",
    "__any_sync": "vote_any",
    "__activemask": "activemask()",
    "__popc": "popc",
    "__clz": "clz",
    "__float_as_uint": "bitcast<u32>(x)",
    "__uint_as_float": "bitcast<f32>(x)",
    "__float_as_int": "bitcast<i32>(x)",
    "__int_as_float": "bitcast<f32>(x)",
    "__ldg": "a `*global readonly T` pointer",
    "atomicAdd": "atomic_add",
    "atomicMin": "atomic_min",
    "atomicMax": "atomic_max",
    "atomicExch": "atomic_exch",
    "atomicCAS": "atomic_cas",
    "__expf": "exp",
    "expf": "exp",
    "logf": "log",
    "sqrtf": "sqrt",
    "rsqrtf": "rsqrt",
    "erff": "erf",
    "fmaf": "fma",
    "fmaxf": "max",
    "fminf": "min",
    "fabsf": "abs",
    "__hadd2": "hadd2",
    "__hmul2": "hmul2",
    "__hfma2": "hfma2",
}

# Built-in values (spec section 5): name -> (components, minimum target family).
BUILTIN_VECTORS = ("tid", "ntid", "ctaid", "nctaid")
BUILTIN_SCALARS = {
    "laneid": "sm_80",
    "cluster_ctarank": "sm_90",
    # %lanemask_*: bit i set for lanes i below / at or below / above / at or above this lane
    "lanemask_lt": "sm_80",
    "lanemask_le": "sm_80",
    "lanemask_gt": "sm_80",
    "lanemask_ge": "sm_80",
}
