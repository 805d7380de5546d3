// Which libraries an <event library=...> may load: ECLUSE_ACTION_LIBRARIES, checked when the
// table is made (at initialize), before anything is loaded.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "action/EventTable.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

const std::string kLibm = "/lib/x86_64-linux-gnu/libm.so.6";

Config config_loading(const std::string& library) {
  Config config;
  config.events.push_back(
      {"probe", "cos", library, EventExecution::Local, EventScope::Core, {"sim.xml", 31, 5}});
  return config;
}

std::string refusal(const Config& config) {
  try {
    EventTable table(config);
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
    return e.what();
  }
  return "";
}

class EventTableLibraries : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kLibm)) GTEST_SKIP() << "no " << kLibm;
  }
  void TearDown() override { unsetenv("ECLUSE_ACTION_LIBRARIES"); }
};

TEST_F(EventTableLibraries, AnyLibraryWhenUnset) {
  unsetenv("ECLUSE_ACTION_LIBRARIES");
  EXPECT_EQ(refusal(config_loading("libm.so.6")), "");
}

TEST_F(EventTableLibraries, LibraryOutsideTheAllowedDirectoriesIsRefused) {
  setenv("ECLUSE_ACTION_LIBRARIES", "/nonexistent/actions:/opt/none", 1);
  EXPECT_EQ(refusal(config_loading(kLibm)),
            "sim.xml:31:5: event 'probe' loads library '" + kLibm +
                "', which is not a file in the directories that ECLUSE_ACTION_LIBRARIES allows "
                "('/nonexistent/actions:/opt/none'). Fix: install the library in one of them, "
                "add its directory to ECLUSE_ACTION_LIBRARIES, or bind the action with "
                "ecluse_bind");
}

TEST_F(EventTableLibraries, NoneRefusesEveryLibraryButNotTheProgram) {
  setenv("ECLUSE_ACTION_LIBRARIES", "none", 1);
  EXPECT_NE(refusal(config_loading("libm.so.6")), "");
  EXPECT_EQ(refusal(config_loading("")), "");  // a symbol of the program itself
}

TEST_F(EventTableLibraries, BareNamesAreLookedUpOnlyInTheAllowedDirectories) {
  setenv("ECLUSE_ACTION_LIBRARIES", "/lib/x86_64-linux-gnu", 1);
  EXPECT_EQ(refusal(config_loading("libm.so.6")), "");
  EXPECT_EQ(refusal(config_loading(kLibm)), "");
  // A path that climbs out of the directory is judged by where it leads.
  EXPECT_NE(refusal(config_loading("/lib/x86_64-linux-gnu/../../etc/passwd")), "");
}

// The root and a directory spelt with a trailing '/' hold their files like any other directory.
TEST_F(EventTableLibraries, TheRootAndTrailingSlashesAllowTheirFiles) {
  setenv("ECLUSE_ACTION_LIBRARIES", "/", 1);
  EXPECT_EQ(refusal(config_loading(kLibm)), "");
  setenv("ECLUSE_ACTION_LIBRARIES", "/lib/x86_64-linux-gnu/", 1);
  EXPECT_EQ(refusal(config_loading(kLibm)), "");
  EXPECT_EQ(refusal(config_loading("libm.so.6")), "");
  setenv("ECLUSE_ACTION_LIBRARIES", "/lib/x86_64-linux-gnu/../x86_64-linux-gnu-none/", 1);
  EXPECT_NE(refusal(config_loading(kLibm)), "");
}

// Loaded when the table is made (at initialize), not at the first signal.
TEST_F(EventTableLibraries, MissingSymbolIsRefusedWhenTheTableIsMade) {
  Config config = config_loading(kLibm);
  config.events[0].action = "no_such_function";
  EXPECT_EQ(refusal(config),
            "sim.xml:31:5: event 'probe': function 'no_such_function' not found "
            "in library '" +
                kLibm + "'; export it (extern \"C\") or bind one with ecluse_bind.");
}

TEST_F(EventTableLibraries, ALibraryIsLoadedOnlyWhereItsActionRuns) {
  Config config = config_loading("libecluse-no-such-plugin.so");
  EXPECT_NE(refusal(config), "");                                  // local: the clients load it
  EXPECT_NO_THROW(EventTable(config, ActionPlaces{true, false}));  // a server does not
}

// A server asks at start which of its signals' functions it cannot find (a program's function
// with a typo, not exported, nothing bound): each is named, the others are resolved; the
// client's (execution="local") are not its concern.
TEST(EventTableSignals, UnresolvedSignalsAreNamedWhereTheyRun) {
  unsetenv("ECLUSE_ACTION_LIBRARIES");
  Config config;
  config.events.push_back({"typo",
                           "ecluse_no_such_action",
                           "",
                           EventExecution::Remote,
                           EventScope::Core,
                           {"s.xml", 4, 5}});
  config.events.push_back(
      {"libc", "strlen", "", EventExecution::Remote, EventScope::Bcast, {"s.xml", 5, 5}});
  config.events.push_back({"here",
                           "ecluse_no_such_local",
                           "",
                           EventExecution::Local,
                           EventScope::Core,
                           {"s.xml", 6, 5}});
  EventTable table(config, ActionPlaces{true, false});
  const std::vector<std::string> expected{
      "event 'typo': function 'ecluse_no_such_action' not found in the program; export it "
      "(extern \"C\", linked with -rdynamic) or bind one with ecluse_bind."};
  EXPECT_EQ(table.unresolved_signals(ActionPlaces{true, false}), expected);
  table.bind("typo", [](const std::string&, int, int, const std::string&) {});
  EXPECT_TRUE(table.unresolved_signals(ActionPlaces{true, false}).empty());
  EXPECT_EQ(table.unresolved_signals(ActionPlaces{false, true}).size(), 1u);  // 'here'
}

}  // namespace
}  // namespace ecluse
