#!/usr/bin/env bash
# One set-up step for a fresh Debian 12 machine (nothing but git needed), idempotent: system
# packages, Python venv, build. ECLUSE_MPI=mpich sets up the MPICH family instead of Open MPI.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

COMMON_PACKAGES=(bc build-essential cmake ninja-build pkg-config gfortran hdf5-tools
  libpugixml-dev libgtest-dev libzfp-dev clang-format python3 python3-venv python3-dev)
case "$ECLUSE_MPI" in
  openmpi) MPI_PACKAGES=(openmpi-bin libopenmpi-dev libhdf5-openmpi-dev) ;;
  mpich) MPI_PACKAGES=(mpich libmpich-dev libhdf5-mpich-dev) ;;
esac

install_packages() {
  local missing=() p
  for p in "${COMMON_PACKAGES[@]}" "${MPI_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  echo "setup: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Reinstalls when requirements.txt, the Python package's metadata or the MPI changed (stamp in
# the venv). mpi4py is compiled from source against the chosen MPI (the PyPI wheel does not load
# Debian's MPI libraries).
install_venv() {
  [ -x "$ECLUSE_VENV/bin/python" ] || /usr/bin/python3 -m venv "$ECLUSE_VENV"
  local stamp="$ECLUSE_VENV/.ecluse-stamp" want mpicc
  mpicc=$(ecluse_mpi_tool mpicc)
  want=$( (cat "$ECLUSE_ROOT/requirements.txt" "$ECLUSE_ROOT"/python/pyproject.toml
    echo "$ECLUSE_MPI $mpicc editable=compat no-cache mpi4py-build-mpicc") | sha256sum)
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return
  echo "setup: installing the Python venv in $ECLUSE_VENV"
  "$ECLUSE_VENV/bin/pip" install -q --upgrade pip
  # No cache: pip would reuse an mpi4py wheel built for the other MPI family. mpi4py 4 reads
  # MPI4PY_BUILD_MPICC (3.x: MPICC); without it, the mpicc of PATH (Debian alternatives).
  MPICC=$mpicc MPI4PY_BUILD_MPICC=$mpicc "$ECLUSE_VENV/bin/pip" install -q --no-cache-dir \
    --no-binary mpi4py \
    -r "$ECLUSE_ROOT/requirements.txt"
  # compat: python/ itself on sys.path, so the package (with __init__.py) is found before the
  # build's python/ecluse folder (the native module), which then joins it through extend_path.
  "$ECLUSE_VENV/bin/pip" install -q -e "$ECLUSE_ROOT/python" --config-settings editable_mode=compat
  echo "$want" >"$stamp"
}

# mpi4py must run on the chosen MPI: a venv made before (or a wheel of the other family)
# gets it rebuilt.
check_mpi4py() {
  local want vendor
  want=$([ "$ECLUSE_MPI" = mpich ] && echo MPICH || echo "Open MPI")
  vendor=$("$ECLUSE_VENV/bin/python" -c 'from mpi4py import MPI; print(MPI.get_vendor()[0])')
  [ "$vendor" = "$want" ] && return
  echo "setup: mpi4py runs on $vendor, not $want: rebuilding it with $1"
  MPICC=$1 MPI4PY_BUILD_MPICC=$1 "$ECLUSE_VENV/bin/pip" install -q --force-reinstall --no-deps \
    --no-cache-dir --no-binary mpi4py "$(grep '^mpi4py' "$ECLUSE_ROOT/requirements.txt" | cut -d'#' -f1)"
}

# The native module (build/python/ecluse/_native*.so) joins the editable package through a .pth
# entry (the package extends its __path__ with pkgutil).
link_native_module() {
  local site
  site=$("$ECLUSE_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$ECLUSE_BUILD/python" >"$site/ecluse-native.pth"
}

build() {
  local args
  mapfile -t args < <(ecluse_cmake_mpi_args)
  cmake -S "$ECLUSE_ROOT" -B "$ECLUSE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DECLUSE_WERROR=ON -DPython_EXECUTABLE="$ECLUSE_VENV/bin/python" "${args[@]}" \
    ${ECLUSE_CMAKE_ARGS:-} >/dev/null
  cmake --build "$ECLUSE_BUILD" -j "$(nproc)"
}

install_packages
ecluse_resolve_mpi
if [ -z "$ECLUSE_MPIEXEC" ]; then
  echo "setup: no mpiexec.$ECLUSE_MPI after installing ${MPI_PACKAGES[*]}" >&2
  exit 1
fi
install_venv
check_mpi4py "$(ecluse_mpi_tool mpicc)"
link_native_module
build
