// Loads libecluse_python (python/embed/) and calls it through the C ABI of PyScriptAbi.hpp.
#include "insitu/PyScriptLibrary.hpp"

#include <dlfcn.h>

#include <array>
#include <cstdlib>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

constexpr const char* kLibrary = "libecluse_python.so";

std::string directory_of_libecluse() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&PyScriptLibrary::path), &info) || !info.dli_fname) return "";
  const std::string file = info.dli_fname;
  const auto slash = file.rfind('/');
  return slash == std::string::npos ? "" : file.substr(0, slash + 1);
}

template <class F>
F symbol(void* handle, const char* name, const std::string& path) {
  void* address = dlsym(handle, name);
  if (!address) {
    throw Error(ECLUSE_INIT_ERROR, "<scripts>: library '" + path + "' has no symbol '" + name +
                                       "': rebuild it with this Ecluse.");
  }
  return reinterpret_cast<F>(address);
}

}  // namespace

std::string PyScriptLibrary::path() {
  if (const char* p = std::getenv("ECLUSE_PYTHON_LIBRARY"); p && *p) return p;
  return directory_of_libecluse() + kLibrary;
}

PyScriptLibrary::PyScriptLibrary(const std::string& setup, MPI_Comm writers) : path_(path()) {
  // RTLD_GLOBAL: libpython's symbols must be visible to the extension modules Python loads.
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle_) {
    throw Error(ECLUSE_INIT_ERROR,
                "<scripts>: cannot load the Python library '" + path_ + "': " + dlerror() +
                    ". Build Ecluse with Python's embedding library (Debian: libpython3-dev) or "
                    "set ECLUSE_PYTHON_LIBRARY to libecluse_python.so.");
  }
  const auto abi = symbol<EclusePyAbiFn>(handle_, "ecluse_python_abi", path_);
  if (abi() != kEclusePythonAbi) {
    throw Error(ECLUSE_INIT_ERROR, "<scripts>: library '" + path_ + "' has ABI " +
                                       std::to_string(abi()) + ", this Ecluse needs " +
                                       std::to_string(kEclusePythonAbi) + ": rebuild it.");
  }
  iteration_ = symbol<EclusePyIterationFn>(handle_, "ecluse_python_iteration", path_);
  finish_ = symbol<EclusePyFinishFn>(handle_, "ecluse_python_finish", path_);
  const auto start = symbol<EclusePyStartFn>(handle_, "ecluse_python_start", path_);
  std::array<char, 8192> error{};
  if (start(setup.c_str(), static_cast<int>(MPI_Comm_c2f(writers)), error.data(), error.size()) !=
      0) {
    throw Error(ECLUSE_INIT_ERROR, "<scripts>: " + std::string(error.data()));
  }
}

// The library stays loaded: Python cannot be unloaded from a process once started.
PyScriptLibrary::~PyScriptLibrary() = default;

void PyScriptLibrary::run(int index, int iteration, const std::vector<EclusePyBlock>& blocks) {
  std::array<char, 8192> error{};
  if (iteration_(index, iteration, blocks.data(), blocks.size(), error.data(), error.size()) != 0) {
    throw Error(ECLUSE_ERROR_UNKNOWN, error.data());
  }
}

void PyScriptLibrary::finish() {
  if (finished_) return;
  finished_ = true;
  std::array<char, 8192> error{};
  if (finish_(error.data(), error.size()) != 0) throw Error(ECLUSE_ERROR_UNKNOWN, error.data());
}

}  // namespace ecluse
