// Bounded configuration input (docs/reliability.md): files, nesting, expressions and error
// lists beyond the limits of config/Limits.hpp are refused with a message, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "config/ConfigLoader.hpp"
#include "config/Limits.hpp"
#include "ecluse/Error.hpp"

namespace {

namespace limits = ecluse::limits;

std::string with_data(const std::string& data) {
  return "<simulation name=\"x\" xmlns=\"urn:ecluse:config:1\"><architecture>"
         "<domains count=\"1\"/><dedicated cores=\"0\" nodes=\"0\"/></architecture><data>" +
         data + "</data></simulation>";
}

std::string with_dimensions(const std::string& expression) {
  return with_data("<layout name=\"l\" type=\"int\" dimensions=\"" + expression + "\"/>");
}

std::string repeat(const std::string& text, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += text;
  return out;
}

/** The message of the configuration error parse_config throws ("" if it accepts the text). */
std::string error_of(const std::string& text) {
  try {
    (void)ecluse::parse_config("c.xml", text);
  } catch (const ecluse::Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
    return e.what();
  }
  return "";
}

TEST(ConfigLimits, DeepGroupsAreRefusedWithTheirPlace) {
  const std::string text =
      with_data(repeat("<group name=\"g\">", 10000) + repeat("</group>", 10000));
  // <simulation> is depth 1, <data> 2: the 63rd group is the first element too deep.
  const std::size_t column = text.find("<group") + 1 + 16 * 62;
  EXPECT_EQ(error_of(text), "c.xml:1:" + std::to_string(column) +
                                ": <group> is nested 65 elements deep; the limit is 64: flatten "
                                "the groups.");
}

TEST(ConfigLimits, GroupsWithinTheLimitAreRead) {
  EXPECT_EQ(error_of(with_data(repeat("<group name=\"g\">", 60) +
                               "<layout name=\"l\" type=\"int\" dimensions=\"4\"/>" +
                               repeat("</group>", 60))),
            "");
}

TEST(ConfigLimits, NestedParenthesesAndSignsAreBounded) {
  for (const std::string& expression :
       {repeat("(", 65) + "4" + repeat(")", 65), repeat("-", 65) + "4",
        "-(" + repeat("+(", 40) + "4" + repeat(")", 41)}) {
    const std::string message = error_of(with_dimensions(expression));
    EXPECT_NE(message.find("\": more than 64 nested parentheses or signs; write integer "
                           "expressions"),
              std::string::npos)
        << message;
  }
  EXPECT_EQ(error_of(with_dimensions(repeat("(", 64) + "4" + repeat(")", 64))), "");
  EXPECT_EQ(error_of(with_dimensions(repeat("-", 64) + "4")), "");
  // Beyond the length limit, the length is what is refused (30,000 parentheses, 100,000 signs).
  for (const std::string& expression :
       {repeat("(", 30000) + "4" + repeat(")", 30000), repeat("-", 100000) + "4"}) {
    const std::string message = error_of(with_dimensions(expression));
    EXPECT_NE(message.find("characters; the limit is 1024"), std::string::npos);
  }
}

TEST(ConfigLimits, LongExpressionsAreRefused) {
  std::string sum = "1";
  for (int i = 1; i < 70000; ++i) sum += "+1";
  const std::string message = error_of(with_dimensions(sum));
  EXPECT_NE(message.find("expression of 139999 characters; the limit is 1024 (use a parameter "
                         "for long sub-expressions)"),
            std::string::npos)
      << message;
}

TEST(ConfigLimits, HugeTextAndEndlessFilesAreRefusedUnread) {
  const std::string big(limits::kConfigBytes + 1, ' ');
  EXPECT_EQ(error_of(big),
            "c.xml: the configuration is larger than 16 MiB (at least 16777217 "
            "bytes); a configuration describes data, it does not hold it: check "
            "the file.");
  try {
    (void)ecluse::read_config_file("/dev/zero");
    FAIL() << "/dev/zero was read";
  } catch (const ecluse::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/dev/zero: the configuration is larger than 16 MiB", 0),
              0u)
        << e.what();
  }
}

TEST(ConfigLimits, ManyErrorsAreCountedBeyondTheListedOnes) {
  std::string attributes;
  for (int i = 0; i < 50000; ++i) attributes += " bad" + std::to_string(i) + "=\"1\"";
  const std::string message =
      error_of(with_data("<layout name=\"l\" type=\"int\" dimensions=\"4\"" + attributes + "/>"));
  EXPECT_NE(message.find("... and 49900 more errors (only the first 100 are listed; fix these "
                         "first)."),
            std::string::npos)
      << message.substr(0, 300);
}

}  // namespace

namespace {

std::string named(const std::string& simulation, const std::string& architecture = "") {
  return "<simulation name=\"" + simulation +
         "\" xmlns=\"urn:ecluse:config:1\"><architecture><domains count=\"1\"/>" +
         (architecture.empty() ? "<dedicated cores=\"0\" nodes=\"0\"/>" : architecture) +
         "</architecture><data><layout name=\"l\" type=\"int\" dimensions=\"4\"/></data>"
         "</simulation>";
}

TEST(ConfigLimits, SimulationNamesCannotLeaveTheOutputDirectory) {
  const std::string fix =
      "'; it names output files: use 1 to 255 bytes, no '/', no control characters, not '.' or "
      "'..'.";
  for (const std::string& name : {std::string(""), std::string("."), std::string(".."),
                                  std::string("../escape"), std::string("a/b")}) {
    EXPECT_EQ(error_of(named(name)), "c.xml:1:13: invalid simulation name '" + name + fix);
  }
  EXPECT_EQ(error_of(named("tab&#9;name")), "c.xml:1:13: invalid simulation name 'tab?name" + fix);
  const std::string message = error_of(named(std::string(100000, 'n')));
  EXPECT_EQ(message, "c.xml:1:13: invalid simulation name '" + std::string(64, 'n') + "..." + fix);
  EXPECT_EQ(error_of(named(std::string(255, 'n'))), "");
}

TEST(ConfigLimits, CountsThatDoNotFitAreRefusedNotTruncated) {
  for (const std::string& value : {std::string("4294967297"), std::string(23, '9')}) {
    const std::string text = named("x", "<dedicated cores=\"" + value + "\" nodes=\"0\"/>");
    EXPECT_EQ(error_of(text), "c.xml:1:" + std::to_string(text.find("cores=") + 1) +
                                  ": invalid value '" + value +
                                  "' for 'cores' on <dedicated>; expected an integer from 0 to "
                                  "2147483647.");
  }
}

TEST(ConfigLimits, EventAndOtherNamesAreBounded) {
  const std::string event = std::string(64, 'e');
  const std::string text =
      with_data("<layout name=\"" + std::string(256, 'l') + "\" type=\"int\" dimensions=\"4\"/>");
  EXPECT_NE(error_of(text).find("' for <layout>; a name has at most 255 bytes and no control "
                                "characters."),
            std::string::npos);
  std::string with_event = with_data("");
  with_event.insert(with_event.find("</simulation>"),
                    "<actions><event name=\"" + event + "\" action=\"f\"/></actions>");
  EXPECT_EQ(error_of(with_event),
            "c.xml:1:" + std::to_string(with_event.find("name=", with_event.find("<event")) + 1) +
                ": invalid name '" + event +
                "' for <event>; a name has at most 63 bytes and no control characters.");
}

std::string dimensions_of(std::size_t n) {
  std::string out = "2";
  for (std::size_t i = 1; i < n; ++i) out += ",2";
  return out;
}

TEST(ConfigLimits, LayoutsHaveAtMostMaxDimensions) {
  EXPECT_EQ(error_of(with_dimensions(dimensions_of(limits::kDimensions))), "");
  const std::string text = with_dimensions(dimensions_of(limits::kDimensions + 1));
  EXPECT_EQ(error_of(text), "c.xml:1:" + std::to_string(text.find("dimensions=") + 1) +
                                ": layout 'l' has 17 dimensions; the limit is 16 "
                                "(ECLUSE_MAX_DIMENSIONS): merge dimensions into fewer.");
}

TEST(ConfigLimits, DedicatedResourcesCarryAtMostEightDimensions) {
  std::string text = with_dimensions(dimensions_of(9));
  text.replace(text.find("cores=\"0\""), 9, "cores=\"1\"");
  EXPECT_EQ(error_of(text), "c.xml:1:" + std::to_string(text.find("<layout") + 1) +
                                ": layout 'l' has 9 dimensions; dedicated cores and nodes carry "
                                "blocks of at most 8: merge dimensions into fewer, or use time "
                                "partitioning.");
  text = with_dimensions(dimensions_of(8));
  text.replace(text.find("cores=\"0\""), 9, "cores=\"1\"");
  EXPECT_EQ(error_of(text), "");
}

TEST(ConfigLimits, DomainsAndQueueSizeAreBounded) {
  std::string text = named("x", "<domains count=\"65537\"/>");
  text.erase(text.find("<domains count=\"1\"/>"), 20);
  EXPECT_EQ(error_of(text), "c.xml:1:" + std::to_string(text.find("count=") + 1) +
                                ": invalid value '65537' for 'count' on <domains>; expected an "
                                "integer from 1 to 65536.");
  text = named("x", "<dedicated cores=\"0\" nodes=\"0\"/><queue size=\"1048577\"/>");
  EXPECT_EQ(error_of(text), "c.xml:1:" + std::to_string(text.find("size=") + 1) +
                                ": invalid value '1048577' for 'size' on <queue>; expected an "
                                "integer from 1 to 1048576.");
}

TEST(ConfigLimits, DotNamesAreRefused) {
  for (const std::string& name : {std::string("."), std::string("..")}) {
    const std::string text =
        with_data("<layout name=\"" + name + "\" type=\"int\" dimensions=\"4\"/>");
    EXPECT_EQ(error_of(text),
              "c.xml:1:" + std::to_string(text.find("name=", text.find("<layout")) + 1) +
                  ": invalid name '" + name +
                  "' for <layout>; a name must be non-empty, not '.' or '..', "
                  "and contain no '/' (to nest, use <group name=\"...\">).");
  }
  for (const std::string& name :
       {std::string("../.."), std::string("a/./b"), std::string("a/..")}) {
    const std::string text = with_data("<group name=\"" + name + "\"></group>");
    EXPECT_EQ(error_of(text),
              "c.xml:1:" + std::to_string(text.find("name=", text.find("<group")) + 1) +
                  ": invalid name '" + name +
                  "' for <group>; a group name is non-empty parts separated by "
                  "single '/', none of them '.' or '..', e.g. \"a/b\".");
  }
  EXPECT_EQ(error_of(with_data("<group name=\"a/..b/c.\"></group>")), "");
}

TEST(ConfigLimits, NothingMayFollowTheSimulationElement) {
  std::string text = with_data("");
  text.insert(text.find("</data>") + 7, "</simulation>");
  text.erase(text.rfind("</simulation>"));
  text += "<storage/>";
  // <simulation ...><architecture>...</architecture><data></data></simulation><storage/>
  EXPECT_EQ(error_of(text), "c.xml:1:" + std::to_string(text.find("<storage") + 1) +
                                ": <storage> comes after </simulation>, where it would be "
                                "ignored; move it inside <simulation>.");
  EXPECT_EQ(error_of(with_data("") + "\n  <!-- a comment -->\n"), "");
}

TEST(ConfigLimits, HugeGhostsAreRefusedWithoutOverflow) {
  const std::string text = with_data(
      "<layout name=\"l\" type=\"int\" dimensions=\"4\" "
      "ghosts=\"9223372036854775807:9223372036854775807\"/>");
  EXPECT_NE(error_of(text).find("ghosts must be >= 0 and leave at least one interior cell."),
            std::string::npos);
}

TEST(ConfigLimits, AttributeLocationsSkipQuotedValues) {
  const std::string text = with_data(
      "<layout name=\"l\" comment=\"a > b, set dimensions=4\" type=\"int\" dimensions=\"0x\"/>");
  const std::string message = error_of(text);
  EXPECT_EQ(message.substr(0, message.find(": ", 6)),
            "c.xml:1:" + std::to_string(text.rfind("0x") + 2));  // at the x
}

}  // namespace
