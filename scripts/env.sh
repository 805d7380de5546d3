# Sourced by the other scripts: where things are, which MPI, and what Open MPI needs to run here.
# Safe to source on a bare machine (no MPI installed yet) under `set -euo pipefail`: nothing here
# may fail. Source it again after set-up to resolve the launcher (ecluse_resolve_mpi).
#
# ECLUSE_MPI=openmpi (default) or mpich picks the MPI family; each gets its own build directory
# (build/ for Open MPI, build-mpich/ for MPICH) so both can live side by side. The wrappers and
# the launcher are named explicitly (mpicxx.openmpi, mpiexec.mpich, ...): with both installed,
# Debian's alternatives may point `mpiexec` at one while HDF5 was built for the other.
ECLUSE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ECLUSE_MPI=${ECLUSE_MPI:-openmpi}
case "$ECLUSE_MPI" in
  openmpi) _ecluse_default_build=$ECLUSE_ROOT/build ;;
  mpich) _ecluse_default_build=$ECLUSE_ROOT/build-mpich ;;
  *)
    echo "env.sh: ECLUSE_MPI='$ECLUSE_MPI' is not supported; use openmpi or mpich" >&2
    return 2 2>/dev/null || exit 2
    ;;
esac
ECLUSE_BUILD=${ECLUSE_BUILD:-$_ecluse_default_build}
# One venv per MPI family: mpi4py is compiled against the MPI it will run with.
case "$ECLUSE_MPI" in
  openmpi) ECLUSE_VENV=${ECLUSE_VENV:-$ECLUSE_ROOT/.venv} ;;
  *) ECLUSE_VENV=${ECLUSE_VENV:-$ECLUSE_ROOT/.venv-$ECLUSE_MPI} ;;
esac

# Prints the path of a program of the chosen MPI family, or nothing (never fails).
ecluse_mpi_tool() {
  command -v "$1.$ECLUSE_MPI" 2>/dev/null || true
}

# Sets ECLUSE_MPIEXEC (unless the user set it) once MPI is installed; empty before.
ecluse_resolve_mpi() {
  if [ -z "${ECLUSE_MPIEXEC:-}" ]; then
    ECLUSE_MPIEXEC=$(ecluse_mpi_tool mpiexec)
  fi
  export ECLUSE_MPIEXEC
}

# CMake arguments that pin every MPI and HDF5 lookup to the chosen family (call after set-up).
ecluse_cmake_mpi_args() {
  local t
  for t in MPI_C_COMPILER:mpicc MPI_CXX_COMPILER:mpicxx MPI_Fortran_COMPILER:mpif90 \
    MPIEXEC_EXECUTABLE:mpiexec HDF5_C_COMPILER_EXECUTABLE:h5pcc; do
    local path
    path=$(ecluse_mpi_tool "${t#*:}")
    [ -n "$path" ] && echo "-D${t%%:*}=$path"
  done
  echo "-DECLUSE_MPIEXEC=$ECLUSE_MPIEXEC"
}

ecluse_resolve_mpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export ECLUSE_ROOT ECLUSE_BUILD ECLUSE_VENV ECLUSE_MPI
