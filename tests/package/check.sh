#!/usr/bin/env bash
# ctest `package`: installs the build tree into a temporary prefix, then builds and runs an out-of-tree consumer
# through find_package(Scorch) and through pkg-config, and checks that no installed file names the source tree.
# Usage: tests/package/check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
# The consumer uses the build's compiler and build type (a clang or sanitizer build exports flags for those).
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
compiler=$(cache CMAKE_CXX_COMPILER) build_type=$(cache CMAKE_BUILD_TYPE)

echo "== find_package(Scorch)"
cmake -S "$source/tests/package/consumer" -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" \
  -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/cmake" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/cmake/consumer"

echo "== pkg-config scorch"
pc_dir=$(dirname "$(find "$prefix" -name scorch.pc | head -1)")
flags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags scorch)
libs=$(PKG_CONFIG_PATH=$pc_dir pkg-config --libs scorch)
# shellcheck disable=SC2086
"$compiler" $flags "$source/tests/package/consumer/main.cpp" -o "$work/pc_consumer" $libs
"$work/pc_consumer"

echo "== no source path in the installation"
skip=()  # archives with debug or sanitizer information hold their sources' paths
if [[ $build_type == Debug || $build_type == RelWithDebInfo || $(cache SCORCH_SANITIZE) == ON ]]; then
  skip=(--exclude='*.a')
fi
if grep -rl --binary-files=text "${skip[@]}" "$source" "$prefix"; then
  echo "package: the files above name the source tree $source" >&2
  exit 1
fi
echo "package ok"
