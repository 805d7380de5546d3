// The Collective store's messages about blocks that cannot share a dataset.
#include "store/CollectiveMessages.hpp"

#include <algorithm>

#include "config/ApiNames.hpp"
#include "core/SysfsFiles.hpp"
#include "store/Hdf5Support.hpp"

namespace ecluse {

namespace {

const Layout* layout_of(const Config* config, const Variable* variable) {
  if (config == nullptr || variable == nullptr) return nullptr;
  return config->find_layout(variable->layout);
}

/** "a", "a and b", "a, b and c" */
std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  }
  return text;
}

/** The expression of global dimension `d` in C order (a Fortran layout's are reversed). */
const Expression* global_expression(const Layout& layout, std::size_t d) {
  const std::size_t n = layout.global.size();
  if (d >= n) return nullptr;
  return &layout.global[layout.fortran ? n - 1 - d : d];
}

/** "parameter NZ = 4", or "'2 * NX' = 10 (parameter NX)"; "" for a constant dimension. The
 * value is the block's: the one its client evaluated. */
std::string dimension_source(const Expression& expression, std::uint64_t value) {
  const std::vector<std::string> names = expression.names();
  if (names.empty()) return "";
  const std::string text = trim(expression.text());
  if (names.size() == 1 && text == names[0]) {
    return "parameter " + names[0] + " = " + std::to_string(value);
  }
  return "'" + text + "' = " + std::to_string(value) + " (parameter" +
         (names.size() > 1 ? "s " : " ") + joined(names) + ")";
}

/** The global dimensions the block passes the end of that come from parameters: a parameter
 * not yet set, or set on some clients only, is the usual cause. */
std::vector<std::string> exceeded_sources(const BlockData& block,
                                          const std::vector<std::int64_t>& position,
                                          const Layout& layout) {
  const auto interior = block.interior();
  std::vector<std::string> sources;
  if (block.global.size() != interior.size() || position.size() != interior.size()) return sources;
  for (std::size_t d = 0; d < interior.size(); ++d) {
    const bool past =
        position[d] >= 0 && static_cast<std::uint64_t>(position[d]) + interior[d] > block.global[d];
    const Expression* expression = global_expression(layout, d);
    if (!past || expression == nullptr) continue;
    std::string source = dimension_source(*expression, block.global[d]);
    if (!source.empty() && std::find(sources.begin(), sources.end(), source) == sources.end()) {
      sources.push_back(std::move(source));
    }
  }
  return sources;
}

std::string parameters_question(const std::vector<std::string>& sources,
                                const CollectiveContext& c) {
  if (sources.empty()) return "";
  const bool several = sources.size() > 1;
  return "The global extent comes from " + joined(sources) + " as that client evaluated " +
         (several ? "them: were they" : "it: was it") + " set with " + c.call("parameter_set") +
         " on every client before the writes? ";
}

/** The parameters the layout of `variable` computes its global extent from. */
std::vector<std::string> global_parameters(const Config* config, const std::string& variable) {
  const Variable* v = config == nullptr ? nullptr : config->find_variable(variable);
  const Layout* layout = layout_of(config, v);
  std::vector<std::string> names;
  if (layout == nullptr) return names;
  for (const Expression& e : layout->global) {
    for (const std::string& name : e.names()) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

std::string origin_of(const BlockOrigin& b) {
  return "block " + std::to_string(b.block) + " from source " + std::to_string(b.source);
}

std::string shape_of(const BlockOrigin& b) {
  if (b.declared.empty()) {
    return std::to_string(b.rank) + " dimension(s) and no declared global extent";
  }
  return "global extent " + format_extent(b.declared);
}

}  // namespace

std::string CollectiveContext::call(std::string_view name) const {
  return api_call(config == nullptr ? Dialect::Ecluse : config->dialect, name);
}

std::string variable_error_prefix(const std::string& store, const std::string& variable) {
  return "store '" + store + "': variable '" + variable + "'";
}

std::string outside_extent_message(const BlockData& block,
                                   const std::vector<std::int64_t>& position,
                                   const CollectiveContext& c) {
  const Layout* layout = layout_of(c.config, block.variable);
  std::string text = "store '" + c.store + "': block " + std::to_string(block.block) +
                     " of variable '" + block.variable->name + "' from source " +
                     std::to_string(block.source) + " at position " + format_extent(position) +
                     " with interior extent " + format_extent(block.interior()) +
                     " lies outside the global extent " + format_extent(block.global);
  if (layout != nullptr && layout->fortran) {
    text +=
        " (in C order, as the file holds them: its language=\"fortran\" layout's dimensions "
        "and positions reversed)";
  }
  text += ". ";
  if (layout != nullptr) text += parameters_question(exceeded_sources(block, position, *layout), c);
  return text + "Fix: check the positions given to " + c.call("set_position") +
         " and the layout's global dimensions";
}

std::string index_outside_message(const BlockData& block, std::uint64_t element, std::int64_t index,
                                  const CollectiveContext& c) {
  const std::string& name = block.variable->select_file;
  std::string text =
      "element " + std::to_string(element) + " has index " + std::to_string(index) + " in '" +
      name + "', outside the dataset " +
      (block.global.empty() ? std::string("(negative)") : format_extent(block.global)) + ". ";
  const Layout* layout = layout_of(c.config, block.variable);
  const Expression* global = layout == nullptr ? nullptr : global_expression(*layout, 0);
  if (index >= 0 && global != nullptr && !block.global.empty()) {
    const std::string source = dimension_source(*global, block.global[0]);
    if (!source.empty()) text += parameters_question({source}, c);
  }
  return text + "Fix: the values of '" + name +
         "' must lie in 0..global size - 1 (the layout's global dimension)";
}

std::string different_datasets_message(const std::string& variable, const BlockOrigin& first,
                                       const BlockOrigin& other, const CollectiveContext& c) {
  const std::vector<std::string> parameters = global_parameters(c.config, variable);
  const std::string from =
      parameters.empty() ? ""
                         : std::string(" (its layout's global extent comes from parameter") +
                               (parameters.size() > 1 ? "s " : " ") + joined(parameters) + ")";
  return variable_error_prefix(c.store, variable) + " at iteration " + std::to_string(c.iteration) +
         ": " + origin_of(other) + " has " + shape_of(other) + ", " + origin_of(first) + " has " +
         shape_of(first) +
         "; the blocks of one iteration must agree on them. Likely causes: a client out of step "
         "(one that skipped one " +
         c.call("end_iteration") +
         " sends its next iteration's blocks as this one's), or a global dimension set "
         "differently on different clients" +
         from + ". Fix: call " + c.call("end_iteration") +
         " once per iteration on every client, and give every client the same global "
         "dimensions (" +
         c.call("parameter_set") + " with the same values on all of them, before the writes)";
}

}  // namespace ecluse
