#!/usr/bin/env bash
# What a user's program costs to compile (issue 64): the newcomer's Learner program (learner.cpp over model.hpp) and
# its predictor (predictor.cpp), compiled as an installed Scorch's user compiles them (g++ -std=c++20 -march=native,
# Scorch's headers), at -O0 (no -O flag: what `g++ main.cpp $(pkg-config ...)` does) and -O2, each without and with
# the precompiled header that scorch_target_precompile(app TRAIN) makes (<scorch/scorch.hpp> and <scorch/train.hpp>).
# One JSON line per compile: {"bench": "compile_learner_O0", "pch": false, "cpu_s": ..., "peak_mb": ...}; the
# header's own build is the "pch_build" line. Run from a configured tree:
#   bench/compile/measure.sh [BUILD_DIR]        (default build; its generated headers are used)
# Options: -h/--help. CXX chooses the compiler (default g++).
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" 2>/dev/null && pwd) || {
  echo "measure.sh: no build tree at ${1:-$root/build}: configure one first (make build)" >&2
  exit 1
}
[[ -f $build/generated/scorch/gen/kind_ops.h ]] || {
  echo "measure.sh: $build has no generated headers: build it first (ninja -C $build scorch_tensor)" >&2
  exit 1
}
cxx=${CXX:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++20 -march=native -I"$root" -I"$build/generated")

# Runs a compile under /usr/bin/time; prints its JSON line.
measure() {
  local name=$1 pch=$2
  shift 2
  /usr/bin/time -f '%U %S %M' -o "$work/time" "$@" || {
    echo "measure.sh: $name failed to compile" >&2
    exit 1
  }
  read -r user sys peak < "$work/time"
  python3 -c 'import sys; n, p, u, s, m = sys.argv[1:]
print("{\"bench\": \"%s\", \"pch\": %s, \"cpu_s\": %.2f, \"peak_mb\": %.0f}" % (n, p, float(u) + float(s), int(m) / 1024))' \
    "$name" "$pch" "$user" "$sys" "$peak"
}

printf '#include <scorch/scorch.hpp>\n#include <scorch/train.hpp>\n' > "$work/pch.hpp"
for level in O0 O2; do
  opt=()
  [[ $level == O2 ]] && opt=(-O2)
  for program in learner predictor; do
    measure "compile_${program}_${level}" false "$cxx" "${flags[@]}" "${opt[@]}" -c "$here/$program.cpp" \
      -o "$work/$program.o"
  done
  measure "compile_pch_build_${level}" true "$cxx" "${flags[@]}" "${opt[@]}" -x c++-header "$work/pch.hpp" \
    -o "$work/pch.hpp.gch"
  for program in learner predictor; do
    measure "compile_${program}_${level}" true "$cxx" "${flags[@]}" "${opt[@]}" -include "$work/pch.hpp" \
      -Winvalid-pch -Werror=invalid-pch -c "$here/$program.cpp" -o "$work/$program.o"
  done
  rm -f "$work/pch.hpp.gch"
done
