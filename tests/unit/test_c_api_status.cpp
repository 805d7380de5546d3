// The C API's table of status names: one distinct name per code, unknown codes named as such,
// and the per-thread message of ecluse_set_error (none of it needs initialize).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ecluse/ecluse.h"

namespace {

TEST(StatusName, NamesEveryCodeOnce) {
  std::set<std::string> names;
  for (int status = 0; status < ECLUSE_STATUS_COUNT; ++status) {
    const std::string name = ecluse_status_name(status);
    EXPECT_EQ(name.rfind("ECLUSE_", 0), 0u) << status;
    EXPECT_NE(name, "ECLUSE_UNKNOWN_STATUS") << status;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(ECLUSE_STATUS_COUNT));
}

TEST(StatusName, FollowsTheEnum) {
  EXPECT_STREQ(ecluse_status_name(ECLUSE_OK), "ECLUSE_OK");
  EXPECT_STREQ(ecluse_status_name(ECLUSE_CONFIG_ERROR), "ECLUSE_CONFIG_ERROR");
  EXPECT_STREQ(ecluse_status_name(ECLUSE_CHANNEL_ERROR), "ECLUSE_CHANNEL_ERROR");
  EXPECT_STREQ(ecluse_status_name(ECLUSE_IO_ERROR), "ECLUSE_IO_ERROR");
  EXPECT_STREQ(ecluse_status_name(ECLUSE_STATUS_COUNT - 1), "ECLUSE_ALREADY_WRITTEN");
}

TEST(StatusName, OutsideTheEnum) {
  EXPECT_STREQ(ecluse_status_name(-1), "ECLUSE_UNKNOWN_STATUS");
  EXPECT_STREQ(ecluse_status_name(ECLUSE_STATUS_COUNT), "ECLUSE_UNKNOWN_STATUS");
}

TEST(SetError, KeepsTheMessageForThisThread) {
  EXPECT_EQ(ecluse_set_error(ECLUSE_ARGUMENT_ERROR, "bad argument"), ECLUSE_ARGUMENT_ERROR);
  EXPECT_STREQ(ecluse_error_message(), "bad argument");
  EXPECT_EQ(ecluse_set_error(ECLUSE_OK, nullptr), ECLUSE_OK);
  EXPECT_STREQ(ecluse_error_message(), "");
}

}  // namespace
