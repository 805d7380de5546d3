#!/usr/bin/env bash
# One set-up step for a fresh Debian 12 machine, idempotent: system packages, Python venv, build.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

PACKAGES=(bc build-essential cmake ninja-build pkg-config openmpi-bin libopenmpi-dev
  libhdf5-openmpi-dev hdf5-tools libpugixml-dev libgtest-dev clang-format python3-venv)

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  echo "setup: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
}

# Reinstalls when requirements.txt or the Python package's metadata changed (stamp in the venv).
install_venv() {
  [ -x "$ECLUSE_VENV/bin/python" ] || /usr/bin/python3 -m venv "$ECLUSE_VENV"
  local stamp="$ECLUSE_VENV/.ecluse-stamp" want
  want=$(cat "$ECLUSE_ROOT/requirements.txt" "$ECLUSE_ROOT"/python/pyproject.toml 2>/dev/null | sha256sum)
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return
  "$ECLUSE_VENV/bin/pip" install -q --upgrade pip
  "$ECLUSE_VENV/bin/pip" install -q -r "$ECLUSE_ROOT/requirements.txt"
  if [ -f "$ECLUSE_ROOT/python/pyproject.toml" ]; then
    "$ECLUSE_VENV/bin/pip" install -q -e "$ECLUSE_ROOT/python"
  fi
  echo "$want" >"$stamp"
}

build() {
  cmake -S "$ECLUSE_ROOT" -B "$ECLUSE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DECLUSE_WERROR=ON -DECLUSE_MPIEXEC="$ECLUSE_MPIEXEC" >/dev/null
  cmake --build "$ECLUSE_BUILD" -j "$(nproc)"
}

install_packages
install_venv
build
