"""Launch contracts from the user: `[[tool.irc.contract]]` tables and `// irc: assume(...)` comments,
bound to the kernels they describe (the analyzer's side is `irc.analysis.symbolic.contract`).

    [[tool.irc.contract]]
    kernels = ["shift_tile*", "*attention*"]   # globs over kernel names (mangled or demangled)
    block = [256, 1, 1]                        # the block every launch uses
    grid = [64, 1, 1]                          # optional: the grid
    assume = ["n % 64 == 0", "gridDim.x * blockDim.x == n"]

    // irc: assume(n % 64 == 0)                 (in a .kdsl or .cu file, inside or just above the kernel)

A comment belongs to the kernel whose lines contain it, or that starts at most three lines below it. In
lifted PTX the kernel's lines are its `.loc` lines in the `.cu` (or `.py`) source, and the parameter names
come from the kernel's signature there (`n`); `param_2` always names the third parameter.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from typing import Any

from irc.analysis.symbolic.contract import Assume, AssumeError, Contract, check_names, parse
from irc.diagnostics import Diagnostic, Span, error
from irc.records import field, record

_ASSUME = re.compile(r"//\s*irc\s*:\s*assume\s*\(")
_MANGLED = re.compile(r"^_Z(?:L)?(\d+)")


class ContractConfigError(ValueError):
    """A malformed `[[tool.irc.contract]]` entry (reported as a configuration error)."""


@record
class Rule:
    kernels: list[str]
    contract: Contract

    def matches(self, names: list[str]) -> bool:
        return any(fnmatch.fnmatchcase(n, g) for g in self.kernels for n in names)


@record
class Contracts:
    """The rules of one configuration (empty: only comments apply)."""

    rules: list[Rule] = field(default_factory=list)


def _dims(v: Any, key: str, where: str) -> tuple[int, int, int]:
    if isinstance(v, int) and not isinstance(v, bool):
        v = [v]
    if (
        not isinstance(v, list)
        or not 1 <= len(v) <= 3
        or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in v)
    ):
        raise ContractConfigError(f"{where}: `{key}` must be a positive integer or a list of 1 to 3 of them")
    d = (list(v) + [1, 1])[:3]
    return (d[0], d[1], d[2])


def parse_rules(entries: Any, where: str) -> Contracts:
    """`[[tool.irc.contract]]` entries -> Contracts; mistakes raise ContractConfigError with the key."""
    if not isinstance(entries, list):
        raise ContractConfigError(f"{where}: `contract` must be an array of tables (`[[tool.irc.contract]]`)")
    out = Contracts()
    for i, e in enumerate(entries):
        at = f"{where}: contract {i + 1}"
        if not isinstance(e, dict):
            raise ContractConfigError(f"{at}: must be a table")
        unknown = sorted(set(e) - {"kernels", "block", "grid", "assume"})
        if unknown:
            raise ContractConfigError(
                f"{at}: unknown key `{unknown[0]}` (known: assume, block, grid, kernels)"
            )
        ks = e.get("kernels", ["*"])
        if isinstance(ks, str):
            ks = [ks]
        if not isinstance(ks, list) or not all(isinstance(k, str) and k for k in ks):
            raise ContractConfigError(f"{at}: `kernels` must be a list of globs")
        c = Contract(origin=Path(where).name)
        if "block" in e:
            c.block = _dims(e["block"], "block", at)
            if c.block[0] * c.block[1] * c.block[2] > 1024:
                raise ContractConfigError(f"{at}: `block` has more than 1024 threads")
        if "grid" in e:
            c.grid = _dims(e["grid"], "grid", at)
        asm = e.get("assume", [])
        if isinstance(asm, str):
            asm = [asm]
        if not isinstance(asm, list) or not all(isinstance(x, str) for x in asm):
            raise ContractConfigError(f"{at}: `assume` must be a list of expressions")
        for text in asm:
            try:
                c.assumes.append(Assume(text, Path(where).name, parse(text)))
            except AssumeError as err:
                raise ContractConfigError(f"{at}: assume `{text}`: {err} (column {err.col})") from None
        out.rules.append(Rule(list(ks), c))
    return out


def comments(text: str, path: str) -> tuple[list[tuple[int, Assume]], list[Diagnostic]]:
    """The `// irc: assume(...)` comments of a source file: (line, Assume), and located errors for the
    malformed ones."""
    out: list[tuple[int, Assume]] = []
    errs: list[Diagnostic] = []
    for ln, line in enumerate(text.splitlines(), 1):
        if "assume" not in line:
            continue
        for m in _ASSUME.finditer(line):
            start = m.end()
            depth, j = 1, start
            while j < len(line) and depth:
                depth += {"(": 1, ")": -1}.get(line[j], 0)
                j += 1
            if depth:
                errs.append(
                    error(
                        "parse-error",
                        "`irc: assume(` has no closing `)`",
                        Span.point(path, ln, m.start() + 1, len(line) - m.start()),
                    )
                )
                continue
            expr = line[start : j - 1]
            try:
                out.append((ln, Assume(expr.strip(), f"{Path(path).name}:{ln}", parse(expr))))
            except AssumeError as err:
                errs.append(
                    error(
                        "parse-error", f"in `irc: assume(...)`: {err}", Span.point(path, ln, start + err.col)
                    )
                )
    return out, errs


def kernel_names(name: str) -> list[str]:
    """A kernel's name and, for an Itanium-mangled one, its base name (`_Z10shift_tilePKfPfi` ->
    `shift_tile`) and its demangled form where a demangler is installed."""
    out = [name]
    m = _MANGLED.match(name)
    if m:
        n = int(m.group(1))
        base = name[m.end() : m.end() + n]
        if base:
            out.append(base)
    try:
        from irc.tooling.demangle import demangle  # type: ignore[import-not-found]

        d = demangle(name)
        if d and d not in out:
            out.append(d)
    except ImportError:
        pass
    return out


_SIG = re.compile(r"__global__[^;{]*?\b(?P<name>[A-Za-z_]\w*)\s*\((?P<params>[^)]*)\)", re.S)


def cuda_param_names(src: str, base: str) -> list[str] | None:
    """The parameter names of `__global__ ... base(...)` in CUDA source `src`, in order."""
    for m in _SIG.finditer(src):
        if m.group("name") != base:
            continue
        params = [p.strip() for p in m.group("params").split(",") if p.strip()]
        names = []
        for p in params:
            p = p.split("=")[0].strip()
            ids = re.findall(r"[A-Za-z_]\w*", p)
            names.append(ids[-1] if ids else "")
        return names
    return None


class Binder:
    """Finds the contract of each kernel of one checked file (`for_kernel`), from the configuration's
    rules and the assume comments of the file (or, for lifted PTX, of the sources its `.loc` names)."""

    def __init__(self, rules: Contracts | None, path: str, text: str):
        self.rules = rules or Contracts()
        self.path = path
        self.text = text
        self.diags: list[Diagnostic] = []
        self._files: dict[str, tuple[str | None, list[tuple[int, Assume]]]] = {}
        self._info: Any = None
        self._comments: bool | None = None

    def _source(self, f: str) -> tuple[str | None, list[tuple[int, Assume]]]:
        hit = self._files.get(f)
        if hit is None:
            try:
                src = self.text if f == self.path else Path(f).read_text(encoding="utf-8", errors="replace")
            except OSError:
                src = None
            cs, errs = comments(src, f) if src is not None else ([], [])
            self.diags += errs
            hit = self._files[f] = (src, cs)
        return hit

    def _lineinfo(self) -> Any:
        """The PTX file's `.loc` facts, made once."""
        if self._info is None:
            from irc.ptxisa.lineinfo import LineInfo

            self._info = (LineInfo(self.text), {})
        return self._info[0]

    def _resolved(self, name: str) -> str:
        """A `.file` path as a reader can open it (`lineinfo.resolve`): each file's existence asked once (a
        few files, thousands of spans)."""
        paths = self._info[1]
        f = paths.get(name)
        if f is None:
            from irc.ptxisa.lineinfo import resolve

            f = paths[name] = resolve(name, self.path)
        return f

    def _any_comment(self) -> bool:
        """Whether any source this file draws on (itself; for lifted PTX, the files its `.file` table names)
        has an `irc: assume` comment. Asked once per file."""
        if self._comments is None:
            files = [self.path]
            if self.path.endswith(".ptx") and ".loc" in self.text:
                files = [self._resolved(name) for name in self._lineinfo().files.values()]
            self._comments = any(self._source(f)[1] for f in files if f)
        return self._comments

    def _lines(self, fn: Any) -> dict[str, tuple[int, int]]:
        """file -> (first, last) line of the kernel in the user's source."""
        spans = [op.span for b in fn.blocks for op in b.ops if op.span is not None]
        if fn.span is not None:
            spans.append(fn.span)
        out: dict[str, tuple[int, int]] = {}
        if self.path.endswith(".ptx"):
            if ".loc" not in self.text:
                return out
            info = self._lineinfo()
            for s in spans:
                at = info.at(s.line)
                if at is None:
                    continue
                f = self._resolved(at[0])
                lo, hi = out.get(f, (at[1], at[1]))
                out[f] = (min(lo, at[1]), max(hi, at[1]))
            return out
        for s in spans:
            lo, hi = out.get(s.file, (s.line, s.line))
            out[s.file] = (min(lo, s.line), max(hi, s.end_line))
        return out

    def for_kernel(self, fn: Any) -> Contract | None:
        names = kernel_names(fn.name)
        c = Contract()
        for r in self.rules.rules:
            if r.matches(names):
                rc = r.contract
                c.block = rc.block or c.block
                c.grid = rc.grid or c.grid
                c.origin = rc.origin
                c.assumes += rc.assumes
        if c.empty and not self._any_comment():
            return None  # (a file of 213 template instances walked every kernel's spans for nothing)
        for f, (lo, hi) in self._lines(fn).items():
            src, cs = self._source(f)
            for ln, a in cs:
                if lo - 3 <= ln <= hi:
                    c.assumes.append(a)
            if src is not None and f.endswith((".cu", ".cuh")) and len(names) > 1:
                c.param_names = cuda_param_names(src, names[1]) or c.param_names
        if c.empty:
            return None
        known = set(c.names(fn))
        kept = []
        for a in c.assumes:
            bad = check_names(a.tree, known)
            if bad is None:
                kept.append(a)
                continue
            shown = (
                ", ".join(sorted(n for n in known if not n.startswith("param_"))) or "param_0, param_1, ..."
            )
            self.diags.append(
                error(
                    "parse-error",
                    f"`irc: assume({a.text})` names `{bad[0]}`, which is not a parameter of `{names[-1]}` (parameters: {shown})",
                    fn.span,
                )
            )
        c.assumes = kept
        return None if c.empty else c
