"""Helpers for the emulator tests: wrap a PTX kernel body into a module and parse it."""

from __future__ import annotations

from irc.frontend.ptx.parser import parse_ptx

HEADER = ".version 8.0\n.target {target}\n.address_size 64\n"
REGS = """  .reg .pred %p<16>;
  .reg .b16 %rs<16>;
  .reg .b32 %r<64>;
  .reg .f32 %f<64>;
  .reg .b64 %rd<32>;
  .reg .f64 %fd<8>;
"""


def ptx_kernel(
    body: str,
    params: str = ".param .u64 out",
    decls: str = "",
    name: str = "k",
    target: str = "sm_90",
    directives: str = "",
):
    text = (
        HEADER.format(target=target)
        + decls
        + f"\n.visible .entry {name}({params}){directives}\n{{\n{REGS}{body}\n}}\n"
    )
    return parse_ptx(text, "<test>")
