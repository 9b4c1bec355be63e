#!/bin/sh
# Regenerate the PTX of the async protocol corpus (tests only read the .ptx files).
# The TMA kernels need sm_100a; the cp.async kernel is built for sm_80 too.
set -e
cd "$(dirname "$0")"
for cu in ok_tma_driver bug_bytes_as_count bug_no_expect_tx bug_fixed_parity bug_commit_group ok_tma_ring \
    bug_misaligned_tile; do
    nvcc -ptx -O3 -lineinfo -arch=sm_100a "$cu.cu" -o "$cu.sm_100a.ptx"
done
for arch in sm_80 sm_100a; do
    nvcc -ptx -O3 -lineinfo -arch=$arch bug_cp_async_early_read.cu -o bug_cp_async_early_read.$arch.ptx
done
