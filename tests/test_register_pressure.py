"""`register-pressure`: a warning when the allocation needs more registers than `@max_registers` (or 255)."""

from __future__ import annotations

import irc
from irc.compiler import check_kdsl

SRC = """@launch(block = 32)
@max_registers(LIMIT)
kernel many(out: *global f32, x: *global f32) {
    var acc = [0.0; 32];
    unroll for i in 0..32 {
        acc[i] = x[tid.x * 32 + i];
    }
    unroll for i in 0..32 {
        out[tid.x * 32 + i] = acc[i] * acc[31 - i];
    }
}
"""


def test_warns_above_max_registers() -> None:
    mod = irc.compile(SRC.replace("LIMIT", "24"), path="rp.kdsl", cache=False)
    (d,) = [d for d in mod.diagnostics if d.check == "register-pressure"]
    assert d.severity.value == "warning" and "@max_registers(24)" in d.message and d.span.line == 1
    assert mod["many"].stats["register_slots"] > 24


def test_quiet_within_the_limit() -> None:
    mod = irc.compile(SRC.replace("LIMIT", "200"), path="rp.kdsl", cache=False)
    assert not [d for d in mod.diagnostics if d.check == "register-pressure"]


def test_check_reports_it_without_failing() -> None:
    diags = check_kdsl(SRC.replace("LIMIT", "24"), "rp.kdsl")
    assert [d.check for d in diags] == ["register-pressure"] and not any(d.is_error for d in diags)


def test_check_reports_backend_errors_too() -> None:
    src = (
        "@launch(block = 32)\nkernel big(out: *global f32) {\n    shared s: [f32; 60000];\n"
        "    s[tid.x] = 1.0;\n    barrier();\n    out[tid.x] = s[31 - tid.x];\n}\n"
    )
    diags = check_kdsl(src, "big.kdsl", arch="sm_86")  # 240 KB > 99 KB on sm_86
    assert "shared-overflow" in {d.check for d in diags}
