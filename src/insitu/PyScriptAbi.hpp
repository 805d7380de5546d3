// The C ABI between libecluse (the pyscript hook) and libecluse_python (the embedded
// interpreter), loaded with dlopen so that libecluse never links libpython. Plain C types only;
// bump kEclusePythonAbi on any change.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

/** One block handed to a script: read-only, valid only during ecluse_python_iteration. */
struct EclusePyBlock {
  const char* variable;  // full name, e.g. "group/var"
  const char* dtype;     // NumPy type string, e.g. "<f8"
  int source;            // client rank
  int block;             // domain id
  int ndim;
  const std::uint64_t* dims;  // C order, ghosts included
  const std::uint64_t* ghost_lo;
  const std::uint64_t* ghost_hi;
  const std::int64_t* position;  // global offset of the first interior element; NULL: none
  const void* data;
  std::uint64_t bytes;
};

/** Returns kEclusePythonAbi. */
typedef int (*EclusePyAbiFn)(void);
/** Starts (or joins) the interpreter, loads the scripts, starts the Dask worker: `setup` is
 * the JSON of docs/python-insitu.md, `comm` the writers' communicator (MPI_Comm_c2f). 0 on
 * success, else the message in `error`. */
typedef int (*EclusePyStartFn)(const char* setup, int comm, char* error, std::size_t size);
/** Calls main(DD) of script `index` for `iteration`. 0: done; 1: the script raised (traceback
 * printed on stderr with the iteration, message in `error`); -1: the runtime failed. */
typedef int (*EclusePyIterationFn)(int index, int iteration, const EclusePyBlock* blocks,
                                   std::size_t count, char* error, std::size_t size);
/** Stops the Dask worker (unless keep-workers), flushes the streams. */
typedef int (*EclusePyFinishFn)(char* error, std::size_t size);

}  // extern "C"

namespace ecluse {
inline constexpr int kEclusePythonAbi = 1;
}  // namespace ecluse
