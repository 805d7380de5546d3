// Look-ups in the configuration model.
#include "config/Config.hpp"

#include <algorithm>

#include "config/Suggest.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

template <class T>
const T* find_named(const std::vector<T>& items, std::string_view name) {
  auto it = std::find_if(items.begin(), items.end(), [&](const T& x) { return x.name == name; });
  return it == items.end() ? nullptr : &*it;
}

template <class T>
const T* find_indexed(const std::vector<T>& items, const NamePositions& positions,
                      std::string_view name) {
  if (auto it = positions.find(name); it != positions.end()) {
    if (it->second < items.size() && items[it->second].name == name) return &items[it->second];
  }
  return find_named(items, name);  // not there (an error), or the list changed since
}

template <class T>
NamePositions positions_of(const std::vector<T>& items) {
  NamePositions positions;
  positions.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) positions.emplace(items[i].name, i);  // first
  return positions;
}

}  // namespace

void Config::index_names() {
  variable_positions_ = positions_of(variables);
  layout_positions_ = positions_of(layouts);
  parameter_positions_ = positions_of(parameters);
  mesh_positions_ = positions_of(meshes);
}

bool Config::indexed(Named kind, std::string_view name) const {
  switch (kind) {
    case Named::Variable:
      return variable_positions_.contains(name);
    case Named::Layout:
      return layout_positions_.contains(name);
    case Named::Parameter:
      return parameter_positions_.contains(name);
    case Named::Mesh:
      return mesh_positions_.contains(name);
  }
  return false;
}

const Parameter* Config::find_parameter(std::string_view name) const {
  return find_indexed(parameters, parameter_positions_, name);
}
const Layout* Config::find_layout(std::string_view name) const {
  return find_indexed(layouts, layout_positions_, name);
}
const Variable* Config::find_variable(std::string_view name) const {
  return find_indexed(variables, variable_positions_, name);
}
const Variable& Config::declared_variable(std::string_view name) const {
  if (const Variable* v = find_variable(name)) return *v;
  throw Error(ECLUSE_UNDEFINED_VARIABLE, "variable '" + std::string(name) +
                                             "' is not declared in " + source +
                                             did_you_mean_or_period(name, names_of(variables)) +
                                             " Declare it with <variable name=\"" +
                                             std::string(name) + "\" layout=\"...\"/>.");
}
const Store* Config::find_store(std::string_view name) const {
  return find_named(stores, name);
}
const Event* Config::find_event(std::string_view name) const {
  return find_named(events, name);
}
const Mesh* Config::find_mesh(std::string_view name) const {
  return find_indexed(meshes, mesh_positions_, name);
}
const PyScript* Config::find_script(std::string_view name) const {
  return find_named(scripts, name);
}

std::string to_string(const SourceLocation& where) {
  return where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
}

std::string place_prefix(const SourceLocation& where) {
  return where.line > 0 ? to_string(where) + ": " : "";
}

bool store_takes(const Store& store, const Variable& variable, int iteration) {
  if (iteration % store.frequency != 0 && variable.time_varying) return false;
  if (variable.every_store) return true;
  return std::find(variable.stores.begin(), variable.stores.end(), store.name) !=
         variable.stores.end();
}

bool read_beside_stores(const Config& config, const Variable& variable) {
  if (!variable.scripts.empty()) return true;
  const auto plugin = [](const Event& e) { return e.kind == EventKind::Iteration; };
  if (std::any_of(config.events.begin(), config.events.end(), plugin)) return true;
  const auto indexes = [&](const Variable& v) { return v.select_file == variable.name; };
  return std::any_of(config.variables.begin(), config.variables.end(), indexes);
}

bool block_wanted(const Config& config, const Variable& variable, int iteration) {
  if (!variable.time_varying || read_beside_stores(config, variable)) return true;
  return std::any_of(config.stores.begin(), config.stores.end(), [&](const Store& s) {
    return s.enabled && store_takes(s, variable, iteration);
  });
}

}  // namespace ecluse
