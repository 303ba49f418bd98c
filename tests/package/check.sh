#!/usr/bin/env bash
# ctest `package`: installs the build tree into a temporary prefix, then builds and runs an out-of-tree consumer
# through find_package(Scorch) and through pkg-config, static and shared (and, where built, a compiled-inference
# consumer through Scorch::graph), and checks that libscorch.so exports only
# Scorch's symbols and that no installed file names the source tree.
# Usage: tests/package/check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"

echo "== make install does nothing when nothing changed: configure again, no target to rebuild, every file up to date"
cmake "$build" > "$work/reconfigure.log"
if ninja -C "$build" | grep -E "Building|Linking"; then
  echo "package: configuring again made the build compile or link the steps above" >&2
  exit 1
fi
if cmake --install "$build" --prefix "$prefix" | grep -e '-- Installing:'; then
  echo "package: a second install with nothing changed copied the files above again" >&2
  exit 1
fi
# The consumer uses the build's compiler and build type (a clang or sanitizer build exports flags for those), its own
# code unoptimized (what it checks is what links and the values, not speed: a third of this test's time at -O3).
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
compiler=$(cache CMAKE_CXX_COMPILER) build_type=$(cache CMAKE_BUILD_TYPE)

for form in static shared; do
  shared=$([[ $form == shared ]] && echo ON || echo OFF)
  echo "== find_package(Scorch), SCORCH_SHARED=$shared"
  cmake -S "$source/tests/package/consumer" -B "$work/cmake-$form" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" \
    -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG -DCMAKE_PREFIX_PATH="$prefix" \
    -DSCORCH_SHARED="$shared" \
    > "$work/configure-$form.log" || { cat "$work/configure-$form.log"; exit 1; }
  cmake --build "$work/cmake-$form" > "$work/build-$form.log" || { cat "$work/build-$form.log"; exit 1; }
  "$work/cmake-$form/consumer"
  if grep -q '^SCORCH_DNNL_LIBRARY:FILEPATH=/' "$build/CMakeCache.txt"; then  # built with compiled inference
    "$work/cmake-$form/compiled"
  fi
  linked=$(ldd "$work/cmake-$form/consumer" | grep -c 'libscorch\.so' || true)
  if [[ $linked != $([[ $form == shared ]] && echo 1 || echo 0) ]]; then
    echo "package: the $form consumer links libscorch.so $linked time(s)" >&2
    exit 1
  fi

  echo "== pkg-config scorch-$form"
  pc_dir=$(dirname "$(find "$prefix" -name "scorch-$form.pc" | head -1)")
  flags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags "scorch-$form")
  libs=$(PKG_CONFIG_PATH=$pc_dir pkg-config --libs "scorch-$form")
  # One object per distinct set of compile flags (the forms differ in their libraries only, as a rule).
  object=$work/pc_consumer_$(echo "$flags" | md5sum | cut -c1-8).o
  # shellcheck disable=SC2086
  [[ -f $object ]] || "$compiler" $flags -c "$source/tests/package/consumer/main.cpp" -o "$object"
  # shellcheck disable=SC2086
  "$compiler" "$object" -o "$work/pc_consumer_$form" $libs -Wl,-rpath,"$(realpath "$pc_dir/..")"
  "$work/pc_consumer_$form"
done

echo "== libscorch.so exports Scorch's symbols only"
library=$(find "$prefix" -name 'libscorch.so' | head -1)
foreign=$(nm -D --defined-only -C "$library" | awk '{ $1 = $2 = ""; print }' | grep -v 'scorch::' || true)
if [[ -n $foreign ]]; then
  echo "package: libscorch.so exports symbols outside scorch::" >&2
  echo "$foreign" | head -20 >&2
  exit 1
fi
# The backends' libraries use libscorch.so's code, not copies of it (one autocast state, one thread pool).
while IFS= read -r -d '' backend; do
  if nm -DC --defined-only "$backend" | grep 'scorch::dtype_name' > /dev/null; then  # (grep -q: SIGPIPE)
    echo "package: $backend holds a copy of libscorch.so's core" >&2
    exit 1
  fi
done < <(find "$prefix" -name 'libscorch_*.so' -print0)
default=static
if [[ $(cache BUILD_SHARED_LIBS) =~ ^(ON|1|TRUE|YES|Y)$ ]]; then default=shared; fi
if ! cmp -s "$pc_dir/scorch.pc" "$pc_dir/scorch-$default.pc"; then
  echo "package: scorch.pc is not the default form's" >&2
  exit 1
fi

echo "== no source path in the installation"
skip=()  # libraries with debug or sanitizer information hold their sources' paths
if [[ $build_type == Debug || $build_type == RelWithDebInfo || $(cache SCORCH_SANITIZE) == ON ]]; then
  skip=(--exclude='*.a' --exclude='*.so*')
fi
if grep -rl --binary-files=text "${skip[@]}" "$source" "$prefix"; then
  echo "package: the files above name the source tree $source" >&2
  exit 1
fi
echo "package ok"
