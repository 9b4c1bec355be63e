"""Launch inputs, validated once for every entry point: `Kernel.launch` (the Python API), `irc run` (the
command line, .kdsl and .ptx) and the PTX kernels of `irc.load_ptx`.

Why one module: the command line and the API must accept the same inputs and refuse the same ones with the
same words (issue 30). The command line only adds the step from text to a value (`parse_value`,
`load_npy`, `parse_arg_specs`); the value then goes through the very checks an API caller's value does.

Rules (docs/emulator.md, "Launch arguments"):
- grid and block are a positive int or up to three positive ints, never floats or strings, within the
  target's limits (`irc.target.max_grid`, `max_block`, `MAX_BLOCK_THREADS`);
- integer parameters take exact integers: an int, a numpy integer, or a float with no fractional part;
  `2.9`, `"1000"` and values outside the parameter's type are errors;
- arrays are numpy arrays, C-contiguous, non-empty, of the parameter's dtype; `.npy` files are loaded
  without pickle (an object array is refused with a clear message).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from irc.records import record


class LaunchError(ValueError):
    """A launch with wrong arguments (count, dtype, size, shape, geometry): the caller's mistake, worded
    so that it needs no traceback."""


class UnknownKernelError(KeyError):
    """`module["nope"]`: a KeyError (mapping semantics) whose text is the plain message, without the
    quotes `KeyError.__str__` adds."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown kernel"


NP_DTYPES: dict[str, Any] = {
    "i8": np.int8,
    "u8": np.uint8,
    "i16": np.int16,
    "u16": np.uint16,
    "i32": np.int32,
    "u32": np.uint32,
    "i64": np.int64,
    "u64": np.uint64,
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "bf16": np.uint16,  # numpy has no bfloat16: bf16 buffers are passed as their raw 16-bit patterns
}


# ---------------------------------------------------------------- geometry


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def launch_dims(value: Any, what: str, limit: tuple[int, int, int], arch: str) -> tuple[int, int, int]:
    """`value` (an int or up to three ints) as (x, y, z), each at least 1 and at most `limit`."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not 1 <= len(items) <= 3 or not all(_is_int(x) for x in items):
        bad = next((x for x in items if not _is_int(x)), None)
        why = f" ({type(bad).__name__} {bad!r} is not an integer)" if bad is not None else ""
        raise LaunchError(
            f"{what} must be a positive integer or up to three positive integers, got {value!r}{why}"
        )
    dims = tuple(int(x) for x in items) + (1,) * (3 - len(items))
    for axis, n, hi in zip("xyz", dims, limit):
        if n < 1:
            raise LaunchError(f"{what} must be positive in every dimension, got {what}.{axis} = {n}")
        if n > hi:
            raise LaunchError(f"{what}.{axis} = {n} exceeds the limit of {hi} on {arch}")
    return dims  # type: ignore[return-value]


def launch_geometry(
    grid: Any, block: Any, arch: str | None
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Validate a launch's grid and block against `arch`'s limits (an unknown target gets the limits of the
    default one: they are the same on every target irc knows)."""
    from irc.target import DEFAULT_ARCH, MAX_BLOCK_THREADS, max_block, max_grid, parse_arch

    try:
        name = parse_arch(arch).name if arch else DEFAULT_ARCH
    except ValueError:
        name = DEFAULT_ARCH
    g = launch_dims(grid, "grid", max_grid(name), name)
    b = launch_dims(block, "block", max_block(name), name)
    threads = b[0] * b[1] * b[2]
    if threads > MAX_BLOCK_THREADS:
        raise LaunchError(f"block {b} has {threads} threads; a block has at most {MAX_BLOCK_THREADS}")
    return g, b


def emulated_size(grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
    """Refuse a launch too large to emulate (`emu_max_threads`) before the emulator allocates anything."""
    from irc import limits

    threads = math.prod(grid) * math.prod(block)
    cap = limits.get("emu_max_threads")
    if threads > cap:
        raise LaunchError(
            f"grid {grid} x block {block} is {threads:,} threads; the emulator runs at most {cap:,} threads "
            f"per launch (`emu_max_threads`; raise it with IRC_LIMIT_EMU_MAX_THREADS=N, see docs/limits.md)"
        )


# ---------------------------------------------------------------- parameters


@record(frozen=True)
class ParamSpec:
    """What one kernel parameter accepts. `kind`: "int", "float", "bool" (scalars; `bits`, `signed`),
    "array" (a numpy array; `dtype` or None for any numeric dtype), "array-or-int" (a 64-bit PTX
    parameter, which may be a pointer or an integer), "arrays" (a list of arrays: a pointer table),
    "tensormap" (`box`, `dtype`), "bytes" (a by-value parameter of `bits // 8` bytes). `type` is the
    parameter's type as the source spells it, for messages. `either_sign`: an integer of `bits` bits
    read either way (PTX parameter types do not carry C's signedness: nvcc declares an `int` `.u32`)."""

    name: str
    type: str
    kind: str
    bits: int = 0
    signed: bool = False
    either_sign: bool = False
    dtype: Any = None
    box: tuple[int, ...] = ()


def _int_value(spec: ParamSpec, a: Any) -> int:
    if isinstance(a, np.ndarray) and a.ndim == 0:
        a = a.item()
    if isinstance(a, (str, bytes)):
        raise LaunchError(f"argument `{spec.name}` is `{spec.type}`: pass a number, not the string {a!r}")
    if isinstance(a, (bool, np.bool_)) or _is_int(a):
        v = int(a)
    elif isinstance(a, (float, np.floating)):
        f = float(a)
        if not math.isfinite(f) or not f.is_integer():
            raise LaunchError(f"argument `{spec.name}` is `{spec.type}`: {a!r} is not an integer")
        v = int(f)
    else:
        raise LaunchError(f"argument `{spec.name}` is `{spec.type}`: cannot use {type(a).__name__} {a!r}")
    if spec.either_sign:
        lo, hi = -(1 << (spec.bits - 1)), (1 << spec.bits) - 1
    elif spec.signed:
        lo, hi = -(1 << (spec.bits - 1)), (1 << (spec.bits - 1)) - 1
    else:
        lo, hi = 0, (1 << spec.bits) - 1
    if not lo <= v <= hi:
        raise LaunchError(f"argument `{spec.name}` = {v} does not fit `{spec.type}` ({lo}..{hi})")
    return v


def _scalar(spec: ParamSpec, a: Any) -> Any:
    if isinstance(a, np.ndarray) and a.ndim > 0:
        raise LaunchError(f"argument `{spec.name}` is a scalar `{spec.type}`, got an array")
    if spec.kind == "int":
        return _int_value(spec, a)
    if isinstance(a, np.ndarray):
        a = a.item()
    if spec.kind == "bool":
        if isinstance(a, (bool, np.bool_)):
            return bool(a)
        if _is_int(a) and int(a) in (0, 1):
            return bool(a)
        raise LaunchError(f"argument `{spec.name}` is `{spec.type}`: pass True or False, got {a!r}")
    if isinstance(a, (str, bytes)) or not isinstance(a, (int, float, np.integer, np.floating)):
        raise LaunchError(
            f"argument `{spec.name}` is `{spec.type}`: pass a number, got {type(a).__name__} {a!r}"
        )
    return float(a)


def check_array(spec: ParamSpec, a: Any, what: str | None = None) -> np.ndarray:
    """A numpy array argument: the right dtype (any numeric one when `spec.dtype` is None), C-contiguous,
    not empty."""
    what = what or f"argument `{spec.name}`"
    if not isinstance(a, np.ndarray):
        raise LaunchError(f"{what} is `{spec.type}`: pass a numpy array, got {type(a).__name__}")
    if spec.dtype is not None and a.dtype != np.dtype(spec.dtype):
        raise LaunchError(f"{what} is `{spec.type}`: expected dtype {np.dtype(spec.dtype)}, got {a.dtype}")
    if spec.dtype is None and a.dtype.kind not in "biuf":
        raise LaunchError(f"{what}: arrays of dtype {a.dtype} cannot be passed to a kernel")
    if not a.flags.c_contiguous:
        raise LaunchError(f"{what} must be C-contiguous (use np.ascontiguousarray)")
    if a.size == 0:
        raise LaunchError(f"{what} is an empty array")
    return a


def convert_args(kernel: str, specs: Sequence[ParamSpec], args: Sequence[Any]) -> list[Any]:
    """Check `args` against the parameters and convert the scalars (exact integers, floats, bools); raise
    LaunchError naming the first wrong argument."""
    if len(args) != len(specs):
        sig = ", ".join(f"{s.name}: {s.type}" for s in specs)
        raise LaunchError(f"kernel `{kernel}` takes {len(specs)} arguments ({sig}), got {len(args)}")
    out: list[Any] = []
    for s, a in zip(specs, args):
        if s.kind in ("int", "float", "bool"):
            out.append(_scalar(s, a))
        elif s.kind == "array":
            out.append(check_array(s, a))
        elif s.kind == "array-or-int":
            out.append(check_array(s, a) if isinstance(a, np.ndarray) and a.ndim > 0 else _int_value(s, a))
        elif s.kind == "arrays":
            if not isinstance(a, (list, tuple)) or not a:
                raise LaunchError(f"argument `{s.name}` is `{s.type}`: pass a list of numpy arrays")
            out.append([check_array(s, x, f"argument `{s.name}`[{j}]") for j, x in enumerate(a)])
        elif s.kind == "tensormap":
            out.append(_tensormap(s, a))
        elif s.kind == "bytes":
            if not isinstance(a, (bytes, bytearray)) or len(a) > s.bits // 8:
                raise LaunchError(
                    f"argument `{s.name}` is a {s.bits // 8}-byte by-value parameter: pass bytes"
                )
            out.append(bytes(a))
        else:  # pragma: no cover - every kind is handled above
            raise LaunchError(f"argument `{s.name}` has unsupported type `{s.type}`")
    return out


@record
class TensorMap:
    """A host-side TMA descriptor: `array` (C-contiguous, 1-5 dims) tiled by `box` (outermost first, numpy
    order). In the emulator it drives the tile copy; on a GPU it is encoded with cuTensorMapEncodeTiled.
    `swizzle` is one of "none", "32B", "64B", "128B"; `oob_fill` is "zero" or "nan"."""

    array: np.ndarray
    box: tuple[int, ...]
    swizzle: str = "none"
    oob_fill: str = "zero"

    def __post_init__(self) -> None:
        if not isinstance(self.box, (list, tuple)) or not all(_is_int(b) for b in self.box):
            raise LaunchError(f"TensorMap box must be a tuple of integers, got {self.box!r}")
        self.box = tuple(int(b) for b in self.box)
        if not isinstance(self.array, np.ndarray) or not self.array.flags.c_contiguous:
            raise LaunchError("TensorMap needs a C-contiguous numpy array")
        if not 1 <= self.array.ndim <= 5 or len(self.box) != self.array.ndim:
            raise LaunchError(
                f"TensorMap box {self.box} must have one extent per array dimension ({self.array.ndim})"
            )
        if any(b < 1 or b > 256 for b in self.box):
            raise LaunchError(f"TensorMap box extents must be in 1..256, got {self.box}")
        if self.swizzle not in ("none", "32B", "64B", "128B"):
            raise LaunchError(f"unknown swizzle `{self.swizzle}`")
        if self.oob_fill not in ("zero", "nan"):
            raise LaunchError(f"unknown oob_fill `{self.oob_fill}`")


def _tensormap(s: ParamSpec, a: Any) -> TensorMap:
    if not isinstance(a, TensorMap):
        raise LaunchError(f"argument `{s.name}` is `{s.type}`: pass irc.TensorMap(array, box)")
    if a.box != tuple(s.box):
        raise LaunchError(
            f"argument `{s.name}`: TensorMap box {a.box} differs from the declared box {tuple(s.box)}"
        )
    if s.dtype is not None and a.array.dtype != np.dtype(s.dtype):
        raise LaunchError(
            f"argument `{s.name}`: TensorMap array dtype {a.array.dtype}, expected {np.dtype(s.dtype)}"
        )
    return a


# ---------------------------------------------------------------- from text (the command line)


def parse_arg_specs(specs: Sequence[str]) -> dict[str, str]:
    """`--arg NAME=VALUE` strings -> {name: raw text}; a malformed or repeated name is an error."""
    out: dict[str, str] = {}
    for spec in specs:
        name, eq, raw = spec.partition("=")
        name = name.strip()
        if not eq or not name:
            raise LaunchError(f"--arg expects NAME=VALUE or NAME=PATH.npy, got `{spec}`")
        if name in out:
            raise LaunchError(f"--arg {name} is given twice ({name}={out[name]} and {name}={raw})")
        out[name] = raw
    return out


def parse_value(name: str, raw: str) -> int | float:
    """A number from the command line: `int(raw, 0)` (so 0x10 and 1_000 work), else a float. Whether it
    fits its parameter is decided later, by the same checks as the API's."""
    text = raw.strip()
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise LaunchError(f"--arg {name}: `{raw}` is not a number or a .npy file") from None


NPY_MAGIC = b"\x93NUMPY"


def load_npy(name: str, raw: str) -> np.ndarray:
    """Load a `.npy` file without pickle, with a clear message for every way it can be wrong."""
    p = Path(raw)
    where = f"--arg {name}"
    try:
        with p.open("rb") as fh:
            head = fh.read(len(NPY_MAGIC))
    except FileNotFoundError:
        raise LaunchError(f"{where}: no such file {raw}") from None
    except IsADirectoryError:
        raise LaunchError(f"{where}: {raw} is a directory, not a .npy file") from None
    except OSError as e:
        raise LaunchError(f"{where}: cannot read {raw} ({e.strerror})") from None
    if head != NPY_MAGIC:
        raise LaunchError(
            f"{where}: {raw} is not a .npy file (it does not start with the NumPy format's magic bytes)"
        )
    try:
        arr = np.load(p, allow_pickle=False)
    except ValueError as e:
        if "allow_pickle" in str(e) or "pickled" in str(e):
            raise LaunchError(
                f"{where}: {raw} holds an object array, which irc does not load (it would need pickle); "
                "save a numeric array (np.save with a numeric dtype)"
            ) from None
        raise LaunchError(f"{where}: {raw} is not a valid .npy file ({e})") from None
    except (OSError, EOFError) as e:
        raise LaunchError(f"{where}: {raw} is not a valid .npy file ({e})") from None
    if not isinstance(arr, np.ndarray):  # pragma: no cover - the magic check rules out .npz archives
        raise LaunchError(f"{where} is not a single array")
    return arr


def value_from_text(name: str, raw: str) -> Any:
    """The value of `--arg name=raw`: an array for a `.npy` path, else a number."""
    return load_npy(name, raw) if raw.endswith(".npy") else parse_value(name, raw)


# ---------------------------------------------------------------- kernel names


def demangle_base(name: str) -> tuple[str, ...]:
    """The names a user may call an Itanium-mangled kernel by (`_Z6vecAddPfS_S_i` -> ("vecAdd",),
    `_ZN2ns4scanIfEEvPT_` -> ("ns::scan", "scan")): the qualified function name and its last component.
    Only the name is decoded, never the parameter types; anything unrecognised gives ()."""
    if not name.startswith("_Z"):
        return ()
    i, parts = 2, []
    nested = name.startswith("_ZN")
    if nested:
        i = 3
        while i < len(name) and name[i] in "rVK":  # cv-qualifiers of a member function
            i += 1
    while i < len(name):
        if nested and name.startswith("St", i):  # `std::`
            parts.append("std")
            i += 2
            continue
        j = i
        while j < len(name) and name[j].isdigit():
            j += 1
        if j == i:
            break
        n = int(name[i:j])
        if n <= 0 or j + n > len(name):
            return ()
        parts.append(name[j : j + n])
        i = j + n
        if name.startswith("I", i):  # template arguments: skip to their matching `E`
            depth = 0
            while i < len(name):
                depth += {"I": 1, "E": -1}.get(name[i], 0)
                i += 1
                if depth == 0:
                    break
        if not nested:
            break
        if name.startswith("E", i):
            break
    if not parts:
        return ()
    qualified = "::".join(parts)
    return (qualified,) if len(parts) == 1 else (qualified, parts[-1])


def describe(kernel: str) -> str:
    """A kernel name for messages: `_Z5saxpyfPKfPfi (saxpy)`, or the name as it is."""
    d = demangle_base(kernel)
    return f"{kernel} ({d[0]})" if d else kernel


def find_kernel(kernels: Sequence[str], wanted: str) -> str:
    """The kernel `wanted` names: its exact (possibly mangled) name, or the demangled name when exactly one
    kernel has it. Raises UnknownKernelError listing the kernels otherwise."""
    if wanted in kernels:
        return wanted
    hits = [k for k in kernels if wanted in demangle_base(k)]
    if len(hits) == 1:
        return hits[0]

    if hits:
        raise UnknownKernelError(
            f"`{wanted}` names {len(hits)} kernels (overloads or template instances): "
            f"{', '.join(hits)}; pass the mangled name"
        )
    listed = ", ".join(describe(k) for k in kernels) or "(none)"
    raise UnknownKernelError(f"no kernel `{wanted}`; kernels: {listed}")
