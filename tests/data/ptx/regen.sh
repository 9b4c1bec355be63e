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
        # helpers kept out of line: also a debug (-G) build, where every device function is a .func
        if [[ "$name" == *noinline* ]]; then
            (cd "$here/nvcc" && nvcc -ptx -G -arch=sm_80 "$name.cu" -o "$name.G.sm_80.ptx")
        fi
    done
    # -G build of a helper with shuffles: the mask reaches `__shfl_xor_sync` (itself a .func) through
    # .param memory, so the call is not analysed: a note (tests/test_calls.py), kept apart from nvcc/
    (cd "$here/nvcc" && nvcc -ptx -G -arch=sm_80 bug_shfl_in_helper.cu -o ../debug/bug_shfl_in_helper.G.sm_80.ptx)
fi

if [[ "$what" == all || "$what" == triton ]]; then
    python "$here/triton/gen_triton.py" "$here/triton"
fi

python "$here/make_expected.py"
bash "$here/check_ptxas.sh"
