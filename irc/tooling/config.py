"""Project configuration for `irc check`: `[tool.irc]` in `pyproject.toml`, or an `irc.toml` file.

    [tool.irc]
    include = ["kernels/**", "ptx/**/*.ptx"]   # what `irc check` with no paths checks
    exclude = ["kernels/generated/**"]         # skipped, also inside directories given on the command line
    arch = "sm_80"                             # default target for .kdsl files
    werror = true                              # warnings fail the run (exit 1)
    disable = ["self-cancel"]                  # or `enable = [...]`: only those checks
    baseline = "irc-baseline.json"             # report only findings not in this baseline
    warn-unused-allow = true
    nvcc = "/usr/local/cuda/bin/nvcc"          # .cu files: which nvcc (default: $IRC_NVCC, PATH, the wheel)
    nvcc-flags = ["-Iinclude", "-std=c++17"]   # .cu files outside a compile database (relative -I: to here)
    cuda-arch = ["sm_80", "sm_90a"]            # .cu files: every target checked (default: `arch`, sm_80)
    compile-commands = "build"                 # CMake's compile_commands.json, as `irc check -p build`

    [tool.irc.targets]                         # per-path targets for .kdsl; the first matching glob wins
    "kernels/hopper/**" = "sm_90a"

    [tool.irc.severity]                        # severity overrides: error, warning, note or off
    register-pressure = "error"

The file is found by walking up from the current directory, at most to the repository root (a directory
containing `.git`) and only through directories the user owns: in each directory `irc.toml` wins over
`pyproject.toml`, and a `pyproject.toml` without a `[tool.irc]` table is skipped. A file beyond those
bounds, or owned by another user, is ignored with a warning (`find_config`). Globs are relative to the
directory of the file. A `.kdsl` file's target is, in order: `--arch` on the command line, its own
`// arch: sm_90a` header line, the first `targets` glob that matches, `arch`, sm_80.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path
from typing import Any

from irc.records import field, record


def _toml() -> Any:
    """The TOML reader, imported only when there is a file to read (most runs have none: a few ms)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib


#: Checks whose findings mean "this does not compile": they cannot be disabled or downgraded.
FRONTEND_ERRORS = frozenset(
    {"parse-error", "name-error", "type-error", "const-error", "recursion", "limit-error", "invalid-ptx"}
)
_SEVERITIES = ("error", "warning", "note", "off")
_KEYS = {
    "include",
    "exclude",
    "arch",
    "werror",
    "enable",
    "disable",
    "baseline",
    "targets",
    "severity",
    "warn-unused-allow",
    "docs-url",
    "contract",
    "nvcc",
    "nvcc-flags",
    "cuda-arch",
    "compile-commands",
}


class ConfigError(Exception):
    """A configuration mistake: reported as a usage error (exit 2) naming the file and the key."""


@record
class Config:
    root: Path  # globs are relative to this directory
    path: Path | None = None  # the file it came from (None: no configuration)
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    arch: str | None = None
    werror: bool = False
    enable: list[str] | None = None
    disable: list[str] = field(default_factory=list)
    baseline: str | None = None
    targets: list[tuple[str, str]] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    warn_unused_allow: bool = False
    docs_url: str | None = None
    contracts: Any = None  # `[[tool.irc.contract]]` (irc.tooling.contracts.Contracts)
    nvcc: str | None = None
    nvcc_flags: list[str] = field(default_factory=list)
    cuda_arch: list[str] = field(default_factory=list)
    compile_commands: str | None = None

    def rel(self, path: str | Path) -> str | None:
        """`path` relative to the config root in posix form, or None when it lies outside."""
        try:
            return Path(path).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None

    def excluded(self, path: str | Path) -> bool:
        r = self.rel(path)
        return r is not None and any(glob_match(g, r) for g in self.exclude)

    def included(self, path: str | Path) -> bool:
        r = self.rel(path)
        return r is not None and any(glob_match(g, r) for g in self.include)

    def arch_for(self, path: str | Path) -> str | None:
        """The target the `targets` table gives `path`, else `arch`."""
        r = self.rel(path)
        if r is not None:
            for g, a in self.targets:
                if glob_match(g, r):
                    return a
        return self.arch

    def check_enabled(self, check: str) -> bool:
        if self.severity.get(check) == "off" or check in self.disable:
            return False
        return self.enable is None or check in self.enable or check in FRONTEND_ERRORS


@functools.lru_cache(maxsize=256)
def _glob_tokens(pattern: str) -> tuple[str, ...]:
    """The glob as tokens: `**/` (zero or more whole components), `**` (any text), `*` (any text within
    one component), `?` (one character of a component), or one literal character."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("**/")
            i += 3
        elif pattern.startswith("**", i):
            out.append("**")
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return tuple(out)


def _skip_stars(toks: tuple[str, ...], states: set[int]) -> set[int]:
    """`states` plus every state reachable by letting `*`, `**` and `**/` match nothing."""
    out: set[int] = set()
    work = list(states)
    while work:
        s = work.pop()
        if s not in out:
            out.add(s)
            if 0 <= s < len(toks) and toks[s] in ("*", "**", "**/"):
                work.append(s + 1)
    return out


def glob_match(pattern: str, rel: str) -> bool:
    """Match a root-relative posix path against a glob: `*` and `?` stay within one path segment, `**`
    spans segments. A pattern that matches a parent directory matches everything under it (`legacy` and
    `legacy/**` are the same).

    Why not `re` (or pathspec, which compiles to `re` too): a backtracking matcher takes exponential time
    on globs like `?*?*?*?*?*?*?*?*?*?*?*?*?*b` (27 characters: more than 15 s on one 35-character file
    name, issue 27; pathspec 1.1.1 took 47 s on `**a**a**a**a**a**a**a**a**b`). This runs the glob as a set of states advanced one path character at a time, so the
    time is at most (path length) x (glob length). State `i` is "before token i"; `~i` is "inside the
    `**/` at token i", which leaves only through a `/` (`**/` is nothing, or anything ending in `/`)."""
    toks = _glob_tokens(pattern.strip("/").removeprefix("./"))
    end = len(toks)
    cur = _skip_stars(toks, {0})
    for ch in rel:
        if ch == "/" and end in cur:
            return True  # the glob matched the directory this character leaves
        nxt: set[int] = set()
        for s in cur:
            if s < 0:  # inside a `**/`
                nxt.add(s)
                if ch == "/":
                    nxt.add(~s + 1)
                continue
            if s == end:
                continue
            t = toks[s]
            if t == "**" or (t == "*" and ch != "/"):
                nxt.add(s)
            elif t == "**/":
                nxt.add(~s)
                if ch == "/":
                    nxt.add(s + 1)
            elif t == ch or (t == "?" and ch != "/"):
                nxt.add(s + 1)
        if not nxt:
            return False
        cur = _skip_stars(toks, nxt)
    return end in cur


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML document in `path`, read with a size bound (a configuration naming `/dev/zero` or a FIFO
    is an error, not an unbounded read); mistakes raise ConfigError."""
    from irc import limits
    from irc.fileguard import UnreadableFile, read_regular

    tomllib = _toml()
    try:
        return tomllib.loads(read_regular(path, *limits.file_limit("max_config_bytes")).decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no such config file: {path}") from None
    except (OSError, UnicodeDecodeError, UnreadableFile) as e:
        raise ConfigError(f"cannot read {path}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None


def _config_in(d: Path) -> Path | None:
    """`d/irc.toml`, else `d/pyproject.toml` when it has a `[tool.irc]` table (an unreadable one counts as
    having none), else None."""
    f = d / "irc.toml"
    if f.is_file():
        return f
    f = d / "pyproject.toml"
    if f.is_file():
        try:
            data = _read_toml(f)
        except ConfigError:
            return None
        if isinstance(data.get("tool"), dict) and "irc" in data["tool"]:
            return f
    return None


def find_config(start: Path | None = None) -> Path | None:
    """The nearest `irc.toml`, or `pyproject.toml` with a `[tool.irc]` table, from `start` upwards -- but
    only as far as the repository root (the first directory containing `.git`) and only through
    directories owned by the user running irc. A configuration beyond either bound, or one owned by
    another user, is not used: it could switch checks off for a tree it does not belong to (a
    `pyproject.toml` in a shared parent directory, a checkout inside another user's tree). irc says so in
    a one-line warning, as git does for a repository of another owner."""
    from irc.fileguard import foreign_owner, warn_once

    d = (start or Path.cwd()).resolve()
    dirs = (d, *d.parents)
    beyond: tuple[Path, ...] = ()
    why = ""
    for i, cur in enumerate(dirs):
        try:
            foreign = foreign_owner(os.stat(cur))
        except OSError:
            return None
        if foreign is not None:
            beyond, why = dirs[i:], f"{cur} is {foreign}"
            break
        f = _config_in(cur)
        if f is not None:
            foreign = foreign_owner(os.stat(f))
            if foreign is None:
                return f
            warn_once(f"ignoring {f}: {foreign}")
            return None
        if (cur / ".git").exists():
            beyond, why = dirs[i + 1 :], f"it is above the repository root {cur}"
            break
    for cur in beyond:  # only to say why a configuration that is there does not apply
        f = _config_in(cur)
        if f is not None:
            warn_once(f"ignoring {f}: {why}")
            break
    return None


def _str_list(v: Any, key: str, where: str) -> list[str]:
    if isinstance(v, str):
        return [v]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return list(v)


def _known_check(name: str, key: str, where: str) -> None:
    from irc.tooling import checkinfo

    if not checkinfo.known(name):
        dym = checkinfo.did_you_mean(name)
        raise ConfigError(
            f"{where}: `{key}` names an unknown check `{name}`" + (f"; did you mean `{dym}`?" if dym else "")
        )


def _arch(value: Any, key: str, where: str) -> str:
    from irc.target import parse_arch

    if not isinstance(value, str):
        raise ConfigError(f'{where}: `{key}` must be a string like "sm_90a"')
    try:
        return parse_arch(value).name
    except ValueError as e:
        raise ConfigError(f"{where}: `{key}`: {e}") from None


def parse_config(table: dict[str, Any], root: Path, where: str, path: Path | None = None) -> Config:
    """Validate a `[tool.irc]` table (or a whole irc.toml) into a Config; mistakes raise ConfigError."""
    cfg = Config(root=root, path=path)
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key `{unknown[0]}` (known: {', '.join(sorted(_KEYS))})")
    if "include" in table:
        cfg.include = _str_list(table["include"], "include", where)
    if "exclude" in table:
        cfg.exclude = _str_list(table["exclude"], "exclude", where)
    if "arch" in table:
        cfg.arch = _arch(table["arch"], "arch", where)
    for key in ("werror", "warn-unused-allow"):
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"{where}: `{key}` must be true or false")
            setattr(cfg, key.replace("-", "_"), table[key])
    if "enable" in table:
        cfg.enable = _str_list(table["enable"], "enable", where)
        for n in cfg.enable:
            _known_check(n, "enable", where)
    if "disable" in table:
        cfg.disable = _str_list(table["disable"], "disable", where)
        for n in cfg.disable:
            _known_check(n, "disable", where)
            if n in FRONTEND_ERRORS:
                raise ConfigError(f"{where}: `{n}` cannot be disabled (the kernel would not compile)")
    if "nvcc-flags" in table:
        cfg.nvcc_flags = _str_list(table["nvcc-flags"], "nvcc-flags", where)
    if "cuda-arch" in table:
        cfg.cuda_arch = [
            _arch(a, "cuda-arch", where) for a in _str_list(table["cuda-arch"], "cuda-arch", where)
        ]
    for key in ("baseline", "docs-url", "nvcc", "compile-commands"):
        if key in table:
            if not isinstance(table[key], str):
                raise ConfigError(f"{where}: `{key}` must be a string")
            setattr(cfg, key.replace("-", "_"), table[key])
    targets = table.get("targets", {})
    if not isinstance(targets, dict):
        raise ConfigError(f'{where}: `targets` must be a table of "glob" = "arch"')
    cfg.targets = [(g, _arch(a, f"targets.{g}", where)) for g, a in targets.items()]
    if "contract" in table:
        from irc.tooling.contracts import ContractConfigError, parse_rules

        try:
            cfg.contracts = parse_rules(table["contract"], where)
        except ContractConfigError as e:
            raise ConfigError(str(e)) from None
    sev = table.get("severity", {})
    if not isinstance(sev, dict):
        raise ConfigError(f'{where}: `severity` must be a table of check = "error|warning|note|off"')
    for n, s in sev.items():
        _known_check(n, "severity", where)
        if s not in _SEVERITIES:
            raise ConfigError(f"{where}: severity of `{n}` must be one of {', '.join(_SEVERITIES)}")
        if n in FRONTEND_ERRORS and s != "error":
            raise ConfigError(f"{where}: `{n}` is always an error (the kernel would not compile)")
        cfg.severity[n] = s
    return cfg


def load_config(path: Path | None = None, start: Path | None = None) -> Config:
    """The configuration in `path`, or the nearest one from `start` (default: the current directory).
    With none found: an empty Config rooted at the current directory."""
    path = path or find_config(start)
    if path is None:
        return Config(root=(start or Path.cwd()).resolve())
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("irc", {})
        where = f"{path} [tool.irc]"
    else:
        table = data.get("tool", {}).get("irc", data) if "tool" in data else data
        where = str(path)
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    return parse_config(table, path.parent.resolve(), where, path)


_ARCH_HEADER = re.compile(r"^\s*//\s*arch\s*:\s*(\S+)")


def header_arch(text: str) -> str | None:
    """The target named by a `// arch: sm_90a` comment among the first five lines of a .kdsl file (the
    convention the test corpus already uses), or None."""
    for line in text.splitlines()[:5]:
        m = _ARCH_HEADER.match(line)
        if m:
            return m.group(1)
    return None


def resolve_arch(text: str, path: str, explicit: str | None, fallback: str | None = None) -> str:
    """The target of a .kdsl file, the one rule of the command line and the Python API: `explicit` (an
    `--arch` / `arch=`), else the file's `// arch: sm_90a` header, else `fallback` (the configuration's),
    else sm_80. Raises ValueError for an unknown target, naming the header when it came from there."""
    from irc.target import DEFAULT_ARCH, parse_arch

    if explicit is not None:
        return parse_arch(explicit).name
    h = header_arch(text)
    if h is None:
        return parse_arch(fallback).name if fallback else DEFAULT_ARCH
    try:
        return parse_arch(h).name
    except ValueError as e:
        raise ValueError(f"{path}: `// arch: {h}` header: {e}") from None
