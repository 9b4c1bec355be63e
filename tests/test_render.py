"""Renderer tests: golden files for the rustc-style text, structural checks for JSON / SARIF / GitHub.

Regenerate the golden files with `IRC_UPDATE_GOLDEN=1 python -m pytest tests/test_render.py` and review the
diff: the golden files ARE the specification of the text layout.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest

from irc.diagnostics import Diagnostic, Label, Severity, Span, error, note, warning
from irc.tooling.render import (
    render_github,
    render_json,
    render_sarif,
    render_text,
    summary_line,
    use_color,
)

GOLDEN = Path(__file__).parent / "golden" / "render"

K = """\
@launch(block = 128)
kernel k(x: ptr<f32>, n: i32) {
    let i = tid.x + ctaid.x * 128;
    shared tile: f32[128];
    tile[tid.x] = 0.0;
    let m = x[i];
    if i >= n { return; }
    let d = m - m;
    tile[tid.x] = d;
    let t = tile[0];
    barrier();
    x[i] = t;
}
"""

LIB = """\
fn helper(a: f32) -> f32 {
    return a * 2.0;
}
"""

SOURCES = {"k.kdsl": K, "lib.kdsl": LIB}


def sp(line: int, col: int, end_col: int, file: str = "k.kdsl", end_line: int | None = None) -> Span:
    return Span(file, line, col, end_line if end_line is not None else line, end_col)


BARRIER = sp(11, 5, 14)
BARRIER_DIAG = error(
    "barrier-divergence",
    "barrier may not be reached by every thread of the block",
    BARRIER,
    labels=[
        Label(sp(7, 8, 14), "condition depends on tid.x through `i`"),
        Label(sp(7, 17, 23), "threads with i >= n leave here"),
        Label(BARRIER, "block-wide barrier"),
    ],
    help="compute the predicate, keep every thread through the barrier, guard only the memory accesses",
)

CASES: dict[str, Diagnostic] = {
    # The example of the task brief: two labels on line 7, gap, primary with its own message, help.
    "barrier_divergence": BARRIER_DIAG,
    # Only the primary span with a message.
    "single_label": error(
        "self-cancel",
        "`m - m` is always 0",
        sp(8, 13, 18),
        labels=[Label(sp(8, 13, 18), "both operands are `m`")],
    ),
    # Three annotations on one line: the rightmost message inline, the primary and a label hanging below.
    "multi_label_same_line": error(
        "barrier-divergence",
        "`i` varies per thread",
        sp(3, 13, 18),
        labels=[
            Label(sp(3, 9, 10), "`i` declared here"),
            Label(sp(3, 13, 18), "tid.x differs in every thread"),
            Label(sp(3, 21, 28), "ctaid.x is uniform across the block"),
        ],
    ),
    # Overlapping spans: the primary underline wins, the label's connector still shows where it starts.
    "overlapping_labels": error(
        "self-cancel",
        "`m - m` is always 0",
        sp(8, 13, 18),
        labels=[Label(sp(8, 9, 10), "result is 0.0"), Label(sp(8, 13, 14), "left operand `m`")],
    ),
    # Labels on lines 5 and 7 around the primary on 6: single skipped lines are printed, not `...`.
    "gap_of_one_line": warning(
        "uninitialized",
        "read of `m` that may be uninitialized",
        sp(8, 13, 14),
        labels=[Label(sp(6, 9, 10), "`m` declared here"), Label(sp(10, 9, 10), "later use")],
    ),
    # A span over lines 7..9: first line underlined to its end, the end line marked.
    "multiline_span": error(
        "barrier-divergence",
        "divergent region",
        sp(7, 5, 20, end_line=9),
        labels=[Label(sp(3, 9, 10), "`i` varies per thread")],
    ),
    # A label in another file gets a `:::` section.
    "other_file_label": error(
        "type-error",
        "argument type mismatch",
        sp(6, 13, 17),
        labels=[
            Label(sp(6, 13, 17), "expected `f32`"),
            Label(sp(1, 11, 17, file="lib.kdsl"), "parameter declared here"),
        ],
    ),
    # No span at all: header plus notes.
    "no_span": note("limit-error", "unroll limit reached; loop kept rolled", None, notes=["limit is 64"]),
    # Notes and help, warning severity, and a multi-line note.
    "help_and_notes": warning(
        "register-pressure",
        "kernel needs 96 registers, more than @max_registers(64)",
        sp(2, 8, 9),
        notes=["ptxas will spill 128 bytes", "spills go to local memory\nwhich is slow"],
        help="raise @max_registers or reduce the tile size",
    ),
    # The file of the primary span is not available: location plus a note, never a crash.
    "missing_source": error(
        "parse-error",
        "unexpected token",
        sp(3, 1, 2, file="gone.kdsl"),
        labels=[Label(sp(3, 1, 2, file="gone.kdsl"), "here")],
    ),
}


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("IRC_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with IRC_UPDATE_GOLDEN=1"
    assert text == path.read_text()


@pytest.mark.parametrize("name", sorted(CASES))
def test_text_golden(name: str) -> None:
    _check_golden(name, render_text([CASES[name]], SOURCES, color=False))


def test_example_from_brief_exact() -> None:
    """The layout the brief specifies, spelled out here so the golden file cannot drift from it."""
    text = render_text([BARRIER_DIAG], SOURCES, color=False)
    assert text == (
        "error[barrier-divergence]: barrier may not be reached by every thread of the block\n"
        "  --> k.kdsl:11:5\n"
        "   |\n"
        " 7 |     if i >= n { return; }\n"
        "   |        ------   ------ threads with i >= n leave here\n"
        "   |        |\n"
        "   |        condition depends on tid.x through `i`\n"
        "...\n"
        "11 |     barrier();\n"
        "   |     ^^^^^^^^^ block-wide barrier\n"
        "   |\n"
        "   = help: compute the predicate, keep every thread through the barrier, guard only the memory accesses\n"
    )


def test_several_diagnostics_separated_by_blank_line() -> None:
    text = render_text([CASES["single_label"], CASES["no_span"]], SOURCES)
    assert "\n\nnote[limit-error]" in text
    assert render_text([], SOURCES) == ""


def test_no_color_has_no_escapes_and_color_only_adds_escapes() -> None:
    diags = list(CASES.values())
    plain = render_text(diags, SOURCES, color=False)
    colored = render_text(diags, SOURCES, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31m" in colored and "\x1b[1;33m" in colored
    assert re.sub(r"\x1b\[[0-9;]*m", "", colored) == plain


def test_no_trailing_whitespace() -> None:
    for line in render_text(list(CASES.values()), SOURCES).splitlines():
        assert line == line.rstrip()


def test_gutter_width_follows_largest_line_number() -> None:
    src = "\n".join(f"line {n}" for n in range(1, 121))
    d = error(
        "parse-error",
        "bad",
        Span("big.kdsl", 120, 1, 120, 5),
        labels=[Label(Span("big.kdsl", 9, 1, 9, 2), "x")],
    )
    text = render_text([d], {"big.kdsl": src})
    assert "   --> big.kdsl:120:1" in text
    assert "  9 | line 9" in text and "120 | line 120" in text


def test_tabs_are_expanded_so_underline_aligns() -> None:
    src = "\tlet a = b;\n"
    d = error("name-error", "unknown name `b`", Span("t.kdsl", 1, 10, 1, 11))
    lines = render_text([d], {"t.kdsl": src}).splitlines()
    code = next(line for line in lines if line.startswith("1 |"))
    under = next(line for line in lines if "^" in line)
    assert code.index("b;") == under.index("^")


def test_use_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(Tty()) is True
    assert use_color(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "")
    assert use_color(Tty()) is False


def test_summary_line() -> None:
    e = CASES["single_label"]
    w = CASES["help_and_notes"]
    assert summary_line([e, e, w], 3) == "irc: 2 errors, 1 warning in 3 files"
    assert summary_line([], 3) == "irc: no findings in 3 files"
    assert summary_line([w, CASES["no_span"]], 1) == "irc: 1 warning, 1 note in 1 file"


SPEC_KEYS = [
    "check",
    "severity",
    "file",
    "line",
    "column",
    "end_line",
    "end_column",
    "message",
    "labels",
    "help",
]


def test_json_exact_spec_fields() -> None:
    obj = json.loads(render_json([BARRIER_DIAG, CASES["no_span"]], files_checked=2))
    assert list(obj) == ["diagnostics", "files_checked"]
    assert obj["files_checked"] == 2
    first, second = obj["diagnostics"]
    assert list(first) == SPEC_KEYS
    assert first == {
        "check": "barrier-divergence",
        "severity": "error",
        "file": "k.kdsl",
        "line": 11,
        "column": 5,
        "end_line": 11,
        "end_column": 14,
        "message": "barrier may not be reached by every thread of the block",
        "labels": [
            {"file": "k.kdsl", "line": 7, "column": 8, "message": "condition depends on tid.x through `i`"},
            {"file": "k.kdsl", "line": 7, "column": 17, "message": "threads with i >= n leave here"},
            {"file": "k.kdsl", "line": 11, "column": 5, "message": "block-wide barrier"},
        ],
        "help": "compute the predicate, keep every thread through the barrier, guard only the memory accesses",
    }
    for label in first["labels"]:
        assert list(label) == ["file", "line", "column", "message"]
    assert second["help"] is None and second["file"] is None and second["severity"] == "note"
    assert json.loads(render_json([], files_checked=0)) == {"diagnostics": [], "files_checked": 0}


# A minimal SARIF 2.1.0 schema covering what code-scanning consumers read (written here; nothing downloaded).
_LOC = {
    "type": "object",
    "required": ["physicalLocation"],
    "properties": {
        "physicalLocation": {
            "type": "object",
            "required": ["artifactLocation", "region"],
            "properties": {
                "artifactLocation": {
                    "type": "object",
                    "required": ["uri"],
                    "properties": {"uri": {"type": "string"}},
                },
                "region": {
                    "type": "object",
                    "required": ["startLine", "startColumn", "endLine", "endColumn"],
                    "properties": {
                        k: {"type": "integer", "minimum": 1}
                        for k in ("startLine", "startColumn", "endLine", "endColumn")
                    },
                },
            },
        },
        "message": {"type": "object", "required": ["text"]},
    },
}
SARIF_MIN_SCHEMA = {
    "type": "object",
    "required": ["$schema", "version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name", "version", "rules"],
                                "properties": {
                                    "name": {"const": "irc"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id", "shortDescription"],
                                            "properties": {
                                                "shortDescription": {"type": "object", "required": ["text"]}
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "ruleIndex", "level", "message"],
                            "properties": {
                                "level": {"enum": ["error", "warning", "note", "none"]},
                                "message": {"type": "object", "required": ["text"]},
                                "locations": {"type": "array", "items": _LOC},
                                "relatedLocations": {"type": "array", "items": _LOC},
                            },
                        },
                    },
                },
            },
        },
    },
}


def test_sarif_structure() -> None:
    diags = [BARRIER_DIAG, CASES["help_and_notes"], CASES["single_label"], CASES["no_span"]]
    log = json.loads(render_sarif(diags, tool_version="0.1.0"))
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - the structural asserts below still run
        jsonschema = None
    if jsonschema is not None:
        jsonschema.validate(log, SARIF_MIN_SCHEMA)
    assert log["version"] == "2.1.0" and "sarif" in log["$schema"]
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "irc" and driver["version"] == "0.1.0"
    ids = [r["id"] for r in driver["rules"]]
    assert ids == ["barrier-divergence", "register-pressure", "self-cancel", "limit-error"]  # one per check
    results = log["runs"][0]["results"]
    assert [r["level"] for r in results] == ["error", "warning", "error", "note"]
    for r in results:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 11, "startColumn": 5, "endLine": 11, "endColumn": 14}
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "k.kdsl"
    rel = results[0]["relatedLocations"]
    assert [x["message"]["text"] for x in rel][0] == "condition depends on tid.x through `i`"
    assert rel[0]["physicalLocation"]["region"]["startLine"] == 7
    assert "locations" not in results[3]  # no span, no location
    assert results[1]["properties"]["help"].startswith("raise")


def test_sarif_uri_is_percent_encoded() -> None:
    d = error("parse-error", "x", Span("dir with space\\a.kdsl", 1, 1, 1, 2))
    log = json.loads(render_sarif([d], "0"))
    assert log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "dir%20with%20space/a.kdsl"
    )


def test_github_annotations() -> None:
    out = render_github([BARRIER_DIAG, CASES["help_and_notes"], CASES["no_span"]]).splitlines()
    assert out[0].startswith(
        "::error file=k.kdsl,line=11,col=5,endLine=11,endColumn=14,title=barrier-divergence::barrier may not"
    )
    assert out[0].endswith(
        "%0Ahelp: compute the predicate, keep every thread through the barrier, "
        "guard only the memory accesses"
    )
    assert out[1].startswith("::warning file=k.kdsl,line=2,")
    assert "%0Anote: spills go to local memory%0Awhich is slow" in out[1]
    assert out[2] == "::notice title=limit-error::unroll limit reached; loop kept rolled%0Anote: limit is 64"


def test_github_escaping() -> None:
    d = Diagnostic("x", Severity.ERROR, "100% bad\r\nyes, really: ok", Span("a,b:c%.kdsl", 1, 1, 1, 2))
    (line,) = render_github([d]).splitlines()
    assert line.startswith("::error file=a%2Cb%3Ac%25.kdsl,line=1,")
    assert line.endswith("::100%25 bad%0D%0Ayes, really: ok")
