#!/bin/sh
# Regenerate the PTX of the async protocol corpus (tests only read the .ptx files).
# The TMA kernels need sm_100a (or sm_90a); the cp.async kernels are built for sm_80, and the first
# cp.async kernel for sm_100a too. Each bug_*.cu marks its mistake with `// EXPECT: <check>`; its
# corrected twin is the ok_*.cu of the same name (bug_tma_overwrite's twin is ok_tma_driver).
set -e
cd "$(dirname "$0")"
build() {  # build ARCH STEM...
    arch=$1
    shift
    for cu in "$@"; do
        nvcc -ptx -O3 -lineinfo -arch="$arch" "$cu.cu" -o "$cu.$arch.ptx"
    done
}
build sm_100a ok_tma_driver bug_bytes_as_count bug_no_expect_tx bug_fixed_parity bug_commit_group ok_tma_ring \
    bug_misaligned_tile bug_tma_overwrite
build sm_80 bug_cp_async_early_read
build sm_100a bug_cp_async_early_read
for twin in bug ok; do
    build sm_80 ${twin}_cpa_pipeline_nowait ${twin}_cpa_wait_depth ${twin}_cpa_no_commit ${twin}_cpa_read_filling \
        ${twin}_cpa_no_sync ${twin}_cpa_second_sync ${twin}_mbar_count_one ${twin}_mbar_cuda_barrier_count
    build sm_90a ${twin}_mbar_barrier_no_tx ${twin}_bulk_tx_larger ${twin}_mbar_no_init_fence ${twin}_mbar_reinit \
        ${twin}_mbar_smem_reuse ${twin}_bulk_size ${twin}_bulk_misaligned ${twin}_bulk_store_wait
done
