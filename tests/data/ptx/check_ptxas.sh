#!/usr/bin/env bash
# Verify that ptxas accepts every .ptx file of the corpus for the file's own `.target`.
# Usage: tests/data/ptx/check_ptxas.sh    (needs ptxas on PATH; exits 1 if any file is rejected)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
count=0
while IFS= read -r -d '' f; do
    arch="$(grep -m1 -E '^[[:space:]]*\.target' "$f" | sed -E 's/^[[:space:]]*\.target[[:space:]]+([A-Za-z0-9_]+).*/\1/')"
    count=$((count + 1))
    if ! ptxas -arch="$arch" "$f" -o "$tmp/out.cubin" 2>"$tmp/err"; then
        echo "FAIL $f ($arch)"; sed 's/^/    /' "$tmp/err"; fail=1
    fi
done < <(find "$here" -name '*.ptx' -print0 | sort -z)
echo "checked $count .ptx files"
exit $fail
