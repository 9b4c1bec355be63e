"""Type facts of the PTX lifter: PTX type suffixes as IR types, special registers, opcode name groups.

Shared by the lifter's core (`lift.py`: register declarations, parameters) and its op handlers
(`lift_ops.py`), so neither imports the other's private names.
"""

from __future__ import annotations

from irc.ir.types import B32, BOOL, ScalarType, Type
from irc.ir.types import bit_width as ir_bit_width

# ------------------------------------------------------------------------------------------ type facts

KIND = {"s": "i", "u": "u", "b": "b", "f": "f"}
PTX_TYPES: dict[str, Type] = {}
for _k in ("s", "u", "b"):
    for _w in (8, 16, 32, 64):
        PTX_TYPES[f"{_k}{_w}"] = ScalarType(f"{KIND[_k]}{_w}")
for _n in ("f16", "bf16", "f32", "f64"):
    PTX_TYPES[_n] = ScalarType(_n)
PTX_TYPES["pred"] = BOOL
PACKED = {"f16x2": B32, "bf16x2": B32, "tf32": B32, "b128": ScalarType("b64"), "e4m3x2": ScalarType("b16"),
           "e5m2x2": ScalarType("b16"), "s16x2": B32, "u16x2": B32}  # fmt: skip
ALL_TYPES = dict(PTX_TYPES)
ALL_TYPES.update(PACKED)

SREG_NAMES = {
    "tid", "ntid", "ctaid", "nctaid", "laneid", "warpid", "nwarpid", "smid", "nsmid", "gridid", "clusterid",
    "nclusterid", "cluster_ctaid", "cluster_nctaid", "cluster_ctarank", "cluster_nctarank",
    "is_explicit_cluster", "lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt",
    "clock", "clock64", "globaltimer", "globaltimer_lo", "globaltimer_hi", "dynamic_smem_size",
    "total_smem_size", "aggr_smem_size", "envreg", "pm", "reserved_smem_offset_begin",
    "reserved_smem_offset_end", "reserved_smem_offset_cap", "reserved_smem_offset_0",
    "reserved_smem_offset_1", "current_graph_exec",
}  # fmt: skip
SREG64 = {"clock64", "globaltimer", "gridid", "current_graph_exec"}

CMP = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
CMPS = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu",
         "geu", "num", "nan"}  # fmt: skip
PURE_TEXT = {"lop3", "prmt", "bfe", "bfi", "brev", "popc", "clz", "shf", "bfind", "fns", "testp", "copysign",
              "cnot", "sad", "dp4a", "dp2a", "bmsk", "szext", "mul24", "mad24", "addc", "subc", "madc",
              "set", "slct", "isspacep", "createpolicy", "mapa", "getctarank", "istypep", "min", "max",
              "mbarrier.pending_count"}  # fmt: skip
ATOM_KINDS = {"add", "min", "max", "and", "or", "xor", "exch", "inc", "dec", "cas"}
SPACE_OF = {"global": "global", "shared": "shared", "shared::cta": "shared", "shared::cluster": "shared",
             "local": "local", "param": "param", "const": "const"}  # fmt: skip
ROUND = {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs"}


def suffix_type(mods: list[str]) -> Type | None:
    """The IR type named by the last type modifier of an opcode (`add.s32` -> i32)."""
    for m in reversed(mods):
        t = ALL_TYPES.get(m)
        if t is not None:
            return t
    return None


def type_mods(mods: list[str]) -> list[str]:
    return [m for m in mods if m in ALL_TYPES]


def reg_type(decl_type: str) -> Type:
    t = decl_type.lstrip(".")
    return ALL_TYPES.get(t, B32)


def widen(t: Type, width: int) -> Type:
    """`t` of the same kind at `width` bits (an 8-bit load into a 32-bit register reads as 32 bits)."""
    if isinstance(t, ScalarType) and t.name != "bool" and t.bits != width and not t.is_float:
        return ScalarType(f"{t.name[0]}{width}")
    return t


WIDTHS: dict[Type, int] = {}


def bit_width(t: Type) -> int:
    """Register width of `t`, cached (ScalarType.bits parses the name on every call)."""
    w = WIDTHS.get(t)
    if w is None:
        w = WIDTHS[t] = ir_bit_width(t)
    return w


def uint(v: int, t: Type) -> int:
    """Immediates of unsigned/bit types as their unsigned value (`-1` mask -> 0xffffffff)."""
    if isinstance(t, ScalarType) and t.name[0] in "ub" and t.name != "bool" and v < 0:
        return v & ((1 << t.bits) - 1)
    return v
