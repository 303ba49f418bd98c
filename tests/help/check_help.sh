#!/usr/bin/env bash
# Every binary of the build answers -h and --help: exit status 0 within 30 s, a usage text on stdout, nothing on
# stderr. GoogleTest's binaries answer --help with GoogleTest's own help (they know no -h). Arguments: the binaries
# (CMake lists every executable target).
set -u
failed=0
# check BINARY FLAG: 0 when BINARY FLAG answers as above; prints one line either way.
check() {
  local binary=$1 flag=$2 name out err rc
  name=$(basename "$binary") out=$(mktemp) err=$(mktemp)
  timeout 30 "$binary" "$flag" > "$out" 2> "$err" < /dev/null
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name $flag: exit status $rc (stderr: $(head -c 300 "$err"))"; rc=1
  elif ! grep -qiE "usage|This program contains tests written using Google Test" "$out"; then
    echo "FAIL $name $flag: no usage on stdout (stdout: $(head -c 300 "$out"))"; rc=1
  elif [ -s "$err" ]; then
    echo "FAIL $name $flag: wrote to stderr: $(head -c 300 "$err")"; rc=1
  else
    echo "ok   $name $flag: $(head -n 1 "$out" | cut -c1-100)"
  fi
  gtest=0
  grep -q "Google Test" "$out" && gtest=1
  rm -f "$out" "$err"
  return $rc
}
for binary in "$@"; do
  check "$binary" --help || failed=1
  [ "$gtest" = 1 ] || check "$binary" -h || failed=1
done
exit $failed
