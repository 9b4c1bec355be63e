"""The Python API: compile .kdsl, then launch kernels on numpy arrays in the emulator or on a GPU.

    mod = irc.compile_file("examples/vector_add.kdsl", arch="sm_80")
    mod["vector_add"].launch(grid=8, block=128, args=[out, x, y, 1000])          # device="emu"

The emulator executes the PTX text exactly as printed (parsed back with the PTX front end), so a launch
tests every pass, the register allocator and the printer. Compiled PTX is cached on disk
(`~/.cache/irc`, or `$IRC_CACHE_DIR`), keyed by source, options, target and irc version.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from irc.diagnostics import Diagnostic
from irc.ir.types import BF16, F16, F32, F64, I32, I64, U32, U64, PtrType, ScalarType, TensorMapType, Type
from irc.records import field, record


class LaunchError(ValueError):
    """A launch with wrong arguments (count, dtype, size, shape) — the caller's mistake, clearly worded."""


_NP_DTYPES: dict[str, Any] = {
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


def _dims(v: Any, what: str) -> tuple[int, int, int]:
    if isinstance(v, (int, np.integer)):
        t = (int(v), 1, 1)
    else:
        t = tuple(int(x) for x in v) + (1,) * (3 - len(tuple(v)))
    if len(t) != 3 or any(x < 1 for x in t):
        raise LaunchError(f"{what} must be a positive int or up to three positive ints, got {v!r}")
    return t  # type: ignore[return-value]


@record
class Kernel:
    """A compiled kernel: its parameter list and launch."""

    name: str
    module: CompiledModule
    param_names: list[str]
    param_types: list[Type]
    stats: dict[str, Any] = field(default_factory=dict)

    def check_args(self, args: list[Any]) -> list[Any]:
        """Validate and convert arguments by the parameter types; raise LaunchError with a clear message."""
        if len(args) != len(self.param_types):
            sig = ", ".join(f"{n}: {t}" for n, t in zip(self.param_names, self.param_types))
            raise LaunchError(
                f"kernel `{self.name}` takes {len(self.param_types)} arguments ({sig}), got {len(args)}"
            )
        out: list[Any] = []
        for name, t, a in zip(self.param_names, self.param_types, args):
            if isinstance(t, PtrType) and isinstance(t.elem, PtrType):
                # an array of pointers: pass the arrays it points at; the launcher builds the table
                if not isinstance(a, (list, tuple)) or not a or not all(isinstance(x, np.ndarray) for x in a):
                    raise LaunchError(f"argument `{name}` is `{t}`: pass a list of numpy arrays")
                want = _NP_DTYPES.get(str(t.elem.elem))
                for j, x in enumerate(a):
                    if want is not None and x.dtype != np.dtype(want):
                        raise LaunchError(
                            f"argument `{name}`[{j}]: expected dtype {np.dtype(want)}, got {x.dtype}"
                        )
                    if not x.flags.c_contiguous:
                        raise LaunchError(f"argument `{name}`[{j}] must be C-contiguous")
                out.append(list(a))
            elif isinstance(t, PtrType):
                if not isinstance(a, np.ndarray):
                    raise LaunchError(
                        f"argument `{name}` is `{t}`: pass a numpy array, got {type(a).__name__}"
                    )
                want = _NP_DTYPES.get(str(t.elem))
                if want is not None and a.dtype != np.dtype(want):
                    raise LaunchError(
                        f"argument `{name}` is `{t}`: expected dtype {np.dtype(want)}, got {a.dtype}"
                    )
                if not a.flags.c_contiguous:
                    raise LaunchError(f"argument `{name}` must be C-contiguous (use np.ascontiguousarray)")
                if a.size == 0:
                    raise LaunchError(f"argument `{name}` is an empty array")
                out.append(a)
            elif isinstance(t, TensorMapType):
                if not isinstance(a, TensorMap):
                    raise LaunchError(f"argument `{name}` is `{t}`: pass irc.TensorMap(array, box)")
                if a.box != tuple(t.box):
                    raise LaunchError(
                        f"argument `{name}`: TensorMap box {a.box} differs from the declared box "
                        f"{tuple(t.box)}"
                    )
                want = _NP_DTYPES.get(str(t.elem))
                if want is not None and a.array.dtype != np.dtype(want):
                    raise LaunchError(
                        f"argument `{name}`: TensorMap array dtype {a.array.dtype}, expected {np.dtype(want)}"
                    )
                out.append(a)
            elif isinstance(t, ScalarType):
                if isinstance(a, np.ndarray) and a.ndim > 0:
                    raise LaunchError(f"argument `{name}` is a scalar `{t}`, got an array")
                try:
                    if t.is_float:
                        v: Any = float(a)
                    elif t.is_bool:
                        v = bool(a)
                    else:
                        v = int(a)
                        lo, hi = (
                            (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1)
                            if t.is_signed
                            else (0, (1 << t.bits) - 1)
                        )
                        if not lo <= v <= hi:
                            raise LaunchError(f"argument `{name}` = {v} does not fit `{t}`")
                except (TypeError, ValueError) as e:
                    if isinstance(e, LaunchError):
                        raise
                    raise LaunchError(f"argument `{name}` is `{t}`: cannot convert {a!r}") from None
                out.append(v)
            else:
                raise LaunchError(f"argument `{name}` has unsupported type `{t}`")
        return out

    def launch(
        self,
        grid: Any,
        block: Any,
        args: list[Any],
        *,
        device: str = "emu",
        dynamic_shared_bytes: int | None = None,
        **emu_options: Any,
    ) -> Any:
        """Run the kernel. Arrays are written back in place. Returns the emulator's stats (emu) or None.
        Emulator options: `racecheck=True` (default; `RaceError` on unordered conflicting accesses),
        `schedules=N` (N schedules: lockstep and interleaved warps, asynchronous work completing at seeded
        points; docs/emulator.md section 10), `seed=s` (one of them), `max_steps`, `max_threads_per_chunk`."""
        g, b = _dims(grid, "grid"), _dims(block, "block")
        conv = self.check_args(list(args))
        # `dynamic_shared_bytes` sizes the kernel's `shared x: [T] dynamic;` array; the dynamic shared memory
        # the kernel needs for its own static allocations (above 48 KB they live there too) is added to it.
        if dynamic_shared_bytes is not None and (
            not isinstance(dynamic_shared_bytes, int) or dynamic_shared_bytes < 0
        ):
            raise LaunchError(
                f"dynamic_shared_bytes must be a non-negative integer, got {dynamic_shared_bytes!r}"
            )
        dyn = self.stats.get("dynamic_shared_bytes", 0) + (dynamic_shared_bytes or 0)
        if device == "emu":
            from irc.emu import encode_tensormap, run_kernel

            for a in conv:
                if isinstance(a, TensorMap) and a.swizzle != "none":
                    raise LaunchError(
                        f'the emulator copies TMA tiles unswizzled; swizzle={a.swizzle!r} runs on device="cuda" only'
                    )

            conv = [
                encode_tensormap(
                    a.array,
                    tuple(reversed(a.array.shape)),
                    tuple(reversed(a.array.strides)),
                    tuple(reversed(a.box)),
                    a.array.dtype,
                    oob_fill=a.oob_fill,
                )
                if isinstance(a, TensorMap)
                else a
                for a in conv
            ]
            return run_kernel(
                self.module.ptx_model(),
                self.name,
                grid=g,
                block=b,
                args=conv,
                dynamic_shared_bytes=dyn,
                **emu_options,
            )
        if device == "cuda":
            from irc.runtime.cuda import launch as cuda_launch

            cluster = self.module.cluster_dims(self.name)
            return cuda_launch(
                self.module.ptx_text,
                self.module.arch,
                self.name,
                g,
                b,
                conv,
                self.param_types,
                dynamic_shared_bytes=dyn,
                cluster=cluster,
            )
        raise LaunchError(f'unknown device `{device}` (use "emu" or "cuda")')


class CompiledModule:
    """The result of `irc.compile`: PTX text, per-kernel stats, and kernels by name."""

    def __init__(
        self,
        ptx_text: str,
        arch: str,
        kernels: dict[str, tuple[list[str], list[Type], dict]],
        diagnostics: list[Diagnostic],
        attrs: dict[str, dict],
    ):
        self.ptx_text = ptx_text
        self.arch = arch
        self.diagnostics = diagnostics
        self._attrs = attrs
        self._ptx_model = None
        self._kernels = {
            n: Kernel(n, self, names, types, stats) for n, (names, types, stats) in kernels.items()
        }

    def __getitem__(self, name: str) -> Kernel:
        try:
            return self._kernels[name]
        except KeyError:
            raise KeyError(f"no kernel `{name}`; kernels: {', '.join(self._kernels) or '(none)'}") from None

    def __iter__(self):
        return iter(self._kernels)

    @property
    def kernels(self) -> list[str]:
        return list(self._kernels)

    def ptx_model(self):
        if self._ptx_model is None:
            from irc.frontend.ptx.parser import parse_ptx

            self._ptx_model = parse_ptx(self.ptx_text, "<irc>")
        return self._ptx_model

    def cluster_dims(self, name: str) -> tuple[int, int, int] | None:
        c = self._attrs.get(name, {}).get("cluster")
        return tuple(c) if c else None  # type: ignore[return-value]


def compile(
    source: str,
    *,
    arch: str = "sm_80",
    defines: dict[str, Any] | None = None,  # noqa: A001
    path: str = "<string>",
    cache: bool = True,
) -> CompiledModule:
    """Compile .kdsl source text. Raises irc.CompileError (with every diagnostic) on errors.

    With `cache=True` the result is looked up in (and stored to) the content-addressed on-disk cache
    (`$IRC_CACHE_DIR`, default `~/.cache/irc`), keyed by source, defines, target and irc version."""
    from irc.compiler import CompileOptions, compile_kdsl
    from irc.target import parse_arch

    arch = parse_arch(arch).name
    defines = dict(defines or {})
    key = None
    if cache:
        from irc.backends.ptx import cache as ptx_cache

        key = ptx_cache.make_key(source, {"defines": defines, "api": 1}, arch)
        hit = ptx_cache.get(key)
        if hit is not None:
            try:
                return _from_cache(hit, arch)
            except (ValueError, KeyError, TypeError):
                pass  # an unreadable entry is recompiled and overwritten
    res = compile_kdsl(source, path, CompileOptions(arch=arch, defines=defines))
    kernels = {}
    attrs = {}
    for fn in res.module.kernels:
        kernels[fn.name] = (
            [a.name or f"arg{i}" for i, a in enumerate(fn.params)],
            [a.type for a in fn.params],
            res.stats.get(fn.name, {}),
        )
        attrs[fn.name] = dict(fn.attrs)
    mod = CompiledModule(res.ptx_text, arch, kernels, res.diagnostics, attrs)
    if key is not None:
        from irc.backends.ptx import cache as ptx_cache

        try:
            ptx_cache.put(key, _to_cache(mod))
        except OSError:
            pass  # a read-only or full cache directory must not fail a compile
    return mod


def _to_cache(mod: CompiledModule) -> str:
    import json

    ks = {
        n: {
            "names": k.param_names,
            "types": [str(t) for t in k.param_types],
            "stats": k.stats,
            "attrs": mod._attrs.get(n, {}),
        }
        for n, k in mod._kernels.items()
    }
    from irc.tooling.render import diagnostic_to_json

    diags = [diagnostic_to_json(d) for d in mod.diagnostics]  # replayed on a hit (warnings survive)
    return json.dumps(
        {"format": 1, "ptx": mod.ptx_text, "kernels": ks, "diagnostics": diags}, sort_keys=True, default=str
    )


def _parse_type(text: str) -> Type:
    from irc.ir.parser import parse_module

    m = parse_module(f"module {{\nkernel @k(%0: {text}) {{\n^bb0:\n  ret\n}}\n}}\n")
    return m.functions[0].params[0].type


def _from_cache(blob: str, arch: str) -> CompiledModule:
    import json

    d = json.loads(blob)
    if d.get("format") != 1:
        raise ValueError("unknown cache format")
    kernels = {
        n: (k["names"], [_parse_type(t) for t in k["types"]], k["stats"]) for n, k in d["kernels"].items()
    }
    attrs = {n: k["attrs"] for n, k in d["kernels"].items()}
    from irc.tooling.render import diagnostic_from_json

    diags = [diagnostic_from_json(x) for x in d.get("diagnostics", [])]
    return CompiledModule(d["ptx"], arch, kernels, diags, attrs)


def compile_file(
    path: str | Path, *, arch: str = "sm_80", defines: dict[str, Any] | None = None
) -> CompiledModule:
    p = Path(path)
    return compile(p.read_text(encoding="utf-8"), arch=arch, defines=defines, path=str(path))


__all__ = [
    "compile",
    "compile_file",
    "CompiledModule",
    "Kernel",
    "TensorMap",
    "LaunchError",
    "F16",
    "F32",
    "F64",
    "I32",
    "I64",
    "U32",
    "U64",
    "BF16",
]
