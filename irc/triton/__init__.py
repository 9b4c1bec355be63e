"""Checking Triton kernels where they are written: `irc.triton.check(kernel, ...)`.

    import irc.triton
    findings = irc.triton.check(my_kernel, signature={"x_ptr": "*fp32", "n": "i32"},
                                constexprs={"BLOCK": 128}, targets=["sm_80", "sm_90a"])
    assert not findings, irc.triton.render(findings)

Each target is compiled by Triton itself (`triton.compile` with an explicit `GPUTarget`: no GPU and no
driver needed), and its PTX is checked like any other (`irc.compiler.check_ptx`). Triton writes
`.file`/`.loc` line information, so every finding and every label lands on the kernel's `.py` line;
a note names the `@triton.jit` function, its constexprs and the target. `# irc: allow(check)` in the
.py file suppresses a finding on that line, as `// irc: allow(...)` does in .kdsl and .cu.

The pytest plugin (`pytest --irc`, `irc.triton.pytest_plugin`) checks every kernel Triton compiles in a
test session; `irc check` on a Triton cache directory (`~/.triton/cache`) checks the PTX found there
(`irc.triton.cache`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from irc.diagnostics import Diagnostic

__all__ = ["check", "check_compiled", "render", "describe"]


def _capability(arch: str) -> int:
    """`sm_90a` -> 90: Triton's compute capability (it picks the `a` variant itself where it needs it)."""
    from irc.target import parse_arch

    name = parse_arch(arch).name
    return int("".join(ch for ch in name.removeprefix("sm_") if ch.isdigit()))


def describe(name: str, constexprs: Mapping[str, Any] | None, target: str, options: Mapping[str, Any]) -> str:
    """`@triton.jit `pair_sum` with BLOCK=128 (sm_80, num_warps=4)`: the note every finding carries."""
    consts = ", ".join(f"{k}={v!r}" for k, v in (constexprs or {}).items())
    opts = ", ".join(f"{k}={options[k]}" for k in ("num_warps", "num_stages") if k in options)
    return (
        f"@triton.jit `{name}`"
        + (f" with {consts}" if consts else "")
        + f" ({target}"
        + (f", {opts})" if opts else ")")
    )


def _named(diags: Iterable[Diagnostic], note: str) -> list[Diagnostic]:
    """The findings with `note` in place of the generic "in kernel `k`" note."""
    from irc.records import replace

    out = []
    for d in diags:
        notes = [n for n in d.notes if not n.startswith("in kernel `")]
        out.append(replace(d, notes=[note, *notes]))
    return out


def check_compiled(ptx: str, ptx_path: str, note: str) -> list[Diagnostic]:
    """Check one compiled kernel's PTX (found at `ptx_path`, which findings name as the PTX behind the
    .py line); every finding gets `note`."""
    from irc.compiler import check_ptx

    return _named(check_ptx(ptx, ptx_path), note)


def _ptx_path(compiled: Any, ptx: str, name: str, target: str) -> str:
    """Where Triton's cache keeps the PTX, else a temporary file (findings point at the PTX lines)."""
    group = getattr(compiled, "metadata_group", None) or {}
    for k, p in group.items():
        if str(k).endswith(".ptx"):
            return str(p)
    import tempfile
    from pathlib import Path

    f = Path(tempfile.mkdtemp(prefix="irc-triton-")) / f"{name}.{target}.ptx"
    f.write_text(ptx, encoding="utf-8")
    return str(f)


def check(
    kernel: Any,
    *,
    signature: Mapping[str, str],
    constexprs: Mapping[str, Any] | None = None,
    targets: Sequence[str] = ("sm_80",),
    options: Mapping[str, Any] | None = None,
    attrs: Mapping[Any, Any] | None = None,
) -> list[Diagnostic]:
    """Compile the `@triton.jit` function `kernel` for each target and return irc's findings, in the
    kernel's .py lines. `signature` maps each argument to a Triton type (`"*fp32"`, `"i32"`, ...;
    the names in `constexprs` are added as `"constexpr"` when missing); `options` are Triton's compile
    options (`num_warps`, `num_stages`, ...); `attrs` Triton's argument attributes (divisibility). A
    finding reported on every target is returned once, with a note naming the targets otherwise.
    Triton's own compile errors propagate unchanged (they are about the kernel, not about irc)."""
    import triton
    from triton.backends.compiler import GPUTarget

    from irc.tooling.cuda import merge_targets

    sig = dict(signature)
    for k in constexprs or {}:
        sig.setdefault(k, "constexpr")
    opts = dict(options or {})
    name = getattr(kernel, "__name__", None) or getattr(getattr(kernel, "fn", None), "__name__", "kernel")
    per_target: list[tuple[str, list[Diagnostic]]] = []
    for target in targets:
        src = triton.compiler.ASTSource(
            fn=kernel, signature=sig, constexprs=dict(constexprs or {}), attrs=attrs
        )
        compiled = triton.compile(src, target=GPUTarget("cuda", _capability(target), 32), options=opts)
        ptx = compiled.asm["ptx"]
        note = describe(name, constexprs, ", ".join(targets), opts)
        per_target.append((target, check_compiled(ptx, _ptx_path(compiled, ptx, name, target), note)))
    return merge_targets(per_target, list(targets))


def render(diags: Sequence[Diagnostic], color: bool = False) -> str:
    """The findings as `irc check` prints them (rustc style, the .py lines shown)."""
    from irc.tooling.render import render_text

    return render_text(sorted(diags, key=Diagnostic.sort_key), {}, color=color)
