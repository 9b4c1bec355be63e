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


# ------------------------------------------------------------------------------------- every PTX target
# irc compiles for `ARCHES`, but `irc check` reads PTX for any target ptxas knows: a `.target sm_75` module is
# valid PTX, a `.target sm_999` one is not. Measured with ptxas 13.5 (V13.5.37): the lowest `.version` each
# `.target` assembles with (a trivial kernel; `-arch` the target itself, sm_75 for older targets, sm_110 for
# the sm_101 family; `compute_NN` measured equal to `sm_NN`); tests/test_ptx_validate.py re-measures a sample.

#: PTX ISA versions ptxas knows (anything else is "Unsupported .version"), ascending.
KNOWN_PTX_VERSIONS: tuple[tuple[int, int], ...] = tuple(
    (int(v.split(".")[0]), int(v.split(".")[1]))
    for v in (
        "1.0 1.1 1.2 1.3 1.4 1.5 2.0 2.1 2.2 2.3 3.0 3.1 3.2 4.0 4.1 4.2 4.3 5.0 5.1 6.0 6.1 6.2 6.3 6.4 6.5 "
        "7.0 7.1 7.2 7.3 7.4 7.5 7.6 7.7 7.8 8.0 8.1 8.2 8.3 8.4 8.5 8.6 8.7 8.8 9.0 9.1 9.2 9.3 9.4 9.5"
    ).split()
)

_PTX_TARGETS_TEXT = """
sm_10 1.0  sm_11 1.0  sm_12 1.2  sm_13 1.2  sm_20 2.0  sm_21 2.0  sm_30 3.0  sm_32 4.0  sm_35 3.1  sm_37 4.1
sm_50 4.0  sm_52 4.1  sm_53 4.2  sm_60 5.0  sm_61 5.0  sm_62 5.0  sm_70 5.1  sm_72 6.1  sm_75 6.3
sm_80 7.0  sm_86 7.1  sm_87 7.4  sm_88 9.0  sm_89 7.8  sm_90 7.8  sm_90a 8.0
sm_100 8.6  sm_100a 8.6  sm_100f 8.8  sm_101 8.6  sm_101a 8.6  sm_101f 8.8  sm_103 8.8  sm_103a 8.8  sm_103f 8.8
sm_107 9.4  sm_107a 9.4  sm_107f 9.4  sm_110 9.0  sm_110a 9.0  sm_110f 9.0
sm_120 8.7  sm_120a 8.7  sm_120f 8.8  sm_121 8.8  sm_121a 8.8  sm_121f 8.8
"""
_PTX_TARGET_RE = re.compile(r"^(?:sm|compute)_(\d+)([af]?)$")


def _ptx_targets() -> dict[str, tuple[int, int]]:
    words = _PTX_TARGETS_TEXT.split()
    out: dict[str, tuple[int, int]] = {}
    for name, ver in zip(words[::2], words[1::2]):
        out[name] = out["compute_" + name[3:]] = parse_version(ver)  # compute_NN: the same (measured)
    return out


@record(frozen=True)
class PtxTarget:
    """A `.target` name ptxas knows. `suffix` is "a" (arch-specific: no forward compatibility), "f"
    (family-specific) or ""; `min_version` the lowest `.version` ptxas accepts it with."""

    name: str
    number: int
    suffix: str
    min_version: tuple[int, int]


#: Every `.target` ptxas 13.5 knows -> its lowest `.version`.
PTX_TARGETS: dict[str, tuple[int, int]] = _ptx_targets()


def ptx_target(name: str) -> PtxTarget | None:
    """The PTX target `name` (`sm_75`, `sm_90a`, `compute_80`), or None when ptxas does not know it."""
    ver = PTX_TARGETS.get(name)
    if ver is None:
        return None
    m = _PTX_TARGET_RE.match(name)
    assert m is not None
    return PtxTarget(name, int(m.group(1)), m.group(2), ver)


def family_admits_target(family: str, target: str) -> bool:
    """Whether `target` (any name `ptx_target` knows) belongs to a gate family. The families are rules, so they
    cover targets outside `ARCHES` too (measured with ptxas 13.5 on every target of `PTX_TARGETS`):
      "sm_NN"          compute capability NN or newer, any suffix (`sm_80`, `sm_90`, `sm_100`, ...);
      "sm_90a"         exactly sm_90a (wgmma);
      "sm_100a"        the a/f targets of the sm_100 .. sm_110 families (tensor memory, tcgen05);
      "sm_100f"        the a/f targets of the sm_10x family only (redux.sync on f32);
      "sm_100a_only"   the 'a' targets of the sm_100 .. sm_110 families, no 'f' (tcgen05.shift);
      "arch_specific"  every a/f target from sm_90 on (setmaxnreg);
      "none"           no target."""
    t = ptx_target(target)
    if t is None or family == "none":
        return False
    if family == "sm_90a":
        return t.number == 90 and t.suffix == "a"
    if family == "sm_100a":
        return t.suffix in ("a", "f") and 100 <= t.number < 120
    if family == "sm_100f":
        return t.suffix in ("a", "f") and 100 <= t.number < 110
    if family == "sm_100a_only":
        return t.suffix == "a" and 100 <= t.number < 120
    if family == "arch_specific":
        return t.suffix in ("a", "f") and t.number >= 90
    m = _PTX_TARGET_RE.match(family)
    if m is None or m.group(2):
        raise KeyError(f"unknown gate family {family!r}")
    return t.number >= int(m.group(1))


# ------------------------------------------------------------------------------------- gate families
# A gate family names the set of targets that accept a group of instructions (ptxas-verified, see
# /work/shared/ptx-reference/targets-table.txt). Every table that gates on a target (the op table, the
# .kdsl intrinsic table, the PTX forms in irc.ptxisa.gates / irc.ptxisa.forms) names one of these families
# instead of spelling its own list, so the layers cannot disagree about which targets exist.


def _family(name: str) -> tuple[str, ...]:
    return tuple(a for a in ARCHES if family_admits_target(name, a))


#: family name -> the targets it admits, in `ARCHES` order (the rule of each family, which also covers the
#: PTX targets outside `ARCHES`, is `family_admits_target`).
#:   "sm_80"   every target;  "sm_90" sm_90 and newer;  "sm_90a" only sm_90a (wgmma);
#:   "sm_100a" the arch-specific datacenter Blackwell targets with tensor memory (not sm_100, not sm_120a);
#:   "arch_specific" every 'a' target (setmaxnreg);  "none" no supported target.
GATE_FAMILIES: dict[str, tuple[str, ...]] = {
    name: _family(name) for name in ("sm_80", "sm_90", "sm_90a", "sm_100a", "arch_specific", "none")
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


_FAMILY_RULE_TEXT: dict[str, str] = {
    "sm_100a": "an sm_100a-family target (sm_100a, sm_101a, sm_103a, sm_110a or their f variants)",
    "sm_100f": "an a/f target of the sm_10x family (sm_100a, sm_101a, sm_103a or their f variants)",
    "sm_100a_only": "an arch-specific target of the sm_100 .. sm_110 families (sm_100a, sm_101a, sm_103a, sm_110a)",
    "arch_specific": "an arch- or family-specific target (sm_90a, sm_100a, sm_120a, ... or an f target)",
}


def family_text(family: str) -> str:
    """How a diagnostic names a gate family over every PTX target (`family_admits_target`)."""
    if family in _FAMILY_RULE_TEXT:
        return _FAMILY_RULE_TEXT[family]
    if family == "sm_90a":
        return family
    return f"{family} or newer"


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
