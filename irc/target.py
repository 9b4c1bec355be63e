"""Per-target facts, kept in one place so the front end, the analyzer and the PTX backend cannot disagree.

Everything version-related here was MEASURED, not copied from documentation: each minimum `.version` is the
lowest PTX ISA version for which `ptxas` (CUDA 13.0 V13.0.88 and the 13.5 pip wheel gave identical answers)
assembles a trivial kernel with `.target <arch>`; `tests/test_target.py` re-checks every entry against the
installed ptxas (the minimum is accepted, the version just below it is rejected). Shared-memory limits are
the per-block opt-in maxima from the CUDA programming guide's compute-capability table.
"""

from __future__ import annotations

import re

from irc.records import record

#: Every target `--arch` accepts (spec section 9), in ascending order. The default is `DEFAULT_ARCH`.
ARCHES: list[str] = ["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103a", "sm_120a"]
DEFAULT_ARCH = "sm_80"

#: PTX ISA versions that exist (ptxas answers "Unsupported .version" for 6.6-6.9, 7.9, 8.9), ascending.
#: Used to step to "the version just below" a minimum. ptxas 13.0 knows up to 9.0, ptxas 13.5 up to 9.5.
PTX_VERSIONS: list[tuple[int, int]] = (
    [(6, m) for m in range(6)]
    + [(7, m) for m in range(9)]
    + [(8, m) for m in range(9)]
    + [(9, m) for m in range(6)]
)

# Measured with ptxas (see module docstring): lowest `.version` accepted for `.target <arch>`.
_MIN_PTX_VERSION: dict[str, tuple[int, int]] = {
    "sm_80": (7, 0),
    "sm_86": (7, 1),
    "sm_89": (7, 8),
    "sm_90": (7, 8),
    "sm_90a": (8, 0),
    "sm_100": (8, 6),
    "sm_100a": (8, 6),
    "sm_103a": (8, 8),
    "sm_120a": (8, 7),
}

_KB = 1024
#: Static `.shared` declarations are capped at 48 KB per block on every target; more needs dynamic shared
#: memory plus the opt-in attribute (cudaFuncAttributeMaxDynamicSharedMemorySize).
STATIC_SHARED_LIMIT = 48 * _KB

# Per-block maximum with opt-in (CUDA programming guide, "Technical Specifications per Compute Capability").
_MAX_SHARED_PER_BLOCK: dict[str, int] = {
    "sm_80": 163 * _KB,  # 166912
    "sm_86": 99 * _KB,  # 101376
    "sm_89": 99 * _KB,
    "sm_90": 227 * _KB,  # 232448
    "sm_90a": 227 * _KB,
    "sm_100": 227 * _KB,
    "sm_100a": 227 * _KB,
    "sm_103a": 227 * _KB,
    "sm_120a": 99 * _KB,
}

#: Registers a thread may use at most on every supported target (the `register-pressure` default cap).
MAX_REGISTERS_PER_THREAD = 255

#: Launch geometry limits (CUDA programming guide, "Technical Specifications per Compute Capability"; the
#: same for every target from sm_80 to sm_120a): grid extents (x, y, z), block extents (x, y, z) and the
#: threads of one block. `irc run`, `Kernel.launch` and the `@launch` attribute check against these.
_MAX_GRID: dict[str, tuple[int, int, int]] = {a: ((1 << 31) - 1, 65535, 65535) for a in ARCHES}
_MAX_BLOCK: dict[str, tuple[int, int, int]] = {a: (1024, 1024, 64) for a in ARCHES}
MAX_BLOCK_THREADS = 1024

_ARCH_RE = re.compile(r"^sm_(\d+)(a?)$")


@record(frozen=True)
class Arch:
    """A parsed target. `number` is the compute capability as an int (80, 86, ..., 120) so feature checks
    read as `arch.number >= 90`; `arch_specific` is the 'a' suffix, which unlocks instructions (wgmma,
    setmaxnreg, tcgen05) that are NOT forward compatible; `family` is the major generation (8, 9, 10, 12)."""

    name: str
    number: int
    arch_specific: bool
    family: int

    @property
    def major(self) -> int:
        return self.number // 10

    @property
    def minor(self) -> int:
        return self.number % 10

    def at_least(self, number: int) -> bool:
        """True when this target's compute capability is >= `number` (e.g. 90 for clusters / mbarrier tx)."""
        return self.number >= number

    def __str__(self) -> str:
        return self.name


def parse_arch(name: str) -> Arch:
    """Parse one of `ARCHES`. Anything else raises ValueError naming the accepted list (the CLI turns this
    into a usage error, exit 2)."""
    m = _ARCH_RE.match(name.strip()) if isinstance(name, str) else None
    if m is None or name.strip() not in ARCHES:
        raise ValueError(f"unknown target {name!r}; expected one of: {', '.join(ARCHES)}")
    number = int(m.group(1))
    return Arch(name=name.strip(), number=number, arch_specific=m.group(2) == "a", family=number // 10)


def _name(arch: str | Arch) -> str:
    return parse_arch(arch).name if isinstance(arch, str) else arch.name


def min_ptx_version(arch: str | Arch) -> tuple[int, int]:
    """Lowest `.version` (major, minor) that ptxas accepts together with `.target arch` (measured)."""
    return _MIN_PTX_VERSION[_name(arch)]


def max_shared_per_block(arch: str | Arch) -> int:
    """Bytes of shared memory (static + dynamic) one block may use on `arch` with the opt-in attribute."""
    return _MAX_SHARED_PER_BLOCK[_name(arch)]


def max_grid(arch: str | Arch) -> tuple[int, int, int]:
    """The largest grid extents (x, y, z) a launch may have on `arch`."""
    return _MAX_GRID[_name(arch)]


def max_block(arch: str | Arch) -> tuple[int, int, int]:
    """The largest block extents (x, y, z) on `arch`; their product is further capped by
    `MAX_BLOCK_THREADS`."""
    return _MAX_BLOCK[_name(arch)]


def max_shared_any_target() -> int:
    """The most shared memory a block may have on any supported target: a declaration larger than this
    can never compile, so the front end rejects it before lowering (its index arithmetic would not fit
    the address width)."""
    return max(_MAX_SHARED_PER_BLOCK.values())


def version_max(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """Combine two `.version` requirements: the result satisfies both (tuples compare major-then-minor)."""
    return a if a >= b else b


def versions_max(*versions: tuple[int, int]) -> tuple[int, int]:
    """`version_max` over any number of requirements; with none, the oldest version irc ever emits."""
    out = OLDEST_EMITTED_VERSION
    for v in versions:
        out = version_max(out, v)
    return out


def format_version(v: tuple[int, int]) -> str:
    """(8, 0) -> "8.0", the spelling of a PTX `.version` directive."""
    return f"{v[0]}.{v[1]}"


def parse_version(text: str) -> tuple[int, int]:
    """Parse "8.0" -> (8, 0). Raises ValueError on anything that is not MAJOR.MINOR."""
    m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", text)
    if not m:
        raise ValueError(f"not a PTX version: {text!r}")
    return int(m.group(1)), int(m.group(2))


def previous_ptx_version(v: tuple[int, int]) -> tuple[int, int] | None:
    """The existing PTX ISA version just below `v` (8.0 -> 7.8, 7.0 -> 6.5), or None below the table."""
    lower = [p for p in PTX_VERSIONS if p < v]
    return lower[-1] if lower else None


# ------------------------------------------------------------------------------------- gate families
# A gate family names the set of targets that accept a group of instructions (ptxas-verified, see
# /work/shared/ptx-reference/targets-table.txt). Every table that gates on a target (the op table, the
# .kdsl intrinsic table, the PTX forms in irc.ptxisa.gates / irc.ptxisa.forms) names one of these families
# instead of spelling its own list, so the layers cannot disagree about which targets exist.


def _family(pred) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    return tuple(a for a in ARCHES if pred(parse_arch(a)))


#: family name -> the targets it admits, in `ARCHES` order.
#:   "sm_80"   every target;  "sm_90" sm_90 and newer;  "sm_90a" only sm_90a (wgmma);
#:   "sm_100a" the arch-specific datacenter Blackwell targets with tensor memory (not sm_100, not sm_120a);
#:   "arch_specific" every 'a' target (setmaxnreg);  "none" no supported target.
GATE_FAMILIES: dict[str, tuple[str, ...]] = {
    "sm_80": tuple(ARCHES),
    "sm_90": _family(lambda a: a.number >= 90),
    "sm_90a": _family(lambda a: a.number == 90 and a.arch_specific),
    "sm_100a": _family(lambda a: a.family == 10 and a.arch_specific),
    "arch_specific": _family(lambda a: a.arch_specific),
    "none": (),
}

#: How diagnostics name a family ("`tmem_alloc` requires sm_100a or sm_103a; the target is sm_90").
FAMILY_TEXT: dict[str, str] = {
    "sm_80": "sm_80",
    "sm_90": "sm_90 or newer",
    "sm_90a": "sm_90a",
    "sm_100a": " or ".join(GATE_FAMILIES["sm_100a"]),
    "arch_specific": ", ".join(GATE_FAMILIES["arch_specific"]),
    "none": "no supported target",
}


def family_admits(family: str | None, arch: str) -> bool:
    """True when `arch` belongs to the gate family (None: every target)."""
    return family is None or arch in GATE_FAMILIES[family]


def family_of(targets: tuple[str, ...]) -> str | None:
    """The family whose target set is exactly `targets`, or None (used to check tables against families)."""
    for name, members in GATE_FAMILIES.items():
        if tuple(targets) == members:
            return name
    return None


#: The lowest `.version` irc ever emits (every target minimum is at least this).
OLDEST_EMITTED_VERSION: tuple[int, int] = (7, 0)
#: The `.version` a PTX module model carries before the backend computes the required one.
DEFAULT_MODULE_VERSION: tuple[int, int] = (8, 0)
