"""PTX line -> the user's source location, from `.file`/`.loc` (nvcc -lineinfo or -G, Triton, irc).

Why: a finding on PTX is only actionable in the source the user wrote. nvcc inlines CUDA's headers
(cooperative groups, `__shfl_*_sync`, cub), so the instruction's own `.loc` often names a header line;
its `inlined_at` names the call site, which may itself be inlined (nvcc repeats the `.loc` of every
level, innermost last). We follow the chain outwards to the first location outside the toolkit's headers.

The scan is a separate, lazy pass over the text (only run when a file has findings), so `irc check`
pays nothing for it on clean files.
"""

from __future__ import annotations

import os
import re

_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*?inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
# CUDA toolkit / compiler-provided headers (never the user's code)
_SYSTEM = re.compile(
    r"(/targets/[^/]+/include/|/include/(cccl|crt|cooperative_groups|cuda|thrust|cub)/|"
    r"/cuda[-0-9.]*/include/|site-packages/(nvidia|triton)/|^/usr/include/|<built-in>|<unknown>)"
)

Where = tuple[int, int, int]  # (file index, line, column)


def is_system(path: str) -> bool:
    return bool(_SYSTEM.search(path.replace("\\", "/")))


class LineInfo:
    """`.loc` facts of one PTX text: `at(ptx_line)` gives the user's (path, line, col) or None."""

    def __init__(self, text: str):
        self.files: dict[int, str] = {}
        # each instruction line -> its inlining chain, innermost first, as (file, line, col). Computed
        # while scanning: a location's call site is the one its latest `.loc ... inlined_at` gave (one
        # helper line, `barrier.h:192`, is inlined at many call sites; a map over the whole file would
        # send every instance to the last call site)
        self.loc_of_line: dict[int, tuple[Where, ...]] = {}
        parent: dict[Where, Where] = {}
        cur: tuple[Where, ...] | None = None
        for i, line in enumerate(text.splitlines(), 1):
            s = line.lstrip()
            if not s:
                continue
            if s.startswith(".loc"):
                m = _LOC.match(line)
                if m:
                    here = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
                    if m.group(4):
                        parent[here] = (int(m.group(4)), int(m.group(5)), int(m.group(6)))
                    else:
                        parent.pop(here, None)
                    chain = [here]
                    while chain[-1] in parent and parent[chain[-1]] not in chain and len(chain) < 64:
                        chain.append(parent[chain[-1]])
                    cur = tuple(chain)
                continue
            if s.startswith(".file"):
                m = _FILE.match(line)
                if m:
                    self.files[int(m.group(1))] = m.group(2)
                continue
            if cur is not None and not s.startswith(("//", "$", ".")):
                self.loc_of_line[i] = cur

    def chain(self, ptx_line: int) -> list[tuple[str, int, int]]:
        """The inlining chain of the instruction at `ptx_line`, innermost first, as (path, line, col)."""
        return [
            (self.files[w[0]], w[1], w[2])
            for w in self.loc_of_line.get(ptx_line, ())
            if w[1] > 0 and w[0] in self.files
        ]

    def at(self, ptx_line: int) -> tuple[str, int, int] | None:
        """The first location of the chain in the user's code (not a toolkit header); for a kernel that
        is itself a toolkit template (cub, thrust), the outermost location (the statement in its body)."""
        ch = self.chain(ptx_line)
        for loc in ch:
            if not is_system(loc[0]):
                return loc
        return ch[-1] if ch else None


def resolve(path: str, ptx_path: str) -> str:
    """The source path as a reader can open it: as written when it exists relative to the current folder;
    else the file of that name next to the PTX (generated PTX is often kept beside its source, while nvcc
    records the absolute path of the machine that compiled it); else an existing absolute path (made
    relative when it is under the current folder); else as written."""
    if not os.path.isabs(path) and os.path.exists(path):
        return path
    beside = os.path.join(os.path.dirname(ptx_path), os.path.basename(path))
    if os.path.exists(beside):
        return beside
    if os.path.isabs(path) and os.path.exists(path):
        rel = os.path.relpath(path)
        return rel if not rel.startswith("..") else path
    return path
