"""Finding fingerprints and baselines, so a legacy tree can adopt `irc check` as a gate.

`irc check --write-baseline irc-baseline.json` records the current findings; `--baseline
irc-baseline.json` then reports only findings that are not in it. A finding is identified by its
fingerprint: a hash of the check name, the enclosing kernel (or function) and the normalised text of the
source line it points at (whitespace collapsed, a trailing `//` comment dropped), plus an ordinal among
identical triples in the file. Line numbers are deliberately not part of it, so editing code above a
legacy finding does not resurrect it. The same value goes to SARIF `partialFingerprints`
(`ircFindingHash/v1`), which code-scanning tools use to track a result across commits.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from irc.diagnostics import Diagnostic

FINGERPRINT_KEY = "ircFindingHash/v1"
FORMAT = "irc-baseline/1"

_KERNEL = re.compile(
    r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*(?:kernel|fn|\.entry|\.func)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
)


def _kernel_at(lines: list[str], line: int) -> str:
    """The name of the kernel or function whose definition most closely precedes `line` ("" if none)."""
    for i in range(min(line, len(lines)) - 1, -1, -1):
        m = _KERNEL.match(lines[i])
        if m:
            return m.group(1)
    return ""


def _norm(text: str) -> str:
    """Whitespace collapsed and a trailing `//` comment dropped (editing a comment keeps the finding)."""
    return " ".join(text.split("//", 1)[0].split())


def _digest(text: str) -> str:
    import hashlib  # here, not at the top: a clean run computes no fingerprint and skips the import

    return hashlib.sha256(text.encode()).hexdigest()[:32]


def fingerprints(diags: Iterable[Diagnostic], sources: Mapping[str, str]) -> list[str]:
    """One fingerprint per diagnostic, in order (equal findings on equal lines get distinct ordinals)."""
    split: dict[str, list[str]] = {}
    seen: Counter[tuple[str, str]] = Counter()
    out = []
    for d in diags:
        s = d.span
        if s is None:
            base = f"{d.check}\x00\x00{_norm(d.message)}"
            file = ""
        else:
            file = s.file
            if file not in split:
                split[file] = sources.get(file, "").splitlines()
            lines = split[file]
            text = lines[s.line - 1] if 0 < s.line <= len(lines) else d.message
            base = f"{d.check}\x00{_kernel_at(lines, s.line)}\x00{_norm(text)}"
        seen[(file, base)] += 1
        h = _digest(f"{base}\x00{seen[(file, base)]}")
        out.append(h)
    return out


def _rel_file(d: Diagnostic, root: Path | None) -> str:
    if d.span is None:
        return ""
    p = Path(d.span.file)
    if root is not None:
        try:
            return p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return p.as_posix()


def write_baseline(
    path: str | Path, diags: list[Diagnostic], sources: Mapping[str, str], root: Path | None = None
) -> int:
    """Record every finding (file relative to `root`, check, fingerprint, and the line for humans)."""
    fps = fingerprints(diags, sources)
    entries = [
        {
            "file": _rel_file(d, root),
            "check": d.check,
            "fingerprint": fp,
            "line": d.span.line if d.span else None,
            "message": d.message,
        }
        for d, fp in zip(diags, fps)
    ]
    entries.sort(key=lambda e: (e["file"], e["check"], e["fingerprint"]))
    Path(path).write_text(
        json.dumps({"format": FORMAT, "findings": entries}, indent=2) + "\n", encoding="utf-8"
    )
    return len(entries)


class BaselineError(Exception):
    pass


def read_baseline(path: str | Path) -> Counter[tuple[str, str, str]]:
    """The (file, check, fingerprint) multiset recorded in a baseline file (a regular file of at most
    `max_baseline_bytes`: `/dev/zero` or a FIFO is a BaselineError, not an endless read)."""
    from irc import limits
    from irc.fileguard import read_regular

    try:
        data = json.loads(read_regular(path, *limits.file_limit("max_baseline_bytes")))
    except FileNotFoundError:
        raise BaselineError(f"no such baseline file: {path}") from None
    except (OSError, ValueError) as e:  # also UnreadableFile: a device, a FIFO, a file over the limit
        raise BaselineError(f"cannot read baseline {path}: {e}") from None
    if (
        not isinstance(data, dict)
        or data.get("format") != FORMAT
        or not isinstance(data.get("findings"), list)
    ):
        raise BaselineError(f"{path} is not an irc baseline (expected format {FORMAT!r})")
    out: Counter[tuple[str, str, str]] = Counter()
    for e in data["findings"]:
        try:
            out[(str(e["file"]), str(e["check"]), str(e["fingerprint"]))] += 1
        except (KeyError, TypeError):
            raise BaselineError(f"{path}: malformed entry {e!r}") from None
    return out


def filter_new(
    diags: list[Diagnostic],
    sources: Mapping[str, str],
    baseline: Counter[tuple[str, str, str]],
    root: Path | None = None,
) -> tuple[list[Diagnostic], int]:
    """The findings not in `baseline` (each baseline entry absorbs one finding), and how many were
    absorbed."""
    left = Counter(baseline)
    new = []
    absorbed = 0
    for d, fp in zip(diags, fingerprints(diags, sources)):
        key = (_rel_file(d, root), d.check, fp)
        if left[key] > 0:
            left[key] -= 1
            absorbed += 1
        else:
            new.append(d)
    return new, absorbed
