// The C++ API: a thin layer over Runtime that checks arguments.
#include "ecluse/Session.hpp"

#include <cstdio>

#include "block/StridedSource.hpp"
#include "config/ConfigLoader.hpp"
#include "core/Collective.hpp"
#include "runtime/Runtime.hpp"

namespace ecluse {
namespace {

/** Rank 0 reads the file; every rank gets its text or the same error. */
std::string read_on_root(const std::string& path, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text;
  run_collectively(comm, [&] {
    if (rank == 0) text = read_config_file(path);
  });
  return broadcast_string(comm, text, 0);
}

// ecluse_initialize_string takes each rank's own text: ranks that passed different texts would
// parse differently (one failing alone, the others waiting in initialize's first collective).
void check_same_text(const std::string& xml, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::string first = broadcast_string(comm, xml, 0);
  const int differs = allreduce_int(comm, xml == first ? INT_MAX : rank, MPI_MIN);
  if (differs == INT_MAX) return;
  throw Error(ECLUSE_CONFIG_ERROR,
              "rank " + std::to_string(differs) +
                  " passed a configuration text that differs from rank 0's; initialize "
                  "needs the same text on every rank. Fix: pass the same string everywhere "
                  "(read the file on one rank and broadcast it), or pass the file's path to "
                  "ecluse_initialize");
}

void check_comm(MPI_Comm comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    throw Error(ECLUSE_INIT_ERROR, "MPI is not initialized; call MPI_Init before initialize.");
  }
  if (comm == MPI_COMM_NULL) throw Error(ECLUSE_ARGUMENT_ERROR, "the communicator is null.");
}

}  // namespace

Session::Session(std::unique_ptr<Runtime> runtime) : runtime_(std::move(runtime)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
// As docs/report.md says: releases everything and writes no report. A destructor must not
// throw (it may run while an exception unwinds), so a failure is printed, not raised.
Session::~Session() {
  if (!runtime_) return;
  try {
    runtime_->finalize(false);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ecluse: Session destroyed without finalize(): %s\n", e.what());
  }
}

Session Session::from_file(const std::string& path, MPI_Comm comm) {
  check_comm(comm);
  return Session(std::make_unique<Runtime>(path, read_on_root(path, comm), comm));
}

Session Session::from_string(const std::string& xml, MPI_Comm comm) {
  check_comm(comm);
  check_same_text(xml, comm);
  return Session(std::make_unique<Runtime>("<string>", xml, comm));
}

Runtime& Session::runtime() const {
  if (!runtime_) throw Error(ECLUSE_NOT_INITIALIZED, "this session was finalized.");
  return *runtime_;
}

void Session::log_failed_call(const std::string& message) const noexcept {
  if (!runtime_) return;
  try {
    runtime_->log_failed_call(message);
  } catch (...) {  // a log that cannot be written must not turn the call's error into another
  }
}

bool Session::start() {
  return runtime().start();
}
MPI_Comm Session::client_comm() const {
  return runtime().client_comm();
}

bool Session::has_servers() const {
  return runtime().has_servers();
}

std::string Session::losses_known_here() const {
  return runtime().losses_known_here();
}

std::map<std::string, double> Session::statistics() const {
  return by_name(runtime().statistics());
}

void Session::write(std::string_view variable, const void* data, int block) {
  runtime().client().write(variable, block, data);
}

void Session::write_sized(std::string_view variable, const void* data, std::uint64_t bytes,
                          int block) {
  runtime().client().write(variable, block, data, bytes);
}

void Session::write_strided(std::string_view variable, const void* data,
                            std::span<const std::int64_t> extents,
                            std::span<const std::int64_t> byte_strides, int block) {
  const StridedSource source(data, extents, byte_strides, variable);
  runtime().client().write_strided(variable, block, source);
}

void* Session::alloc(std::string_view variable, int block) {
  return runtime().client().alloc(variable, block);
}

void Session::commit(std::string_view variable, int block) {
  runtime().client().commit(variable, block);
}

void Session::clear(std::string_view variable, int block) {
  runtime().client().clear(variable, block);
}

void Session::parameter_get(std::string_view name, void* buffer, std::size_t size) const {
  runtime().parameters().get(name, buffer, size);
}

void Session::parameter_set(std::string_view name, const void* buffer, std::size_t size) {
  runtime().client().parameter_set(name, buffer, size);
}

void Session::set_position(std::string_view variable, std::span<const std::int64_t> position,
                           int block, PositionOrder order) {
  Client& client = runtime().client();
  const std::size_t rank = client.rank_of(variable);
  if (position.size() != rank) {
    throw Error(ECLUSE_ARGUMENT_ERROR, "position of variable '" + std::string(variable) + "' has " +
                                           std::to_string(position.size()) +
                                           " values but its layout has " + std::to_string(rank) +
                                           " dimensions.");
  }
  client.set_position(variable, block, position, order == PositionOrder::Layout);
}

std::string Session::layout_of(std::string_view variable) const {
  return runtime().client().layout_of(variable);
}

int Session::parameter_type(std::string_view name) const {
  return static_cast<int>(runtime().parameters().type_of(name));
}

int Session::variable_type(std::string_view variable) const {
  const Config& config = runtime().config();
  return static_cast<int>(config.find_layout(config.declared_variable(variable).layout)->type);
}

Session::Shape Session::shape_of(std::string_view variable) const {
  auto [type, dims] = runtime().client().block_shape(variable);
  return Shape{static_cast<int>(type), std::move(dims)};
}

std::size_t Session::dimensions_of(std::string_view variable) const {
  return runtime().client().rank_of(variable);
}

void Session::signal(std::string_view event) {
  runtime().signal(event);
}
void Session::bind(std::string_view event, Action action) {
  runtime().events().bind(event, std::move(action));
}
void Session::end_iteration() {
  runtime().end_iteration();
}
int Session::iteration() const {
  return runtime().client().iteration();
}
void Session::stop() {
  runtime().stop();
}

void Session::finalize() {
  if (!runtime_) return;
  const std::unique_ptr<Runtime> runtime = std::move(runtime_);  // finalized even on an error
  runtime->finalize();
}

}  // namespace ecluse
