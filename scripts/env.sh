# Sourced by the other scripts: where things are, and what Open MPI needs to run here.
ECLUSE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ECLUSE_BUILD=${ECLUSE_BUILD:-$ECLUSE_ROOT/build}
ECLUSE_VENV=${ECLUSE_VENV:-$ECLUSE_ROOT/.venv}
# Name the Open MPI launcher explicitly: if MPICH is installed too, `mpiexec` may point at it.
ECLUSE_MPIEXEC=${ECLUSE_MPIEXEC:-$(command -v mpiexec.openmpi || command -v mpiexec)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export ECLUSE_ROOT ECLUSE_BUILD ECLUSE_VENV ECLUSE_MPIEXEC
