// The capacity of the dedicated cores' event queues: sized from the data unless <queue size>.
#include <gtest/gtest.h>

#include <string>

#include "config/ConfigLoader.hpp"
#include "dc/NodeBuffer.hpp"
#include "topology/NodePlan.hpp"

namespace {

// `variables` variables of `domains` domains each; QUEUE is replaced by a <queue> element.
ecluse::Config config(int variables, int domains, const std::string& queue = "") {
  std::string data;
  for (int v = 0; v < variables; ++v) {
    data += "<variable name=\"v" + std::to_string(v) + "\" layout=\"l\"/>";
  }
  return ecluse::parse_config(
      "q.xml",
      "<simulation name=\"q\" xmlns=\"urn:ecluse:config:1\">\n<architecture><domains "
      "count=\"" +
          std::to_string(domains) + "\"/><dedicated cores=\"1\" nodes=\"0\"/>\n" + queue +
          "</architecture>\n<data><layout name=\"l\" type=\"int\" dimensions=\"4\"/>" + data +
          "<variable name=\"off\" layout=\"l\" enabled=\"false\"/></data>\n"
          "<storage/></simulation>");
}

TEST(QueueSizing, AnIterationOfEveryClientOfTheServerTwiceFromTheData) {
  // 3 clients and their dedicated core: each iteration puts 3 x (1000 blocks + end + signal).
  const ecluse::NodePlan plan =
      ecluse::plan_dedicated_cores(0, 4, 1, ecluse::ServerPlacement::Last);
  const ecluse::Config c = config(500, 2);
  EXPECT_EQ(ecluse::queue_messages_per_iteration(c, plan), 3 * 1002u);
  EXPECT_EQ(ecluse::queue_capacity_for(c.architecture, 3 * 1002), 8192u);
  EXPECT_EQ(ecluse::queue_warning(c.architecture, 3 * 1002, 8192), "");
  // Few blocks: the default 1024; very many: at most 16384, and said.
  EXPECT_EQ(ecluse::queue_capacity_for(c.architecture, 10), 1024u);
  EXPECT_EQ(ecluse::queue_capacity_for(c.architecture, 100000), 16384u);
  EXPECT_EQ(ecluse::queue_warning(c.architecture, 100000, 16384),
            "an iteration may put 100000 messages (a block each, and an end) on a dedicated "
            "core's event queue, which holds 16384: the queue sized from the data (at most "
            "16384): the clients then wait for the dedicated core to take each message past "
            "that, several microseconds a block; set <queue size=\"262144\"/> in <architecture> "
            "(" +
                std::to_string(ecluse::shm::EventQueue::footprint(262144) / 1024) +
                " KiB of shared memory per dedicated core) so that two iterations fit");
}

TEST(QueueSizing, AGivenSizeIsKeptAndWarnedWhenAnIterationDoesNotFit) {
  const ecluse::Config c = config(3, 100, "<queue size=\"100\"/>\n");
  EXPECT_EQ(ecluse::queue_capacity_for(c.architecture, 302), 128u);
  const std::string warning = ecluse::queue_warning(c.architecture, 302, 128);
  EXPECT_NE(warning.find("which holds 128: <queue size> (100, at q.xml:3:1): the clients then "
                         "wait for the dedicated core to take each message past that, several "
                         "microseconds a block; set <queue size=\"1024\"/> in <architecture> ("),
            std::string::npos)
      << warning;
  EXPECT_EQ(ecluse::queue_warning(c.architecture, 128, 128), "");
}

}  // namespace
