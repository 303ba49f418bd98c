#!/usr/bin/env bash
# Installs the Debian packages Scorch needs to build and test; idempotent.
# Usage: scripts/install-deps.sh [--fixtures | --peer]
#   --fixtures adds PyTorch for regenerating test fixtures; --peer adds PyTorch with OpenBLAS for bench-compare.
set -euo pipefail
packages=(g++ cmake ninja-build make pkg-config libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev zlib1g-dev libsqlite3-dev
          libpng-dev libjpeg-dev dataset-fashion-mnist
          libmsgpack-dev libxxhash-dev)
if [[ "${1:-}" == "--fixtures" ]]; then packages+=(python3 python3-torch python3-numpy); fi
if [[ "${1:-}" == "--peer" ]]; then packages+=(python3 python3-torch python3-numpy libopenblas0-pthread); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then exit 0; fi
SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
stamp=/var/lib/apt/periodic/scorch-apt-updated
if [[ ! -f $stamp ]] || [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -print -quit 2>/dev/null) ]]; then
  $SUDO apt-get update -qq
  $SUDO mkdir -p "$(dirname $stamp)" && $SUDO touch $stamp
fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
