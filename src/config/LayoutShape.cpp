// Evaluation of a layout's dimension, ghost and global expressions into a C-order shape.
#include <algorithm>

#include "config/Parameters.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

// "?" for a name without a value, or with one the lookup refuses (said by the error itself).
std::string value_text(const std::string& name, const ParameterLookup& lookup) {
  try {
    const auto value = lookup(name);
    return value ? std::to_string(*value) : "?";
  } catch (const ExpressionError&) {
    return "?";
  }
}

std::string values_used(const Expression& e, const ParameterLookup& lookup) {
  std::string out;
  for (const auto& name : e.names()) {
    out += (out.empty() ? "" : ", ") + name + "=" + value_text(name, lookup);
  }
  return out.empty() ? "" : " (" + out + ")";
}

std::string count_of(std::size_t dimensions) {
  return std::to_string(dimensions) + (dimensions == 1 ? " dimension" : " dimensions");
}

[[noreturn]] void fail(const Layout& layout, const std::string& what) {
  throw Error(ECLUSE_INVALID_DIMENSIONS, "layout '" + layout.name + "': " + what);
}

std::int64_t evaluate(const Layout& layout, const std::string& part, const Expression& e,
                      const ParameterLookup& lookup) {
  try {
    return e.evaluate(lookup);
  } catch (const ExpressionError& error) {
    fail(layout, part + " \"" + e.text() + "\": " + error.what() + values_used(e, lookup) +
                     "; change the parameter values or the expression.");
  }
}

std::uint64_t positive(const Layout& layout, const std::string& part, const Expression& e,
                       const ParameterLookup& lookup) {
  const std::int64_t value = evaluate(layout, part, e, lookup);
  if (value <= 0) {
    const std::string what =
        part + " \"" + e.text() + "\" is " + std::to_string(value) + values_used(e, lookup);
    if (value == 0 && !e.names().empty())
      throw UnsetDimension("layout '" + layout.name + "': " + what);
    fail(layout, what + "; dimensions must be positive.");
  }
  return static_cast<std::uint64_t>(value);
}

void evaluate_ghosts(const Layout& layout, const ParameterLookup& lookup, LayoutShape& shape) {
  if (layout.ghosts.empty()) {
    shape.ghost_lo.assign(shape.dims.size(), 0);
    shape.ghost_hi.assign(shape.dims.size(), 0);
    return;
  }
  if (layout.ghosts.size() != shape.dims.size()) {
    fail(layout, "ghosts are given for " + count_of(layout.ghosts.size()) + " but the layout has " +
                     std::to_string(shape.dims.size()) + "; give low:high for every dimension.");
  }
  for (std::size_t i = 0; i < layout.ghosts.size(); ++i) {
    const std::string part = "ghosts of dimension " + std::to_string(i + 1);
    const std::int64_t lo = evaluate(layout, part, layout.ghosts[i].first, lookup);
    const std::int64_t hi = evaluate(layout, part, layout.ghosts[i].second, lookup);
    const auto dim = shape.dims[i];
    if (lo < 0 || hi < 0 || static_cast<std::uint64_t>(lo) >= dim ||
        static_cast<std::uint64_t>(hi) >= dim - static_cast<std::uint64_t>(lo)) {
      fail(layout, part + " are " + std::to_string(lo) + ":" + std::to_string(hi) +
                       " for a dimension of " + std::to_string(shape.dims[i]) +
                       "; ghosts must be >= 0 and leave at least one interior cell.");
    }
    shape.ghost_lo.push_back(static_cast<std::uint64_t>(lo));
    shape.ghost_hi.push_back(static_cast<std::uint64_t>(hi));
  }
}

void evaluate_global(const Layout& layout, const ParameterLookup& lookup, LayoutShape& shape) {
  if (layout.global.empty()) return;
  if (layout.global.size() != shape.dims.size()) {
    fail(layout, "global sizes are given for " + count_of(layout.global.size()) +
                     " but the layout has " + std::to_string(shape.dims.size()) +
                     "; give one global size per dimension or global=\"#\".");
  }
  for (std::size_t i = 0; i < layout.global.size(); ++i) {
    const std::string part = "global dimension " + std::to_string(i + 1);
    shape.global.push_back(positive(layout, part, layout.global[i], lookup));
  }
}

}  // namespace

bool evaluated_at_write(const Config& config, const Layout& layout) {
  if (config.dialect != Dialect::Damaris) return false;
  auto named = [](const Expression& e) { return !e.names().empty(); };
  const bool ghosts = std::any_of(layout.ghosts.begin(), layout.ghosts.end(),
                                  [&](const auto& g) { return named(g.first) || named(g.second); });
  return ghosts || std::any_of(layout.dimensions.begin(), layout.dimensions.end(), named) ||
         std::any_of(layout.global.begin(), layout.global.end(), named);
}

LayoutNow layout_now(const Config& config, const Layout& layout, const Parameters& parameters) {
  try {
    return {evaluate_layout(layout, parameters), "", false};
  } catch (const UnsetDimension& e) {
    if (config.dialect != Dialect::Damaris) throw;
    return {std::nullopt, e.zero(), true};
  } catch (const Error& e) {
    if (!evaluated_at_write(config, layout)) throw;
    return {std::nullopt, e.what(), false};
  }
}

LayoutShape evaluate_layout(const Layout& layout, const Parameters& parameters) {
  const ParameterLookup lookup = parameters.lookup(scope_of(layout.name));
  LayoutShape shape;
  shape.elements = 1;
  for (std::size_t i = 0; i < layout.dimensions.size(); ++i) {
    const std::string part = "dimension " + std::to_string(i + 1);
    shape.dims.push_back(positive(layout, part, layout.dimensions[i], lookup));
    if (__builtin_mul_overflow(shape.elements, shape.dims.back(), &shape.elements)) {
      fail(layout, "the number of elements does not fit in 64 bits; make the dimensions smaller.");
    }
  }
  // Every size a block goes through (buffers, H5Dwrite) is bytes: they must fit too.
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(shape.elements, std::uint64_t{data_type_size(layout.type)}, &bytes)) {
    fail(layout, "its size in bytes (" + std::to_string(shape.elements) + " elements of " +
                     std::to_string(data_type_size(layout.type)) +
                     " bytes) does not fit in 64 bits; make the dimensions smaller.");
  }
  evaluate_ghosts(layout, lookup, shape);
  evaluate_global(layout, lookup, shape);
  if (layout.fortran) {
    std::reverse(shape.dims.begin(), shape.dims.end());
    std::reverse(shape.ghost_lo.begin(), shape.ghost_lo.end());
    std::reverse(shape.ghost_hi.begin(), shape.ghost_hi.end());
    std::reverse(shape.global.begin(), shape.global.end());
  }
  return shape;
}

}  // namespace ecluse
