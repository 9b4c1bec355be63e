"""Legalization emits a `tcgen05_ld` of more than 32 columns as x32 loads of consecutive columns
(`TMEM_LD_MAX`, irc/backends/ptx/legalize.py): each column lands in the right result, in the emulator
against numpy and through ptxas, and a load of at most 32 columns is left as it is."""

from __future__ import annotations

import re

import numpy as np
import pytest

import irc
from irc.backends.ptx.legalize import TMEM_LD_MAX
from irc.ptxas import find_ptxas, run_ptxas

SRC = """
@launch(block = 128)
kernel wide(out: *global u32) {
    shared tslot: [u32; 1];
    let warp = tid.x / 32;
    if warp == 0 {
        tmem_alloc(&tslot[0], 256);
        tmem_relinquish();
    }
    tcgen05_fence_before();
    barrier();
    tcgen05_fence_after();
    let lanes = tslot[0] + ((warp * 32) << 16);
    unroll for c in 0..N / 8 {
        var v = [0u32; 8];
        unroll for e in 0..8 {
            v[e] = tid.x * 1000 + c * 8 + e;
        }
        tcgen05_st_32x32b(lanes + 16 + c * 8, v);
    }
    tcgen05_wait_st();
    let w = tcgen05_ld_32x32b(lanes + 16, N);
    tcgen05_wait_ld();
    unroll for e in 0..N {
        out[tid.x * N + e] = w[e];
    }
    tcgen05_fence_before();
    barrier();
    if warp == 0 {
        tmem_dealloc(tslot[0], 256);
    }
}
"""


@pytest.mark.parametrize("n", [16, 32, 64, 128])
def test_wide_tmem_load_is_split_and_exact(n: int) -> None:
    mod = irc.compile(SRC.replace("N", str(n)), arch="sm_100a", path="wide.kdsl", cache=False)
    widths = [int(w) for w in re.findall(r"tcgen05\.ld\.sync\.aligned\.32x32b\.x(\d+)\.b32", mod.ptx_text)]
    assert widths == [n] if n <= TMEM_LD_MAX else widths == [TMEM_LD_MAX] * (n // TMEM_LD_MAX)
    if find_ptxas() is not None:
        r = run_ptxas(mod.ptx_text, "sm_100a")
        assert r.ok, r.stderr
    out = np.zeros(128 * n, np.uint32)
    mod["wide"].launch(grid=1, block=128, args=[out])
    want = np.arange(128)[:, None] * 1000 + np.arange(n)[None, :]
    np.testing.assert_array_equal(out.reshape(128, n), want.astype(np.uint32))
