"""Automatic test-case minimiser (delta debugging) for fuzz findings.

`minimize(text, still_fails)` shrinks `text` while `still_fails(candidate)` holds: first whole lines
(ddmin over line chunks, halving the chunk size), then whitespace-separated words inside the remaining
lines. `still_fails` runs the candidate in the sandbox and compares the bug signature, so the result
reproduces the same bug, not just any bug. The number of predicate calls is bounded (`budget`).
"""

from __future__ import annotations

import re
from collections.abc import Callable


def _ddmin(parts: list[str], joiner: str, still_fails: Callable[[str], bool], budget: list[int]) -> list[str]:
    n = 2
    while len(parts) >= 2 and budget[0] > 0:
        chunk = max(1, len(parts) // n)
        removed = False
        for start in range(0, len(parts), chunk):
            if budget[0] <= 0:
                break
            cand = parts[:start] + parts[start + chunk :]
            if not cand:
                continue
            budget[0] -= 1
            if still_fails(joiner.join(cand)):
                parts = cand
                n = max(n - 1, 2)
                removed = True
                break
        if not removed:
            if chunk == 1:
                break
            n = min(len(parts), n * 2)
    return parts


def minimize(text: str, still_fails: Callable[[str], bool], budget: int = 300) -> str:
    left = [budget]
    lines = _ddmin(text.split("\n"), "\n", still_fails, left)
    text = "\n".join(lines)
    words = re.split(r"(\s+)", text)  # keep the separators as their own parts
    words = _ddmin(words, "", still_fails, left)
    return "".join(words)
