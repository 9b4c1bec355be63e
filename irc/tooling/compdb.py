"""CMake's (or any generator's) `compile_commands.json`, read as clang-tidy's `-p build/` does: for each
.cu file, the flags it is compiled with and the targets it is compiled for.

A compile command is split into what nvcc needs to compile the file to PTX again -- preprocessor and
language flags (`-I`, `-isystem`, `-D`, `-U`, `-include`, `-std=`, `--options-file`, `--expt-*`,
`-ccbin`, `-forward-unknown-to-host-compiler` and the host flags it forwards) -- and what irc replaces:
the output (`-o`, `-c`, `-x`, dependency flags) and the targets (`-arch`, `-gencode`,
`--generate-code`, `-code`), which become irc target names (`compute_90a,code=sm_90a` -> `sm_90a`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

from irc.records import field, record


class CompDbError(Exception):
    """A missing or malformed compile database (a usage error: exit 2)."""


@record
class Entry:
    """One .cu file of the database: absolute path, the directory to compile in, the flags to keep,
    and the targets it is built for (empty: the database names none irc knows)."""

    file: str
    directory: str
    flags: list[str] = field(default_factory=list)
    archs: list[str] = field(default_factory=list)


# flags irc sets itself; the value is how many arguments follow when the flag is given without `=`
_DROP = {
    "-c": 0,
    "-o": 1,
    "--output-file": 1,
    "-x": 1,
    "--x": 1,
    "-MD": 0,
    "-MMD": 0,
    "-M": 0,
    "-MM": 0,
    "-MF": 1,
    "-MT": 1,
    "-MQ": 1,
    "-MP": 0,
    "--generate-dependencies-with-compile": 0,
    "--dependency-output": 1,
    "-ptx": 0,
    "-cubin": 0,
    "-fatbin": 0,
    "-dc": 0,
    "-dlink": 0,
    "-lineinfo": 0,
}
_ARCH_FLAGS = {"-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code"}


def _sm_names(text: str) -> list[str]:
    """irc target names in an architecture flag's value: `sm_90a`, or `compute_80` (PTX for it) as sm_80."""
    from irc.target import parse_arch

    out = []
    for m in re.finditer(r"(?:sm|compute)_(\d+[a-z]?)", text):
        try:
            out.append(parse_arch(f"sm_{m.group(1)}").name)
        except ValueError:
            continue
    return out


def split_command(tokens: list[str], source: str) -> tuple[list[str], list[str]]:
    """(flags to keep, targets) of one compile command (`tokens[0]` is the compiler)."""
    flags: list[str] = []
    archs: list[str] = []
    i = 1
    src_names = {source, os.path.basename(source)}
    while i < len(tokens):
        t = tokens[i]
        name = t.split("=", 1)[0]
        if name in _ARCH_FLAGS:
            if "=" in t:
                value = t.split("=", 1)[1]
            else:
                value = tokens[i + 1] if i + 1 < len(tokens) else ""
                i += 1
            archs += _sm_names(value)
        elif t in _DROP:
            i += _DROP[t]
        elif name in _DROP and "=" in t:
            pass
        elif t in src_names or (not t.startswith("-") and os.path.abspath(t) == os.path.abspath(source)):
            pass
        else:
            flags.append(t)
        i += 1
    return flags, list(dict.fromkeys(archs))


def find(path: str) -> Path:
    """The `compile_commands.json` in directory `path`, or `path` itself when it is that file."""
    p = Path(path)
    f = p / "compile_commands.json" if p.is_dir() else p
    if not f.is_file():
        raise CompDbError(
            f"no compile_commands.json in {path} (configure with `cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON`)"
        )
    return f


def load(path: str) -> dict[str, Entry]:
    """Every .cu entry of the database in (or at) `path`, by absolute normalized file path."""
    f = find(path)
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise CompDbError(f"{f}: not a JSON compile database: {e}") from None
    if not isinstance(data, list):
        raise CompDbError(f"{f}: expected a JSON list of compile commands")
    out: dict[str, Entry] = {}
    for i, e in enumerate(data):
        if not isinstance(e, dict) or not isinstance(e.get("file"), str):
            raise CompDbError(f"{f}: entry {i} has no `file`")
        directory = e.get("directory") if isinstance(e.get("directory"), str) else str(f.parent)
        src = os.path.normpath(os.path.join(directory, e["file"]))
        if not src.endswith(".cu"):
            continue
        if isinstance(e.get("arguments"), list):
            tokens = [str(x) for x in e["arguments"]]
        elif isinstance(e.get("command"), str):
            try:
                tokens = shlex.split(e["command"])
            except ValueError as err:
                raise CompDbError(f"{f}: entry {i}: cannot split `command`: {err}") from None
        else:
            raise CompDbError(f"{f}: entry {i} has neither `arguments` nor `command`")
        flags, archs = split_command(tokens, e["file"])
        out[src] = Entry(src, directory, flags, archs)
    return out
