#!/usr/bin/env bash
# Installs the build tree into a fresh prefix, then builds a project outside the tree against it
# with CMake (find_package) and with a plain Makefile (pkg-config), and runs each on 2 ranks;
# checks the `ecluse` command and the Python package of the prefix.
# Usage: test_install.sh BUILD_DIR MPIEXEC MPICC MPIF90 PYTHON (Fortran skipped if MPIF90 is "")
set -euo pipefail
build=$1 mpiexec=$2 mpicc=$3 mpif90=$4 python=$5
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch_flags=()
"$mpiexec" --version 2>/dev/null | grep -q "Open MPI" && launch_flags=(--oversubscribe)

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name 'libecluse.so' -printf '%h\n' | head -1)
for f in "$prefix/include/ecluse/ecluse.h" "$libdir/cmake/Ecluse/EcluseConfig.cmake" \
  "$libdir/pkgconfig/ecluse.pc" "$prefix/bin/ecluse"; do
  [ -e "$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
done

run_consumer() {  # run_consumer DIR PROGRAM: 2 ranks, then the file written holds both ramps
  (cd "$1" && rm -rf out && "$mpiexec" -n 2 "${launch_flags[@]}" "./$2") | tee "$work/run.log"
  grep -q "^$2: ok$" "$work/run.log" || { echo "FAIL: $2 did not finish" >&2; exit 1; }
  local file
  file=$(find "$1/out" -name '*.h5' | head -1)
  [ -n "$file" ] || { echo "FAIL: $2 wrote no HDF5 file" >&2; exit 1; }
  h5dump -d /ramp "$file" | tr -s ' \n' ' ' | grep -q "0, 1, 2, 3, 100, 101, 102, 103" ||
    { echo "FAIL: $2's file does not hold the ramps:" >&2; h5dump -d /ramp "$file" >&2; exit 1; }
  echo "ok: $2 read back from $file"
}

# 1. CMake: find_package(Ecluse) from outside the tree.
fortran=OFF
[ -n "$mpif90" ] && [ -e "$libdir/pkgconfig/ecluse-fortran.pc" ] && fortran=ON
cmake -S "$here/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DWITH_FORTRAN=$fortran -DCMAKE_C_COMPILER="$mpicc" -DCMAKE_CXX_COMPILER="${mpicc%cc*}cxx${mpicc##*mpicc}" \
  ${mpif90:+-DCMAKE_Fortran_COMPILER="$mpif90"} >/dev/null
cmake --build "$work/cmake-build" >/dev/null
run_consumer "$work/cmake-build" consumer_c
run_consumer "$work/cmake-build" consumer_cxx
[ $fortran = ON ] && run_consumer "$work/cmake-build" consumer_f

# 2. A plain Makefile with pkg-config.
cp "$here/consumer/Makefile" "$here/consumer/consumer.c" "$here/consumer/consumer.f90" "$work/"
export PKG_CONFIG_PATH=$libdir/pkgconfig
make -s -C "$work" MPICC="$mpicc" MPIF90="$mpif90" consumer_c
run_consumer "$work" consumer_c
if [ $fortran = ON ]; then
  make -s -C "$work" MPICC="$mpicc" MPIF90="$mpif90" consumer_f
  run_consumer "$work" consumer_f
fi

# 2b. The README's one-line build of the example, whose XML names an action of the program
# (execution="local"): found without a flag of the user's (ecluse.pc exports the program's
# functions).
mkdir -p "$work/example"
cp "$here/../../examples/simulation.c" "$here/../../examples/simulation.xml" "$work/example/"
# shellcheck disable=SC2046  # pkg-config's words are meant to split
"$mpicc" "$work/example/simulation.c" $(pkg-config --cflags --libs ecluse) -o "$work/example/sim"
(cd "$work/example" && "$mpiexec" -n 2 "${launch_flags[@]}" ./sim simulation.xml 3) \
  >"$work/example.log" 2>&1 ||
  { echo "FAIL: the example built with pkg-config:" >&2; cat "$work/example.log" >&2; exit 1; }
echo "ok: the example built with pkg-config finds its XML-named action"

# 3. The MPI usage check preloads from the prefix as docs/reliability.md says, with no
# LD_LIBRARY_PATH: it finds libecluse beside it.
check=$libdir/libecluse_mpicheck.so
[ -e "$check" ] || { echo "FAIL: $check not installed" >&2; exit 1; }
(cd "$work/cmake-build" && rm -rf out && "$mpiexec" -n 2 "${launch_flags[@]}" \
  env -u LD_LIBRARY_PATH LD_PRELOAD="$check" ./consumer_c) >"$work/preload.log" 2>&1 ||
  { echo "FAIL: consumer_c with LD_PRELOAD=$check:" >&2; cat "$work/preload.log" >&2; exit 1; }
grep -q "^consumer_c: ok$" "$work/preload.log" ||
  { echo "FAIL: consumer_c under the preloaded check:" >&2; cat "$work/preload.log" >&2; exit 1; }
echo "ok: $check preloads from the prefix"

# 4. The `ecluse` command and the Python package of the prefix.
"$prefix/bin/ecluse" --help | grep -q "predict" || { echo "FAIL: ecluse --help" >&2; exit 1; }
echo "ok: $prefix/bin/ecluse runs"
# ecluse-check finds libecluse in the prefix (no LD_LIBRARY_PATH) and checks a file.
cat > "$work/check.xml" <<'XML'
<simulation name="c" xmlns="urn:ecluse:config:1"><architecture><domains count="1"/></architecture><data>
<layout name="l" type="double" dimensions="8"/><variable name="v" layout="l"/></data></simulation>
XML
env -u LD_LIBRARY_PATH "$prefix/bin/ecluse-check" "$work/check.xml" | grep -q "check.xml: valid" ||
  { echo "FAIL: $prefix/bin/ecluse-check" >&2; "$prefix/bin/ecluse-check" "$work/check.xml" >&2; exit 1; }
echo "ok: $prefix/bin/ecluse-check runs"
site=$(find "$prefix" -type d -path '*site-packages/ecluse' | head -1)
if ls "$site"/_native*.so >/dev/null 2>&1; then
  PYTHONPATH=$(dirname "$site") "$python" -I -c 'import sys; sys.path.insert(0, sys.argv[1]); import ecluse; print("native:", ecluse.Session.__name__)' "$(dirname "$site")"
fi

# 5. A <pyscript> run by the installed library imports the installed ecluse package (found beside
# the library), not the source tree's, though the tree is still there.
mkdir -p "$work/py"
cat >"$work/py/where.py" <<'PY'
import ecluse
def main(DD):
    with open("where.txt", "w") as f:
        f.write(ecluse.__file__)
PY
cat >"$work/py/where.xml" <<'XML'
<simulation name="where" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/><dedicated cores="0" nodes="0"/></architecture>
  <data><parameter name="N" type="int" value="4"/>
    <layout name="row" type="int" dimensions="N" global="N*2"/>
    <variable name="ramp" layout="row" script="where"/></data>
  <scripts><pyscript name="where" file="where.py"/></scripts>
</simulation>
XML
(cd "$work/py" && "$mpiexec" -n 1 "${launch_flags[@]}" env -u PYTHONPATH \
  "$work/cmake-build/consumer_c" where.xml) >"$work/py.log" 2>&1 ||
  { echo "FAIL: consumer_c with a pyscript:" >&2; cat "$work/py.log" >&2; exit 1; }
case $(cat "$work/py/where.txt") in
  "$prefix"/*) echo "ok: the pyscript imported $(cat "$work/py/where.txt")" ;;
  *) echo "FAIL: the installed library's pyscript imported $(cat "$work/py/where.txt")," \
       "not the package under $prefix" >&2; exit 1 ;;
esac
echo "install: all consumers passed"
