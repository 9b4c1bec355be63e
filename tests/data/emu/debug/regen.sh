#!/bin/sh
# Regenerate the debug (-G) builds the emulator runs (tests/test_emu_calls.py). Needs nvcc (CUDA 13).
set -eu
cd "$(dirname "$0")"
nvcc -ptx -G -arch=sm_80 examples_g.cu -o examples_g.G.sm_80.ptx
sed -i 's|^\(\t\.file\t[0-9]* \)"[^"]*/examples_g\.cu"|\1"examples_g.cu"|' examples_g.G.sm_80.ptx
ptxas -arch=sm_80 examples_g.G.sm_80.ptx -o /dev/null
