"""PTX printer: canonical round trip (print(parse(print(parse(x)))) == print(parse(x))) on every
reference form, nvcc fixture and corpus file, and ptxas accepts what is printed."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess

import pytest

from irc.backends.ptx.printer import format_instr, print_ptx
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxisa.model import (
    Addr,
    Function,
    Imm,
    Instr,
    Label,
    Loc,
    Module,
    Param,
    Reg,
    RegDecl,
    Sym,
    Vec,
)

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = sorted(
    glob.glob("/work/shared/ptx-reference/forms/*.ptx")
    + glob.glob(os.path.join(HERE, "data", "ptx_parser", "*.ptx"))
    + glob.glob(os.path.join(HERE, "data", "ptx", "**", "*.ptx"), recursive=True)
)


def find_ptxas() -> str | None:
    env = os.environ.get("IRC_PTXAS")
    if env and os.path.exists(env):
        return env
    try:
        import nvidia

        for base in nvidia.__path__:
            cand = os.path.join(base, "cu13", "bin", "ptxas")
            if os.path.exists(cand):
                return cand
    except ImportError:
        pass
    return shutil.which("ptxas")


PTXAS = find_ptxas()


def ptxas(path: str, target: str) -> subprocess.CompletedProcess:
    return subprocess.run([PTXAS, f"-arch={target}", "-o", os.devnull, path], capture_output=True, text=True)


def read(path: str) -> str:
    with open(path) as fh:
        return fh.read()


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_round_trip_is_stable(path):
    once = print_ptx(parse_ptx(read(path), path))
    twice = print_ptx(parse_ptx(once, "printed.ptx"))
    assert once == twice


# ptxas on every file would take a few seconds; the forms and fixtures cover every construct the corpus
# uses except Triton's debug sections, so check those plus one Triton file.
_PTXAS_FILES = [p for p in FILES if "/data/ptx/" not in p] + [
    p for p in FILES if "/data/ptx/triton/" in p and "tma_matmul.sm_90a" in p
]


@pytest.mark.skipif(PTXAS is None, reason="no ptxas ($IRC_PTXAS, nvidia-cuda-nvcc wheel, or PATH)")
@pytest.mark.parametrize("path", _PTXAS_FILES, ids=os.path.basename)
def test_ptxas_accepts_printed(path, tmp_path):
    m = parse_ptx(read(path), path)
    original = ptxas(path, m.target)
    out = tmp_path / "printed.ptx"
    out.write_text(print_ptx(m))
    printed = ptxas(str(out), m.target)
    # Some reference forms are deliberately rejected by ptxas; the printed text must behave the same.
    assert printed.returncode == original.returncode, printed.stderr


def test_canonical_layout_of_a_built_module():
    body = [
        RegDecl(".b32", prefix="%r", count=4),
        RegDecl(".pred", names=["p"]),
        Label("L0"),
        Instr("ld.global.u32", [Reg("%r1"), Addr(Reg("%rd1"), -8)], loc=Loc(1, 3, 7)),
        Instr(
            "add.s32", [Reg("%r2"), Reg("%r1"), Imm(1, "1")], pred=Reg("p"), pred_neg=True, loc=Loc(1, 3, 7)
        ),
        Instr("ret"),
    ]
    f = Function("k", "entry", params=[Param("a", ".u64", ptr_space="global", ptr_align=16)], body=body)
    f.directives["reqntid"] = [128]
    text = print_ptx(Module(version="8.0", target="sm_90", files={1: "k.kdsl"}, functions=[f]))
    assert text.splitlines() == [
        ".version 8.0",
        ".target sm_90",
        ".address_size 64",
        "",
        '.file 1 "k.kdsl"',
        "",
        ".visible .entry k(",
        "\t.param .u64 .ptr .global .align 16 a",
        ")",
        ".reqntid 128",
        "{",
        "\t.reg .b32 %r<4>;",
        "\t.reg .pred p;",
        "L0:",
        "\t.loc 1 3 7",
        "\tld.global.u32 %r1, [%rd1+-8];",
        "\t@!p add.s32 %r2, %r1, 1;",
        "\tret;",
        "}",
    ]


def test_call_lists_print_with_parentheses():
    ins = Instr("call.uni", [Vec((Sym("retval0"),)), Sym("f"), Vec((Sym("param0"), Sym("param1")))])
    assert format_instr(ins) == "call.uni (retval0), f, (param0, param1);"
    assert (
        format_instr(Instr("mov.b64", [Reg("%rd1"), Vec((Reg("%r1"), Reg("%r2")))]))
        == "mov.b64 %rd1, {%r1, %r2};"
    )
