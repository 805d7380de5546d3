// Names looked up through the config's index (Config::index_names): the same answers as a scan
// of the lists, also for a list changed after indexing, duplicate names and group scopes.
#include <gtest/gtest.h>

#include <string>

#include "config/Config.hpp"
#include "config/ConfigLoader.hpp"

namespace {

ecluse::Variable variable(const std::string& name, const std::string& layout) {
  ecluse::Variable v;
  v.name = name;
  v.layout = layout;
  return v;
}

TEST(ConfigIndex, FindsEveryIndexedNameAndNoOther) {
  ecluse::Config config;
  for (int i = 0; i < 100; ++i) config.variables.push_back(variable("v" + std::to_string(i), "l"));
  config.index_names();
  for (int i = 0; i < 100; ++i) {
    const ecluse::Variable* v = config.find_variable("v" + std::to_string(i));
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v, &config.variables[static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(config.find_variable("v100"), nullptr);
  EXPECT_EQ(config.find_variable(""), nullptr);
}

TEST(ConfigIndex, AListChangedAfterIndexingIsStillAnsweredRight) {
  ecluse::Config config;
  config.variables = {variable("a", "l"), variable("b", "l")};
  config.index_names();
  config.variables.push_back(variable("c", "l"));    // added after: found by a scan
  config.variables.erase(config.variables.begin());  // "b" moved to position 0
  ASSERT_NE(config.find_variable("b"), nullptr);
  EXPECT_EQ(config.find_variable("b")->name, "b");
  ASSERT_NE(config.find_variable("c"), nullptr);
  EXPECT_EQ(config.find_variable("a"), nullptr);
}

TEST(ConfigIndex, ADuplicateNameGivesTheFirst) {
  ecluse::Config config;
  config.variables = {variable("a", "first"), variable("a", "second")};
  config.index_names();
  EXPECT_EQ(config.find_variable("a")->layout, "first");
  EXPECT_EQ(config.find_variable("b"), nullptr);
}

// 20,000 variables in nested groups, half on their group's layout and half on the top-level
// one of the same name: each reference resolves to the right one (each reference scanned every
// name before: this file took 20 s to check).
TEST(ConfigIndex, ManyGroupedVariablesResolveToTheirGroupsLayoutOrTheTopLevelOne) {
  std::string data = "<layout name=\"l\" type=\"int\" dimensions=\"1\"/>";
  for (int g = 0; g < 200; ++g) {
    data += "<group name=\"g" + std::to_string(g) + "\"><group name=\"h\">";
    if (g % 2 == 0) data += "<layout name=\"l\" type=\"double\" dimensions=\"2\"/>";
    for (int v = 0; v < 100; ++v) {
      data += "<variable name=\"v" + std::to_string(v) + "\" layout=\"l\"/>";
    }
    data += "</group></group>";
  }
  const ecluse::Config config = ecluse::parse_config(
      "many.xml",
      "<simulation name=\"x\" xmlns=\"urn:ecluse:config:1\"><architecture><domains "
      "count=\"1\"/><dedicated cores=\"0\" nodes=\"0\"/></architecture><data>" +
          data + "</data></simulation>");
  ASSERT_EQ(config.variables.size(), 20000u);
  for (int g = 0; g < 200; ++g) {
    const std::string group = "g" + std::to_string(g) + "/h/";
    for (int v = 0; v < 100; v += 33) {
      const ecluse::Variable* found = config.find_variable(group + "v" + std::to_string(v));
      ASSERT_NE(found, nullptr) << group << v;
      EXPECT_EQ(found->layout, g % 2 == 0 ? group + "l" : "l") << group << v;
    }
  }
}

// Damaris's type-named layouts (layout="double") are added once each, also when many variables
// name them (with the index built before they were added, each variable added its own).
TEST(ConfigIndex, ATypeNamedLayoutIsAddedOnceForManyVariables) {
  const ecluse::Config config = ecluse::parse_config(
      "types.xml",
      "<simulation name=\"x\" xmlns=\"http://damaris.gforge.inria.fr/damaris/model\">"
      "<architecture><domains count=\"1\"/><dedicated cores=\"0\" nodes=\"0\"/>"
      "<buffer name=\"b\" size=\"1048576\"/></architecture><data>"
      "<variable name=\"a\" layout=\"double\"/><variable name=\"b\" layout=\"double\"/>"
      "<group name=\"g\"><variable name=\"c\" layout=\"double\"/>"
      "<variable name=\"d\" layout=\"int\"/></group></data></simulation>");
  int doubles = 0, ints = 0;
  for (const ecluse::Layout& layout : config.layouts) {
    doubles += layout.name == "double";
    ints += layout.name == "int";
  }
  EXPECT_EQ(doubles, 1);
  EXPECT_EQ(ints, 1);
  EXPECT_EQ(config.find_variable("g/c")->layout, "double");
}

}  // namespace
