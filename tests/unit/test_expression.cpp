// Integer expressions of layouts: grammar, evaluation, exact error offsets and texts, lists.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/Expression.hpp"

namespace {

using ecluse::Expression;
using ecluse::ExpressionError;

std::int64_t eval(const std::string& text, const std::map<std::string, std::int64_t>& values = {}) {
  return Expression::parse(text).evaluate(
      [&](std::string_view name) -> std::optional<std::int64_t> {
        auto it = values.find(std::string(name));
        if (it == values.end()) return std::nullopt;
        return it->second;
      });
}

struct Failure {
  std::size_t offset;
  std::string message;
  bool operator==(const Failure& other) const = default;
};

std::ostream& operator<<(std::ostream& out, const Failure& f) {
  return out << "{" << f.offset << ", \"" << f.message << "\"}";
}

Failure parse_failure(const std::string& text) {
  try {
    (void)Expression::parse(text);
  } catch (const ExpressionError& e) {
    return {e.offset(), e.what()};
  }
  return {0, "no error"};
}

Failure eval_failure(const std::string& text,
                     const std::map<std::string, std::int64_t>& values = {}) {
  try {
    (void)eval(text, values);
  } catch (const ExpressionError& e) {
    return {e.offset(), e.what()};
  }
  return {0, "no error"};
}

TEST(Expression, MultiplicationBindsTighterThanAddition) {
  EXPECT_EQ(eval("2+3*4"), 14);
  EXPECT_EQ(eval("2*3+4"), 10);
  EXPECT_EQ(eval("20-6/3"), 18);
  EXPECT_EQ(eval("1+7%4"), 4);
}

TEST(Expression, OperatorsOfOneLevelAssociateToTheLeft) {
  EXPECT_EQ(eval("10-4-3"), 3);
  EXPECT_EQ(eval("100/10/5"), 2);
  EXPECT_EQ(eval("7%4*2"), 6);
  EXPECT_EQ(eval("2*7%4"), 2);
  EXPECT_EQ(eval("64/4*2"), 32);
}

TEST(Expression, ParenthesesOverridePrecedence) {
  EXPECT_EQ(eval("(2+3)*4"), 20);
  EXPECT_EQ(eval("10-(4-3)"), 9);
  EXPECT_EQ(eval("((((7))))"), 7);
  EXPECT_EQ(eval("(1+1)*(2+2)*(3+3)"), 48);
}

TEST(Expression, UnaryMinusAndPlus) {
  EXPECT_EQ(eval("-3*2"), -6);
  EXPECT_EQ(eval("2*-3"), -6);
  EXPECT_EQ(eval("--3"), 3);
  EXPECT_EQ(eval("2- -3"), 5);
  EXPECT_EQ(eval("-(2+3)"), -5);
  EXPECT_EQ(eval("+5"), 5);
  EXPECT_EQ(eval("-n", {{"n", 4}}), -4);
}

TEST(Expression, DivisionTruncatesTowardZero) {
  EXPECT_EQ(eval("7/2"), 3);
  EXPECT_EQ(eval("-7/2"), -3);
  EXPECT_EQ(eval("-7%3"), -1);
  EXPECT_EQ(eval("7%-3"), 1);
}

TEST(Expression, IgnoresWhitespace) {
  EXPECT_EQ(eval(" 1 +\t2 "), 3);
  EXPECT_EQ(eval("( WIDTH / size ) + 2", {{"WIDTH", 64}, {"size", 4}}), 18);
  EXPECT_EQ(eval("\n3\n*\n3\n"), 9);
}

TEST(Expression, ParametersAndDamarisStyleDivision) {
  const std::map<std::string, std::int64_t> values{{"WIDTH", 64}, {"size", 4}, {"HEIGHT", 16}};
  EXPECT_EQ(eval("WIDTH/size", values), 16);
  EXPECT_EQ(eval("WIDTH/size+1", values), 17);
  EXPECT_EQ(eval("HEIGHT+2*2", values), 20);
  EXPECT_EQ(eval("nz % 7 + (nz - nz % 7)", {{"nz", 10}}), 10);
  EXPECT_EQ(eval("_a1 * b_2", {{"_a1", 3}, {"b_2", 5}}), 15);
}

TEST(Expression, KeepsItsText) {
  EXPECT_EQ(Expression::parse("WIDTH / size").text(), "WIDTH / size");
}

TEST(Expression, ListsNamesInOrderOfFirstAppearance) {
  EXPECT_EQ(Expression::parse("WIDTH/size+WIDTH*HEIGHT-size").names(),
            (std::vector<std::string>{"WIDTH", "size", "HEIGHT"}));
  EXPECT_EQ(Expression::parse("-(a+(b*a))%c").names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(Expression::parse("1+2").names().empty());
}

TEST(ExpressionSyntax, ReportsEmptyExpressions) {
  EXPECT_EQ(parse_failure(""), (Failure{0, "empty expression"}));
  EXPECT_EQ(parse_failure("   "), (Failure{0, "empty expression"}));
}

TEST(ExpressionSyntax, ReportsATrailingOperatorAtTheEnd) {
  EXPECT_EQ(parse_failure("n*"), (Failure{2, "expression ends too early"}));
  EXPECT_EQ(parse_failure("1 + "), (Failure{4, "expression ends too early"}));
  EXPECT_EQ(parse_failure("-"), (Failure{1, "expression ends too early"}));
}

TEST(ExpressionSyntax, ReportsUnbalancedParentheses) {
  EXPECT_EQ(parse_failure("(1+2"), (Failure{0, "'(' is never closed"}));
  EXPECT_EQ(parse_failure("(n+1)*(n-1"), (Failure{6, "'(' is never closed"}));
  EXPECT_EQ(parse_failure("1+2)"), (Failure{3, "unexpected ')'"}));
  EXPECT_EQ(parse_failure("()"), (Failure{1, "unexpected ')'"}));
}

TEST(ExpressionSyntax, ReportsUnexpectedCharacters) {
  EXPECT_EQ(parse_failure("2^3"), (Failure{1, "unexpected '^'"}));
  EXPECT_EQ(parse_failure("n, n"), (Failure{1, "unexpected ','"}));
  EXPECT_EQ(parse_failure("1 2"), (Failure{2, "unexpected '2'"}));
  EXPECT_EQ(parse_failure("*3"), (Failure{0, "unexpected '*'"}));
  EXPECT_EQ(parse_failure("a.b"), (Failure{1, "unexpected '.'"}));
  EXPECT_EQ(parse_failure("4 $"), (Failure{2, "unexpected '$'"}));
}

TEST(ExpressionSyntax, ReportsNumbersTooLarge) {
  EXPECT_EQ(parse_failure("9223372036854775807"), (Failure{0, "no error"}));
  EXPECT_EQ(parse_failure("1+9223372036854775808"), (Failure{2, "number too large"}));
  EXPECT_EQ(parse_failure("99999999999999999999"), (Failure{0, "number too large"}));
}

TEST(ExpressionEvaluation, ReportsUnknownParameters) {
  EXPECT_EQ(eval_failure("1 + nx", {{"ny", 1}}), (Failure{4, "unknown parameter 'nx'"}));
}

TEST(ExpressionEvaluation, ReportsDivisionAndModuloByZero) {
  EXPECT_EQ(eval_failure("WIDTH/procs", {{"WIDTH", 64}, {"procs", 0}}),
            (Failure{5, "division by zero"}));
  EXPECT_EQ(eval_failure("1 + n % m", {{"n", 10}, {"m", 0}}), (Failure{6, "modulo by zero"}));
  EXPECT_EQ(eval_failure("1/(2-2)"), (Failure{1, "division by zero"}));
}

TEST(ExpressionEvaluation, DetectsOverflow) {
  EXPECT_EQ(eval("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(eval("-9223372036854775807-1"), INT64_MIN);
  EXPECT_EQ(eval_failure("9223372036854775807+1"), (Failure{19, "integer overflow"}));
  EXPECT_EQ(eval_failure("-9223372036854775807-2"), (Failure{20, "integer overflow"}));
  EXPECT_EQ(eval_failure("3037000500*3037000500"), (Failure{10, "integer overflow"}));
  EXPECT_EQ(eval_failure("big*big*big", {{"big", 4000000000}}), (Failure{3, "integer overflow"}));
  EXPECT_EQ(eval_failure("-(-9223372036854775807-1)"), (Failure{0, "integer overflow"}));
  EXPECT_EQ(eval_failure("(-9223372036854775807-1)/-1"), (Failure{24, "integer overflow"}));
  EXPECT_EQ(eval_failure("(-9223372036854775807-1)%-1"), (Failure{24, "integer overflow"}));
}

TEST(SplitList, KeepsPiecesAndTheirOffsets) {
  const auto items = ecluse::split_list("a, b ,c", ',');
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].text, "a");
  EXPECT_EQ(items[0].offset, 0u);
  EXPECT_EQ(items[1].text, " b ");
  EXPECT_EQ(items[1].offset, 2u);
  EXPECT_EQ(items[2].text, "c");
  EXPECT_EQ(items[2].offset, 6u);
}

TEST(SplitList, KeepsEmptyPieces) {
  const auto empty = ecluse::split_list("", ',');
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].text, "");
  const auto items = ecluse::split_list("4,,4,", ',');
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[1].text, "");
  EXPECT_EQ(items[1].offset, 2u);
  EXPECT_EQ(items[3].text, "");
  EXPECT_EQ(items[3].offset, 5u);
}

TEST(SplitList, SplitsOnTheGivenSeparator) {
  const auto items = ecluse::split_list("1:2", ':');
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].text, "1");
  EXPECT_EQ(items[1].text, "2");
  EXPECT_EQ(items[1].offset, 2u);
}

}  // namespace
