"""What each check is: its default severity, one-line summary, and long description with wrong and right
examples, for `irc check --list-checks`, `irc explain CHECK` and the SARIF rules.

One source: the long description IS the check's section of the docs (`docs/checks.md`, or
`docs/analyzer.md` for the analyzer's checks), found by its heading `### \\`name\\``, so the terminal and the
documentation can never disagree. The one-line summaries and default severities live here because the
renderers need them even where the docs are not installed (a non-editable install ships no `docs/`).
"""

from __future__ import annotations

import re
from pathlib import Path

from irc.records import record

#: Where `helpUri` points: the docs folder of the repository. Override with `[tool.irc] docs-url`.
DOCS_URL = "https://github.com/irc-project/irc/blob/main/docs/"

_DOCS_DIR = Path(__file__).resolve().parent.parent.parent / "docs"
_DOC_FILES = ("checks.md", "analyzer.md")


@record(frozen=True)
class CheckInfo:
    name: str
    severity: str  # default severity: "error", "warning" or "note"
    summary: str
    doc: str  # the docs file that has its section


def _c(name: str, severity: str, summary: str, doc: str = "checks.md") -> CheckInfo:
    return CheckInfo(name, severity, summary, doc)


#: Every stable check name (spec section 8 plus the CI-facing ones), in the order `--list-checks` shows.
CHECKS: dict[str, CheckInfo] = {
    c.name: c
    for c in [
        _c("parse-error", "error", "The source does not parse."),
        _c("name-error", "error", "Unknown or redeclared name."),
        _c("type-error", "error", "Operand types do not fit the operation."),
        _c("const-error", "error", "Not a constant, literal out of range, or bad attribute value."),
        _c("recursion", "error", "Recursive call (kernels cannot recurse)."),
        _c("limit-error", "error", "An unroll or size limit was exceeded."),
        _c("unsupported-target", "error", "An instruction or intrinsic the target does not have."),
        _c(
            "uninitialized",
            "error",
            "A read of a variable or register that is not assigned on every path.",
            "analyzer.md",
        ),
        _c(
            "barrier-divergence",
            "error",
            "A block-wide barrier that some threads of a block may not reach.",
            "analyzer.md",
        ),
        _c(
            "warp-sync-divergence",
            "error",
            "A warp-collective operation with a full mask under warp-divergent control.",
            "analyzer.md",
        ),
        _c(
            "self-cancel",
            "error",
            "An operation whose two operands are the same value, so it computes a constant (`a - a`); "
            "an idempotent `max(a, a)` is a note.",
            "analyzer.md",
        ),
        _c(
            "mbarrier-tx-mismatch",
            "error",
            "expect_tx byte count differs from the bytes the TMA/bulk copies of that phase complete.",
            "analyzer.md",
        ),
        _c(
            "tma-misaligned",
            "error",
            "A TMA/bulk copy address or bulk size not aligned as required, or a box beyond the TMA limits.",
            "analyzer.md",
        ),
        _c("static-assert", "error", "A `static_assert` condition is false."),
        _c(
            "shared-race",
            "error",
            "Two threads of a block access one shared location, one writing, with no barrier between.",
            "analyzer.md",
        ),
        _c(
            "unanalysed-call",
            "note",
            "A call under thread-dependent control whose callee cannot be analysed.",
            "analyzer.md",
        ),
        _c(
            "mbarrier-arrival-mismatch",
            "error",
            "mbarrier init count differs from the arrivals one phase receives.",
            "analyzer.md",
        ),
        _c(
            "mbarrier-phase",
            "error",
            "An mbarrier wait parity that does not flip with the barrier's phase across iterations.",
            "analyzer.md",
        ),
        _c(
            "mbarrier-uninitialized",
            "error",
            "An mbarrier used where no mbarrier.init (made visible by a barrier) reaches.",
            "analyzer.md",
        ),
        _c(
            "async-unwaited",
            "error",
            "Memory an async copy or MMA writes is read before a wait that covers it.",
            "analyzer.md",
        ),
        _c(
            "async-proxy-fence",
            "error",
            "Generic-proxy writes (stores, mbarrier.init) seen by TMA/bulk/tcgen05 without a proxy fence.",
            "analyzer.md",
        ),
        _c(
            "async-overwrite",
            "error",
            "Shared memory a bulk/TMA store still reads is overwritten before cp.async.bulk.wait_group.read.",
            "analyzer.md",
        ),
        _c(
            "barrier-count",
            "error",
            "A named barrier whose thread count differs from the threads that reach it (a hang, or a phase "
            "that completes early).",
            "analyzer.md",
        ),
        _c(
            "mbarrier-reuse",
            "error",
            "An mbarrier re-initialised, or its memory written, while it is still valid (no mbarrier.inval).",
            "analyzer.md",
        ),
        _c(
            "mbarrier-stage-mismatch",
            "error",
            "A pipeline loop releases a ring stage (arrives on empty[j]) that it has not acquired (waited on full[j]).",
            "analyzer.md",
        ),
        _c("shared-overflow", "error", "Shared memory beyond what the target allows per block."),
        _c("register-pressure", "warning", "The allocation needs more registers than allowed."),
        _c("shuffle-lane", "warning", "A constant shuffle lane, offset or xor mask outside 0..31."),
        _c("invalid-ptx", "error", "PTX that ptxas rejects: header, modifiers, operands or declarations."),
        _c("unknown-instruction", "warning", "A PTX instruction irc does not model (treated as opaque)."),
        _c(
            "not-analysed",
            "note",
            "A question the analyzer could not decide (solver timeout, a limit): no finding is not a clean bill.",
            "analyzer.md",
        ),
        _c("read-error", "error", "A file `irc check` cannot read (missing, a dangling link, not UTF-8)."),
        _c("stale-ptx", "warning", "A .ptx file older than the source its .loc lines point into."),
        _c("cuda-compile-error", "error", "nvcc could not compile a .cu file to PTX."),
        _c("unknown-check", "warning", "An `irc: allow(...)` comment names a check that does not exist."),
        _c("unused-allow", "warning", "An `irc: allow(...)` comment that suppresses nothing."),
    ]
}


#: One-line descriptions of the stable check names (spec section 8), used as SARIF rule descriptions.
CHECK_DESCRIPTIONS: dict[str, str] = {
    "parse-error": "The source does not parse.",
    "name-error": "Unknown or redeclared name.",
    "type-error": "Operand types do not fit the operation.",
    "const-error": "Not a constant, literal out of range, or bad attribute value.",
    "recursion": "Recursive call (kernels cannot recurse).",
    "limit-error": "An unroll or size limit was exceeded.",
    "static-assert": "A `static_assert` condition is false.",
    "unsupported-target": "An instruction or intrinsic the target does not have.",
    "uninitialized": "A read of a variable or register that is not assigned on every path.",
    "barrier-divergence": "A block-wide barrier that some threads of a block may not reach.",
    "warp-sync-divergence": "A warp-collective operation with a full mask under warp-divergent control.",
    "self-cancel": "An operation whose two operands are the same value, so it computes a constant.",
    "unanalysed-call": "A call under thread-dependent control whose callee cannot be analysed.",
    "mbarrier-tx-mismatch": "expect_tx byte count differs from the bytes the TMA/bulk copies of that phase complete.",
    "tma-misaligned": "A TMA/bulk copy address or bulk size not aligned as required, or a box beyond the TMA limits.",
    "mbarrier-arrival-mismatch": "mbarrier init count differs from the arrivals one phase receives.",
    "mbarrier-phase": "An mbarrier wait parity that does not flip with the barrier's phase across iterations.",
    "mbarrier-uninitialized": "An mbarrier used where no mbarrier.init (made visible by a barrier) reaches.",
    "async-unwaited": "Memory an async copy or MMA writes is read before a wait that covers it.",
    "async-proxy-fence": "Generic-proxy writes (stores, mbarrier.init) seen by TMA/bulk/tcgen05 without a proxy fence.",
    "async-overwrite": "Shared memory a bulk/TMA store still reads is overwritten before cp.async.bulk.wait_group.read.",
    "barrier-count": "A named barrier whose thread count differs from the threads that reach it.",
    "mbarrier-reuse": "An mbarrier re-initialised, or its memory written, while it is still valid (no mbarrier.inval).",
    "mbarrier-stage-mismatch": "A pipeline loop releases a ring stage (arrives on empty[j]) that it has not acquired (waited on full[j]).",
    "shared-overflow": "Shared memory beyond what the target allows per block.",
    "register-pressure": "The allocation needs more registers than allowed.",
    "shuffle-lane": "A constant shuffle lane, offset or xor mask outside 0..31.",
    "read-error": "A file `irc check` cannot read (missing, a dangling link, not UTF-8).",
    "invalid-ptx": "PTX that ptxas rejects: header, modifiers, operands or declarations.",
}


def _registered() -> dict[str, str]:
    """Check names registered elsewhere (the analyzer's check table, the renderer's descriptions), so a
    check added there is known to `allow(...)`, the config and `--list-checks` before it gets an entry
    here: name -> one-line summary."""
    out = dict(CHECK_DESCRIPTIONS)
    try:
        from irc.analysis import TMA_CHECKS
        from irc.analysis.checks import CHECKS as ANALYZER_CHECKS
    except ImportError:  # pragma: no cover - a partial install
        return out
    for n in [*ANALYZER_CHECKS, *TMA_CHECKS]:
        out.setdefault(n, n)
    return out


def all_names() -> list[str]:
    return list(CHECKS) + [n for n in _registered() if n not in CHECKS]


def known(name: str) -> bool:
    return name in CHECKS or name in _registered()


def did_you_mean(name: str) -> str | None:
    """The closest check name, for typos in `allow(...)`, the config and `irc explain`."""
    import difflib  # lazy: only for a suggestion in an error message

    m = difflib.get_close_matches(name, all_names(), n=1, cutoff=0.6)
    return m[0] if m else None


def default_severity(name: str) -> str:
    info = CHECKS.get(name)
    return info.severity if info else "error"


def summary(name: str) -> str:
    info = CHECKS.get(name)
    return info.summary if info else _registered().get(name, name)


_HEADING = re.compile(r"^(#{2,4})\s+(.*?)\s*$")


def _heading_check(text: str) -> str | None:
    """`barrier-divergence` for a heading "`barrier-divergence`" or "`tma-misaligned` (error)"."""
    m = re.match(r"`([a-z][a-z0-9-]*)`", text)
    return m.group(1) if m else None


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def _section(name: str) -> tuple[str, str, str] | None:
    """(docs file, heading text, section body) for `name`, or None when the docs are not installed."""
    info = CHECKS.get(name)
    files = [info.doc] if info else []
    files += [f for f in _DOC_FILES if f not in files]
    for fname in files:
        path = _DOCS_DIR / fname
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        in_code = False
        start: tuple[int, int, str] | None = None
        for i, line in enumerate(lines):
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            m = _HEADING.match(line)
            if not m:
                continue
            level = len(m.group(1))
            if start is not None and level <= start[1]:
                return fname, start[2], "\n".join(lines[start[0] + 1 : i]).strip("\n")
            if start is None and _heading_check(m.group(2)) == name:
                start = (i, level, m.group(2))
        if start is not None:
            return fname, start[2], "\n".join(lines[start[0] + 1 :]).strip("\n")
    return None


def help_uri(name: str, docs_url: str | None = None) -> str:
    """The URL of the check's section in the docs."""
    base = docs_url or DOCS_URL
    if not base.endswith("/"):
        base += "/"
    sec = _section(name)
    if sec is None:
        info = CHECKS.get(name)
        return f"{base}{info.doc if info else 'checks.md'}#{name}"
    return f"{base}{sec[0]}#{github_anchor(sec[1])}"


def explain(name: str) -> str:
    """The long description of `name` as markdown text (the docs section), headed by name and severity.
    Raises KeyError (with a did-you-mean in its message) for an unknown name."""
    if not known(name):
        dym = did_you_mean(name)
        raise KeyError(f"no check named `{name}`" + (f"; did you mean `{dym}`?" if dym else ""))
    head = f"{name} ({default_severity(name)} by default): {summary(name)}"
    sec = _section(name)
    if sec is None:
        return f"{head}\n\n(see {help_uri(name)})\n"
    return f"{head}\n\n{sec[2]}\n"


def list_checks() -> str:
    """One line per check: name, default severity, summary."""
    names = all_names()
    w = max(len(n) for n in names)
    return "".join(f"{n:<{w}}  {default_severity(n):<7}  {summary(n)}\n" for n in names)
