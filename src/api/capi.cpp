// The C API: the one place where exceptions become error codes (per-thread last message).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>

#include "block/StridedSource.hpp"
#include "config/Limits.hpp"
#include "core/Collective.hpp"
#include "core/DataType.hpp"
#include "ecluse/Session.hpp"
#include "ecluse/ecluse.h"
#include "report/PartialReport.hpp"
#include "runtime/Runtime.hpp"

static_assert(static_cast<int>(ecluse::DataType::Int8) == ECLUSE_TYPE_INT8 &&
                  static_cast<int>(ecluse::DataType::Int16) == ECLUSE_TYPE_INT16 &&
                  static_cast<int>(ecluse::DataType::Int32) == ECLUSE_TYPE_INT32 &&
                  static_cast<int>(ecluse::DataType::Int64) == ECLUSE_TYPE_INT64 &&
                  static_cast<int>(ecluse::DataType::Float32) == ECLUSE_TYPE_FLOAT32 &&
                  static_cast<int>(ecluse::DataType::Float64) == ECLUSE_TYPE_FLOAT64 &&
                  static_cast<int>(ecluse::DataType::String) == ECLUSE_TYPE_STRING &&
                  static_cast<int>(ecluse::DataType::UInt8) == ECLUSE_TYPE_UINT8 &&
                  static_cast<int>(ecluse::DataType::UInt16) == ECLUSE_TYPE_UINT16 &&
                  static_cast<int>(ecluse::DataType::UInt32) == ECLUSE_TYPE_UINT32 &&
                  static_cast<int>(ecluse::DataType::UInt64) == ECLUSE_TYPE_UINT64 &&
                  static_cast<int>(ecluse::DataType::UInt64) + 1 == ECLUSE_TYPE_COUNT,
              "ecluse_type follows ecluse::DataType");
static_assert(ECLUSE_TYPE_STRING == 6 && ECLUSE_TYPE_UINT8 == 7 && ECLUSE_TYPE_UINT64 == 10,
              "the values of ecluse_type are part of the ABI");
static_assert(ECLUSE_MAX_DIMENSIONS == ecluse::limits::kDimensions &&
                  ECLUSE_MAX_DIMENSIONS == ecluse::StridedSource::kMaxRank,
              "a layout's dimensions are bounded by ECLUSE_MAX_DIMENSIONS");

namespace {

// The name of each status, written from the enumerator itself; the static_assert below fails
// to compile when ecluse.h gains, loses or reorders a code without this table following.
struct StatusName {
  ecluse_status status;
  const char* name;
};
#define ECLUSE_STATUS_NAME(status) \
  StatusName {                     \
    status, #status                \
  }
constexpr std::array kStatusNames = {
    ECLUSE_STATUS_NAME(ECLUSE_OK),
    ECLUSE_STATUS_NAME(ECLUSE_INIT_ERROR),
    ECLUSE_STATUS_NAME(ECLUSE_FINALIZE_ERROR),
    ECLUSE_STATUS_NAME(ECLUSE_CORE_IS_SERVER),
    ECLUSE_STATUS_NAME(ECLUSE_NO_SERVER),
    ECLUSE_STATUS_NAME(ECLUSE_ALLOCATION_ERROR),
    ECLUSE_STATUS_NAME(ECLUSE_CONFIG_ERROR),
    ECLUSE_STATUS_NAME(ECLUSE_ARGUMENT_ERROR),
    ECLUSE_STATUS_NAME(ECLUSE_MPI_ERROR),
    ECLUSE_STATUS_NAME(ECLUSE_DATASPACE_ERROR),
    ECLUSE_STATUS_NAME(ECLUSE_CHANNEL_ERROR),
    ECLUSE_STATUS_NAME(ECLUSE_INVALID_TAG),
    ECLUSE_STATUS_NAME(ECLUSE_NOT_INITIALIZED),
    ECLUSE_STATUS_NAME(ECLUSE_ALREADY_INITIALIZED),
    ECLUSE_STATUS_NAME(ECLUSE_UNDEFINED_ACTION),
    ECLUSE_STATUS_NAME(ECLUSE_UNDEFINED_PARAMETER),
    ECLUSE_STATUS_NAME(ECLUSE_UNDEFINED_VARIABLE),
    ECLUSE_STATUS_NAME(ECLUSE_INVALID_BLOCK),
    ECLUSE_STATUS_NAME(ECLUSE_INVALID_DIMENSIONS),
    ECLUSE_STATUS_NAME(ECLUSE_BLOCK_NOT_FOUND),
    ECLUSE_STATUS_NAME(ECLUSE_REACTOR_NOT_FOUND),
    ECLUSE_STATUS_NAME(ECLUSE_BIND_ERROR),
    ECLUSE_STATUS_NAME(ECLUSE_ERROR_UNKNOWN),
    ECLUSE_STATUS_NAME(ECLUSE_IO_ERROR),
    ECLUSE_STATUS_NAME(ECLUSE_ALREADY_WRITTEN),
};
#undef ECLUSE_STATUS_NAME

constexpr bool covers_every_status() {
  if (kStatusNames.size() != ECLUSE_STATUS_COUNT) return false;
  for (std::size_t i = 0; i < kStatusNames.size(); ++i) {
    if (static_cast<std::size_t>(kStatusNames[i].status) != i) return false;
  }
  return true;
}
static_assert(covers_every_status(),
              "kStatusNames must name every ecluse_status, in the order of the enum");

thread_local std::string last_error;
// The C API's one instance. A process that ends (exit(), the end of main) without
// ecluse_finalize destroys it at exit: its dedicated core or node would take the stop that
// follows for a clean one, so it is said first.
struct SessionAtExit : std::unique_ptr<ecluse::Session> {
  using std::unique_ptr<ecluse::Session>::operator=;
  ~SessionAtExit() {
    if (!*this) return;
    int finalized = 1;
    MPI_Finalized(&finalized);
    int rank = -1;
    if (!finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr,
                 "ecluse: world rank %d: the process ends without ecluse_finalize "
                 "(damaris_finalize): Ecluse stops here and writes no run report, and what "
                 "was not handed over by an end_iteration may not be stored; call "
                 "ecluse_finalize before the process ends.\n",
                 rank);
    std::fflush(stderr);
  }
};
SessionAtExit session;

/** A failed call's status, its message kept for this thread and written to the log file. */
int failed(int status, const char* message) noexcept {
  try {
    last_error = message;
  } catch (...) {  // no memory for the message: the status still says what happened
  }
  if (session) session->log_failed_call(last_error);
  return status;
}

/** Runs f; converts any exception to a status code and keeps its message for this thread. */
template <class F>
int guard(F&& f) noexcept {
  try {
    last_error.clear();
    f();
    return ECLUSE_OK;
  } catch (const ecluse::Error& e) {
    return failed(e.status(), e.what());
  } catch (const std::bad_alloc&) {
    return failed(ECLUSE_ALLOCATION_ERROR, "out of memory");
  } catch (const std::exception& e) {
    return failed(ECLUSE_ERROR_UNKNOWN, e.what());
  } catch (...) {
    return failed(ECLUSE_ERROR_UNKNOWN, "unknown error");
  }
}

ecluse::Session& current() {
  if (!session) {
    throw ecluse::Error(ECLUSE_NOT_INITIALIZED,
                        "Ecluse is not initialized; call ecluse_initialize first (or it was "
                        "finalized).");
  }
  return *session;
}

void require(const void* pointer, const char* what) {
  if (!pointer) throw ecluse::Error(ECLUSE_ARGUMENT_ERROR, std::string(what) + " is NULL.");
}

[[noreturn]] void not_this_iteration(const char* what, const char* variable, int block,
                                     int iteration, const ecluse::Session& s) {
  throw ecluse::Error(ECLUSE_BLOCK_NOT_FOUND,
                      std::string(what) + " of block " + std::to_string(block) + " of variable '" +
                          variable + "' for iteration " + std::to_string(iteration) +
                          ": Ecluse holds allocated blocks for the current iteration only (" +
                          std::to_string(s.iteration()) + "); " + what +
                          " in the iteration of the alloc, before its end_iteration.");
}

// A program that ignores the return code must still learn why nothing will be written: the
// reason goes to stderr once, from the first rank (every rank has the same error).
// The other ranks wait for that line (a bounded barrier): a program that exits at once on the
// error would otherwise make the launcher kill the first rank before it printed. Failures of
// the collective set-up only: a bad argument may be one rank's alone.
void tell_failed_initialize(int status, MPI_Comm comm) {
  int initialized = 0, rank = 0;
  MPI_Initialized(&initialized);
  const bool collective = initialized && comm != MPI_COMM_NULL && status != ECLUSE_ARGUMENT_ERROR;
  if (collective) MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    std::fprintf(stderr, "ecluse: initialize failed (%s): %s\n", ecluse_status_name(status),
                 last_error.c_str());
    std::fflush(stderr);
    int world = -1;
    if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &world);
    ecluse::note_failed_initialize_for_launcher(last_error, world);  // `ecluse run` exits 1
  }
  if (collective) ecluse::barrier(comm);
}

// A program that calls MPI_Finalize without ecluse_finalize (or whose Python session was never
// closed): the session would be destroyed at exit, after MPI_Finalize, and free its
// communicators there, which aborts the job with an MPI message that does not name Ecluse. MPI
// deletes MPI_COMM_SELF's attributes first in MPI_Finalize, while MPI still works: the session
// is released there instead (as a Session destroyed without finalize: no report).
int release_at_mpi_finalize(MPI_Comm /*self*/, int /*key*/, void* /*value*/, void* /*extra*/) {
  if (!session) return MPI_SUCCESS;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr,
               "ecluse: world rank %d: MPI_Finalize was called before ecluse_finalize: no run "
               "report is written, and blocks not handed over by an end_iteration may not be "
               "stored; call ecluse_finalize (damaris_finalize) before MPI_Finalize.\n",
               rank);
  std::fflush(stderr);
  std::string losses;
  try {
    losses = session->losses_known_here();
  } catch (const std::exception&) {  // a session already finalized: nothing to add
  }
  session.reset();  // a server's last stores are done: its start returned after them
  ecluse::note_unfinalized_for_launcher(losses, rank);  // `ecluse run` says it, or exits 1
  return MPI_SUCCESS;
}

void release_before_mpi_finalize() {
  static bool registered = false;
  if (registered) return;
  int key = MPI_KEYVAL_INVALID;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, release_at_mpi_finalize, &key, nullptr) !=
      MPI_SUCCESS) {
    return;
  }
  registered = MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr) == MPI_SUCCESS;
}

template <class Make>
int initialize(const char* text, MPI_Comm comm, Make make) {
  const int status = guard([&] {
    if (session) {
      throw ecluse::Error(ECLUSE_ALREADY_INITIALIZED,
                          "Ecluse is already initialized; call ecluse_finalize first.");
    }
    require(text, "the configuration");
    session = std::make_unique<ecluse::Session>(make(text, comm));
    release_before_mpi_finalize();
  });
  if (status == ECLUSE_OK) ecluse::withdraw_failed_initialize_for_launcher();
  if (status != ECLUSE_OK && status != ECLUSE_ALREADY_INITIALIZED) {
    tell_failed_initialize(status, comm);
  }
  return status;
}

}  // namespace

extern "C" {

int ecluse_initialize(const char* config_file, MPI_Comm comm) {
  return initialize(config_file, comm, ecluse::Session::from_file);
}

int ecluse_initialize_string(const char* config_xml, MPI_Comm comm) {
  return initialize(config_xml, comm, ecluse::Session::from_string);
}

int ecluse_start(int* is_client) {
  return guard([&] {
    require(is_client, "is_client");
    *is_client = current().start() ? 1 : 0;
  });
}

int ecluse_get_statistic(const char* name, double* value) {
  return guard([&] {
    require(name, "name");
    require(value, "value");
    const auto statistics = current().statistics();  // by name
    const auto it = statistics.find(name);
    if (it == statistics.end()) {
      std::string known;
      for (const auto& [key, v] : statistics) known += (known.empty() ? "" : ", ") + key;
      throw ecluse::Error(ECLUSE_ARGUMENT_ERROR,
                          std::string("no statistic named '") + name + "' on this rank; known: " +
                              (known.empty() ? "none (this rank's role keeps none)" : known) + ".");
    }
    *value = it->second;
  });
}

int ecluse_client_comm_get(MPI_Comm* comm) {
  return guard([&] {
    require(comm, "comm");
    *comm = current().client_comm();
  });
}

int ecluse_write(const char* variable, const void* data) {
  return ecluse_write_block(variable, 0, data);
}

int ecluse_write_block(const char* variable, int32_t block, const void* data) {
  return guard([&] {
    require(variable, "the variable name");
    current().write(variable, data, block);
  });
}

int ecluse_write_block_sized(const char* variable, int32_t block, const void* data,
                             uint64_t bytes) {
  return guard([&] {
    require(variable, "the variable name");
    current().write_sized(variable, data, bytes, block);
  });
}

int ecluse_write_strided(const char* variable, const void* data, int32_t rank,
                         const int64_t* extents, const int64_t* byte_strides) {
  return ecluse_write_block_strided(variable, 0, data, rank, extents, byte_strides);
}

int ecluse_write_block_strided(const char* variable, int32_t block, const void* data, int32_t rank,
                               const int64_t* extents, const int64_t* byte_strides) {
  return guard([&] {
    require(variable, "the variable name");
    require(extents, "extents");
    require(byte_strides, "byte_strides");
    ecluse::StridedSource::check_rank(rank, variable);  // a negative rank is named as given
    const auto n = static_cast<std::size_t>(rank);
    current().write_strided(variable, data, std::span(extents, n), std::span(byte_strides, n),
                            block);
  });
}

int ecluse_alloc(const char* variable, void** data) {
  return ecluse_alloc_block(variable, 0, data);
}

int ecluse_alloc_block(const char* variable, int32_t block, void** data) {
  return guard([&] {
    require(variable, "the variable name");
    require(data, "data");
    *data = current().alloc(variable, block);
  });
}

int ecluse_commit(const char* variable) {
  return ecluse_commit_block(variable, 0);
}

int ecluse_commit_block(const char* variable, int32_t block) {
  return guard([&] {
    require(variable, "the variable name");
    current().commit(variable, block);
  });
}

int ecluse_clear(const char* variable) {
  return ecluse_clear_block(variable, 0);
}

int ecluse_clear_block(const char* variable, int32_t block) {
  return guard([&] {
    require(variable, "the variable name");
    current().clear(variable, block);
  });
}

int ecluse_commit_iteration(const char* variable, int32_t iteration) {
  return ecluse_commit_block_iteration(variable, 0, iteration);
}

int ecluse_commit_block_iteration(const char* variable, int32_t block, int32_t iteration) {
  return guard([&] {
    require(variable, "the variable name");
    ecluse::Session& s = current();
    if (iteration != s.iteration()) not_this_iteration("commit", variable, block, iteration, s);
    s.commit(variable, block);
  });
}

int ecluse_clear_iteration(const char* variable, int32_t iteration) {
  return ecluse_clear_block_iteration(variable, 0, iteration);
}

// An ended iteration has nothing left to clear: its blocks were handed over when it ended.
int ecluse_clear_block_iteration(const char* variable, int32_t block, int32_t iteration) {
  return guard([&] {
    require(variable, "the variable name");
    ecluse::Session& s = current();
    static_cast<void>(s.dimensions_of(variable));  // an unknown variable is still an error
    if (iteration > s.iteration()) not_this_iteration("clear", variable, block, iteration, s);
    if (iteration == s.iteration()) s.clear(variable, block);
  });
}

int ecluse_has_servers(int* has_servers) {
  return guard([&] {
    require(has_servers, "has_servers");
    *has_servers = current().has_servers() ? 1 : 0;
  });
}

int ecluse_parameter_get(const char* name, void* buffer, unsigned int size) {
  return guard([&] {
    require(name, "the parameter name");
    require(buffer, "the buffer");
    current().parameter_get(name, buffer, size);
  });
}

int ecluse_parameter_set(const char* name, const void* buffer, unsigned int size) {
  return guard([&] {
    require(name, "the parameter name");
    require(buffer, "the buffer");
    current().parameter_set(name, buffer, size);
  });
}

int ecluse_set_position(const char* variable, const int64_t* position) {
  return ecluse_set_block_position(variable, 0, position);
}

namespace {

int set_block_position(const char* variable, int32_t block, const int64_t* position,
                       ecluse::Session::PositionOrder order) {
  return guard([&] {
    require(variable, "the variable name");
    require(position, "the position");
    ecluse::Session& s = current();
    s.set_position(variable, {position, s.dimensions_of(variable)}, block, order);
  });
}

}  // namespace

int ecluse_set_block_position(const char* variable, int32_t block, const int64_t* position) {
  return set_block_position(variable, block, position, ecluse::Session::PositionOrder::Layout);
}

int ecluse_set_block_position_c_order(const char* variable, int32_t block,
                                      const int64_t* position) {
  return set_block_position(variable, block, position, ecluse::Session::PositionOrder::C);
}

int ecluse_signal(const char* event) {
  return guard([&] {
    require(event, "the event name");
    current().signal(event);
  });
}

int ecluse_bind(const char* event, ecluse_signal_t action) {
  return guard([&] {
    require(event, "the event name");
    require(reinterpret_cast<const void*>(action), "the action");
    current().bind(
        event, [action](const std::string& e, int source, int iteration, const std::string& args) {
          action(e.c_str(), source, iteration, args.c_str());
        });
  });
}

int ecluse_end_iteration(void) {
  return guard([] { current().end_iteration(); });
}

int ecluse_get_iteration(int* iteration) {
  return guard([&] {
    require(iteration, "iteration");
    *iteration = current().iteration();
  });
}

int ecluse_stop(void) {
  return guard([] { current().stop(); });
}

int ecluse_finalize(void) {
  return guard([] {
    current();
    const std::unique_ptr<ecluse::Session> finalized = std::move(session);  // even on an error
    finalized->finalize();
  });
}

int ecluse_variable_shape(const char* variable, int* type, int* ndims, int64_t* dims,
                          int max_dims) {
  return guard([&] {
    require(variable, "the variable name");
    require(type, "type");
    require(ndims, "ndims");
    const ecluse::Session::Shape shape = current().shape_of(variable);
    *type = shape.type;
    *ndims = static_cast<int>(shape.dims.size());
    if (shape.dims.size() > static_cast<std::size_t>(std::max(max_dims, 0))) {
      throw ecluse::Error(ECLUSE_ARGUMENT_ERROR, "variable '" + std::string(variable) + "' has " +
                                                     std::to_string(shape.dims.size()) +
                                                     " dimensions but dims has room for " +
                                                     std::to_string(max_dims) +
                                                     "; pass ECLUSE_MAX_DIMENSIONS.");
    }
    if (!shape.dims.empty()) require(dims, "dims");
    std::copy(shape.dims.begin(), shape.dims.end(), dims);
  });
}

int ecluse_variable_layout(const char* variable, char* buffer, unsigned int size) {
  return guard([&] {
    require(variable, "the variable name");
    require(buffer, "the buffer");
    const std::string name = current().layout_of(variable);
    if (name.size() >= size) {
      throw ecluse::Error(ECLUSE_ARGUMENT_ERROR,
                          "the layout name of variable '" + std::string(variable) + "' needs " +
                              std::to_string(name.size() + 1) + " bytes; the buffer has " +
                              std::to_string(size) + ".");
    }
    std::copy(name.begin(), name.end(), buffer);
    buffer[name.size()] = '\0';
  });
}

int ecluse_parameter_type(const char* name, int* type) {
  return guard([&] {
    require(name, "the parameter name");
    require(type, "type");
    *type = current().parameter_type(name);
  });
}

int ecluse_variable_type(const char* variable, int* type) {
  return guard([&] {
    require(variable, "the variable name");
    require(type, "type");
    *type = current().variable_type(variable);
  });
}

int ecluse_set_error(int status, const char* message) {
  if (status == ECLUSE_OK) {
    last_error = message ? message : "";
    return status;
  }
  return failed(status, message ? message : "");
}

const char* ecluse_error_message(void) {
  return last_error.c_str();
}

const char* ecluse_status_name(int status) {
  if (status < 0 || status >= ECLUSE_STATUS_COUNT) return "ECLUSE_UNKNOWN_STATUS";
  return kStatusNames[static_cast<std::size_t>(status)].name;
}

}  // extern "C"
