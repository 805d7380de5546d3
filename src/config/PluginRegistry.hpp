// One registry pattern for every plugin family: the table of config/ (name, description, typed
// options) with the factory each layer above attaches to it, in the table's order.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "config/PluginSpec.hpp"

namespace ecluse {

template <class Factory>
class PluginRegistry {
 public:
  struct Entry {
    const PluginSpec* spec;
    Factory make;  // empty for a plugin that was not built
  };

  /** Attaches each factory to the spec of the same name; a spec left without one is listed
   * but cannot be made. */
  PluginRegistry(const std::vector<PluginSpec>& specs,
                 const std::vector<std::pair<std::string_view, Factory>>& factories) {
    for (const PluginSpec& spec : specs) {
      Factory make{};
      for (const auto& [name, factory] : factories) {
        if (name == spec.name && spec.not_built.empty()) make = factory;
      }
      entries_.push_back({&spec, make});
    }
  }

  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }

  /** The entry of a spec of this family's table, or nullptr. */
  [[nodiscard]] const Entry* find(const PluginSpec& spec) const {
    for (const Entry& entry : entries_) {
      if (entry.spec == &spec) return &entry;
    }
    return nullptr;
  }

 private:
  std::vector<Entry> entries_;
};

}  // namespace ecluse
