// Recursive-descent parser and evaluator of layout dimension expressions.
#include "config/Expression.hpp"

#include "config/Limits.hpp"

#include <cctype>
#include <limits>

namespace ecluse {

struct Expression::Node {
  char op = 0;  // 'n' number, 'p' parameter, 'u' unary minus, or + - * / %
  std::int64_t number = 0;
  std::string name;
  std::size_t offset = 0;
  std::shared_ptr<const Node> lhs, rhs;
};

namespace {

using NodePtr = std::shared_ptr<const Expression::Node>;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  NodePtr parse_all() {
    if (text_.size() > limits::kExpressionLength) {
      throw ExpressionError(limits::kExpressionLength,
                            "expression of " + std::to_string(text_.size()) +
                                " characters; the limit is " +
                                std::to_string(limits::kExpressionLength) +
                                " (use a parameter for long sub-expressions)");
    }
    skip_spaces();
    if (pos_ == text_.size()) throw ExpressionError(0, "empty expression");
    NodePtr node = sum();
    skip_spaces();
    if (pos_ != text_.size()) {
      throw ExpressionError(pos_, "unexpected '" + std::string(1, text_[pos_]) + "'");
    }
    return node;
  }

 private:
  NodePtr sum() {
    NodePtr node = product();
    while (peek('+') || peek('-')) node = binary(node, &Parser::product);
    return node;
  }

  NodePtr product() {
    NodePtr node = unary();
    while (peek('*') || peek('/') || peek('%')) node = binary(node, &Parser::unary);
    return node;
  }

  NodePtr binary(NodePtr lhs, NodePtr (Parser::*next)()) {
    auto node = std::make_shared<Expression::Node>();
    node->offset = pos_;
    node->op = text_[pos_++];
    node->lhs = std::move(lhs);
    node->rhs = (this->*next)();
    return node;
  }

  // Nesting (parentheses, unary signs) is bounded so that no input can exhaust the stack.
  class Deeper {
   public:
    Deeper(Parser& parser) : parser_(parser) {
      if (++parser_.depth_ > limits::kExpressionDepth) {
        throw ExpressionError(parser_.pos_, "more than " +
                                                std::to_string(limits::kExpressionDepth) +
                                                " nested parentheses or signs");
      }
    }
    ~Deeper() { --parser_.depth_; }
    Deeper(const Deeper&) = delete;
    Deeper& operator=(const Deeper&) = delete;

   private:
    Parser& parser_;
  };

  NodePtr unary() {
    if (!peek('+') && !peek('-')) return primary();
    const Deeper deeper(*this);
    if (peek('+')) {
      ++pos_;
      return unary();
    }
    auto node = std::make_shared<Expression::Node>();
    node->offset = pos_++;
    node->op = 'u';
    node->lhs = unary();
    return node;
  }

  NodePtr primary() {
    skip_spaces();
    if (pos_ == text_.size()) throw ExpressionError(pos_, "expression ends too early");
    const char c = text_[pos_];
    if (c == '(') return parenthesised();
    if (std::isdigit(static_cast<unsigned char>(c))) return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return parameter();
    throw ExpressionError(pos_, "unexpected '" + std::string(1, c) + "'");
  }

  NodePtr parenthesised() {
    const Deeper deeper(*this);
    const std::size_t open = pos_++;
    NodePtr node = sum();
    if (!peek(')')) throw ExpressionError(open, "'(' is never closed");
    ++pos_;
    return node;
  }

  NodePtr number() {
    auto node = std::make_shared<Expression::Node>();
    node->op = 'n';
    node->offset = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      const auto digit = static_cast<std::int64_t>(text_[pos_++] - '0');
      if (node->number > (std::numeric_limits<std::int64_t>::max() - digit) / 10) {
        throw ExpressionError(node->offset, "number too large");
      }
      node->number = node->number * 10 + digit;
    }
    return node;
  }

  NodePtr parameter() {
    auto node = std::make_shared<Expression::Node>();
    node->op = 'p';
    node->offset = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) node->name += text_[pos_++];
    return node;
  }

  static bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  }

  bool peek(char c) {
    skip_spaces();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t depth_ = 0;
};

std::int64_t arithmetic(const Expression::Node& node, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  bool overflow = false;
  if (node.op == '+') overflow = __builtin_add_overflow(a, b, &r);
  if (node.op == '-') overflow = __builtin_sub_overflow(a, b, &r);
  if (node.op == '*') overflow = __builtin_mul_overflow(a, b, &r);
  if (overflow) throw ExpressionError(node.offset, "integer overflow");
  return r;
}

std::int64_t apply(const Expression::Node& node, std::int64_t a, std::int64_t b) {
  if (node.op == '+' || node.op == '-' || node.op == '*') return arithmetic(node, a, b);
  if (b == 0) {
    throw ExpressionError(node.offset, node.op == '/' ? "division by zero" : "modulo by zero");
  }
  if (a == std::numeric_limits<std::int64_t>::min() && b == -1) {
    throw ExpressionError(node.offset, "integer overflow");
  }
  return node.op == '/' ? a / b : a % b;
}

std::int64_t eval(const Expression::Node& node, const ParameterLookup& lookup) {
  switch (node.op) {
    case 'n':
      return node.number;
    case 'u': {
      const std::int64_t value = eval(*node.lhs, lookup);
      if (value == std::numeric_limits<std::int64_t>::min()) {
        throw ExpressionError(node.offset, "integer overflow");
      }
      return -value;
    }
    case 'p': {
      auto value = lookup(node.name);
      if (!value) throw ExpressionError(node.offset, "unknown parameter '" + node.name + "'");
      return *value;
    }
    default:
      return apply(node, eval(*node.lhs, lookup), eval(*node.rhs, lookup));
  }
}

void collect(const Expression::Node& node, std::vector<std::string>& out) {
  if (node.op == 'p') {
    for (const auto& seen : out) {
      if (seen == node.name) return;
    }
    out.push_back(node.name);
  }
  if (node.lhs) collect(*node.lhs, out);
  if (node.rhs) collect(*node.rhs, out);
}

}  // namespace

Expression Expression::parse(std::string_view text) {
  Expression expr;
  expr.text_ = std::string(text);
  expr.root_ = Parser(text).parse_all();
  return expr;
}

std::int64_t Expression::evaluate(const ParameterLookup& lookup) const {
  return eval(*root_, lookup);
}

std::vector<std::string> Expression::names() const {
  std::vector<std::string> out;
  collect(*root_, out);
  return out;
}

std::vector<ListItem> split_list(std::string_view text, char separator) {
  std::vector<ListItem> items;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == separator) {
      items.push_back({std::string(text.substr(start, i - start)), start});
      start = i + 1;
    }
  }
  return items;
}

}  // namespace ecluse
