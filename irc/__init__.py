"""irc: a compiler and static analyzer for GPU kernels (.kdsl -> SSA IR -> PTX; `irc check` for .kdsl and .ptx).

Python API: `irc.compile(source, arch=..., defines=...)`, `irc.compile_file(path, ...)`, then
`mod["kernel"].launch(grid, block, args, device="emu" | "cuda")`; `irc.TensorMap` describes TMA operands.
"""

from irc.diagnostics import CompileError, Diagnostic, InternalCompilerError
from irc.version import __version__

_API = (
    "compile",
    "compile_file",
    "load_ptx",
    "load_ptx_file",
    "CompiledModule",
    "Kernel",
    "PtxModule",
    "PtxKernel",
    "TensorMap",
    "LaunchError",
    "UnknownKernelError",
)


def __getattr__(name: str):  # lazy: `import irc` stays cheap for the CLI
    if name in _API:
        from irc import api

        return getattr(api, name)
    raise AttributeError(f"module 'irc' has no attribute {name!r}")


__all__ = [
    "__version__",
    "CompileError",
    "Diagnostic",
    "InternalCompilerError",
    *_API,
]
