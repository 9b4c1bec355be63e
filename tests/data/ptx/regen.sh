#!/usr/bin/env bash
# Regenerate the generated part of the PTX corpus.
#
#   tests/data/ptx/nvcc/*.cu  -> nvcc/<name>.sm_80.ptx and nvcc/<name>.sm_100a.ptx
#   tests/data/ptx/triton/gen_triton.py -> triton/*.ptx
#   then make_expected.py rewrites expected.json, and check_ptxas.sh verifies every .ptx.
#
# Needs: nvcc (CUDA 13; sm_100a support) and `pip install triton` (3.x; compiles without a GPU).
# Hand-written builder/*.ptx files are not regenerated.
# Usage: tests/data/ptx/regen.sh [nvcc|triton|all]   (default: all)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
what="${1:-all}"

if [[ "$what" == all || "$what" == nvcc ]]; then
    for cu in "$here"/nvcc/*.cu; do
        name="$(basename "$cu" .cu)"
        for arch in sm_80 sm_100a; do
            # -O3 is nvcc's device default; stated explicitly. -lineinfo emits .loc/.file.
            (cd "$here/nvcc" && nvcc -ptx -O3 -lineinfo -arch="$arch" "$name.cu" -o "$name.$arch.ptx")
        done
    done
fi

if [[ "$what" == all || "$what" == triton ]]; then
    python "$here/triton/gen_triton.py" "$here/triton"
fi

python "$here/make_expected.py"
bash "$here/check_ptxas.sh"
