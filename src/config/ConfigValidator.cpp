// Cross-reference checks: names defined once, references resolved, layouts evaluable.
#include "config/ConfigValidator.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

#include "config/DamarisCompat.hpp"
#include "config/FrequencyPolicy.hpp"
#include "config/Limits.hpp"
#include "config/Parameters.hpp"
#include "config/ScriptsReader.hpp"
#include "config/StoreKinds.hpp"
#include "config/Suggest.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

template <class T>
void check_unique(const std::vector<T>& items, const std::string& kind, Diagnostics& d) {
  std::map<std::string, const T*> seen;
  for (const auto& item : items) {
    auto [it, inserted] = seen.emplace(item.name, &item);
    if (inserted) continue;
    d.error(item.where, "duplicate " + kind + " '" + item.name + "' (first defined at " +
                            to_string(it->second->where) + "); rename or remove one of them.");
  }
}

// The lists names are resolved in, through the config's index (a file of 20,000 variables in
// groups took 20 s to check when each reference scanned every name); validate_config indexes
// them again after changing them.
bool declared(const Config& config, const std::vector<Variable>& /*items*/, std::string_view name) {
  return config.indexed(Config::Named::Variable, name);
}
bool declared(const Config& config, const std::vector<Layout>& /*items*/, std::string_view name) {
  return config.indexed(Config::Named::Layout, name);
}
bool declared(const Config& config, const std::vector<Parameter>& /*items*/,
              std::string_view name) {
  return config.indexed(Config::Named::Parameter, name);
}
bool declared(const Config& config, const std::vector<Mesh>& /*items*/, std::string_view name) {
  return config.indexed(Config::Named::Mesh, name);
}

/** Full name of `name` seen from `scope`: scope + name if that exists, else name itself. */
template <class T>
std::string resolve(const Config& config, const std::vector<T>& items, const std::string& scope,
                    const std::string& name) {
  if (!scope.empty()) {
    std::string full = scope + name;
    if (declared(config, items, full)) return full;
  }
  if (declared(config, items, name)) return name;
  return "";
}

std::string last_part(const std::string& name) {
  return name.substr(name.rfind('/') + 1);
}

/** What to suggest for an undefined reference: a name with the same last part (defined in
 * another group), else the closest name as written from `scope`, else the closest full name. */
template <class T>
std::string suggestion(const std::vector<T>& items, const std::string& scope,
                       const std::string& reference) {
  for (const auto& item : items) {
    if (last_part(item.name) == last_part(reference)) return item.name;
  }
  std::vector<std::string> relative;
  for (const auto& item : items) {
    if (!scope.empty() && item.name.rfind(scope, 0) == 0) {
      relative.push_back(item.name.substr(scope.size()));
    }
  }
  const std::string best = closest(reference, relative);
  return best.empty() ? closest(reference, names_of(items)) : best;
}

/** "which is not defined in group 'g' or at top level; did you mean 'x'?" */
template <class T>
std::string not_found(const std::vector<T>& items, const std::string& scope,
                      const std::string& reference, const std::string& verb) {
  std::string text = "which is not " + verb;
  if (!scope.empty()) {
    text += " in group '" + scope.substr(0, scope.size() - 1) + "' or at top level";
  }
  const std::string hint = suggestion(items, scope, reference);
  return text + (hint.empty() ? "." : "; did you mean '" + hint + "'?");
}

template <class T>
bool resolve_reference(const Config& config, std::string& reference, const std::vector<T>& items,
                       const std::string& scope, const std::string& what, Diagnostics& d,
                       const SourceLocation& where, const std::string& fix) {
  const std::string full = resolve(config, items, scope, reference);
  if (!full.empty()) {
    reference = full;
    return true;
  }
  d.error(where, what + " '" + reference + "' " + not_found(items, scope, reference, "defined") +
                     " " + fix);
  return false;
}

void check_variable_stores(const Variable& v, const Config& config, Diagnostics& d);

/** Damaris registers an unstructured mesh declared in a group under its plain name (its other
 * meshes under group/name): the full name of the one unstructured mesh whose last part is
 * `name`, or "" (none, or several). */
std::string damaris_unstructured(const std::vector<Mesh>& meshes, const std::string& name) {
  std::string found;
  for (const Mesh& m : meshes) {
    if (m.type != MeshType::Unstructured || last_part(m.name) != name) continue;
    if (!found.empty()) return "";
    found = m.name;
  }
  return found;
}

// Damaris resolves a variable's mesh only when it visualizes it: its files may name meshes
// they never declare. The variable is then kept without a mesh.
void check_variable_mesh(Variable& v, const Config& config, Diagnostics& d) {
  const std::string fix = "define it with <mesh name=\"" + v.mesh + "\" .../>";
  if (config.dialect == Dialect::Damaris &&
      resolve(config, config.meshes, v.group, v.mesh).empty()) {
    if (std::string full = damaris_unstructured(config.meshes, v.mesh); !full.empty()) {
      v.mesh = full;
      return;
    }
  }
  if (config.dialect == Dialect::Ecluse ||
      !resolve(config, config.meshes, v.group, v.mesh).empty()) {
    resolve_reference(config, v.mesh, config.meshes, v.group, "variable '" + v.name + "' uses mesh",
                      d, v.where, "Fix the name or " + fix + ".");
    return;
  }
  d.warning(v.where, "undefined-mesh",
            "variable '" + v.name + "' names mesh '" + v.mesh + "' " +
                not_found(config.meshes, v.group, v.mesh, "defined") +
                " It is written without a mesh: fix the name, " + fix + " or remove mesh=.");
  v.mesh.clear();
}

// Damaris defines a one-element layout for each of its type names ("int", "double"...), and
// its users' files name them as the layouts of scalars (ROSS's RISA: layout="double"). One is
// added, at top level, for each numeric one that a variable names and the file does not define.
void add_type_layouts(Config& config) {
  if (config.dialect != Dialect::Damaris) return;
  for (const Variable& v : config.variables) {
    const std::optional<DataType> type = data_type_from_name(v.layout);
    if (!type || *type == DataType::String || !is_damaris_type_name(v.layout) ||
        !resolve(config, config.layouts, v.group, v.layout).empty()) {
      continue;
    }
    Layout layout;
    layout.name = v.layout;
    layout.type = *type;
    layout.dimensions.push_back(Expression::parse("1"));
    layout.where = v.where;
    config.layouts.push_back(std::move(layout));
    config.index_names();  // the next variable naming this type finds it (a handful of types)
  }
}

/** The first variable a mesh names (coordinate or part) that is not declared, or null. */
const SourceLocation* undefined_mesh_variable(const Mesh& mesh, const Config& config,
                                              std::string& name) {
  for (const auto& coord : mesh.coords) {
    if (!resolve(config, config.variables, mesh.group, coord.name).empty()) continue;
    name = coord.name;
    return &coord.where;
  }
  for (const auto& part : mesh.parts) {
    if (!resolve(config, config.variables, mesh.group, part.variable).empty()) continue;
    name = part.variable;
    return &part.where;
  }
  return nullptr;
}

// Damaris reads a mesh's variables only when VisIt asks for the mesh: its users' files may
// name coordinates they never declare (ROSS's RISA). Such a mesh is dropped, with a warning,
// and the variables on it are written without a mesh.
void drop_damaris_meshes_with_undefined_variables(Config& config, Diagnostics& d) {
  if (config.dialect != Dialect::Damaris) return;
  std::vector<std::string> dropped;
  for (const Mesh& mesh : config.meshes) {
    std::string name;
    const SourceLocation* where = undefined_mesh_variable(mesh, config, name);
    if (where == nullptr) continue;
    d.warning(*where, "undefined-mesh-variable",
              "mesh '" + mesh.name + "' names variable '" + name + "' " +
                  not_found(config.variables, mesh.group, name, "defined") +
                  " Damaris reads a mesh's variables only when VisIt shows the mesh, so the "
                  "file runs, but without this mesh: the variables on it are written without "
                  "one. Fix the name or declare the variable to keep the mesh.");
    dropped.push_back(mesh.name);
  }
  if (dropped.empty()) return;
  for (Variable& v : config.variables) {
    if (v.mesh.empty()) continue;
    const std::string full = resolve(config, config.meshes, v.group, v.mesh);
    if (std::find(dropped.begin(), dropped.end(), full) != dropped.end()) v.mesh.clear();
  }
  std::erase_if(config.meshes, [&](const Mesh& m) {
    return std::find(dropped.begin(), dropped.end(), m.name) != dropped.end();
  });
}

void check_variable(Variable& v, const Config& config, Diagnostics& d) {
  const std::string who = "variable '" + v.name + "' uses";
  resolve_reference(config, v.layout, config.layouts, v.group, who + " layout", d, v.where,
                    "Fix the name or define it with <layout name=\"" + v.layout +
                        "\" type=\"...\" dimensions=\"...\"/>.");
  if (!v.mesh.empty()) check_variable_mesh(v, config, d);
  check_variable_stores(v, config, d);
}

void check_variable_stores(const Variable& v, const Config& config, Diagnostics& d) {
  const std::string who = "variable '" + v.name + "' uses";
  for (const auto& store : v.stores) {
    if (config.find_store(store)) continue;
    const std::string hint = did_you_mean_or_period(store, names_of(config.stores));
    d.error(v.where, who + " store '" + store + "' which is not defined in <storage>" + hint +
                         " Fix the name or add <store name=\"" + store + "\" type=\"HDF5\"/>.");
  }
}

/** The variable's layout has one dimension (and, for an index, an integer type). */
bool one_dimensional(const Variable& v, const Config& config, bool integer) {
  const Layout* layout = config.find_layout(v.layout);
  return layout == nullptr ||
         (layout->dimensions.size() == 1 && (!integer || is_integer(layout->type)));
}

// select-file="index": the index variable gives each element's place in a Collective file
// (every store is given its blocks, whether it writes it or not).
void check_variable_selection(Variable& v, const Config& config, Diagnostics& d) {
  const std::string what = "variable '" + v.name + "' has select-file";
  if (!resolve_reference(config, v.select_file, config.variables, v.group, what, d, v.where,
                         "Fix the name, or remove select-file= to place its blocks by their "
                         "positions.")) {
    return;
  }
  const Variable* index = config.find_variable(v.select_file);
  if (!one_dimensional(v, config, false)) {
    d.error(v.where, what + " '" + v.select_file +
                         "', but its layout has more than one dimension: an index places the "
                         "elements of a 1-D variable. Fix: remove select-file= or use a 1-D "
                         "layout.");
  }
  if (index != nullptr && !index->enabled && v.enabled) {
    d.error(v.where, what + " '" + v.select_file +
                         "', which is disabled (enabled=\"false\"): its values would never "
                         "reach the stores. Fix: enable it, or remove select-file=.");
  }
  if (index != nullptr && !one_dimensional(*index, config, true)) {
    d.error(v.where, what + " '" + v.select_file +
                         "', whose layout is not one-dimensional with an integer type (int, "
                         "long, short or char). Fix: give '" +
                         v.select_file +
                         "' such a layout, or name an index variable that has one.");
  }
}

void check_mesh(Mesh& mesh, const Config& config, Diagnostics& d) {
  for (auto& coord : mesh.coords) {
    resolve_reference(config, coord.name, config.variables, mesh.group,
                      "mesh '" + mesh.name + "' has a coordinate variable", d, coord.where,
                      "Fix the name or declare the variable.");
  }
  for (auto& part : mesh.parts) {
    resolve_reference(config, part.variable, config.variables, mesh.group,
                      "mesh '" + mesh.name + "' has a <" + part.role + "> variable", d, part.where,
                      "Fix the name, declare the variable, or write name=\"#\".");
  }
}

// The enabled variables that `left_out` picks, warned once as `kind` at the first of them:
// "N variable(s) " + `what` + the first five names ("a, b, c, d, e and 3 more") + `fix`.
template <class Pick>
void warn_variables(const Config& config, Diagnostics& d, const std::string& kind, Pick left_out,
                    const std::string& what, const std::string& fix) {
  std::vector<std::string> names;
  const Variable* first = nullptr;
  for (const Variable& v : config.variables) {
    if (!v.enabled || !left_out(v)) continue;
    if (first == nullptr) first = &v;
    names.push_back(v.name);
  }
  if (first == nullptr) return;
  const std::size_t shown = std::min<std::size_t>(names.size(), 5);
  std::string listed = join(std::vector<std::string>(names.begin(), names.begin() + shown));
  if (shown < names.size()) listed += " and " + std::to_string(names.size() - shown) + " more";
  d.warning(first->where, kind,
            std::to_string(names.size()) + " variable(s) " + what + listed + fix);
}

// Read without a store: by a script (script=), or as another variable's select-file= index
// (every store is given its blocks).
bool read_without_store(const Config& config, const Variable& variable) {
  if (!variable.scripts.empty()) return true;
  return std::any_of(config.variables.begin(), config.variables.end(),
                     [&](const Variable& v) { return v.select_file == variable.name; });
}

// Damaris's meaning: a variable without store= is written by no store. Said once, since a
// user who moves from Ecluse's files (every store) would otherwise lose data silently; not of
// store="#", which asks for no store (OPM writes it on every variable when its output is off),
// nor of a variable a script or an index reads (OPM's mesh variables).
void check_unstored(const Config& config, Diagnostics& d) {
  if (config.dialect != Dialect::Damaris || config.stores.empty()) return;
  warn_variables(
      config, d, "unstored",
      [&](const Variable& v) {
        return !v.every_store && !v.store_given && !read_without_store(config, v);
      },
      "have no store= and, as in Damaris, are written by no store: ",
      ". Add store=\"" + config.stores.front().name + "\" to those to keep.");
}

// Why no store reads the variables: no <storage>, or one without a <store> (Damaris's schema
// allows an empty one), and what to add.
std::pair<std::string, std::string> missing_store(const Config& config) {
  if (config.storage_where.line == 0) {
    return {"the file has no <storage>", "a <storage> with a <store> (e.g. type=\"HDF5\")"};
  }
  return {"its <storage> (line " + std::to_string(config.storage_where.line) + ") has no <store>",
          "a <store> (e.g. type=\"HDF5\") inside its <storage>"};
}

// Damaris's server-side actions read the variables' blocks from the servers' memory; Ecluse's
// signal actions are given none. "" when the file declares no <event>.
std::string events_text(const Config& config) {
  std::vector<std::string> names;
  for (const Event& e : config.events) names.push_back(e.name);
  if (names.empty()) return "";
  return "; its <event> action(s) (" + join(names) +
         ") do not read them either: Ecluse's signal actions receive no variables' blocks "
         "(Damaris's read them from the servers' memory), so what is written of them is "
         "dropped: ";
}

// A file without a store (a Damaris file made for <paraview>, <visit> or its own actions, not
// run here): what is written of a variable nothing else reads goes nowhere. Said once, at the
// first of them.
void check_unread(const Config& config, Diagnostics& d) {
  if (!config.stores.empty()) return;
  const auto [why, add] = missing_store(config);
  const std::string events = events_text(config);
  const std::string what = "are read by nothing: " + why +
                           ", and no script= or iteration plugin reads them" +
                           (events.empty() ? ", so what is written of them is not kept: " : events);
  const std::string fix = events.empty()
                              ? ". Add " + add + " to keep them."
                              : ". Port the action(s) to an iteration plugin (kind=\"iteration\", "
                                "docs/plugins.md), which is given the iteration's blocks, or add " +
                                    add + " to keep them.";
  warn_variables(
      config, d, "unread", [&](const Variable& v) { return !read_beside_stores(config, v); }, what,
      fix);
}

bool check_layout_parameters(const Layout& layout, const Config& config,
                             const Parameters& parameters, Diagnostics& d) {
  std::vector<const Expression*> all;
  for (const auto& e : layout.dimensions) all.push_back(&e);
  for (const auto& e : layout.global) all.push_back(&e);
  for (const auto& [lo, hi] : layout.ghosts) all.insert(all.end(), {&lo, &hi});
  std::vector<std::string> names;  // each name once, in order of appearance
  for (const Expression* e : all) {
    for (const auto& name : e->names()) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  const std::string scope = scope_of(layout.name);
  bool ok = true;
  for (const auto& name : names) {
    if (parameters.integer(name, scope)) continue;
    ok = false;
    const std::string full = resolve(config, config.parameters, scope, name);
    const Parameter* declared = full.empty() ? nullptr : config.find_parameter(full);
    if (const std::string problem = parameters.layout_problem(name, scope); !problem.empty()) {
      d.error(layout.where, "layout '" + layout.name + "': " + problem +
                                "; give it a smaller value or use another parameter.");
      continue;
    }
    if (declared && is_integer(declared->type)) continue;  // its bad value is already reported
    const std::string who = "layout '" + layout.name + "' uses parameter '" + name + "' ";
    if (declared) {
      d.error(layout.where, who + "which is a " + std::string(data_type_name(declared->type)) +
                                "; only integer parameters can be used in dimensions: declare it " +
                                "with type=\"int\" (or short, long) or use another parameter.");
      continue;
    }
    d.error(layout.where, who + not_found(config.parameters, scope, name, "declared") +
                              " Declare <parameter name=\"" + name +
                              "\" type=\"int\" value=\"...\"/>.");
  }
  return ok;
}

// A block for dedicated cores or nodes is described in a fixed-size message.
bool fits_dedicated(const Layout& layout, const Config& config, Diagnostics& d) {
  if (config.architecture.approach() == Approach::TP ||
      layout.dimensions.size() <= limits::kDedicatedDimensions) {
    return true;
  }
  d.error(layout.where, "layout '" + layout.name + "' has " +
                            std::to_string(layout.dimensions.size()) +
                            " dimensions; dedicated cores and nodes carry blocks of at most " +
                            std::to_string(limits::kDedicatedDimensions) +
                            ": merge dimensions into fewer, or use time partitioning.");
  return false;
}

// Damaris evaluates a layout at each write: its files declare sizes as parameters valued 0
// (ROSS's RISA) or placeholders (PDI's example) and give them with damaris_parameter_set. The
// client checks each write.
std::string waiting_text(const LayoutNow& now) {
  if (now.zero) {
    return now.waiting +
           " at initialize; as in Damaris, the layout is evaluated again at each write: give its "
           "parameters positive values with damaris_parameter_set before writing its variables "
           "(a write while it is 0 is refused).";
  }
  return now.waiting +
         " That is with the parameters' values at initialize; as in Damaris, the layout is "
         "evaluated again at each write: give its parameters values that make it valid with "
         "damaris_parameter_set before writing its variables (a write while it is not valid is "
         "refused).";
}

void check_layouts(const Config& config, Diagnostics& d) {
  Diagnostics ignored;  // value errors are reported by the Parameters built in validate_config
  const Parameters parameters(config, ignored);
  for (const Layout& layout : config.layouts) {
    if (layout.broken || !fits_dedicated(layout, config, d)) continue;
    if (!check_layout_parameters(layout, config, parameters, d)) continue;
    try {
      const LayoutNow now = layout_now(config, layout, parameters);
      if (!now.shape) d.warning(layout.where, "layout-unset", waiting_text(now));
    } catch (const Error& e) {
      d.error(layout.where, e.what());
    }
  }
}

// Asymmetric dedicated cores: one role per core, and someone must store the blocks.
void check_roles(const Architecture& a, Diagnostics& d) {
  if (a.roles_where.line == 0) return;
  const auto count = static_cast<int>(a.roles.size());
  if (count != a.dedicated_cores) {
    d.error(a.roles_where, "<dedicated roles> names " + std::to_string(count) +
                               " role(s) for cores=\"" + std::to_string(a.dedicated_cores) +
                               "\"; give one role per dedicated core, e.g. roles=\"store "
                               "analysis\" with cores=\"2\".");
    return;
  }
  const auto stores = std::count(a.roles.begin(), a.roles.end(), ServerRole::Store);
  if (stores > 0 && 2 * stores < count) {
    d.error(a.roles_where, "<dedicated roles> has " + std::to_string(count - stores) +
                               " 'analysis' core(s) for " + std::to_string(stores) +
                               " 'store' core(s); each analysis core is fed by its own storing "
                               "cores, so give at least as many 'store' as 'analysis'.");
  }
  if (stores == 0) {
    d.error(a.roles_where,
            "<dedicated roles> has no 'store' role: nothing would write the "
            "blocks; make at least one dedicated core 'store'.");
  }
}

void check_architecture(const Config& config, Diagnostics& d) {
  const Architecture& a = config.architecture;
  if (a.dedicated_cores > 0 && a.dedicated_nodes > 0) {
    d.error(a.dedicated_where, "<dedicated> asks for both cores=\"" +
                                   std::to_string(a.dedicated_cores) + "\" and nodes=\"" +
                                   std::to_string(a.dedicated_nodes) +
                                   "\"; choose one approach: set the other to 0.");
  }
  check_roles(a, d);
}

void check_energy(const Config& config, Diagnostics& d) {
  const EnergyConfig& e = config.energy;
  if (e.model_given && e.max_watts < e.idle_watts) {
    char text[160];
    std::snprintf(text, sizeof text, "<model> has max-watts=%g below idle-watts=%g", e.max_watts,
                  e.idle_watts);
    d.error(e.model_where,
            std::string(text) + "; the power at full load must be at least the idle power.");
  }
}

// An iteration action runs on the writers at the end of every N-th iteration: signal-only
// attributes are refused rather than ignored, and `every` means nothing to a signal.
void check_event_kind(const Event& e, Diagnostics& d) {
  if (e.kind == EventKind::Signal) {
    if (e.every > 0) {
      d.error(e.where, "event '" + e.name +
                           "' has every= but is run by signals; add kind=\"iteration\" to run it "
                           "every N-th iteration, or remove every=.");
    }
    return;
  }
  if (e.execution != EventExecution::Remote || e.scope != EventScope::Core) {
    d.error(e.where, "event '" + e.name +
                         "' has kind=\"iteration\": it runs on every writer (the servers in DC "
                         "and DN, the clients in TP); remove execution= and scope=.");
  }
}

void check_events(const Config& config, Diagnostics& d) {
  for (const Event& e : config.events) {
    if (e.action.empty()) {
      d.error(e.where, "event '" + e.name + "' has an empty action; name the function to call.");
    }
    check_event_kind(e, d);
  }
}

// A FileName without {iteration}: each iteration's file replaces the last one's. Said here, so
// that ecluse-check says it too (it was said only when the store was made).
void check_single_file_stores(const Config& config, Diagnostics& d) {
  const StoreKind* hdf5 = find_store_kind("HDF5");
  for (const Store& store : config.stores) {
    if (!store.enabled || hdf5 == nullptr || find_store_kind(store.type) != hdf5) continue;
    const std::string file_name = option_or_default(store, *hdf5, "FileName");
    // "": the mode's default name, with {iteration}.
    if (file_name.empty() || file_name.find("{iteration}") != std::string::npos) continue;
    const std::string xdmf = option_or_default(store, *hdf5, "XDMFMode");
    d.warning(store.where, "single-file",
              "store '" + store.name + "': FileName '" + file_name +
                  "' has no {iteration}: each iteration's file replaces the previous one's, and "
                  "only the last iteration stays on disk" +
                  (xdmf == "EveryIteration" ? " (and XDMFMode=EveryIteration describes every "
                                              "iteration with the last one's data)"
                                            : std::string()) +
                  "; add {iteration} to keep them all");
  }
}

}  // namespace

void validate_config(Config& config, Diagnostics& d) {
  config.index_names();
  check_unique(config.layouts, "layout", d);
  check_unique(config.variables, "variable", d);
  check_unique(config.meshes, "mesh", d);
  check_unique(config.stores, "store", d);
  check_unique(config.events, "event", d);
  check_unique(config.scripts, "pyscript", d);
  { const Parameters values(config, d); }
  add_type_layouts(config);
  config.index_names();
  drop_damaris_meshes_with_undefined_variables(config, d);
  config.index_names();
  for (auto& v : config.variables) check_variable(v, config, d);
  for (auto& v : config.variables) {
    if (!v.select_file.empty()) check_variable_selection(v, config, d);
  }
  for (auto& mesh : config.meshes) check_mesh(mesh, config, d);
  check_layouts(config, d);
  check_unstored(config, d);
  check_unread(config, d);
  check_architecture(config, d);
  check_single_file_stores(config, d);
  check_events(config, d);
  check_scripts(config, d);
  check_energy(config, d);
}

}  // namespace ecluse
