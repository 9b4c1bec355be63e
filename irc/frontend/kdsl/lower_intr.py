"""Intrinsic calls -> IR ops (docs/ir.md, "Intrinsics map to ops"); mixed into `lower.KernelLowering`.

Why a table of small handlers instead of a generic rule: the op names, operand orders and attributes differ
per family (constant arguments become attributes, fragments are spread into separate operands, optional
masks default to a constant 0xffffffff), and keeping each mapping next to its neighbours makes the
convention easy to audit against docs/ir.md. `unsupported-target` is not reported here: sema reports the
intrinsic and the backend's legalization reports the op.
"""

from __future__ import annotations

import math

from irc.ir import types as ir
from irc.ir.core import Value
from irc.ir.optable import ROUNDING, UNARY_MATH
from irc.target import family_admits

from . import ast
from .intrinsics import HALF2_OPS, Intrinsic
from .types import Scalar, Type

#: Intrinsics that are the op of the same name, arguments as operands (the unary math list is the op table's).
_SIMPLE_MATH = ("min", "max", "fma", *UNARY_MATH, *ROUNDING)
_NULLARY = {
    "cp_async_commit": "cp_async_commit",
    "tma_store_commit": "tma_store_commit",
    "fence_proxy_async": "fence_proxy_async",
    "fence_mbarrier_init": "fence_mbarrier_init",
    "tmem_relinquish": "tmem_relinquish",
    "tcgen05_wait_ld": "tcgen05_wait_ld",
    "tcgen05_wait_st": "tcgen05_wait_st",
}
# Intrinsics whose arguments map 1:1 to operands of the same-named op, with an optional scalar result.
_DIRECT = {
    "mbarrier_init": None,
    "mbarrier_arrive": ir.U64,
    "mbarrier_test_wait": ir.BOOL,
    "mbarrier_wait": None,
    "mbarrier_inval": None,
    "mbarrier_arrive_expect_tx": ir.U64,
    "mbarrier_expect_tx": None,
    "mbarrier_try_wait": ir.BOOL,
    "tmem_alloc": None,
    "tmem_dealloc": None,
    "smem_desc": ir.U64,
    "tcgen05_commit": None,
    "pack_half2": ir.U32,
}
_ATOMIC = {
    "atomic_add": "add",
    "atomic_min": "min",
    "atomic_max": "max",
    "atomic_and": "and",
    "atomic_or": "or",
    "atomic_xor": "xor",
    "atomic_exch": "exch",
}
_SHFL = {"shfl_down": "down", "shfl_up": "up", "shfl_xor": "bfly", "shfl_idx": "idx"}
_FENCE = {"fence_block": "block", "fence_gpu": "gpu", "fence_system": "sys"}


class IntrinsicLowering:
    """Intrinsic lowering; state lives in `lower.KernelLowering`."""

    def _args(self, e: ast.Call, intr: Intrinsic) -> list:
        """Lower the arguments (scalars take the intrinsic's bound type variable from sema's types)."""
        out = []
        for a in e.args:
            out.append(self.lower(a, self.typed.types.get(a)))
        return out

    def _mask(self, args: list, n: int) -> Value:
        """Optional trailing mask: argument `n` if given, else `const 0xffffffff : u32`."""
        if len(args) > n:
            return args[n]
        return self.b.const(0xFFFFFFFF, ir.U32)

    def _erf(self, x: Value) -> Value:
        """erf(x) for f32 from ops PTX has: Abramowitz & Stegun 7.1.26 on |x| (absolute error 1.5e-7),
        erf(|x|) = 1 - t*(a1 + t*(a2 + ...)) * exp(-x*x) with t = 1 / (1 + p*|x|), and the sign of x
        copied back. exp goes through ex2.approx (relative error 2^-22), so the result is within 1e-6."""
        b = self.b
        t32 = x.type

        def c(v: float) -> Value:
            return b.const(v, t32)

        ax = b.value("abs", [x])
        t = b.value("div", [c(1.0), b.value("fma", [c(0.3275911), ax, c(1.0)])])
        poly = c(1.061405429)
        for k in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
            poly = b.value("fma", [poly, t, c(k)])
        poly = b.value("mul", [poly, t])
        e = b.value("exp2", [b.value("mul", [b.value("mul", [ax, ax]), c(-1.4426950408889634)])])
        r = b.value("fma", [b.value("neg", [poly]), e, c(1.0)])
        neg = b.value("cmp", [x, c(0.0)], ir.BOOL, {"pred": "lt"})
        return b.value("select", [neg, b.value("neg", [r]), r])

    def _half2(self, name: str, args: list) -> Value:
        """Packed-half arithmetic. PTX has add/sub/mul.bf16x2 only from sm_90; below, the fma form
        computes the same single rounding: a+b = fma(a, 1, b), a-b = fma(b, -1, a), a*b = fma(a, b, -0)
        (-0 keeps the sign of a zero product)."""
        b = self.b
        kind = name[1:].split("2")[0]
        bf16 = name.endswith("_bf16")
        attrs = {"kind": kind, "ty": "bf16x2" if bf16 else "f16x2"}
        if bf16 and kind in ("add", "sub", "mul") and not family_admits("sm_90", self.typed.arch):
            x, y = args
            if kind == "add":  # bf16x2 constants: 1.0 = 0x3F80, -1.0 = 0xBF80, -0.0 = 0x8000 in each half
                ops = [x, b.const(0x3F803F80, ir.U32), y]
            elif kind == "sub":
                ops = [y, b.const(0xBF80BF80, ir.U32), x]
            else:
                ops = [x, y, b.const(0x80008000, ir.U32)]
            return b.value("half2", ops, ir.U32, {"kind": "fma", "ty": "bf16x2"})
        return b.value("half2", args, ir.U32, attrs)

    def _const_arg(self, e: ast.Call, i: int) -> int:
        v = self.cval(e.args[i])
        if not isinstance(v, int):
            self.err(
                "const-error",
                f"argument {i + 1} of `{e.callee}` must be a compile-time constant",
                e.args[i].span,
            )
            return 0
        return int(v)

    def _generic_op(self, intr: Intrinsic, args: list, rt) -> Value | None:  # type: ignore[no-untyped-def]
        """An intrinsic that is one op of the op table (`Intrinsic.op`): arguments are operands, a missing
        trailing `mask` is the full mask, `op_attrs` are the attributes."""
        ops = list(args)
        if len(ops) < len(intr.args) and intr.args[len(ops)].name == "mask":
            ops.append(self.b.const(0xFFFFFFFF, ir.U32))
        attrs = dict(intr.op_attrs) or None
        if rt is None:
            self.b.create(intr.op, ops, [], attrs)
            return None
        return self.b.value(intr.op, ops, rt, attrs)

    def intrinsic(self, e: ast.Call, intr: Intrinsic, t: Type):  # noqa: C901 - one arm per family
        name = intr.name
        b = self.b
        span = e.span
        if name in (
            "cp_async",
            "cp_async_wait",
            "tma_store_wait",
            "load_vec",
            "tcgen05_ld_32x32b",
            "tcgen05_ld_32x32b_f32",
        ):
            const_last = True
        else:
            const_last = False
        if const_last:
            args = [self.lower(a, self.typed.types.get(a)) for a in e.args[:-1]]
        else:
            args = self._args(e, intr)
        b.span = span
        rt = self.ir_type(t) if isinstance(t, Scalar) else None

        if intr.op is not None:
            return self._generic_op(intr, args, rt)
        if name in _SIMPLE_MATH:
            return b.value(name, args)
        if name == "abs":
            if isinstance(rt, ir.ScalarType) and rt.is_int and not rt.is_signed:
                return args[0]
            return b.value("abs", args)
        if name in ("exp", "log"):
            x = args[0]
            if name == "exp":
                return b.value("exp2", [b.value("mul", [x, b.const(1.4426950408889634, x.type)])])
            return b.value("mul", [b.value("log2", [x]), b.const(math.log(2.0), x.type)])
        if name == "select":
            return self.select(args[0], args[1], args[2])
        if name == "erf":
            return self._erf(args[0])
        if name in HALF2_OPS:
            return self._half2(name, args)
        if name in ("popc", "clz"):
            r = b.value(name, args)
            return r if r.type == ir.U32 else b.value("cvt", [r], ir.U32)
        if name == "barrier":
            ids = [self.cval(a) for a in e.args]
            if all(isinstance(v, int) for v in ids):
                attrs = {"id": int(ids[0]) if ids else 0}
                if len(ids) > 1:
                    attrs["count"] = int(ids[1])
                b.create("barrier", [], [], attrs)
            else:
                b.create("barrier", args, [])
            return None
        if name == "syncwarp":
            b.create("syncwarp", [self._mask(args, 0)], [])
            return None
        if name in _FENCE:
            b.create("fence", [], [], {"scope": _FENCE[name]})
            return None
        if name in _SHFL:
            return b.value(
                "shfl", [args[0], args[1], self._mask(args, 2)], args[0].type, {"mode": _SHFL[name]}
            )
        if name in ("vote_all", "vote_any"):
            return b.value("vote", [args[0], self._mask(args, 1)], ir.BOOL, {"mode": name[5:]})
        if name == "ballot":
            return b.value("vote", [args[0], self._mask(args, 1)], ir.U32, {"mode": "ballot"})
        if name == "activemask":
            return b.value("activemask", [], ir.U32)
        if name == "elect_one":
            return b.value("elect", [b.const(0xFFFFFFFF, ir.U32)], ir.BOOL)
        if name in _ATOMIC:
            return b.value("atomic", args, args[1].type, {"kind": _ATOMIC[name]})
        if name == "atomic_cas":
            return b.value("atomic_cas", args, args[1].type)
        if name == "load_vec":
            n = self._const_arg(e, 1)
            elem = args[0].type.elem
            pt = self.typed.types.get(e.args[0])
            nc = {"nc": True} if getattr(pt, "readonly", False) else {}
            return list(b.create("load_vec", [args[0]], [elem] * n, nc).results)
        if name == "store_vec":
            b.create("store_vec", [args[0], *args[1]], [])
            return None
        if name == "unpack_half2":
            return list(b.create("unpack_half2", args).results)
        if name == "cp_async":
            b.create("cp_async", args, [], {"bytes": self._const_arg(e, 2)})
            return None
        if name in ("cp_async_wait", "tma_store_wait"):
            b.create(name, [], [], {"n": self._const_arg(e, 0)})
            return None
        if name in _NULLARY:
            b.create(_NULLARY[name], [], [])
            return None
        if name in _DIRECT:
            res = _DIRECT[name]
            op = b.create(name, args, [res] if res is not None else [])
            return op.result if res is not None else None
        if name == "tma_load":
            dst, m, coords, bar = args
            b.create("tma_load", [dst, m, *coords, bar], [])
            return None
        if name == "tma_store":
            m, coords, src = args
            b.create("tma_store", [m, *coords, src], [])
            return None
        if name == "tma_prefetch":
            m, coords = args
            b.create("tma_prefetch", [m, *coords], [])
            return None
        if name.startswith("ldmatrix_"):
            num = int(name.split("_")[1][1:])
            attrs = {"num": num}
            if name.endswith("_trans"):
                attrs["trans"] = True
            return list(b.create("ldmatrix", args, [ir.U32] * num, attrs).results)
        if name in ("mma_m16n8k16_f16", "mma_m16n8k16_bf16"):
            a, bb, c = args
            op = b.create("mma_m16n8k16", [*a, *bb, *c], [ir.F32] * 4, {"ab": name.rsplit("_", 1)[1]})
            return list(op.results)
        if name in ("wmma_load_a", "wmma_load_b"):
            return list(b.create("wmma_load", args, [ir.U32] * 8, {"frag": name[-1]}).results)
        if name == "wmma_mma":
            a, bb, c = args
            return list(b.create("wmma_mma", [*a, *bb, *c], [ir.F32] * 8).results)
        if name == "wmma_store":
            p, d, ld = args
            b.create("wmma_store", [p, *d, ld], [])
            return None
        if name == "tcgen05_mma_f16":
            b.create("tcgen05_mma", args, [])
            return None
        if name in ("tcgen05_ld_32x32b", "tcgen05_ld_32x32b_f32"):
            n = self._const_arg(e, 1)
            rt32 = ir.F32 if name.endswith("_f32") else ir.U32
            return list(b.create("tcgen05_ld", args, [rt32] * n, {"n": n}).results)
        if name == "tcgen05_st_32x32b":
            b.create("tcgen05_st", [args[0], *args[1]], [])
            return None
        if name in ("tcgen05_fence_before", "tcgen05_fence_after"):
            b.create("tcgen05_fence", [], [], {"kind": name.rsplit("_", 1)[1]})
            return None
        raise NotImplementedError(f"no lowering for intrinsic `{name}`")
