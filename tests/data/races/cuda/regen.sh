#!/bin/sh
# Regenerate races.ptx from races.cu (nvcc 13, sm_80, with line info for the source mapping); the source
# file is recorded by its bare name so the PTX does not depend on where the repository lives.
cd "$(dirname "$0")" && nvcc -ptx -O3 -lineinfo -arch=sm_80 races.cu -o races.ptx &&
    sed -i 's|^\t\.file\t1 ".*races\.cu"|\t.file\t1 "races.cu"|' races.ptx
