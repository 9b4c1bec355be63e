"""The Python API: compile .kdsl, then launch kernels on numpy arrays in the emulator or on a GPU.

    mod = irc.compile_file("examples/vector_add.kdsl", arch="sm_80")
    mod["vector_add"].launch(grid=8, block=128, args=[out, x, y, 1000])          # device="emu"

The emulator executes the PTX text exactly as printed (parsed back with the PTX front end), so a launch
tests every pass, the register allocator and the printer. Compiled PTX is cached on disk
(`~/.cache/irc`, or `$IRC_CACHE_DIR`), keyed by source, path, options, target and irc version; the
directory and its entries are checked before use (docs/ci.md, "Cache security").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from irc.diagnostics import Diagnostic
from irc.ir.types import BF16, F16, F32, F64, I32, I64, U32, U64, PtrType, ScalarType, TensorMapType, Type
from irc.records import field, record
from irc.runtime.args import (
    NP_DTYPES,
    LaunchError,
    ParamSpec,
    TensorMap,
    UnknownKernelError,
    convert_args,
    emulated_size,
    find_kernel,
    launch_geometry,
)


def param_spec(name: str, t: Type) -> ParamSpec:
    """What a .kdsl parameter of type `t` accepts at launch (irc/runtime/args.py checks it)."""
    if isinstance(t, PtrType) and isinstance(t.elem, PtrType):
        return ParamSpec(name, str(t), "arrays", dtype=NP_DTYPES.get(str(t.elem.elem)))
    if isinstance(t, PtrType):
        return ParamSpec(name, str(t), "array", dtype=NP_DTYPES.get(str(t.elem)))
    if isinstance(t, TensorMapType):
        return ParamSpec(name, str(t), "tensormap", dtype=NP_DTYPES.get(str(t.elem)), box=tuple(t.box))
    if isinstance(t, ScalarType):
        kind = "float" if t.is_float else "bool" if t.is_bool else "int"
        return ParamSpec(name, str(t), kind, bits=t.bits, signed=bool(t.is_signed))
    raise LaunchError(f"parameter `{name}` has unsupported type `{t}`")


def check_dynamic_shared(value: Any) -> int:
    """`dynamic_shared_bytes`: a non-negative integer (None means 0)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise LaunchError(f"dynamic_shared_bytes must be a non-negative integer, got {value!r}")
    return int(value)


@record
class Kernel:
    """A compiled kernel: its parameter list and launch."""

    name: str
    module: CompiledModule
    param_names: list[str]
    param_types: list[Type]
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def params(self) -> list[ParamSpec]:
        return [param_spec(n, t) for n, t in zip(self.param_names, self.param_types)]

    def check_args(self, args: list[Any]) -> list[Any]:
        """Validate and convert arguments by the parameter types; raise LaunchError with a clear message."""
        return convert_args(self.name, self.params, list(args))

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
        if device not in ("emu", "cuda"):
            raise LaunchError(f'unknown device `{device}` (use "emu" or "cuda")')
        g, b = launch_geometry(grid, block, self.module.arch)
        conv = self.check_args(list(args))
        # `dynamic_shared_bytes` sizes the kernel's `shared x: [T] dynamic;` array; the dynamic shared memory
        # the kernel needs for its own static allocations (above 48 KB they live there too) is added to it.
        dyn = self.stats.get("dynamic_shared_bytes", 0) + check_dynamic_shared(dynamic_shared_bytes)
        if device == "emu":
            from irc.emu import encode_tensormap, run_kernel

            emulated_size(g, b)
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
        from irc.runtime.cuda import launch as cuda_launch

        cluster = self.module.cluster_dims(self.name)
        return cuda_launch(
            self.module.ptx_text,
            self.module.arch,
            self.name,
            g,
            b,
            conv,
            self.params,
            dynamic_shared_bytes=dyn,
            cluster=cluster,
        )


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
        """The kernel `name`; an unknown name raises `UnknownKernelError` (a KeyError) listing the kernels."""
        return self._kernels[find_kernel(list(self._kernels), name)]

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
    arch: str | None = None,
    defines: dict[str, Any] | None = None,  # noqa: A001
    path: str = "<string>",
    cache: bool = True,
) -> CompiledModule:
    """Compile .kdsl source text. Raises irc.CompileError (with every diagnostic) on errors.

    The target is `arch`, else the source's `// arch: sm_90a` header, else sm_80 (the rule of the command
    line). With `cache=True` the result is looked up in (and stored to) the content-addressed on-disk cache
    (`$IRC_CACHE_DIR`, default `~/.cache/irc`), keyed by source, path, defines, target and irc version
    (docs/ci.md, "Cache security")."""
    from irc.compiler import CompileOptions, compile_kdsl
    from irc.tooling.config import resolve_arch

    arch = resolve_arch(source, path, arch)
    defines = dict(defines or {})
    key = None
    if cache:
        from irc.backends.ptx import cache as ptx_cache

        key = ptx_cache.make_key(source, {"defines": defines, "api": 1}, arch, path)
        hit = ptx_cache.get(key)
        if hit is not None:
            mod = _from_cache(hit, arch)
            if mod is not None:
                return mod
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


def _from_cache(blob: str, arch: str) -> CompiledModule | None:
    """The module a cache entry describes, or None when the entry is not exactly what `_to_cache` writes.
    The entry's digest already matched, so this is damage the digest cannot see (an entry written by a
    buggy or older irc under the same key); whatever is wrong with it, the answer is a recompile, never
    an exception."""
    import json

    from irc.tooling.render import diagnostic_from_json

    try:
        d = json.loads(blob)
        ks = d["kernels"]
        if d["format"] != 1 or not isinstance(d["ptx"], str) or not isinstance(ks, dict):
            return None
        kernels = {}
        attrs = {}
        for n, k in ks.items():
            names, types = k["names"], k["types"]
            if not (
                isinstance(names, list)
                and isinstance(types, list)
                and all(isinstance(t, str) for t in types)
                and isinstance(k["stats"], dict)
                and isinstance(k["attrs"], dict)
            ):
                return None
            kernels[n] = (names, [_parse_type(t) for t in types], k["stats"])
            attrs[n] = k["attrs"]
        diags = [diagnostic_from_json(x) for x in d.get("diagnostics", [])]
        return CompiledModule(d["ptx"], arch, kernels, diags, attrs)
    except Exception:  # decoding cached bytes: any failure at all means "recompile"
        return None


def compile_file(
    path: str | Path, *, arch: str | None = None, defines: dict[str, Any] | None = None
) -> CompiledModule:
    """Compile a .kdsl file; the target is `arch`, else the file's `// arch:` header, else sm_80."""
    p = Path(path)
    if p.suffix == ".ptx":
        raise ValueError(f"{path} is PTX: load it with irc.load_ptx (compile_file compiles .kdsl)")
    return compile(p.read_text(encoding="utf-8"), arch=arch, defines=defines, path=str(path))


def ptx_param_spec(kernel: str, p: Any) -> ParamSpec:
    """What a PTX parameter accepts: PTX does not say whether a 64-bit integer parameter is a pointer, so
    it takes an array (passed by address) or an integer. Named without the `KERNEL_` prefix nvcc adds
    (`_Z6vecAddPfS_S_i_param_0` -> `param_0`)."""
    name = p.name.removeprefix(kernel + "_") if p.name.startswith(kernel + "_") else p.name
    t = p.type.lstrip(".")
    spelled = f".{t}" + (f"[{']['.join(str(d) for d in p.dims)}]" if p.dims else "")
    if p.dims:
        return ParamSpec(name, spelled, "bytes", bits=8 * p.size_bytes())
    if t == "pred":
        return ParamSpec(name, spelled, "bool", bits=1)
    bits = 8 * p.size_bytes()
    if t[0] == "f" or t == "bf16":
        return ParamSpec(name, spelled, "float", bits=bits)
    if p.ptr_space is not None:
        return ParamSpec(name, spelled, "array", bits=bits)
    kind = "array-or-int" if bits == 64 else "int"
    return ParamSpec(name, spelled, kind, bits=bits, signed=t[0] == "s", either_sign=True)


@record
class PtxKernel:
    """A kernel of a PTX module (nvcc's, Triton's, irc's): its parameters and an emulator launch."""

    name: str
    module: PtxModule
    params: list[ParamSpec]

    @property
    def param_names(self) -> list[str]:
        return [p.name for p in self.params]

    def check_args(self, args: list[Any]) -> list[Any]:
        return convert_args(self.name, self.params, list(args))

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
        """Run the kernel (arrays written back in place): in the emulator, returning `EmuStats`, or with
        `device="cuda"` on the GPU (portable PTX is assembled for the GPU's own target; None)."""
        if device not in ("emu", "cuda"):
            raise LaunchError(f'unknown device `{device}` (use "emu" or "cuda")')
        g, b = launch_geometry(grid, block, self.module.arch)
        conv = self.check_args(list(args))
        dyn = check_dynamic_shared(dynamic_shared_bytes)
        if device == "cuda":
            if emu_options:
                raise LaunchError(f'emulator options {sorted(emu_options)} do not apply to device="cuda"')
            from irc.runtime.cuda import launch as cuda_launch

            return cuda_launch(
                self.module.text,
                self.module.arch,
                self.name,
                g,
                b,
                conv,
                self.params,
                dynamic_shared_bytes=dyn,
            )
        emulated_size(g, b)
        from irc.emu import run_kernel

        return run_kernel(
            self.module.model, self.name, grid=g, block=b, args=conv, dynamic_shared_bytes=dyn, **emu_options
        )


class PtxModule:
    """PTX text parsed for the emulator: `kernels` (the `.entry` names as written, mangled or not) and
    `module[name]`, which also finds a mangled kernel by its demangled name when that is unambiguous."""

    def __init__(self, model: Any, text: str = ""):
        self.model = model
        self.text = text  # the PTX as given: what device="cuda" assembles
        self.arch = str(model.target).split(",")[0].strip()
        self._kernels = {
            f.name: PtxKernel(f.name, self, [ptx_param_spec(f.name, p) for p in f.params])
            for f in model.functions
            if f.kind == "entry" and f.body is not None
        }

    @property
    def kernels(self) -> list[str]:
        return list(self._kernels)

    def __iter__(self):
        return iter(self._kernels)

    def __getitem__(self, name: str) -> PtxKernel:
        return self._kernels[find_kernel(list(self._kernels), name)]


def load_ptx(source: str, *, path: str = "<string>") -> PtxModule:
    """Parse PTX text for `launch` in the emulator. Raises irc.CompileError for PTX that does not parse."""
    from irc.frontend.ptx.parser import parse_ptx

    return PtxModule(parse_ptx(source, path), source)


def load_ptx_file(path: str | Path) -> PtxModule:
    """`load_ptx` on a file's text."""
    return load_ptx(Path(path).read_text(encoding="utf-8"), path=str(path))


__all__ = [
    "compile",
    "compile_file",
    "load_ptx",
    "load_ptx_file",
    "PtxModule",
    "PtxKernel",
    "UnknownKernelError",
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
