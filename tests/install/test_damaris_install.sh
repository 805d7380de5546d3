#!/usr/bin/env bash
# The Damaris drop-in from an installed prefix: the test programs of tests/damaris built outside
# the tree with find_package(Damaris) and with pkg-config damaris (-ldamaris), each run under
# synchronous mode, dedicated cores and dedicated nodes by tests/python/test_damaris.py.
# Usage: test_damaris_install.sh BUILD_DIR MPIEXEC MPICC MPIF90 PYTHON [MPICXX] (Fortran skipped
# if MPIF90 is ""; MPICXX defaults to MPICC's name with mpicxx); PYTHON needs pytest and h5py.
set -euo pipefail
build=$1 mpiexec=$2 mpicc=$3 mpif90=$4 python=$5
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name 'libdamaris.so' -printf '%h\n' | head -1)
[ -n "$libdir" ] || { echo "FAIL: libdamaris.so not installed" >&2; exit 1; }
for f in "$prefix/include/Damaris.h" "$libdir/cmake/Damaris/DamarisConfig.cmake" \
  "$libdir/pkgconfig/damaris.pc"; do
  [ -e "$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
done
# Where Damaris puts its package, read by code_saturne's configure (grep Damaris_HAS_HDF5).
share_config=$prefix/share/cmake/damaris/DamarisConfig.cmake
grep -q 'Damaris_HAS_HDF5 ON' "$share_config" || { echo "FAIL: $share_config" >&2; exit 1; }
for f in "$prefix/include/damaris/model/ModifyModel.hpp" "$prefix/include/damaris/env/Environment.hpp"; do
  [ -e "$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
done
fortran=OFF
if [ -n "$mpif90" ] && [ -e "$prefix/include/damaris.mod" ]; then fortran=ON; fi

run_programs() {  # run_programs DIR: the pytest runner on the programs of DIR
  ECLUSE_DAMARIS_BIN=$1 ECLUSE_DAMARIS_REQUIRE_FORTRAN=$fortran ECLUSE_MPIEXEC=$mpiexec \
    "$python" -m pytest -q -p no:cacheprovider "$root/tests/python/test_damaris.py"
  echo "ok: the programs of $1 pass under TP, DC and DN"
}

# 1. CMake: find_package(Damaris) from share/cmake/damaris (Damaris's place; it loads
# lib/cmake/Damaris), target damaris / Damaris::damaris.
mpicxx=${6:-${mpicc/mpicc/mpicxx}}
command -v "$mpicxx" >/dev/null || { echo "FAIL: no $mpicxx beside $mpicc" >&2; exit 1; }
cmake -S "$root/tests/damaris/consumer" -B "$work/cmake-build" \
  -DDamaris_DIR="$prefix/share/cmake/damaris" \
  -DWITH_FORTRAN=$fortran -DCMAKE_C_COMPILER="$mpicc" -DCMAKE_CXX_COMPILER="$mpicxx" \
  ${mpif90:+-DCMAKE_Fortran_COMPILER="$mpif90"} >/dev/null
cmake --build "$work/cmake-build" >/dev/null
run_programs "$work/cmake-build"
# 1b. A C and C++ project against the package built with Fortran (Damaris's Python examples:
# project(... C)): the package must not need the project's Fortran.
if [ $fortran = ON ]; then
  cmake -S "$root/tests/damaris/consumer" -B "$work/cmake-c" \
    -DDamaris_DIR="$prefix/share/cmake/damaris" -DWITH_FORTRAN=OFF \
    -DCMAKE_C_COMPILER="$mpicc" -DCMAKE_CXX_COMPILER="$mpicxx" >/dev/null
  cmake --build "$work/cmake-c" >/dev/null
  echo "ok: a C and C++ project finds and links the package built with Fortran"
fi

# 2. pkg-config damaris: -I<prefix>/include (Damaris.h, damaris.mod) and -ldamaris.
export PKG_CONFIG_PATH=$libdir/pkgconfig
mkdir "$work/pc"
# shellcheck disable=SC2046 # pkg-config's flags are words
"$mpicc" $(pkg-config --cflags damaris) -o "$work/pc/damaris_mesh_c" "$root/tests/damaris/mesh.c" \
  $(pkg-config --libs damaris)
# shellcheck disable=SC2046
"$mpicxx" -std=c++17 $(pkg-config --cflags damaris) -o "$work/pc/damaris_unstructured" \
  "$root/tests/damaris/unstructured.cpp" $(pkg-config --libs damaris)
if [ $fortran = ON ]; then
  # shellcheck disable=SC2046
  (cd "$work/pc" && "$mpif90" $(pkg-config --cflags damaris) -o damaris_mesh_f \
    "$root/tests/damaris/mesh.f90" $(pkg-config --libs damaris) &&
    "$mpif90" $(pkg-config --cflags damaris) -o damaris_module_compat \
      "$root/tests/damaris/module_compat.F90" $(pkg-config --libs damaris) &&
    "$mpif90" $(pkg-config --cflags damaris) -o damaris_constants_f \
      "$root/tests/damaris/constants.F90" $(pkg-config --libs damaris) &&
    "$mpif90" -fallow-argument-mismatch -o damaris_implicit_f "$root/tests/damaris/implicit.f90" \
      $(pkg-config --libs damaris))
fi
run_programs "$work/pc"
echo "install: the Damaris drop-in passed from $prefix"
