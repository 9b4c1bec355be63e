"""`.loc ... inlined_at` chains: one helper line inlined at two call sites maps each instruction to its
own call site (a map over the whole file sent both to the last one: a libcu++ `barrier::wait` used twice
put the finding on the wrong line). An instruction after a later, shorter `.loc` keeps the call sites the
latest chain gave."""

from __future__ import annotations

from irc.ptxisa.lineinfo import LineInfo

_PTX = """\
.visible .entry k()
{
\t.loc\t1 26 5
\t.loc\t2 370 5, function_name $L__info_string3, inlined_at 1 26 5
\t.loc\t3 192 5, function_name $L__info_string7, inlined_at 2 370 5
\tmbarrier.try_wait.shared.b64 p, [%r13], %rd8;
\t.loc\t3 200 1, function_name $L__info_string7, inlined_at 2 370 5
\tbra.uni $L_next;
$L_next:
\t.loc\t1 36 3
\t.loc\t2 370 5, function_name $L__info_string3, inlined_at 1 36 3
\t.loc\t3 192 5, function_name $L__info_string7, inlined_at 2 370 5
\tmbarrier.try_wait.shared.b64 p, [%r13], %rd9;
\tret;
}
\t.file\t1 "/home/u/k.cu"
\t.file\t2 "/usr/local/cuda/include/cccl/cuda/__barrier/barrier_block_scope.h"
\t.file\t3 "/usr/local/cuda/include/cccl/cuda/__ptx/instructions/generated/mbarrier_try_wait.h"
"""


def _line(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def test_each_inlined_instance_maps_to_its_own_call_site() -> None:
    info = LineInfo(_PTX)
    first, second = _line(_PTX, "%rd8;"), _line(_PTX, "%rd9;")
    assert info.at(first) == ("/home/u/k.cu", 26, 5)
    assert info.at(second) == ("/home/u/k.cu", 36, 3)
    assert [c[1] for c in info.chain(first)] == [192, 370, 26]


def test_a_shorter_loc_keeps_the_latest_call_sites() -> None:
    info = LineInfo(_PTX)
    assert info.at(_line(_PTX, "bra.uni")) == ("/home/u/k.cu", 26, 5)
    assert info.at(_line(_PTX, "ret;")) == ("/home/u/k.cu", 36, 3)
