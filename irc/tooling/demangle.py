"""C++ symbol names as people write them: `_Z10shift_tilePKfPfi` -> `shift_tile(float const*, float*, int)`.

Why not a home-made demangler: the Itanium ABI grammar is large (templates, substitutions, lambdas,
CUDA's `__nv_` helpers) and libstdc++ already ships a maintained one, `abi::__cxa_demangle`. The
`cxxfilt` package calls it through ctypes. Importing cxxfilt looks the two libraries up
(`ctypes.util.find_library`, which starts an `ldconfig` or compiler subprocess: about 15 ms measured), so
it is imported only by a run that has a mangled name to show. Without cxxfilt or libstdc++ the mangled
name is shown unchanged: a readable gap, never a failure.

Only the renderers call this (text, JSON, SARIF, GitHub): diagnostics keep the symbol, so baselines and
fingerprints do not change with the demangler's output.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

#: A mangled C++ name inside text (PTX symbols also use `$` and `.` in compiler-made names).
_MANGLED = re.compile(r"(?<![\w$])_Z[\w$.]+")

_demangler: Callable[[str], str] | None = None
_loaded = False


def _load() -> Callable[[str], str] | None:
    global _demangler, _loaded
    if _loaded:
        return _demangler
    _loaded = True
    try:
        import cxxfilt
    except (ImportError, OSError):
        return None
    _demangler = cxxfilt.demangle  # raises cxxfilt.LibraryNotFound per call when libstdc++ is missing
    return _demangler


@lru_cache(maxsize=4096)
def demangle(name: str) -> str:
    """The demangled form of `name`, or `name` itself when it is not a mangled C++ name (Triton and
    `extern "C"` kernels) or no demangler is available."""
    if not name.startswith("_Z"):
        return name
    fn = _load()
    if fn is None:
        return name
    try:
        out = fn(name)
    except Exception:  # cxxfilt.InvalidName and ctypes failures: show the symbol  # noqa: BLE001
        return name
    return out or name


def demangle_text(text: str) -> str:
    """`text` with every mangled name in it demangled (messages and notes name kernels and callees)."""
    if "_Z" not in text:
        return text
    return _MANGLED.sub(lambda m: demangle(m.group(0)), text)


def available() -> bool:
    """Whether a demangler could be loaded (for docs and tests that need one)."""
    return demangle("_Z1fv") != "_Z1fv"
