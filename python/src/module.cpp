// ecluse._native: one function per C API call, each a call plus check(); the idiomatic API is the
// pure-Python ecluse.Session (python/ecluse/session.py).
#include <nanobind/nanobind.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "Actions.hpp"
#include "BlockShape.hpp"
#include "KeptViews.hpp"
#include "Status.hpp"
#include "ecluse/ecluse.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace ecluse_python {

namespace {

/** Runs a C call without the GIL (it may block: collectives, a full buffer, the server loop). */
template <class F>
void released(F&& call) {
  int status = ECLUSE_OK;
  {
    nb::gil_scoped_release unlocked;
    status = call();
  }
  check(status);
}

void initialize(const char* config, int fortran_comm, bool is_text) {
  const MPI_Comm comm = MPI_Comm_f2c(static_cast<MPI_Fint>(fortran_comm));
  released([&] {
    return is_text ? ecluse_initialize_string(config, comm) : ecluse_initialize(config, comm);
  });
}

bool start() {
  int is_client = 0;
  released([&] { return ecluse_start(&is_client); });
  return is_client != 0;
}

int client_comm() {
  MPI_Comm comm = MPI_COMM_NULL;
  check(ecluse_client_comm_get(&comm));
  return static_cast<int>(MPI_Comm_c2f(comm));
}

// A slice or a Fortran-ordered array is packed by Ecluse's one copy (ecluse_write_block_strided).
void write(const char* variable, nb::handle array, int32_t block) {
  const BlockShape shape = BlockShape::of(variable);
  const CheckedArray a = shape.checked(variable, block, array);
  if (a.contiguous) {
    released([&] { return ecluse_write_block(variable, block, a.data); });
    return;
  }
  released([&] {
    return ecluse_write_block_strided(variable, block, a.data, shape.ndims(), shape.dims(),
                                      a.byte_strides);
  });
}

nb::object alloc(const char* variable, int32_t block) {
  const BlockShape shape = BlockShape::of(variable);
  void* data = nullptr;
  released([&] { return ecluse_alloc_block(variable, block, &data); });
  return shape.view(data);
}

void commit(const char* variable, int32_t block) {
  released([&] { return ecluse_commit_block(variable, block); });
}

void clear(const char* variable, int32_t block) {
  check(ecluse_clear_block(variable, block));
}

void commit_iteration(const char* variable, int32_t block, int32_t iteration) {
  released([&] { return ecluse_commit_block_iteration(variable, block, iteration); });
}

void clear_iteration(const char* variable, int32_t block, int32_t iteration) {
  check(ecluse_clear_block_iteration(variable, block, iteration));
}

bool has_servers() {
  int servers = 0;
  check(ecluse_has_servers(&servers));
  return servers != 0;
}

void set_position(const char* variable, const std::vector<std::int64_t>& position, int32_t block) {
  const int ndims = BlockShape::of(variable).ndims();
  if (position.size() != static_cast<std::size_t>(ndims)) {
    raise_error(ECLUSE_ARGUMENT_ERROR, "position of variable '" + std::string(variable) + "' has " +
                                           std::to_string(position.size()) +
                                           " values but its layout has " + std::to_string(ndims) +
                                           " dimensions.");
  }
  check(ecluse_set_block_position(variable, block, position.data()));
}

std::tuple<int, std::vector<std::int64_t>> variable_shape(const char* variable) {
  int type = 0, ndims = 0;
  std::int64_t dims[ECLUSE_MAX_DIMENSIONS];
  check(ecluse_variable_shape(variable, &type, &ndims, dims, ECLUSE_MAX_DIMENSIONS));
  return {type, std::vector<std::int64_t>(dims, dims + ndims)};
}

int parameter_type(const char* name) {
  int type = 0;
  check(ecluse_parameter_type(name, &type));
  return type;
}

nb::bytes parameter_get(const char* name, unsigned int size) {
  std::string buffer(size, '\0');
  check(ecluse_parameter_get(name, buffer.data(), size));
  return nb::bytes(buffer.data(), buffer.size());
}

void parameter_set(const char* name, nb::bytes value) {
  check(ecluse_parameter_set(name, value.c_str(), static_cast<unsigned int>(value.size())));
}

void signal(const char* event) {
  released([&] { return ecluse_signal(event); });
}

void end_iteration() {
  released([] { return ecluse_end_iteration(); });
}

int iteration() {
  int value = 0;
  check(ecluse_get_iteration(&value));
  return value;
}

void stop() {
  released([] { return ecluse_stop(); });
}

void finalize() {
  released([] { return ecluse_finalize(); });
  clear_actions();
}

double statistic(const char* name) {
  double value = 0;
  check(ecluse_get_statistic(name, &value));
  return value;
}

}  // namespace

}  // namespace ecluse_python

// Qualified: write, signal and clear are also names of the C library.
NB_MODULE(_native, m) {
  m.doc() = "Ecluse's C API for the ecluse package; use ecluse.Session, not this module.";
  m.def("initialize", &ecluse_python::initialize, "config"_a, "fortran_comm"_a, "is_text"_a);
  m.def("start", &ecluse_python::start);
  m.def("client_comm", &ecluse_python::client_comm);
  m.def("write", &ecluse_python::write, "variable"_a, "array"_a.none(), "block"_a = 0);
  m.def("alloc", &ecluse_python::alloc, "variable"_a, "block"_a = 0);
  m.def("commit", &ecluse_python::commit, "variable"_a, "block"_a = 0);
  m.def("clear", &ecluse_python::clear, "variable"_a, "block"_a = 0);
  m.def("commit_iteration", &ecluse_python::commit_iteration, "variable"_a, "block"_a,
        "iteration"_a);
  m.def("clear_iteration", &ecluse_python::clear_iteration, "variable"_a, "block"_a, "iteration"_a);
  m.def("has_servers", &ecluse_python::has_servers);
  m.def("set_position", &ecluse_python::set_position, "variable"_a, "position"_a, "block"_a = 0);
  m.def("variable_shape", &ecluse_python::variable_shape, "variable"_a);
  m.def("parameter_type", &ecluse_python::parameter_type, "name"_a);
  m.def("parameter_get", &ecluse_python::parameter_get, "name"_a, "size"_a);
  m.def("parameter_set", &ecluse_python::parameter_set, "name"_a, "value"_a);
  m.def("signal", &ecluse_python::signal, "event"_a);
  m.def("bind", &ecluse_python::bind_action, "event"_a, "action"_a);
  m.def("end_iteration", &ecluse_python::end_iteration);
  m.def("iteration", &ecluse_python::iteration);
  m.def("stop", &ecluse_python::stop);
  m.def("finalize", &ecluse_python::finalize);
  m.def("statistic", &ecluse_python::statistic, "name"_a);
  m.def("keep_readable", &ecluse_python::keep_readable, "array"_a);
  m.def("status_name", &ecluse_status_name, "status"_a);
}
