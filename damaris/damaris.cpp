// Damaris 1.x C API: each damaris_* call is the ecluse_* call it names (no logic of its own but
// Damaris's return conventions for start and stop); the status codes are the same numbers.
#include "Damaris.h"

#include <ecluse/ecluse.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>

extern "C" int ecluse_damaris_initialize_fint(const char* configfile, MPI_Fint comm);
extern "C" int ecluse_damaris_said(int status);
extern "C" int damaris_fortran_parameter_get(const char* name, void* buffer, int size);
extern "C" int damaris_fortran_parameter_set(const char* name, const void* buffer, int size);

namespace {

// Each Damaris code beside the Ecluse code of the same name.
constexpr int kSameCodes[][2] = {
    {DAMARIS_OK, ECLUSE_OK},
    {DAMARIS_INIT_ERROR, ECLUSE_INIT_ERROR},
    {DAMARIS_FINALIZE_ERROR, ECLUSE_FINALIZE_ERROR},
    {DAMARIS_CORE_IS_SERVER, ECLUSE_CORE_IS_SERVER},
    {DAMARIS_NO_SERVER, ECLUSE_NO_SERVER},
    {DAMARIS_ALLOCATION_ERROR, ECLUSE_ALLOCATION_ERROR},
    {DAMARIS_CONFIG_ERROR, ECLUSE_CONFIG_ERROR},
    {DAMARIS_ARGUMENT_ERROR, ECLUSE_ARGUMENT_ERROR},
    {DAMARIS_MPI_ERROR, ECLUSE_MPI_ERROR},
    {DAMARIS_DATASPACE_ERROR, ECLUSE_DATASPACE_ERROR},
    {DAMARIS_CHANNEL_ERROR, ECLUSE_CHANNEL_ERROR},
    {DAMARIS_INVALID_TAG, ECLUSE_INVALID_TAG},
    {DAMARIS_NOT_INITIALIZED, ECLUSE_NOT_INITIALIZED},
    {DAMARIS_ALREADY_INITIALIZED, ECLUSE_ALREADY_INITIALIZED},
    {DAMARIS_UNDEFINED_ACTION, ECLUSE_UNDEFINED_ACTION},
    {DAMARIS_UNDEFINED_PARAMETER, ECLUSE_UNDEFINED_PARAMETER},
    {DAMARIS_UNDEFINED_VARIABLE, ECLUSE_UNDEFINED_VARIABLE},
    {DAMARIS_INVALID_BLOCK, ECLUSE_INVALID_BLOCK},
    {DAMARIS_INVALID_DIMENSIONS, ECLUSE_INVALID_DIMENSIONS},
    {DAMARIS_BLOCK_NOT_FOUND, ECLUSE_BLOCK_NOT_FOUND},
    {DAMARIS_REACTOR_NOT_FOUND, ECLUSE_REACTOR_NOT_FOUND},
    {DAMARIS_BIND_ERROR, ECLUSE_BIND_ERROR},
    {DAMARIS_ERROR_UNKNOWN, ECLUSE_ERROR_UNKNOWN},
};

constexpr bool codes_match() {
  int index = 0;
  for (const auto& pair : kSameCodes) {
    if (pair[0] != index || pair[1] != index) return false;
    ++index;
  }
  return index == DAMARIS_ERROR_UNKNOWN + 1;
}
static_assert(codes_match(), "Damaris's status codes are Ecluse's, in the same order");

}  // namespace

static_assert(std::is_same_v<signal_t, ecluse_signal_t>, "signal_t is ecluse_signal_t");

namespace {

// Damaris: with no dedicated core or node, start and stop answer NO_SERVER (programs test
// err == DAMARIS_OK || err == DAMARIS_NO_SERVER); stop answers it on a server rank too.
int or_no_server(int status, bool server_rank) {
  if (status != ECLUSE_OK) return status;
  int has_servers = 0;
  if (const int s = ecluse_has_servers(&has_servers); s != ECLUSE_OK) return s;
  return has_servers && !server_rank ? DAMARIS_OK : DAMARIS_NO_SERVER;
}

// Damaris logs a failed call's cause; its programs test the code, rarely print it. The
// message is said on stderr, as Damaris's log says it: the first kSaid of a rank, then a line
// saying the rest are not printed (a call failing at every iteration must not flood). The same
// message again (every call after a lost server) is said once, then how many times it came.
constexpr int kSaid = 10;

struct Said {
  int count = 0;     // different errors met (those past kSaid not printed)
  std::string last;  // the last one printed
  int repeats = 0;   // times it came again since
};
Said said_so_far;

// Ecluse's messages name its C functions: a Damaris program has the damaris_ ones.
std::string in_damaris_names(std::string text) {
  static const std::string from = "ecluse_", to = "damaris_";
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

// After a failed damaris_initialize (when ECLUSE_DAMARIS_INIT_ERROR=return keeps the job
// going) the calls that follow answer NOT_INITIALIZED: that is said once, the cause was said by
// the initialize.
bool initialize_failed = false;

// "[damaris 3]": the world rank, as Ecluse's own lines carry theirs ("[ecluse 3]"), so that the
// lines of ranks interleaved on one stderr can be told apart; "[damaris]" before MPI_Init.
std::string line_tag() {
  static int rank = -1;
  if (rank < 0) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  }
  return rank < 0 ? "[damaris]" : "[damaris " + std::to_string(rank) + "]";
}

// Once the repeated error is followed by another answer.
void say_repeats() {
  if (said_so_far.repeats == 0) return;
  std::fprintf(stderr, "%s error: the error above came again %d more time(s)\n", line_tag().c_str(),
               said_so_far.repeats);
  said_so_far.repeats = 0;
  said_so_far.last.clear();
}

int said(int status) {
  if (status == ECLUSE_OK || status == ECLUSE_NO_SERVER) {
    if (said_so_far.repeats > 0) say_repeats();
    return status;
  }
  if (status == ECLUSE_NOT_INITIALIZED && initialize_failed) return status;
  std::string message = in_damaris_names(ecluse_error_message());
  if (!said_so_far.last.empty() && message == said_so_far.last) {
    // The last calls of a run (finalize after a lost server) may all repeat it: said at exit.
    static const bool at_exit = std::atexit(say_repeats) == 0;
    (void)at_exit;
    ++said_so_far.repeats;
    return status;
  }
  say_repeats();
  if (said_so_far.count < kSaid) {
    std::fprintf(stderr, "%s error: %s\n", line_tag().c_str(), message.c_str());
    said_so_far.last = std::move(message);
  } else if (said_so_far.count == kSaid) {
    std::fprintf(stderr,
                 "%s error: further errors of this rank are not printed (the calls still "
                 "return their codes)\n",
                 line_tag().c_str());
  }
  ++said_so_far.count;
  return status;
}

// Damaris ends the job when it cannot initialize (MPI_Abort in its placement checks, an
// exception out of its XML parser), and Damaris programs rely on it: most ignore the code, and
// would run without output and exit 0. So does libdamaris, after the cause was said once (by
// ecluse_initialize, from the first rank), unless ECLUSE_DAMARIS_INIT_ERROR=return asks for
// the code. The exit status is the code (6: DAMARIS_CONFIG_ERROR, ...).
bool returns_initialize_errors() {
  const char* policy = std::getenv("ECLUSE_DAMARIS_INIT_ERROR");
  return policy != nullptr && std::strcmp(policy, "return") == 0;
}

[[noreturn]] void end_job(int status, MPI_Comm comm) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  const bool mpi = initialized && !finalized;
  // Every initialize failure but a bad argument is collective (ecluse_initialize): one rank says
  // it, and all reach the barrier before any aborts, so that the line is not lost.
  const bool collective = mpi && comm != MPI_COMM_NULL && status != ECLUSE_ARGUMENT_ERROR;
  int rank = 0;
  if (collective) MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    std::fprintf(stderr,
                 "[damaris] damaris_initialize failed (%s): the job ends here with status %d, as "
                 "Damaris ends it. Fix the cause above, or set ECLUSE_DAMARIS_INIT_ERROR=return "
                 "to get the error code back instead.\n",
                 ecluse_status_name(status), status);
    std::fflush(stderr);
  }
  if (collective) MPI_Barrier(comm);
  // One abort ends the job; every rank calling it at once makes Open MPI's launcher print its
  // own errors. The others wait for it (and abort themselves if it did not come). The first
  // waits a second too: MPICH's launcher may drop a line not yet forwarded when the job ends.
  std::this_thread::sleep_for(std::chrono::seconds(collective && rank != 0 ? 10 : 1));
  if (mpi) MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);
}

int initialized(int status, MPI_Comm comm) {
  if (status == ECLUSE_OK || status == ECLUSE_ALREADY_INITIALIZED) {
    if (status == ECLUSE_OK) initialize_failed = false;
    return said(status);
  }
  initialize_failed = true;
  if (!returns_initialize_errors()) end_job(status, comm);
  return status;
}

DAMARIS_TYPE_STR damaris_type_of(int ecluse_type) {
  switch (ecluse_type) {
    case ECLUSE_TYPE_INT8:
      return DAMARIS_TYPE_CHAR;
    case ECLUSE_TYPE_INT16:
      return DAMARIS_TYPE_SHORT;
    case ECLUSE_TYPE_INT32:
      return DAMARIS_TYPE_INT;
    case ECLUSE_TYPE_INT64:
      return DAMARIS_TYPE_LONG;
    case ECLUSE_TYPE_FLOAT32:
      return DAMARIS_TYPE_FLOAT;
    case ECLUSE_TYPE_FLOAT64:
      return DAMARIS_TYPE_DOUBLE;
    case ECLUSE_TYPE_STRING:
      return DAMARIS_TYPE_STRING;
    case ECLUSE_TYPE_UINT8:
      return DAMARIS_TYPE_UCHAR;
    case ECLUSE_TYPE_UINT16:
      return DAMARIS_TYPE_USHORT;
    case ECLUSE_TYPE_UINT32:
      return DAMARIS_TYPE_UINT;
    case ECLUSE_TYPE_UINT64:
      return DAMARIS_TYPE_ULONG;
    default:
      return DAMARIS_TYPE_UNDEFINED;
  }
}

// Damaris.h's description of each code, after its name.
const char* error_text(int error) {
  static const char* const texts[] = {
      "DAMARIS_OK: everything is fine",
      "DAMARIS_INIT_ERROR: error during initialization",
      "DAMARIS_FINALIZE_ERROR: error during finalization",
      "DAMARIS_CORE_IS_SERVER: illegal operation on this core (client operations)",
      "DAMARIS_NO_SERVER: illegal operation in standalone mode",
      "DAMARIS_ALLOCATION_ERROR: allocation error",
      "DAMARIS_CONFIG_ERROR: configuration error",
      "DAMARIS_ARGUMENT_ERROR: invalid argument",
      "DAMARIS_MPI_ERROR: error during an MPI call",
      "DAMARIS_DATASPACE_ERROR: invalid dataspace",
      "DAMARIS_CHANNEL_ERROR: error in a communication channel",
      "DAMARIS_INVALID_TAG: invalid tag",
      "DAMARIS_NOT_INITIALIZED: illegal call before initialization of Damaris",
      "DAMARIS_ALREADY_INITIALIZED: illegal call after initialization of Damaris",
      "DAMARIS_UNDEFINED_ACTION: undefined action",
      "DAMARIS_UNDEFINED_PARAMETER: undefined parameter",
      "DAMARIS_UNDEFINED_VARIABLE: undefined variable",
      "DAMARIS_INVALID_BLOCK: invalid block id",
      "DAMARIS_INVALID_DIMENSIONS: invalid dimensions",
      "DAMARIS_BLOCK_NOT_FOUND: block not found",
      "DAMARIS_REACTOR_NOT_FOUND: reactor not initialized",
      "DAMARIS_BIND_ERROR: error when binding a function to a signal",
      "DAMARIS_ERROR_UNKNOWN: unknown error",
      "ECLUSE_IO_ERROR: a store could not write the data (Ecluse)",
      "ECLUSE_ALREADY_WRITTEN: the same block written twice in one iteration (Ecluse)",
  };
  constexpr int count = static_cast<int>(sizeof(texts) / sizeof(texts[0]));
  static_assert(count == ECLUSE_STATUS_COUNT, "one text per status code");
  return error >= 0 && error < count ? texts[error] : "unknown Damaris error code";
}

// Damaris copies min(its size, the given size) bytes of a parameter's value: programs pass a
// size_t for an int parameter (ROSS), or read an int into an int64_t. For an integer parameter,
// libdamaris converts between integer sizes instead, refusing a value that does not fit.
bool integer_size(unsigned int size) {
  return size == 1 || size == 2 || size == 4 || size == 8;
}

// The size of an integer parameter's type, 0 for another type or an unknown parameter (the
// ecluse call then says why).
unsigned int integer_size_of(const char* param_name) {
  int type = 0;
  if (param_name == nullptr || ecluse_parameter_type(param_name, &type) != ECLUSE_OK) return 0;
  switch (type) {
    case ECLUSE_TYPE_INT8:
      return 1;
    case ECLUSE_TYPE_INT16:
      return 2;
    case ECLUSE_TYPE_INT32:
      return 4;
    case ECLUSE_TYPE_INT64:
      return 8;
    default:
      return 0;
  }
}

int64_t load_integer(const void* from, unsigned int size) {
  switch (size) {
    case 1: {
      int8_t v = 0;
      std::memcpy(&v, from, 1);
      return v;
    }
    case 2: {
      int16_t v = 0;
      std::memcpy(&v, from, 2);
      return v;
    }
    case 4: {
      int32_t v = 0;
      std::memcpy(&v, from, 4);
      return v;
    }
    default: {
      int64_t v = 0;
      std::memcpy(&v, from, 8);
      return v;
    }
  }
}

// Writes value in size bytes, or refuses it (ARGUMENT_ERROR) when it does not fit.
int store_integer(const char* name, int64_t value, void* to, unsigned int size, const char* how) {
  const int64_t limit = size == 8 ? INT64_MAX : (int64_t{1} << (8 * size - 1)) - 1;
  if (value > limit || value < -limit - 1) {
    const std::string text = std::string(how) + ": parameter '" + name + "': the value " +
                             std::to_string(value) + " does not fit " + std::to_string(size) +
                             " bytes. Fix: pass a buffer of the parameter's type, or declare "
                             "the parameter with a wider type (long).";
    return ecluse_set_error(ECLUSE_ARGUMENT_ERROR, text.c_str());
  }
  const int8_t v1 = static_cast<int8_t>(value);
  const int16_t v2 = static_cast<int16_t>(value);
  const int32_t v4 = static_cast<int32_t>(value);
  const void* from = size == 1   ? static_cast<const void*>(&v1)
                     : size == 2 ? static_cast<const void*>(&v2)
                     : size == 4 ? static_cast<const void*>(&v4)
                                 : static_cast<const void*>(&value);
  std::memcpy(to, from, size);
  return ECLUSE_OK;
}

bool is_server_rank() {
  MPI_Comm comm = MPI_COMM_NULL;
  return ecluse_client_comm_get(&comm) == ECLUSE_OK && comm == MPI_COMM_NULL;
}

// A string parameter's whole value (the C call needs room for it and its NUL).
std::string string_value(const char* name, int& status) {
  for (unsigned int room = 256; room <= (1u << 26); room *= 4) {
    std::string text(room, '\0');
    status = ecluse_parameter_get(name, text.data(), room);
    if (status == ECLUSE_OK) return text.substr(0, std::strlen(text.c_str()));
    if (status != ECLUSE_ARGUMENT_ERROR) break;
  }
  return {};
}

bool is_string_parameter(const char* name) {
  int type = -1;
  return ecluse_parameter_type(name, &type) == ECLUSE_OK && type == ECLUSE_TYPE_STRING;
}

}  // namespace

extern "C" {

int damaris_initialize(const char* configfile, MPI_Comm comm) {
  return initialized(ecluse_initialize(configfile, comm), comm);
}

// For module damaris (damaris.F90): its communicator is an integer.
int ecluse_damaris_initialize_fint(const char* configfile, MPI_Fint comm) {
  return damaris_initialize(configfile, MPI_Comm_f2c(comm));
}

// For module damaris: the calls it makes straight to ecluse_* say their errors as these do.
int ecluse_damaris_said(int status) {
  return said(status);
}

int damaris_finalize(void) {
  return said(ecluse_finalize());
}

int damaris_start(int* is_client) {
  return said(or_no_server(ecluse_start(is_client), false));
}

int damaris_stop(void) {
  return said(or_no_server(ecluse_stop(), is_server_rank()));
}

int damaris_write(const char* varname, const void* data) {
  return said(ecluse_write(varname, data));
}

int damaris_write_block(const char* varname, int32_t block, const void* data) {
  return said(ecluse_write_block(varname, block, data));
}

int damaris_alloc(const char* varname, void** ptr) {
  return said(ecluse_alloc(varname, ptr));
}

int damaris_alloc_block(const char* varname, int32_t block, void** ptr) {
  return said(ecluse_alloc_block(varname, block, ptr));
}

int damaris_commit(const char* varname) {
  return said(ecluse_commit(varname));
}

int damaris_commit_block(const char* varname, int32_t block) {
  return said(ecluse_commit_block(varname, block));
}

int damaris_commit_iteration(const char* varname, int32_t iteration) {
  return said(ecluse_commit_iteration(varname, iteration));
}

int damaris_commit_block_iteration(const char* varname, int32_t block, int32_t iteration) {
  return said(ecluse_commit_block_iteration(varname, block, iteration));
}

int damaris_clear(const char* varname) {
  return said(ecluse_clear(varname));
}

int damaris_clear_block(const char* varname, int32_t block) {
  return said(ecluse_clear_block(varname, block));
}

int damaris_clear_iteration(const char* varname, int32_t iteration) {
  return said(ecluse_clear_iteration(varname, iteration));
}

int damaris_clear_block_iteration(const char* varname, int32_t block, int32_t iteration) {
  return said(ecluse_clear_block_iteration(varname, block, iteration));
}

// A declared event whose function cannot be found (ECLUSE_BIND_ERROR): Damaris logs it and
// answers OK (its DynamicAction loads the function at the call, and only logs a failure), and
// its programs assert that OK. The cause is said; an undeclared event stays an error.
int damaris_signal(const char* signal_name) {
  const int status = said(ecluse_signal(signal_name));
  return status == ECLUSE_BIND_ERROR ? DAMARIS_OK : status;
}

int damaris_bind(const char* signal_name, signal_t sig) {
  return said(ecluse_bind(signal_name, sig));
}

int damaris_parameter_get(const char* param_name, void* buffer, unsigned int size) {
  const unsigned int own = integer_size_of(param_name);
  if (own == 0 || own == size || !integer_size(size) || buffer == nullptr) {
    return said(ecluse_parameter_get(param_name, buffer, size));
  }
  unsigned char value[8] = {};
  if (const int status = ecluse_parameter_get(param_name, value, own); status != ECLUSE_OK) {
    return said(status);
  }
  return said(store_integer(param_name, load_integer(value, own), buffer, size,
                            "damaris_parameter_get into a smaller integer"));
}

int damaris_parameter_set(const char* param_name, const void* buffer, unsigned int size) {
  const unsigned int own = integer_size_of(param_name);
  if (own == 0 || own == size || !integer_size(size) || buffer == nullptr) {
    return said(ecluse_parameter_set(param_name, buffer, size));
  }
  unsigned char value[8] = {};
  const int64_t given = load_integer(buffer, size);
  if (const int status =
          store_integer(param_name, given, value, own, "damaris_parameter_set of a wider integer");
      status != ECLUSE_OK) {
    return said(status);
  }
  return said(ecluse_parameter_set(param_name, value, own));
}

// Fortran's character buffers (damaris.F90, the external procedures) hold no NUL and end with
// blanks: a string parameter is read blank-padded and set without its trailing blanks. Every
// other type goes as in C.
int damaris_fortran_parameter_get(const char* name, void* buffer, int size) {
  if (size < 0 || buffer == nullptr || !is_string_parameter(name)) {
    return damaris_parameter_get(name, buffer, static_cast<unsigned int>(size));
  }
  int status = ECLUSE_OK;
  const std::string text = string_value(name, status);
  if (status != ECLUSE_OK) return said(status);
  const auto room = static_cast<std::size_t>(size);
  if (text.size() > room) {
    return said(ecluse_set_error(
        ECLUSE_ARGUMENT_ERROR,
        ("parameter '" + std::string(name) + "' is a string of " + std::to_string(text.size()) +
         " characters but the character buffer has " + std::to_string(room) +
         "; pass a character variable of at least " + std::to_string(text.size()) +
         " characters and its length.")
            .c_str()));
  }
  std::memcpy(buffer, text.data(), text.size());
  std::memset(static_cast<char*>(buffer) + text.size(), ' ', room - text.size());
  return DAMARIS_OK;
}

int damaris_fortran_parameter_set(const char* name, const void* buffer, int size) {
  if (size < 0 || buffer == nullptr || !is_string_parameter(name)) {
    return damaris_parameter_set(name, buffer, static_cast<unsigned int>(size));
  }
  const auto* chars = static_cast<const char*>(buffer);
  std::size_t length = strnlen(chars, static_cast<std::size_t>(size));
  while (length > 0 && chars[length - 1] == ' ') --length;
  const std::string text(chars, length);
  return said(ecluse_parameter_set(name, text.c_str(), static_cast<unsigned int>(length + 1)));
}

// Damaris uses a position as it is given, in C order, even for a layout with language="fortran"
// (whose dimensions it reverses): a Fortran program that gets right files from Damaris passes it
// reversed.
int damaris_set_position(const char* var_name, const int64_t* position) {
  return said(ecluse_set_block_position_c_order(var_name, 0, position));
}

int damaris_set_block_position(const char* var_name, int32_t block, const int64_t* position) {
  return said(ecluse_set_block_position_c_order(var_name, block, position));
}

int damaris_client_comm_get(MPI_Comm* comm) {
  return said(ecluse_client_comm_get(comm));
}

int damaris_end_iteration(void) {
  return said(ecluse_end_iteration());
}

int damaris_get_iteration(int* iteration) {
  return said(ecluse_get_iteration(iteration));
}

int damaris_get_type(const char* variable_name, DAMARIS_TYPE_STR* vartype) {
  if (vartype == nullptr) {
    return said(ecluse_set_error(ECLUSE_ARGUMENT_ERROR,
                                 "damaris_get_type: vartype is NULL; pass the address of a "
                                 "DAMARIS_TYPE_STR."));
  }
  *vartype = DAMARIS_TYPE_UNDEFINED;
  int type = 0;
  if (const int status = ecluse_variable_type(variable_name, &type); status != ECLUSE_OK) {
    return said(status);
  }
  *vartype = damaris_type_of(type);
  return DAMARIS_OK;
}

int damaris_has_plugin(DAMARIS_PLUGIN_TYPE plugin) {
  return plugin == DAMARIS_HAS_HDF5 || plugin == DAMARIS_HAS_PYTHON ? 1 : 0;
}

const char* damaris_error_string(int error) {
  return error_text(error);
}

}  // extern "C"
