// libecluse_python loaded with dlopen: the embedded interpreter behind the pyscript hooks of one
// process, started once and finished once, whatever the number of <pyscript>s.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "insitu/PyScriptAbi.hpp"

namespace ecluse {

class PyScriptLibrary {
 public:
  /** Loads the library (ECLUSE_PYTHON_LIBRARY, else libecluse_python.so next to libecluse) and
   * starts the runtime with `setup` (JSON). Throws Error(ECLUSE_INIT_ERROR) naming the library
   * and why it could not be loaded or started. */
  PyScriptLibrary(const std::string& setup, MPI_Comm writers);
  PyScriptLibrary(const PyScriptLibrary&) = delete;
  PyScriptLibrary& operator=(const PyScriptLibrary&) = delete;
  ~PyScriptLibrary();

  /** main(DD) of script `index`; throws Error(ECLUSE_ERROR_UNKNOWN) when it raised (its traceback
   * is already on stderr, with the iteration). */
  void run(int index, int iteration, const std::vector<EclusePyBlock>& blocks);
  /** Once, after the last iteration: stops the Dask worker unless keep-workers. */
  void finish();

  /** Where the library is looked for. */
  [[nodiscard]] static std::string path();

 private:
  void* handle_ = nullptr;
  std::string path_;
  EclusePyIterationFn iteration_ = nullptr;
  EclusePyFinishFn finish_ = nullptr;
  bool finished_ = false;
};

}  // namespace ecluse
