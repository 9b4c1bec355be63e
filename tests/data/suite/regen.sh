#!/bin/sh
# Regenerate the PTX of the async/race bug suite (tests only read the .ptx files).
#
#   cuda/<name>.cu -> cuda/<name>.bug.<arch>.ptx (-DIRC_BUG) and cuda/<name>.ok.<arch>.ptx
#
# The target is the .cu's first line, `// arch: sm_80` (sm_90a, sm_100a: what the feature needs). The .cu
# file is recorded in `.file` by its bare name, so the PTX does not depend on where the repository lives
# (irc finds the source next to the PTX). Every .ptx is then assembled by ptxas for its target.
# Needs nvcc 13 (sm_100a) and ptxas. Usage: tests/data/suite/regen.sh [NAME...]   (default: every case)
set -eu
cd "$(dirname "$0")/cuda"
if [ "$#" -gt 0 ]; then names="$*"; else names=$(ls *.cu | sed 's/\.cu$//'); fi
for name in $names; do
    arch=$(sed -n '1s|^// arch: *\(sm_[0-9a-z]*\).*|\1|p' "$name.cu")
    [ -n "$arch" ] || { echo "$name.cu: first line must be // arch: sm_XX" >&2; exit 1; }
    for variant in bug ok; do
        out="$name.$variant.$arch.ptx"
        if [ "$variant" = bug ]; then def="-DIRC_BUG"; else def=""; fi
        nvcc -ptx -O3 -lineinfo -arch="$arch" $def "$name.cu" -o "$out"
        sed -i "s|^\(\t\.file\t[0-9]* \)\"[^\"]*/$name\.cu\"|\1\"$name.cu\"|" "$out"
        ptxas -arch="$arch" "$out" -o /dev/null
    done
done
