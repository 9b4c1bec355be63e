"""`irc.floatbits` (struct) against numpy's float32 / float16 conversions, the reference."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from irc.floatbits import F32_MAX, bf16_bits_truncated, f16_bits, f32_bits, round_bf16, round_f16, round_f32

floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-70000.0, 70000.0),
    st.floats(-1e-6, 1e-6),
    st.sampled_from(
        [65504.0, 65519.99, 65520.0, -65520.0, 3.4028235e38, 3.4028235677973366e38, 3.5e38, 0.0, -0.0]
    ),
)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))


@given(floats)
def test_rounding_matches_numpy(x: float) -> None:
    with np.errstate(all="ignore"):
        assert _same(round_f32(x), float(np.float32(x)))
        assert _same(round_f16(x), float(np.float16(x)))
        if not math.isnan(x):
            assert f32_bits(x) == int(np.array([x], dtype=np.float32).view(np.uint32)[0])
            assert f16_bits(x) == int(np.array([x], dtype=np.float16).view(np.uint16)[0])
            assert bf16_bits_truncated(x) == int(np.array([x], dtype=np.float32).view(np.uint32)[0]) >> 16
            b = int(np.array([x], dtype=np.float32).view(np.uint32)[0])
            b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
            assert _same(round_bf16(x), float(np.array([b], dtype=np.uint32).view(np.float32)[0]))


def test_f32_max_is_numpys() -> None:
    assert F32_MAX == float(np.finfo(np.float32).max)
