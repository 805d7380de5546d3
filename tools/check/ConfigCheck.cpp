// ecluse-check's description of a configuration (see ConfigCheck.hpp).
#include "ConfigCheck.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "config/ConfigError.hpp"
#include "config/Diagnostics.hpp"
#include "config/Parameters.hpp"
#include "config/ScriptsReader.hpp"
#include "config/StoreKinds.hpp"
#include "core/ByteText.hpp"
#include "dc/NodeBuffer.hpp"
#include "ecluse/Error.hpp"
#include "shm/BufferAllocator.hpp"
#include "topology/DedicatedNodePlan.hpp"
#include "topology/NodePlan.hpp"
#include "topology/Topology.hpp"
#include "transport/TransportSupport.hpp"

namespace ecluse::check {

namespace {

std::string shape_text(const std::vector<std::uint64_t>& dims) {
  std::string text;
  for (const std::uint64_t d : dims) text += (text.empty() ? "" : " x ") + std::to_string(d);
  return text.empty() ? "scalar" : text;
}

bool has_ghosts(const LayoutShape& shape) {
  for (std::size_t i = 0; i < shape.ghost_lo.size(); ++i) {
    if (shape.ghost_lo[i] != 0 || shape.ghost_hi[i] != 0) return true;
  }
  return false;
}

/** What the stores write of a block: its interior, without the ghost zones. */
std::vector<std::uint64_t> stored_dims(const LayoutShape& shape) {
  std::vector<std::uint64_t> dims = shape.dims;
  if (!has_ghosts(shape)) return dims;
  for (std::size_t i = 0; i < dims.size(); ++i) dims[i] -= shape.ghost_lo[i] + shape.ghost_hi[i];
  return dims;
}

/** "; ghosts 1:1 x 1:1 (64 x 48 stored); global 64 x 48", each part only when declared. */
std::string ghosts_and_global_text(const LayoutShape& shape) {
  std::string text;
  if (has_ghosts(shape)) {
    std::string ghosts;
    for (std::size_t i = 0; i < shape.ghost_lo.size(); ++i) {
      ghosts += (i == 0 ? "" : " x ") + std::to_string(shape.ghost_lo[i]) + ":" +
                std::to_string(shape.ghost_hi[i]);
    }
    text += "; ghosts " + ghosts + " (" + shape_text(stored_dims(shape)) + " stored)";
  }
  if (!shape.global.empty()) text += "; global " + shape_text(shape.global);
  return text;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

std::string approach_text(const Architecture& a) {
  switch (a.approach()) {
    case Approach::DC:
      return "dedicated cores: " + std::to_string(a.dedicated_cores) +
             " per node run Ecluse servers; clients copy into the node's shared buffer";
    case Approach::DN:
      return "dedicated nodes: " + std::to_string(a.dedicated_nodes) +
             " node(s) run Ecluse servers; clients send over MPI";
    case Approach::TP:
      break;
  }
  return "time partitioning: every rank writes its own blocks at end_iteration";
}

std::string stores_of(const Variable& v) {
  if (v.every_store) return "every store";
  return v.stores.empty() ? "no store" : join(v.stores, ", ");
}

Json approach_json(const Architecture& a) {
  return Json::object()
      .set("kind", std::string(name_of(a.approach())))
      .set("dedicated_cores", a.dedicated_cores)
      .set("dedicated_nodes", a.dedicated_nodes)
      .set("buffer_bytes", a.buffer_size);
}

Json strings_json(const std::vector<std::string>& items) {
  Json list = Json::array();
  for (const std::string& item : items) list.push_back(item);
  return list;
}

Json numbers_json(const std::vector<std::uint64_t>& numbers) {
  Json array = Json::array();
  for (const std::uint64_t n : numbers) array.push_back(n);
  return array;
}

Json variable_json(const Variable& v, const Layout& layout, const LayoutShape& shape,
                   std::uint64_t bytes) {
  Json ghosts = Json::array();
  if (has_ghosts(shape)) {
    for (std::size_t i = 0; i < shape.ghost_lo.size(); ++i) {
      ghosts.push_back(numbers_json({shape.ghost_lo[i], shape.ghost_hi[i]}));
    }
  }
  return Json::object()
      .set("name", v.name)
      .set("type", std::string(data_type_name(layout.type)))
      .set("shape", numbers_json(shape.dims))
      .set("ghosts", std::move(ghosts))
      .set("stored_shape", numbers_json(stored_dims(shape)))
      .set("global", numbers_json(shape.global))
      .set("bytes_per_block", bytes)
      .set("stores", strings_json(v.stores))
      .set("every_store", v.every_store)
      .set("time_varying", v.time_varying);
}

/** What one client hands over per iteration: its bytes, and what its blocks take in a dedicated
 * core's buffer (each with the allocator's header, its payload rounded up: block_footprint). */
struct ClientIteration {
  std::uint64_t bytes = 0;
  std::uint64_t in_buffer = 0;
  bool overflow = false;  // the sums do not fit in 64 bits
  // The largest block initialize checks alone (not one of a Damaris layout naming parameters,
  // which may be a placeholder then: its writes are checked) and its variable.
  std::uint64_t largest = 0;
  std::string largest_variable;
  // The largest block of a Damaris layout naming parameters, with their values in the file:
  // warned when it does not fit, as initialize does.
  std::uint64_t largest_at_write = 0;
  std::string largest_at_write_variable;
};

// total += bytes * count, false when it does not fit in 64 bits.
bool add_blocks(std::uint64_t& total, std::uint64_t bytes, std::uint64_t count) {
  std::uint64_t product = 0;
  return !__builtin_mul_overflow(bytes, count, &product) &&
         !__builtin_add_overflow(total, product, &total);
}

// One line per enabled variable, then the total: the bytes one client hands over per iteration.
ClientIteration describe_variables(const Config& config, const Parameters& parameters,
                                   std::ostringstream& out, Json& json) {
  const auto domains = static_cast<std::uint64_t>(config.architecture.domains);
  out << "variables, per client and iteration (" << domains << " block(s) of each, <domains>):\n";
  std::uint64_t total = 0, blocks = 0, in_buffer = 0;
  ClientIteration result;
  bool fits = true;
  Json variables = Json::array();
  for (const Variable& v : config.variables) {
    if (!v.enabled) continue;
    const Layout& layout = *config.find_layout(v.layout);
    // A Damaris layout evaluated at the writes (warned): counted as 0 bytes.
    const std::optional<LayoutShape> known = layout_now(config, layout, parameters).shape;
    const bool unset = !known;
    const LayoutShape shape = known.value_or(LayoutShape{});
    const std::uint64_t bytes = shape.elements * data_type_size(layout.type);
    out << "  " << v.name << ": " << data_type_name(layout.type) << ' '
        << (unset ? "size set at run time (parameter_set), not counted"
                  : shape_text(shape.dims) + ", " + bytes_text(bytes) + " a block" +
                        ghosts_and_global_text(shape))
        << "; " << stores_of(v) << (v.time_varying ? "" : "; not time-varying") << '\n';
    variables.push_back(variable_json(v, layout, shape, bytes).set("size_set_at_run_time", unset));
    fits = fits && add_blocks(total, bytes, domains) && bytes <= SIZE_MAX - 128 &&
           add_blocks(in_buffer, shm::block_footprint(bytes), domains);
    blocks += domains;
    const bool at_write = evaluated_at_write(config, layout);
    std::uint64_t& largest = at_write ? result.largest_at_write : result.largest;
    if (bytes > largest) {
      largest = bytes;
      (at_write ? result.largest_at_write_variable : result.largest_variable) = v.name;
    }
  }
  if (!fits) {
    out << "  total: " << blocks << " block(s), more than 2^64 bytes\n";
    return {UINT64_MAX, UINT64_MAX, true, 0, "", 0, ""};
  }
  out << "  total: " << blocks << " block(s), " << bytes_text(total) << '\n';
  json.set("domains", domains).set("variables", std::move(variables));
  json.set("blocks_per_client_iteration", blocks)
      .set("bytes_per_client_iteration", total)
      .set("buffer_bytes_per_client_iteration", in_buffer);
  result.bytes = total;
  result.in_buffer = in_buffer;
  return result;
}

void describe_stores(const Config& config, std::ostringstream& out, Json& json) {
  out << (config.stores.empty() ? "stores: none (nothing is written to files)\n" : "stores:\n");
  Json stores = Json::array();
  for (const Store& s : config.stores) {
    std::vector<std::string> assigned;
    Json options = Json::object();
    for (const auto& [key, value] : s.options) {
      assigned.push_back(key + "=" + value);
      options.set(key, value);
    }
    out << "  " << s.name << ": " << s.type << (s.enabled ? "" : " (disabled: writes nothing)");
    if (s.frequency > 1) out << ", every " << s.frequency << " iterations";
    if (!assigned.empty()) out << ", " << join(assigned, ", ");
    out << '\n';
    stores.push_back(Json::object()
                         .set("name", s.name)
                         .set("type", s.type)
                         .set("enabled", s.enabled)
                         .set("frequency", s.frequency)
                         .set("options", std::move(options)));
  }
  json.set("stores", std::move(stores));
}

int nodes_ranks_per_node(const Config& config, const CheckOptions& options, std::string& from) {
  if (options.ranks_per_node > 0) {
    from = "--ranks-per-node";
    return options.ranks_per_node;
  }
  // The run's own choice (ECLUSE_RANKS_PER_NODE, then <virtual-nodes>), a bad value refused alike.
  const int configured = effective_ranks_per_node(config.architecture);
  if (configured > 0) {
    const char* env = std::getenv("ECLUSE_RANKS_PER_NODE");
    from = env && *env ? "ECLUSE_RANKS_PER_NODE" : "<virtual-nodes ranks-per-node>";
    return configured;
  }
  from = "one node: give --ranks-per-node for a cluster's nodes";
  return options.ranks;
}

std::string ranks_text(const std::vector<int>& ranks) {
  std::vector<std::string> items;
  for (const int r : ranks) items.push_back(std::to_string(r));
  return join(items, ",");
}

// The end of a placement line: how many of a client's iterations its share holds, and, when that
// is one, a note saying what the client then waits for with the <buffer size> that holds two.
void room_text(std::ostringstream& out, std::uint64_t held, const char* waits,
               std::uint64_t size_for_two) {
  out << ", room for " << held << " of its iterations\n";
  if (held != 1) return;
  out << "    note: a client then waits at each iteration " << waits << "; a <buffer size> of "
      << bytes_text(suggested_size(size_for_two)) << " or more holds two\n";
}

// Damaris 1.x aborts when a node's dedicated cores do not divide its clients; Ecluse spreads
// them unevenly. Said of a Damaris file, for a user who keeps it for both: "" otherwise.
std::string damaris_uneven_note(const Config& config, int size, int clients) {
  const int k = config.architecture.dedicated_cores;
  if (config.dialect != Dialect::Damaris || clients % k == 0) return "";
  return place_prefix(config.architecture.dedicated_where) + "Damaris 1.x would refuse nodes of " +
         std::to_string(size) +
         " ranks (\"The number of dedicated cores in a node does not "
         "divide the number of clients\": " +
         std::to_string(clients) + " clients for <dedicated cores=\"" + std::to_string(k) +
         "\"/>); Ecluse accepts them and gives each dedicated core " + std::to_string(clients / k) +
         " or " + std::to_string(clients / k + 1) +
         " clients. To run this file with Damaris too, use a multiple of " + std::to_string(k) +
         " ranks per node";
}

// Dedicated cores: each node size once (the last node may be smaller), with its servers, its
// clients and whether one iteration of its clients fits the node's buffer.
void place_dedicated_cores(const Config& config, const std::vector<int>& sizes,
                           const ClientIteration& per_client, std::ostringstream& out, Json& json,
                           std::vector<std::string>& problems, std::vector<std::string>& warnings) {
  const Architecture& a = config.architecture;
  std::map<int, std::vector<int>> nodes_of_size;
  for (std::size_t n = 0; n < sizes.size(); ++n) {
    nodes_of_size[sizes[n]].push_back(static_cast<int>(n));
  }
  Json kinds = Json::array();
  for (const auto& [size, nodes] : nodes_of_size) {
    const NodePlan plan = plan_dedicated_cores(nodes.front(), size, a.dedicated_cores, a.placement,
                                               a.core_placement, a.roles);
    const std::vector<int> servers =
        dedicated_core_ranks(nodes.front(), size, a.dedicated_cores, a.placement, a.core_placement);
    const std::uint64_t share = shm::client_share(a.allocator, a.buffer_size, plan.clients);
    const bool writes = per_client.in_buffer > 0;
    const std::uint64_t held = writes ? share / per_client.in_buffer : 0;
    out << "  " << nodes.size() << " node(s) of " << size
        << " ranks: dedicated cores at local rank(s) " << ranks_text(servers) << ", "
        << plan.clients << " client(s); each client may hold about " << bytes_text(share)
        << " of the " << bytes_text(a.buffer_size) << " buffer";
    if (writes) {
      room_text(out, held, "until the previous one is stored",
                shm::buffer_size_for(a.allocator, 2 * per_client.in_buffer, plan.clients));
    } else {
      out << '\n';
    }
    if (!plan.placement_warning.empty()) warnings.push_back(plan.placement_warning);
    const std::string uneven = damaris_uneven_note(config, size, plan.clients);
    if (!uneven.empty()) out << "    note: " << uneven << '\n';
    Json locals = Json::array();
    for (const int r : servers) locals.push_back(r);
    Json kind = Json::object()
                    .set("nodes", static_cast<std::uint64_t>(nodes.size()))
                    .set("ranks_per_node", size)
                    .set("server_local_ranks", std::move(locals))
                    .set("clients_per_node", plan.clients)
                    .set("approx_bytes_per_client", share);
    if (writes) kind.set("iterations_held", held);
    if (!uneven.empty()) kind.set("damaris_note", uneven);
    const std::size_t messages = queue_messages_per_iteration(config, plan);
    const std::size_t capacity = queue_capacity_for(a, messages);
    kind.set("queue_capacity", static_cast<std::uint64_t>(capacity));
    kinds.push_back(std::move(kind));
    if (std::string queue = queue_warning(a, messages, capacity); !queue.empty()) {
      warnings.push_back(std::move(queue));
    }
    if (const std::uint64_t need = shm::block_footprint(per_client.largest_at_write);
        per_client.largest_at_write > 0 && need > share) {
      warnings.push_back(may_never_fit_message(per_client.largest_at_write_variable, need, share,
                                               "buffer (data and bookkeeping)", a, plan.clients));
    }
    if (const std::uint64_t need = shm::block_footprint(per_client.largest); need > share) {
      problems.push_back(never_fits_message(per_client.largest_variable, need, share,
                                            "buffer (data and bookkeeping)", a, plan.clients));
    } else if (writes && held == 0) {
      warnings.push_back(
          "an iteration that writes all the blocks of a client (every variable, every domain) "
          "needs " +
          bytes_text(per_client.in_buffer) +
          " of the buffer (its blocks and their bookkeeping) but a client of a node of " +
          std::to_string(size) + " ranks may hold about " + bytes_text(share) +
          ": the writes of such an iteration past that would be refused at run time (initialize "
          "does not refuse it: a client may write fewer blocks); raise <buffer size> to at "
          "least " +
          bytes_text(suggested_size(
              shm::buffer_size_for(a.allocator, per_client.in_buffer, plan.clients))) +
          " (twice that, so that the next iteration can be written while one is stored), or "
          "write fewer blocks per iteration");
    }
  }
  json.set("node_sizes", std::move(kinds));
}

// Dedicated nodes: which nodes serve, how many clients per server rank, and whether one
// iteration of a client fits its window of the server's receive memory.
void place_dedicated_nodes(const Config& config, const std::vector<int>& node_of,
                           const ClientIteration& per_client, std::ostringstream& out, Json& json,
                           std::vector<std::string>& problems, std::vector<std::string>& warnings) {
  const Architecture& a = config.architecture;
  const DedicatedNodePlan plan =
      plan_dedicated_nodes(node_of, a.dedicated_nodes, a.placement, a.dedicated_where);
  std::vector<std::string> dedicated;
  Json nodes = Json::array();
  for (std::size_t n = 0; n < plan.dedicated.size(); ++n) {
    if (!plan.dedicated[n]) continue;
    dedicated.push_back(std::to_string(n));
    nodes.push_back(static_cast<std::uint64_t>(n));
  }
  out << "  dedicated node(s), by node index: " << join(dedicated, ",") << '\n';
  std::uint64_t smallest = UINT64_MAX;
  int most = 0;
  for (std::size_t r = 0; r < node_of.size(); ++r) {
    if (plan.client_count[r] == 0) continue;  // a client
    smallest = std::min(smallest, client_window(plan, a.buffer_size, static_cast<int>(r)));
    most = std::max(most, plan.client_count[r]);
  }
  const bool writes = per_client.bytes > 0;
  const std::uint64_t held = writes ? smallest / per_client.bytes : 0;
  out << "  each server rank serves at most " << most << " client(s); each client may hold "
      << bytes_text(smallest) << " of its server's receive memory (<buffer size> per node)";
  if (writes) {
    // smallest > 0 when held is 1: the buffer's share of that client times two iterations.
    room_text(out, held, "for the credit of the previous one",
              held == 1 ? a.buffer_size / smallest * 2 * per_client.bytes : 0);
  } else {
    out << '\n';
  }
  json.set("dedicated_nodes", std::move(nodes))
      .set("most_clients_per_server", most)
      .set("bytes_per_client", smallest);
  if (writes) json.set("iterations_held", held);
  if (per_client.largest_at_write > smallest) {
    warnings.push_back(may_never_fit_message(per_client.largest_at_write_variable,
                                             per_client.largest_at_write, smallest,
                                             "the dedicated node's receive memory", a));
  }
  if (per_client.largest > smallest) {
    problems.push_back(never_fits_message(per_client.largest_variable, per_client.largest, smallest,
                                          "the dedicated node's receive memory", a));
  } else if (per_client.bytes > smallest) {
    warnings.push_back(
        "an iteration that writes all the blocks of a client (every variable, "
        "every domain) needs " +
        bytes_text(per_client.bytes) + " but a client may hold " + bytes_text(smallest) +
        " of its server's memory: the writes of such an iteration past that "
        "would be refused at run time (initialize does not refuse it: a client "
        "may write fewer blocks); " +
        raise_buffer(a, per_client.bytes, smallest) +
        ", add dedicated nodes, or write fewer blocks per iteration");
  }
}

void describe_placement(const Config& config, const CheckOptions& options,
                        const ClientIteration& per_client, std::ostringstream& out, Json& json,
                        std::vector<std::string>& problems, std::vector<std::string>& warnings) {
  std::string from;
  const int per_node = nodes_ranks_per_node(config, options, from);
  std::vector<int> node_of(static_cast<std::size_t>(options.ranks));
  for (int r = 0; r < options.ranks; ++r) node_of[static_cast<std::size_t>(r)] = r / per_node;
  std::vector<int> sizes(static_cast<std::size_t>(node_of.back() + 1), 0);
  for (const int n : node_of) ++sizes[static_cast<std::size_t>(n)];
  out << "placement on " << options.ranks << " rank(s), " << per_node << " per node (" << from
      << "): " << sizes.size() << " node(s)\n";
  json.set("ranks", options.ranks)
      .set("ranks_per_node", per_node)
      .set("ranks_per_node_from", from)
      .set("nodes", static_cast<std::uint64_t>(sizes.size()));
  switch (config.architecture.approach()) {
    case Approach::DC:
      return place_dedicated_cores(config, sizes, per_client, out, json, problems, warnings);
    case Approach::DN:
      return place_dedicated_nodes(config, node_of, per_client, out, json, problems, warnings);
    case Approach::TP:
      out << "  every rank is a client and writes\n";
  }
}

// Said after each file initialize would not find: this check ran from its own directory.
std::string looked_from() {
  std::error_code error;
  const std::string here = std::filesystem::current_path(error).string();
  return " (ecluse-check looked from " + (error ? std::string("its working directory") : here) +
         "; ecluse_initialize refuses the file unless the job's working directory has it)";
}

bool store_path_is_absolute(const Store& store) {
  const StoreKind* kind = find_store_kind(store.type);
  if (!store.enabled || !kind || kind->name != "HDF5") return false;
  return std::filesystem::path(option_or_default(store, *kind, "FilesPath")).is_absolute();
}

/** Why the store's output directory (FilesPath) could not be made or written from here, or
 * "": its nearest existing component is not a directory, not writable, on a read-only file
 * system or in /proc or /sys. Nothing is created: the store makes the directory at initialize. */
std::string output_directory_problem(const Store& store) {
  const StoreKind* kind = find_store_kind(store.type);
  if (!store.enabled || !kind || kind->name != "HDF5") return {};
  const std::string files_path = option_or_default(store, *kind, "FilesPath");
  std::error_code error;
  std::filesystem::path existing =
      std::filesystem::absolute(files_path.empty() ? "." : files_path, error).lexically_normal();
  if (error) return {};
  while (!std::filesystem::exists(existing, error) && existing.has_relative_path()) {
    existing = existing.parent_path();
  }
  const std::string at = to_string(store.where) + ": store '" + store.name + "': FilesPath '" +
                         files_path + "' cannot be ";
  std::string fix = "; fix FilesPath or the directory's permissions";
  if (!std::filesystem::path(files_path).is_absolute()) {
    fix += " (a relative FilesPath, looked at from " +
           std::filesystem::current_path(error).string() +
           ": the run makes it from the job's working directory)";
  }
  if (!std::filesystem::is_directory(existing, error)) {
    return at + "made: '" + existing.string() + "' is not a directory" + fix;
  }
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    const std::string why = std::strerror(errno);
    return at + "written: '" + existing.string() + "': " + why + fix;
  }
  struct statfs fs {};
  if (::statfs(existing.c_str(), &fs) == 0 &&
      (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC || (fs.f_flags & ST_RDONLY))) {
    return at + "written: '" + existing.string() + "' is on a " +
           ((fs.f_flags & ST_RDONLY) ? "read-only" : "kernel (proc or sys)") + " file system" + fix;
  }
  return {};
}

/** The files the run opens at initialize that cannot be read from here: each <pyscript>'s file,
 * each event library given by a path (a bare name is found by the job's loader search path,
 * which is not this shell's). Not opened or loaded: checking a file runs none of its code. */
std::vector<std::string> unreadable_files(const Config& config) {
  std::vector<std::string> found;
  for (const PyScript& script : config.scripts) {
    if (std::string problem = script_file_problem(script); !problem.empty()) {
      found.push_back(problem + looked_from());
    }
  }
  for (const Event& event : config.events) {
    const std::string& library = event.library;
    if (library.find('/') == std::string::npos || ::access(library.c_str(), R_OK) == 0) continue;
    const std::string why = std::strerror(errno);  // before anything else can change errno
    found.push_back(to_string(event.where) + ": event '" + event.name + "': cannot read library '" +
                    library + "' of action '" + event.action + "': " + why +
                    "; fix library=" + looked_from());
  }
  return found;
}

/** The output directories (FilesPath) the run could not make or write, of the stores whose
 * FilesPath is absolute (the same wherever the check runs: refused, as initialize refuses
 * them) or relative (taken from the job's working directory: warned). */
std::vector<std::string> output_directory_problems(const Config& config, bool absolute) {
  std::vector<std::string> found;
  for (const Store& store : config.stores) {
    if (store_path_is_absolute(store) != absolute) continue;
    found.push_back(output_directory_problem(store));
    if (found.back().empty()) found.pop_back();
  }
  return found;
}

}  // namespace

Config with_parameters(Config config, const CheckOptions& options) {
  for (const auto& [name, value] : options.parameters) {
    auto it = std::find_if(config.parameters.begin(), config.parameters.end(),
                           [&](const Parameter& p) { return p.name == name; });
    if (it == config.parameters.end()) {
      throw Error(ECLUSE_CONFIG_ERROR, "--param " + name + "=" + value + ": " + config.source +
                                           " declares no parameter '" + name +
                                           "'; give a <parameter> name it declares.");
    }
    it->value = value;
  }
  return config;
}

Description describe(const Config& config, const CheckOptions& options) {
  Diagnostics diagnostics;
  const Parameters parameters(config, diagnostics);
  try {
    diagnostics.raise_if_any();
  } catch (const ConfigError& e) {  // the file's values passed parse_config: a --param is wrong
    if (options.parameters.empty()) throw;
    std::vector<std::string> messages;
    for (const std::string& m : e.messages()) messages.push_back("a --param value: " + m);
    throw ConfigError(std::move(messages));
  }
  Description d;
  std::ostringstream out;
  const char* dialect = config.dialect == Dialect::Damaris ? "Damaris 1.x file" : "Ecluse file";
  out << "simulation '" << config.simulation << "' (" << dialect << ", " << name_of(config.language)
      << ")\n";
  out << "approach: " << approach_text(config.architecture) << '\n';
  d.json.set("simulation", config.simulation)
      .set("dialect", config.dialect == Dialect::Damaris ? "damaris" : "ecluse")
      .set("language", std::string(name_of(config.language)))
      .set("approach", approach_json(config.architecture));
  Json values = Json::object();
  if (!config.parameters.empty()) {
    std::vector<std::string> assigned;
    for (const Parameter& p : config.parameters) {
      assigned.push_back(p.name + "=" + p.value);
      values.set(p.name, p.value);
    }
    out << "parameters: " << join(assigned, " ") << '\n';
  }
  d.json.set("parameters", std::move(values));
  const ClientIteration per_client = describe_variables(config, parameters, out, d.json);
  describe_stores(config, out, d.json);
  if (per_client.overflow) {
    d.problems.emplace_back(
        "one client's blocks of one iteration add up to more than 2^64 bytes; make the layouts "
        "or <domains count> smaller");
  } else if (options.ranks > 0) {
    Json placement = Json::object();
    try {
      describe_placement(config, options, per_client, out, placement, d.problems, d.warnings);
    } catch (const Error& e) {  // a placement initialize would refuse: its message
      d.problems.emplace_back(e.what());
    }
    d.json.set("placement", std::move(placement));
  }
  for (std::string& unreadable : unreadable_files(config)) d.warnings.push_back(unreadable);
  for (std::string& relative : output_directory_problems(config, false)) {
    d.warnings.push_back(relative);
  }
  for (std::string& absolute : output_directory_problems(config, true)) {
    d.problems.push_back(absolute);
  }
  d.text = out.str();
  if (!d.text.empty() && d.text.back() == '\n') d.text.pop_back();
  return d;
}

}  // namespace ecluse::check
