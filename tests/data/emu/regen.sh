#!/bin/sh
# Regenerate the committed PTX for the emulator tests (needs nvcc; tests only read the .ptx files).
set -e
cd "$(dirname "$0")"
nvcc -ptx -arch=sm_80 -O3 -o kernels.ptx kernels.cu
nvcc -ptx -arch=sm_80 -O3 -o tensor.ptx tensor.cu
nvcc -ptx -arch=sm_90 -O3 -o tma.ptx tma.cu
