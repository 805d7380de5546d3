// Ecluse C++ API: one Session per configuration; every call throws ecluse::Error on failure.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ecluse/Error.hpp"

namespace ecluse {

class Runtime;

/** Action bound to an event: event name, source rank, iteration, arguments. */
using Action = std::function<void(const std::string& event, int source, int iteration,
                                  const std::string& args)>;

/** A simulation's connection to Ecluse, from initialize to finalize. */
class Session {
 public:
  /** Rank 0 of comm reads the file and broadcasts it; every rank validates it. */
  static Session from_file(const std::string& path, MPI_Comm comm);
  /** Configuration given as XML text; messages name it "<string>". */
  static Session from_string(const std::string& xml, MPI_Comm comm);

  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  /** True on simulation ranks; on server ranks runs the server loop, then returns false. */
  bool start();
  [[nodiscard]] MPI_Comm client_comm() const;
  /** True when the run has server ranks (dedicated cores or nodes). */
  [[nodiscard]] bool has_servers() const;
  /** Counters of this rank's transport or server, e.g. "dn.credit_waits" (empty in TP). */
  [[nodiscard]] std::map<std::string, double> statistics() const;
  /** What this rank knows was not stored or not done, "" for nothing (said for a run that ends
   * without finalize, which writes no report). */
  [[nodiscard]] std::string losses_known_here() const;
  void write(std::string_view variable, const void* data, int block = 0);
  /** write of data that holds `bytes` bytes: ECLUSE_ARGUMENT_ERROR when the block is larger
   * (it would be read past the data's end); a larger buffer gives its first bytes. */
  void write_sized(std::string_view variable, const void* data, std::uint64_t bytes, int block = 0);
  /** write of an array whose elements are not contiguous: element (i_0, ..., i_{r-1}) of an
   * array of `extents` (C order) is at data + sum_d i_d * byte_strides[d]; its elements, taken in
   * C order, are the block's (their count must be the layout's). Copied once, as by write. */
  void write_strided(std::string_view variable, const void* data,
                     std::span<const std::int64_t> extents,
                     std::span<const std::int64_t> byte_strides, int block = 0);
  /** Zero copy: room for the block to fill in place, then commit or clear. */
  [[nodiscard]] void* alloc(std::string_view variable, int block = 0);
  void commit(std::string_view variable, int block = 0);
  void clear(std::string_view variable, int block = 0);
  void parameter_get(std::string_view name, void* buffer, std::size_t size) const;
  void parameter_set(std::string_view name, const void* buffer, std::size_t size);
  /** The order of a position's offsets: the layout's (declared dimensions; reversed for
   * language="fortran") or C order always (Damaris's damaris_set_position). */
  enum class PositionOrder { Layout, C };
  void set_position(std::string_view variable, std::span<const std::int64_t> position,
                    int block = 0, PositionOrder order = PositionOrder::Layout);
  /** Element type (an ecluse_type) and dimensions in C order of a variable's block. */
  struct Shape {
    int type = 0;
    std::vector<std::int64_t> dims;
  };
  [[nodiscard]] Shape shape_of(std::string_view variable) const;
  /** Full name of a variable's layout. */
  [[nodiscard]] std::string layout_of(std::string_view variable) const;
  /** Element type (an ecluse_type) of a parameter. */
  [[nodiscard]] int parameter_type(std::string_view name) const;
  /** Element type (an ecluse_type) of a variable's layout; on clients and servers. */
  [[nodiscard]] int variable_type(std::string_view variable) const;
  /** Number of dimensions of a variable's layout (length of its position arrays). */
  [[nodiscard]] std::size_t dimensions_of(std::string_view variable) const;
  void signal(std::string_view event);
  void bind(std::string_view event, Action action);
  void end_iteration();
  [[nodiscard]] int iteration() const;
  void stop();
  /** Writes a failed call's message into this rank's log file (<log FileName>), as Damaris
   * logs its errors; nothing without a log file or after finalize. The C API does it for
   * every call that fails. */
  void log_failed_call(const std::string& message) const noexcept;
  /** Flushes and releases everything; the destructor calls it if needed. */
  void finalize();

 private:
  explicit Session(std::unique_ptr<Runtime> runtime);
  Runtime& runtime() const;
  std::unique_ptr<Runtime> runtime_;
};

}  // namespace ecluse
