// Integer expressions over parameters (+ - * / %, unary minus, parentheses) used in layouts.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ecluse {

/** A parse or evaluation error; offset is the 0-based position in the expression text. */
class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(std::size_t offset, const std::string& message)
      : std::runtime_error(message), offset_(offset) {}
  [[nodiscard]] std::size_t offset() const noexcept { return offset_; }

 private:
  std::size_t offset_;
};

/** Looks a parameter up by name; nullopt when it does not exist or is not an integer. */
using ParameterLookup = std::function<std::optional<std::int64_t>(std::string_view)>;

class Expression {
 public:
  struct Node;
  /** Throws ExpressionError on a syntax error. */
  static Expression parse(std::string_view text);
  /** Throws ExpressionError on an unknown name, a division or modulo by zero, an overflow. */
  [[nodiscard]] std::int64_t evaluate(const ParameterLookup& lookup) const;
  /** The parameter names used, in order of first appearance. */
  [[nodiscard]] std::vector<std::string> names() const;
  [[nodiscard]] const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

/** Splits "a, b ,c" at top-level commas; offsets of each piece are kept for messages. */
struct ListItem {
  std::string text;
  std::size_t offset;
};
std::vector<ListItem> split_list(std::string_view text, char separator);

}  // namespace ecluse
