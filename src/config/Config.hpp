// The validated configuration model: what the XML file says, with every reference resolved.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/ConfigEnums.hpp"
#include "config/Expression.hpp"
#include "config/FrequencyPolicy.hpp"
#include "config/PluginSpec.hpp"
#include "core/DataType.hpp"
#include "core/LogConfig.hpp"

namespace ecluse {

/** Where something was written: file (or "<string>"), 1-based line and column. */
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

struct Parameter {
  std::string name;  // full name, e.g. "group/param"
  DataType type = DataType::Int32;
  std::string value;  // textual value as written; numeric parameters are parsed by Parameters
  SourceLocation where;
};

/** Dimensions, ghosts and global sizes as written (user order); Layout::c_order() reverses
 * Fortran layouts. */
struct Layout {
  std::string name;  // full name, e.g. "group/layout"
  DataType type = DataType::Float64;
  std::vector<Expression> dimensions;
  std::vector<std::pair<Expression, Expression>> ghosts;  // empty: no ghosts
  std::vector<Expression> global;                         // empty: computed from positions
  bool fortran = false;
  bool broken = false;  // an expression did not parse (already reported)
  SourceLocation where;
};

struct Variable {
  std::string name;    // full name, e.g. "group/var"
  std::string layout;  // full name of its layout
  std::string unit;
  std::string mesh;                 // full name, may be empty
  std::vector<std::string> stores;  // the stores that write it (every_store: all of them)
  bool every_store = false;         // Ecluse's meaning of a variable without store=
  bool store_given = false;         // store= is there (store="#": no store, on purpose)
  bool time_varying = true;
  bool enabled = true;
  Centering centering = Centering::Zonal;
  std::string group;  // enclosing groups ("a/b/"), where relative references are looked up
  SourceLocation where;
  std::vector<std::string> scripts;  // the <pyscript>s its blocks are given to (script=)
  SourceLocation scripts_where;      // of the script= attribute
  // select-file= (Damaris): the full name of a 1-D integer variable whose block (same client,
  // same block id) gives, for each element of this variable's block, its index in the
  // dataset of a Collective file; "" when none.
  std::string select_file;
};

struct Mesh {
  struct Coord {
    std::string name, unit, label;
    SourceLocation where;
  };
  /** A child of an unstructured mesh naming the variable of one of its arrays, e.g.
   * <section_connectivity name="..."/>; "#" (none) is not kept. */
  struct Part {
    std::string role;      // the element's name, e.g. "vertex_global_id"
    std::string variable;  // full name once resolved
    std::int64_t offset = 0;
    SourceLocation where;
  };
  std::string name;
  MeshType type = MeshType::Rectilinear;
  int topology = 2;
  bool time_varying = true;
  std::vector<Coord> coords;
  std::vector<Part> parts;
  std::string group;
  SourceLocation where;
};

struct Store {
  std::string name;
  std::string type;                            // as written, for messages
  std::map<std::string, std::string> options;  // checked against the type's OptionSpecs
  SourceLocation where;
  int frequency = 1;    // writes iterations that are multiples of it (and constant variables)
  bool enabled = true;  // a disabled store is not created: it writes nothing
};

struct Event {
  std::string name;
  std::string action;
  std::string library;
  EventExecution execution = EventExecution::Remote;
  EventScope scope = EventScope::Core;
  SourceLocation where;
  EventKind kind = EventKind::Signal;
  int every = 0;  // kind iteration: every N-th iteration (1 when not given); 0: not given
};

/** A <pyscript> of <scripts> (Damaris 1.7): the file whose main(DD) every writer calls every
 * `frequency` iterations, and the Dask worker each writer starts when scheduler_file is given. */
struct PyScript {
  std::string name;
  std::string file;            // as written: relative to the working directory
  int frequency = 1;           // iterations that are multiples of it
  std::string scheduler_file;  // empty: no Dask worker
  int nthreads = 1;  // the Dask worker's threads; 0: OMP_NUM_THREADS (nthreads="openmp" or "0")
  bool keep_workers = false;    // leave the Dask workers running at the end
  double timeout_seconds = 10;  // bound on the connection to the scheduler and on each stop step
  SourceLocation where;
  SourceLocation file_where;
};

/** Which node-local ranks become dedicated cores, from <placement mask start step blocksize>:
 * a mask of 0/1 per local rank (repeated over the node), or blocks of `blocksize` ranks starting
 * at `start`, `step` ranks apart. Neither given: the last (or first) ranks of the node. */
struct CorePlacement {
  std::string mask;  // digits 0/1 only, blanks removed; empty: no mask
  int start = 0;
  int step = 0;          // 0: blocksize
  int blocksize = 0;     // 0: as many as dedicated cores
  bool pattern = false;  // start, step or blocksize given with a non-zero value
  // A Damaris file's mask (Damaris 1.x ignores it): on a node it does not fit, the dedicated
  // cores are the last local ranks, as there, with a warning, instead of a refusal.
  bool mask_may_yield = false;
  SourceLocation where;            // of <placement>, for messages; line 0 when none
  SourceLocation dedicated_where;  // of <dedicated>, for messages
  [[nodiscard]] bool given() const { return !mask.empty() || pattern; }
};

struct Architecture {
  int domains = 1;
  int dedicated_cores = 0;
  int dedicated_nodes = 0;
  int ranks_per_node = 0;  // 0: real nodes (MPI_COMM_TYPE_SHARED); >0: virtual nodes
  std::string buffer_name = "ecluse-buffer";
  std::uint64_t buffer_size = 64ull << 20;
  BufferType buffer_type = BufferType::Posix;
  AllocatorKind allocator = AllocatorKind::General;
  FullPolicy full_policy = FullPolicy::Block;
  // <buffer prefault>: map every page of the node's segment in each process at initialize, so
  // that no write or alloc faults on a page of the buffer (docs/performance.md).
  bool buffer_prefault = true;
  // <buffer copy>: streaming (non-temporal) stores for blocks from 1 MiB (auto), for every
  // block (streaming) or never (cached) (docs/performance.md).
  BufferCopy buffer_copy = BufferCopy::Auto;
  ServerPlacement placement = ServerPlacement::Last;
  CorePlacement core_placement;  // <placement mask start step blocksize>
  std::string queue_name = "ecluse-queue";
  int queue_size = 1024;
  SourceLocation queue_where;  // of <queue size>; line 0 when not given (sized from the data)
  SourceLocation dedicated_where;
  SourceLocation buffer_where;    // of <buffer>; line 0 when the file has none
  std::vector<ServerRole> roles;  // <dedicated roles>, by core index on a node; empty: symmetric
  SourceLocation roles_where;

  /** DC with dedicated cores, DN with dedicated nodes, else TP. */
  [[nodiscard]] Approach approach() const {
    if (dedicated_cores > 0) return Approach::DC;
    return dedicated_nodes > 0 ? Approach::DN : Approach::TP;
  }
};

/** A <frequency> policy, parsed by the reader. */
struct FrequencySetting {
  FrequencyPolicy policy;
  SourceLocation where;
};

/** <energy>: which source, how often it is read, the model's calibration, frequency policies. */
struct EnergyConfig {
  const PluginSpec* source = nullptr;  // an entry of energy_source_specs(); nullptr: auto
  double period_seconds = 10;
  std::string calibration_file;
  bool model_given = false;
  double idle_watts = 0, max_watts = 0;
  std::string model_id;
  SourceLocation model_where;
  std::vector<FrequencySetting> frequency;
  SourceLocation where;
};

/** <report>: the run report's file ({simulation} placeholder), the stdout summary and the
 * opt-in per-iteration trace ({simulation}, {rank}; "" for none). */
struct ReportConfig {
  std::string file = "{simulation}-report.json";
  /** Where this run writes its report, decided at initialize (claim_report_path): another run
   * writing the same report at the same time gives this one <report>.<pid>.json. */
  std::string claimed;
  bool summary = true;
  std::string trace;
};

/** Positions in a named list by name (lookups by string_view allocate nothing). */
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view name) const noexcept {
    return std::hash<std::string_view>{}(name);
  }
};
using NamePositions = std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>>;

struct Config {
  std::string source;  // file name or "<string>"
  Dialect dialect = Dialect::Ecluse;
  /** What the file says that Ecluse accepts but does not do as written, one line each
   * ("file:line:col: ..."); printed once at initialize, by rank 0. */
  std::vector<std::string> warnings;
  std::string simulation;
  Language language = Language::C;
  Architecture architecture;
  std::vector<Parameter> parameters;
  std::vector<Layout> layouts;
  std::vector<Variable> variables;
  std::vector<Mesh> meshes;
  std::vector<Store> stores;
  SourceLocation storage_where;  // of <storage>; line 0 when the file has none
  std::vector<Event> events;
  std::vector<PyScript> scripts;  // <scripts><pyscript>
  LogConfig log;
  EnergyConfig energy;
  ReportConfig report;

  [[nodiscard]] const Parameter* find_parameter(std::string_view name) const;
  [[nodiscard]] const Layout* find_layout(std::string_view name) const;
  [[nodiscard]] const Variable* find_variable(std::string_view name) const;
  /** The declared variable `name`; throws ECLUSE_UNDEFINED_VARIABLE (with "did you mean"). */
  [[nodiscard]] const Variable& declared_variable(std::string_view name) const;
  [[nodiscard]] const Store* find_store(std::string_view name) const;
  [[nodiscard]] const Event* find_event(std::string_view name) const;
  [[nodiscard]] const Mesh* find_mesh(std::string_view name) const;
  [[nodiscard]] const PyScript* find_script(std::string_view name) const;

  /** Indexes the lists looked up at every write (variables, layouts, parameters) and meshes by
   * name, once they are final (parse_config does; validation as it changes them): a lookup
   * then costs one hash, not a scan of every name (25 us a write with 5,000 variables). A
   * lookup checks the position it finds and scans the list when the name is not found there
   * (never a wrong answer, also for a list changed since). */
  void index_names();
  enum class Named { Variable, Layout, Parameter, Mesh };
  /** Whether `name` was in its list at the last index_names: many lookups that may miss (the
   * validation's group scopes), for lists not changed since. */
  [[nodiscard]] bool indexed(Named kind, std::string_view name) const;

 private:
  NamePositions variable_positions_, layout_positions_, parameter_positions_, mesh_positions_;
};

/** "file:line:col" */
std::string to_string(const SourceLocation& where);
/** "file:line:col: ", the start of a message about that place; "" for no place (line 0). */
std::string place_prefix(const SourceLocation& where);

/** Whether `store` writes the blocks of `variable` at `iteration`: the variable goes to it (its
 * store=, or every store without one) and the iteration is one of the store's (a multiple of its
 * frequency; a constant variable's blocks whenever they come). */
bool store_takes(const Store& store, const Variable& variable, int iteration);

/** Whether something other than a store may read `variable`'s blocks: a script, an iteration
 * plugin (every block), a select-file= index. */
bool read_beside_stores(const Config& config, const Variable& variable);

/** Whether a block of `variable` at `iteration` is used at all: an enabled store takes it, or
 * something else may read it (a script, an iteration plugin, a select-file= index; a constant
 * variable's blocks always). A client hands over only these: a store's frequency then costs
 * the iterations it skips no copy. */
bool block_wanted(const Config& config, const Variable& variable, int iteration);

}  // namespace ecluse
