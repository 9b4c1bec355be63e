"""`irc check` on a Triton cache directory (`~/.triton/cache`, or `$TRITON_CACHE_DIR`).

Triton keeps each compiled kernel in a directory named by its hash: `NAME.ptx` beside `NAME.json`
(the metadata: name, target, num_warps, num_stages, Triton's version) and the other stages (`.ttir`,
`.ttgir`, `.llir`, `.cubin`). `irc check` finds the `.ptx` files as in any directory; its findings land
on the kernel's .py lines through Triton's `.loc` information, and `entry_note` names the
`@triton.jit` function and the compile options from the metadata beside it. Triton does not record the
constexpr values in its cache, which the note says; `irc.triton.check` and `pytest --irc` know them.
"""

from __future__ import annotations

import json
from pathlib import Path


def entry_note(ptx_path: str) -> str | None:
    """The note for findings in a Triton cache entry's PTX, or None when `ptx_path` is not one."""
    meta = Path(ptx_path).with_suffix(".json")
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or "triton_version" not in data or not isinstance(data.get("name"), str):
        return None
    target = data.get("target")
    arch = target.get("arch") if isinstance(target, dict) else None
    opts = ", ".join(f"{k}={data[k]}" for k in ("num_warps", "num_stages") if isinstance(data.get(k), int))
    where = ", ".join(x for x in (f"sm_{arch}" if arch is not None else "", opts) if x)
    return (
        f"Triton cache entry: @triton.jit `{data['name']}`"
        + (f" ({where})" if where else "")
        + "; Triton's cache does not record the constexpr values"
    )


def annotate(diags: list, ptx_path: str) -> list:  # type: ignore[type-arg]
    """`diags` of a Triton cache entry with the note in place of "in kernel `k`" (unchanged otherwise)."""
    if not diags:
        return diags
    note = entry_note(ptx_path)
    if note is None:
        return diags
    from irc.records import replace

    return [replace(d, notes=[note, *(n for n in d.notes if not n.startswith("in kernel `"))]) for d in diags]
