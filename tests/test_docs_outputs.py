"""The diagnostics shown in docs/language.md under each ```kdsl-error example are what irc really prints
(regenerate with `python tests/test_docs_outputs.py --update`)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from irc.compiler import CompileOptions, check_kdsl, compile_kdsl
from irc.diagnostics import CompileError, Diagnostic
from irc.tooling.render import render_text

DOC = Path(__file__).resolve().parent.parent / "docs" / "language.md"
PAT = re.compile(r"```kdsl-error\n(.*?)```\n(```\n(.*?)```\n)?", re.S)


def real_output(body: str) -> str:
    """What `irc` prints for the example's expected check (first-line comment `// error: CHECK`)."""
    m = re.search(r"//\s*arch:\s*(sm_\w+)", body)
    arch = m.group(1) if m else "sm_80"
    want = re.search(r"//\s*error:\s*([\w-]+)", body).group(1)
    diags = [d for d in check_kdsl(body, "doc.kdsl", arch=arch) if d.check == want]
    if not diags:
        try:
            diags = [d for d in compile_kdsl(body, "doc.kdsl", CompileOptions(arch=arch)).diagnostics]
        except CompileError as e:
            diags = list(e.diagnostics)
        diags = [d for d in diags if d.check == want]
    return render_text(sorted(diags, key=Diagnostic.sort_key), {"doc.kdsl": body}).rstrip("\n")


def _expected_blocks(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(0)) for m in PAT.finditer(text)]


def _render(body: str) -> str:
    return f"```kdsl-error\n{body}```\n```\n{real_output(body)}\n```\n"


BLOCKS = _expected_blocks(DOC.read_text())


@pytest.mark.parametrize("body,shown", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_shown_output_is_real(body: str, shown: str) -> None:
    assert shown == _render(body)


if __name__ == "__main__" and "--update" in sys.argv:
    text = DOC.read_text()
    DOC.write_text(PAT.sub(lambda m: _render(m.group(1)), text))
