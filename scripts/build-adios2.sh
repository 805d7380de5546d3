#!/usr/bin/env bash
# Builds an MPI-enabled ADIOS2 (the release the PyPI wheel ships) from PyPI's source
# distribution, against the MPI family scripts/env.sh selects (ECLUSE_MPI=openmpi|mpich), into
# a cache prefix, and prints that prefix (the directory to pass as CMAKE_PREFIX_PATH). Skips
# the build when the prefix is already complete.
#
#   scripts/build-adios2.sh                  # ${XDG_CACHE_HOME:-~/.cache}/ecluse/adios2-<ver>-<mpi>
#   ADIOS2_VERSION=2.12.1.1001 ADIOS2_PREFIX=/opt/adios2 ADIOS2_JOBS=2 scripts/build-adios2.sh
#
# Minimal: C and C++ bindings, MPI, the BP4 and BP5 file engines. No Fortran, no Python, no
# SST/DataMan/ZeroMQ, no HDF5 engine, no compression operators, no tests, no examples. Only
# PyPI is needed (no GitHub): the sdist is the full ADIOS2 source tree. Build time, log and
# options are written to <prefix>/ecluse-build.json.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/env.sh
source "$here/env.sh"

version=${ADIOS2_VERSION:-2.12.1.1001}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ecluse
prefix=${ADIOS2_PREFIX:-$cache/adios2-$version-$ECLUSE_MPI}
jobs=${ADIOS2_JOBS:-2}
stamp=$prefix/ecluse-build.json

if [ -f "$stamp" ]; then
  echo "build-adios2.sh: ADIOS2 $version ($ECLUSE_MPI) already built in $prefix" >&2
  echo "$prefix"
  exit 0
fi

mpicc=$(ecluse_mpi_tool mpicc)
mpicxx=$(ecluse_mpi_tool mpicxx)
if [ -z "$mpicc" ] || [ -z "$mpicxx" ]; then
  echo "build-adios2.sh: mpicc.$ECLUSE_MPI / mpicxx.$ECLUSE_MPI not found; run scripts/setup.sh" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ecluse-adios2.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The sdist's URL and SHA-256 from PyPI's JSON API (the per-version endpoint is not always
# served by mirrors; the project endpoint lists every release).
read -r url sha < <(python3 - "$version" <<'EOF'
import json, sys, urllib.parse, urllib.request
base = "https://pypi.org/pypi/adios2/json"
with urllib.request.urlopen(base, timeout=120) as r:
    data = json.load(r)
files = [u for u in data["releases"].get(sys.argv[1], []) if u["packagetype"] == "sdist"]
if not files:
    sys.exit(f"build-adios2.sh: PyPI has no sdist for adios2=={sys.argv[1]}")
print(urllib.parse.urljoin(base, files[0]["url"]), files[0]["digests"]["sha256"])
EOF
)
echo "build-adios2.sh: fetching $url" >&2
curl -fsSL --retry 3 -o "$work/adios2.tar.gz" "$url"
echo "$sha  $work/adios2.tar.gz" | sha256sum -c --quiet -
tar -xzf "$work/adios2.tar.gz" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'adios2-*' | head -n 1)

options=(
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_INSTALL_PREFIX="$prefix"
  -DCMAKE_INSTALL_LIBDIR=lib
  -DCMAKE_C_COMPILER="$mpicc"
  -DCMAKE_CXX_COMPILER="$mpicxx"
  -DMPI_C_COMPILER="$mpicc"
  -DMPI_CXX_COMPILER="$mpicxx"
  -DBUILD_SHARED_LIBS=ON
  -DBUILD_TESTING=OFF
  -DADIOS2_BUILD_EXAMPLES=OFF
  -DADIOS2_USE_MPI=ON
  -DADIOS2_USE_Fortran=OFF
  -DADIOS2_USE_Python=OFF
)
# Everything else that defaults to AUTO is switched off, so the result does not depend on what
# happens to be installed (HDF5, ZeroMQ, libfabric, zfp, PNG, ...).
for opt in BigWhoop Blosc2 BZip2 Caliper ZFP SZ SZ3 LIBPRESSIO MGARD PRODM PNG DAOS DataMan \
  DataSpaces MHS SST ZeroMQ HDF5 HDF5_VOL IME SysVShMem UCX Profiling Sodium Catalyst Campaign \
  OpenSSL XRootD CURL; do
  options+=("-DADIOS2_USE_$opt=OFF")
done

start=$(date +%s)
log=$work/build.log
if ! {
  cmake -S "$src" -B "$work/build" -G Ninja "${options[@]}" &&
    cmake --build "$work/build" -j "$jobs" &&
    cmake --install "$work/build"
} >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "build-adios2.sh: the build failed (log above)" >&2
  exit 1
fi
seconds=$(($(date +%s) - start))

python3 - "$stamp" "$version" "$ECLUSE_MPI" "$seconds" "$jobs" "$url" "${options[@]}" <<'EOF'
import json, os, sys
stamp, version, mpi, seconds, jobs, url, *options = sys.argv[1:]
with open(stamp, "w") as f:
    json.dump({"version": version, "mpi": mpi, "build_seconds": int(seconds), "jobs": int(jobs),
               "nproc": os.cpu_count(), "sdist": url, "cmake_options": options}, f, indent=2)
EOF
echo "build-adios2.sh: built ADIOS2 $version ($ECLUSE_MPI) in ${seconds} s into $prefix" >&2
echo "$prefix"
