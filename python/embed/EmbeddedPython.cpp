// The embedded interpreter of the pyscript hook: starts Python once per process (or joins the
// one already running, e.g. a Python simulation under TP), and hands each iteration's blocks to
// ecluse._insitu_runtime as read-only memoryviews of the server's buffer (no copy).
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "insitu/PyScriptAbi.hpp"

namespace {

PyObject* g_runtime = nullptr;  // the module ecluse._insitu_runtime
bool g_started_here = false;    // this library initialized the interpreter
PyThreadState* g_saved = nullptr;

int fail(const std::string& message, char* error, std::size_t size) {
  std::snprintf(error, size, "%s", message.c_str());
  return -1;
}

std::string python_program() {
  if (const char* p = std::getenv("ECLUSE_PYTHON"); p && *p) return p;
  if (const char* v = std::getenv("VIRTUAL_ENV"); v && *v) return std::string(v) + "/bin/python3";
  return ECLUSE_PYTHON_EXECUTABLE;
}

// Extension modules (NumPy's) resolve Python's symbols globally: make libpython global.
void make_libpython_global() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&Py_InitializeFromConfig), &info) && info.dli_fname) {
    (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  }
}

std::string status_text(const PyStatus& status) {
  std::string text = status.err_msg ? status.err_msg : "unknown error";
  if (status.func) text = std::string(status.func) + ": " + text;
  return text;
}

bool initialize(std::string& error) {
  if (Py_IsInitialized()) return true;
  make_libpython_global();
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // SIGINT/SIGTERM stay Ecluse's (frequency restore)
  config.parse_argv = 0;
  const std::string program = python_program();
  PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, program.c_str());
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    error = "cannot start Python as '" + program + "': " + status_text(status);
    return false;
  }
  g_started_here = true;
  return true;
}

// The pending exception as its formatted traceback.
std::string take_exception() {
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  std::string text = "unknown Python error";
  PyObject* module = PyImport_ImportModule("traceback");
  PyObject* lines =
      module ? PyObject_CallMethod(module, "format_exception", "OOO", type, value ? value : Py_None,
                                   traceback ? traceback : Py_None)
             : nullptr;
  PyObject* empty = PyUnicode_FromString("");
  PyObject* joined = lines && empty ? PyUnicode_Join(empty, lines) : nullptr;
  if (joined) text = PyUnicode_AsUTF8(joined);
  PyErr_Clear();
  for (PyObject* o : {module, lines, empty, joined, type, value, traceback}) Py_XDECREF(o);
  return text;
}

// Where this library lies, its symbolic links resolved ("" if unknown).
std::string library_directory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&library_directory), &info) || !info.dli_fname) return "";
  char* real = realpath(info.dli_fname, nullptr);
  std::string path = real ? real : info.dli_fname;
  std::free(real);
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string real_directory(const char* path) {
  char* real = realpath(path, nullptr);
  std::string result = real ? real : path;
  std::free(real);
  return result;
}

// The directories that hold the ecluse package for this copy of the library, ':'-separated,
// and whether they come first: an installed library uses the package installed beside it
// (<libdir>/../<python install dir>, wherever the prefix was moved), ahead of any other (a
// venv's, a source tree's: the runtime module must be the one of this library's ABI); the build
// tree's library appends the source and build trees, after PYTHONPATH and the venv.
struct PackageDirs {
  std::string dirs;
  bool first = false;
};

PackageDirs package_directories() {
  const std::string here = library_directory();
  if (here.empty() || here == real_directory(ECLUSE_BUILD_LIBRARY_DIR)) {
    return {ECLUSE_BUILD_PACKAGE_DIRS, false};
  }
  return {here + "/" + ECLUSE_PACKAGE_FROM_LIBRARY_DIR, true};
}

bool import_runtime(std::string& error) {
  if (g_runtime) return true;
  PyObject* sys_path = PySys_GetObject("path");  // borrowed
  const PackageDirs package = package_directories();
  PyObject* dirs = PyUnicode_FromString(package.dirs.c_str());
  PyObject* colon = PyUnicode_FromString(":");
  PyObject* parts = dirs && colon ? PyUnicode_Split(dirs, colon, -1) : nullptr;
  Py_XDECREF(colon);
  for (Py_ssize_t i = 0; parts && sys_path && i < PyList_Size(parts); ++i) {
    PyObject* dir = PyList_GetItem(parts, i);  // borrowed
    if (package.first) {
      PyList_Insert(sys_path, i, dir);
    } else if (PySequence_Contains(sys_path, dir) == 0) {
      PyList_Append(sys_path, dir);
    }
  }
  Py_XDECREF(parts);
  Py_XDECREF(dirs);
  g_runtime = PyImport_ImportModule("ecluse._insitu_runtime");
  if (!g_runtime) error = "cannot import ecluse._insitu_runtime:\n" + take_exception();
  return g_runtime != nullptr;
}

PyObject* tuple_of(const std::uint64_t* values, int n) {
  PyObject* t = PyTuple_New(n);
  for (int i = 0; i < n; ++i) {
    PyTuple_SET_ITEM(t, i, PyLong_FromUnsignedLongLong(values[i]));
  }
  return t;
}

PyObject* position_of(const EclusePyBlock& b) {
  if (!b.position) Py_RETURN_NONE;
  PyObject* t = PyTuple_New(b.ndim);
  for (int i = 0; i < b.ndim; ++i) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(b.position[i]));
  return t;
}

PyObject* block_tuple(const EclusePyBlock& b) {
  // NumPy views made from this memoryview are read-only: PyBUF_READ.
  PyObject* view = PyMemoryView_FromMemory(static_cast<char*>(const_cast<void*>(b.data)),
                                           static_cast<Py_ssize_t>(b.bytes), PyBUF_READ);
  return Py_BuildValue("(ssiiNNNNN)", b.variable, b.dtype, b.source, b.block,
                       tuple_of(b.dims, b.ndim), tuple_of(b.ghost_lo, b.ndim),
                       tuple_of(b.ghost_hi, b.ndim), position_of(b), view);
}

// Calls ecluse._insitu_runtime.NAME(args): its result, or nullptr with `error` set.
PyObject* call_runtime(const char* name, PyObject* args, std::string& error) {
  PyObject* function = PyObject_GetAttrString(g_runtime, name);
  PyObject* result = function ? PyObject_CallObject(function, args) : nullptr;
  Py_XDECREF(function);
  Py_XDECREF(args);
  if (!result)
    error = std::string("ecluse._insitu_runtime.") + name + " failed:\n" + take_exception();
  return result;
}

void release_gil_if_ours() {
  if (g_started_here && !g_saved) g_saved = PyEval_SaveThread();
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int ecluse_python_abi(void) {
  return ecluse::kEclusePythonAbi;
}

__attribute__((visibility("default"))) int ecluse_python_start(const char* setup, int comm,
                                                               char* error, std::size_t size) {
  std::string message;
  if (!initialize(message)) return fail(message, error, size);
  const PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* result = nullptr;
  if (import_runtime(message)) {
    result = call_runtime("start", Py_BuildValue("(si)", setup, comm), message);
  }
  Py_XDECREF(result);
  PyGILState_Release(gil);
  release_gil_if_ours();
  return result ? 0 : fail(message, error, size);
}

__attribute__((visibility("default"))) int ecluse_python_iteration(int index, int iteration,
                                                                   const EclusePyBlock* blocks,
                                                                   std::size_t count, char* error,
                                                                   std::size_t size) {
  if (!g_runtime) return fail("the Python runtime was not started", error, size);
  const PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(count));
  for (std::size_t i = 0; i < count; ++i) {
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), block_tuple(blocks[i]));
  }
  std::string message;
  PyObject* result =
      call_runtime("iteration", Py_BuildValue("(iiN)", index, iteration, list), message);
  int status = result ? 0 : -1;
  if (result && result != Py_None) {
    status = 1;
    message = PyUnicode_Check(result) ? PyUnicode_AsUTF8(result) : "the script failed";
  }
  Py_XDECREF(result);
  PyGILState_Release(gil);
  if (status != 0) std::snprintf(error, size, "%s", message.c_str());
  return status;
}

__attribute__((visibility("default"))) int ecluse_python_finish(char* error, std::size_t size) {
  if (!g_runtime) return 0;
  const PyGILState_STATE gil = PyGILState_Ensure();
  std::string message;
  PyObject* result = call_runtime("finish", PyTuple_New(0), message);
  Py_XDECREF(result);
  PyGILState_Release(gil);
  return result ? 0 : fail(message, error, size);
}

}  // extern "C"
