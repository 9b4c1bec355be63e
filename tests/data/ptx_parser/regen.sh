#!/bin/sh
# Regenerate the nvcc PTX fixtures used by tests/test_ptx_parser.py (needs nvcc; CUDA 13.0 was used).
# The tests assert exact lines and values in these files: re-check them after regenerating.
set -e
cd "$(dirname "$0")"
nvcc -ptx -lineinfo -arch=sm_80 calls.cu -o calls.sm_80.ptx
nvcc -ptx -lineinfo -arch=sm_80 shared_loop.cu -o shared_loop.sm_80.ptx
nvcc -ptx -arch=sm_80 warp.cu -o warp.sm_80.ptx
nvcc -ptx -arch=sm_90 cluster.cu -o cluster.sm_90.ptx
