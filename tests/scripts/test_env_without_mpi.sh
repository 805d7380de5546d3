#!/usr/bin/env bash
# scripts/env.sh must be sourceable under `set -euo pipefail` on a machine without MPI (a bare
# Debian 12 before set-up): a PATH that holds every program of this machine but MPI's.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for dir in /usr/local/bin /usr/bin /bin; do
  for tool in "$dir"/*; do
    name=$(basename "$tool")
    case "$name" in mpi* | ompi* | orte* | hydra* | h5pcc* | h5pfc*) continue ;; esac
    [ -e "$bin/$name" ] || ln -s "$tool" "$bin/$name"
  done
done

check() {  # check FAMILY: sources env.sh with that family and prints what it resolved
  env -i HOME="$HOME" PATH="$bin" ECLUSE_MPI="$1" bash -c '
    set -euo pipefail
    source "$1/scripts/env.sh"
    args=$(ecluse_cmake_mpi_args)
    echo "sourced: MPI=$ECLUSE_MPI MPIEXEC=[$ECLUSE_MPIEXEC] BUILD=$ECLUSE_BUILD ARGS=[$args]"
  ' _ "$root"
}

for family in openmpi mpich; do
  out=$(check "$family") || { echo "FAIL: sourcing env.sh with ECLUSE_MPI=$family aborted" >&2; exit 1; }
  expected="sourced: MPI=$family MPIEXEC=[] "
  case "$out" in
    "$expected"*) echo "ok: $out" ;;
    *) echo "FAIL: expected '$expected...', got '$out'" >&2; exit 1 ;;
  esac
done

# An unknown family is refused with a clear message, not a silent fallback.
if msg=$(check lam 2>&1); then
  echo "FAIL: ECLUSE_MPI=lam was accepted: $msg" >&2
  exit 1
fi
case "$msg" in
  *"ECLUSE_MPI='lam' is not supported; use openmpi or mpich"*) echo "ok: unknown family refused" ;;
  *) echo "FAIL: unexpected message for ECLUSE_MPI=lam: $msg" >&2; exit 1 ;;
esac
