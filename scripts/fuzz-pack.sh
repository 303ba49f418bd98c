#!/usr/bin/env bash
# Copies the fuzz targets and seed corpora of fuzz build dir $1 (default build-fuzz), with the shared libraries a
# bare machine may lack, into .fuzz/bundle.tar.xz, so that long fuzz runs can go to a machine with more cores:
#   mkdir /tmp/f && tar -C /tmp/f -xJf .fuzz/bundle.tar.xz && LD_LIBRARY_PATH=/tmp/f/lib FUZZ_JOBS=16 \
#     fuzz/run_all.sh /tmp/f 300
set -euo pipefail
build=${1:-build-fuzz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/fuzz" "$stage/lib"
cp "$build"/fuzz/fuzz_* "$stage/fuzz/"
cp -r "$build/fuzz/corpus" "$stage/fuzz/"
for f in "$stage"/fuzz/fuzz_targets "$stage"/fuzz/fuzz_write_corpus; do ldd "$f"; done |
  awk '/=> \// {print $3}' | sort -u |
  grep -Ev 'libc\.so|libm\.so|libstdc\+\+|libgcc_s|ld-linux|libpthread|libdl\.so|librt\.so' |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
rm -rf .fuzz && mkdir .fuzz
tar -C "$stage" -cJf .fuzz/bundle.tar.xz .
du -sh .fuzz
