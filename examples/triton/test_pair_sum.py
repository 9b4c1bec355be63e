"""`pytest --irc examples/triton/test_pair_sum.py`: the test compiles `pair_sum` (no GPU needed: an explicit
target) and passes, but the session fails because irc finds the partial-warp shuffle in the kernel
Triton compiled. On a GPU, launching the kernel (`pair_sum[grid](...)`) compiles it the same way."""

import triton
from pair_sum import SIGNATURE, pair_sum
from triton.backends.compiler import GPUTarget


def test_pair_sum_compiles() -> None:
    src = triton.compiler.ASTSource(
        fn=pair_sum, signature={**SIGNATURE, "BLOCK": "constexpr"}, constexprs={"BLOCK": 256}
    )
    compiled = triton.compile(src, target=GPUTarget("cuda", 80, 32), options={"num_warps": 4})
    assert "shfl.sync.bfly" in compiled.asm["ptx"]
