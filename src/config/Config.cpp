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

}  // namespace

const Parameter* Config::find_parameter(std::string_view name) const {
  return find_named(parameters, name);
}
const Layout* Config::find_layout(std::string_view name) const {
  return find_named(layouts, name);
}
const Variable* Config::find_variable(std::string_view name) const {
  return find_named(variables, name);
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
  return find_named(meshes, name);
}
const PyScript* Config::find_script(std::string_view name) const {
  return find_named(scripts, name);
}

std::string to_string(const SourceLocation& where) {
  return where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
}

}  // namespace ecluse
