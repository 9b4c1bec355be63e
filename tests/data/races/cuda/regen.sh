#!/bin/sh
# Regenerate races.ptx from races.cu (nvcc 13, sm_80, with line info for the source mapping).
cd "$(dirname "$0")" && nvcc -ptx -O3 -lineinfo -arch=sm_80 races.cu -o races.ptx
