// Current values of the configuration's parameters, as raw bytes of their declared types.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/Config.hpp"
#include "config/Diagnostics.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

class Parameters {
 public:
  /** Parses every declared value; bad values are recorded in `diagnostics`. */
  Parameters(const Config& config, Diagnostics& diagnostics);

  /** Integer value of a parameter, looked up in `scope` ("group/") first, then globally. */
  [[nodiscard]] std::optional<std::int64_t> integer(std::string_view name,
                                                    std::string_view scope = "") const;
  /** "parameter 'n' is V, above 9223372036854775807, the largest value a layout can use" for a
   * uint64 parameter a layout's signed 64-bit arithmetic cannot hold; "" otherwise. */
  [[nodiscard]] std::string layout_problem(std::string_view name,
                                           std::string_view scope = "") const;
  /** integer() in `scope`; throws ExpressionError for a value layout_problem() refuses. */
  [[nodiscard]] ParameterLookup lookup(std::string scope) const;
  /** Declared type of a parameter; throws ECLUSE_UNDEFINED_PARAMETER. */
  [[nodiscard]] DataType type_of(std::string_view name) const;
  /** Copies the value into buffer; size must be the type's size (strings: >= length + 1). */
  void get(std::string_view name, void* buffer, std::size_t size) const;
  /** Replaces the value; size must be the type's size (strings: any length). */
  void set(std::string_view name, const void* buffer, std::size_t size);
  /** The raw bytes of a value, for broadcasting or restoring. */
  [[nodiscard]] std::vector<unsigned char> raw(std::string_view name) const;
  void restore(std::string_view name, std::vector<unsigned char> bytes);

 private:
  struct Value {
    const Parameter* declaration;
    std::vector<unsigned char> bytes;
    bool valid;  // false: the declared value did not parse (reported); not usable in layouts
  };
  [[nodiscard]] const Value* find(std::string_view name, std::string_view scope) const;
  [[nodiscard]] const Value& declared(std::string_view name) const;
  Value& existing(std::string_view name);
  std::map<std::string, Value, std::less<>> values_;
};

/** Everything a store needs about a layout's shape, in C order. */
struct LayoutShape {
  std::vector<std::uint64_t> dims;
  std::vector<std::uint64_t> ghost_lo, ghost_hi;
  std::vector<std::uint64_t> global;  // empty when not declared
  std::uint64_t elements = 0;
};

/** A dimension (or global size) whose expression names parameters evaluates to 0: in a Damaris
 * file the parameters are often given their values with parameter_set after initialize, and
 * Damaris evaluates the layout only at the write. */
class UnsetDimension : public Error {
 public:
  /** `zero`: "layout 'l': dimension 1 \"n\" is 0 (n=0)". */
  explicit UnsetDimension(const std::string& zero)
      : Error(ECLUSE_INVALID_DIMENSIONS, zero + "; dimensions must be positive."), zero_(zero) {}
  [[nodiscard]] const std::string& zero() const noexcept { return zero_; }

 private:
  std::string zero_;
};

/** Evaluates a layout with current parameter values; throws Error(ECLUSE_INVALID_DIMENSIONS)
 * whose message names the layout, the dimension, the expression and the values used
 * (UnsetDimension when a parameter-dependent dimension is 0). */
LayoutShape evaluate_layout(const Layout& layout, const Parameters& parameters);

/** Whether an error of `layout` at initialize waits for the write: in a Damaris file, a layout
 * whose expressions name parameters, since Damaris evaluates a layout only at each write (its
 * BoxLayout) and programs give the parameters their values with parameter_set first (PDI's
 * example declares placeholders of 1 with ghosts 1:1). */
bool evaluated_at_write(const Config& config, const Layout& layout);

/** A layout's shape with the current parameter values, or why it waits for the writes (in a
 * Damaris file: a dimension 0 until parameter_set, `zero`; any error of a layout that is
 * evaluated_at_write). Other errors throw Error(ECLUSE_INVALID_DIMENSIONS). The one decision of
 * the validator, the clients and ecluse-check. */
struct LayoutNow {
  std::optional<LayoutShape> shape;
  std::string waiting;  // without a shape: "layout 'l': dimension 1 "n" is 0 (n=0)", or the error
  bool zero = false;
};
LayoutNow layout_now(const Config& config, const Layout& layout, const Parameters& parameters);

/** "group/" part of a full name ("" at top level). */
std::string scope_of(std::string_view full_name);

}  // namespace ecluse
