#!/bin/sh
# Regenerate the committed PTX of the CUDA FMHA twin (needs nvcc 13 with sm_100a; tests only read the .ptx).
#   fmha_sm100.ptx        : the kernel as written
#   fmha_sm100_bug_no_expect_tx.ptx : the producer arrives on kv_full[s] without expect_tx (a protocol
#                           mistake: the phase completes on the arrival alone, before the copies land)
#   fmha_sm100_bug_parity.ptx : the MMA role waits on kv_full[s] with a fixed parity 0 (a protocol mistake: the
#                           wait passes on the stage's previous phase from the 3rd key tile on)
#   fmha_sm100_bug_parity_c_poll.ptx : the fixed parity with the C polling loop (the near miss of the
#                           polling-loop rule: a C `while (!try_wait)` loop must not hide the mistake)
#   fmha_sm100_bug_unrolled_parity.ptx : the producer loop unrolled 4x with a fixed parity 1 on kv_empty (the
#                           near miss of the unrolled-loop rule: two uses of a stage per iteration no longer
#                           alternate)
#   fmha_sm100_ok_c_poll.ptx, fmha_sm100_ok_unrolled.ptx : correct variants (the mbarrier polling loop in C; the
#                           producer loop unrolled 4x by nvcc) that must check clean too
set -e
cd "$(dirname "$0")"
nvcc -ptx -O3 -lineinfo -arch=sm_100a -o fmha_sm100.ptx fmha_sm100.cu
nvcc -ptx -O3 -lineinfo -arch=sm_100a -DFMHA_BUG_NO_EXPECT_TX -o fmha_sm100_bug_no_expect_tx.ptx fmha_sm100.cu
nvcc -ptx -O3 -lineinfo -arch=sm_100a -DFMHA_BUG_PARITY -o fmha_sm100_bug_parity.ptx fmha_sm100.cu
nvcc -ptx -O3 -lineinfo -arch=sm_100a -DFMHA_C_POLL -o fmha_sm100_ok_c_poll.ptx fmha_sm100.cu
nvcc -ptx -O3 -lineinfo -arch=sm_100a -DFMHA_UNROLLED_PRODUCER -o fmha_sm100_ok_unrolled.ptx fmha_sm100.cu
nvcc -ptx -O3 -lineinfo -arch=sm_100a -DFMHA_UNROLLED_PRODUCER -DFMHA_BUG_PRODUCER_PARITY -o fmha_sm100_bug_unrolled_parity.ptx fmha_sm100.cu
nvcc -ptx -O3 -lineinfo -arch=sm_100a -DFMHA_C_POLL -DFMHA_BUG_PARITY -o fmha_sm100_bug_parity_c_poll.ptx fmha_sm100.cu
sed -i 's|^\t\.file\t1 ".*fmha_sm100\.cu"|\t.file\t1 "fmha_sm100.cu"|' fmha_sm100_bug_parity_c_poll.ptx
