// Dedicated cores, server side: sleeps on its queue, hands its clients' blocks to a
// BlockCollector, frees them in the node's buffer once stored.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "action/EventTable.hpp"
#include "config/Config.hpp"
#include "core/Log.hpp"
#include "dc/NodeBuffer.hpp"
#include "server/BlockCollector.hpp"
#include "server/TerminationWatch.hpp"
#include "topology/Topology.hpp"
#include "writer/Writer.hpp"

namespace ecluse {

class DedicatedCoreServer {
 public:
  DedicatedCoreServer(const Config& config, const Topology& topology, NodeBuffer& buffer,
                      Writer& writer, EventTable& events, Log& log, Accounting& accounting);
  /** Serves until every client of this server has stopped; throws ECLUSE_CHANNEL_ERROR if a
   * client dies, aborts the job if its clients send nothing for ECLUSE_TIMEOUT. Called again
   * for a restarted phase. SIGTERM, SIGINT and SIGHUP are ServerSignals' while it serves. */
  void run();
  /** Why this server could not store, for its clients ("" when every iteration was stored). */
  [[nodiscard]] std::string store_failure() const;
  [[nodiscard]] std::uint32_t store_failures() const;

 private:
  void handle(const BlockMessage& event);
  void release(const BlockMessage& event);
  void hand_on(const BlockMessage& event);
  void forward(const BlockMessage& event);
  void forward_stops();
  void serve(ServerSignals& signals);
  void check_clients(std::chrono::milliseconds period);
  [[nodiscard]] bool serves() const;
  void check_silence() const;
  void publish_failures();

  NodeBuffer& buffer_;
  Log& log_;
  Accounting& accounting_;
  int index_;                        // this server's index on its node
  std::vector<int> my_clients_;      // node-local client indices served here
  int forward_ = -1;                 // the analysis server fed by this storing server, or -1
  std::vector<BlockMessage> stops_;  // held until the last iteration was handed on
  int stopped_ = 0;
  int runs_ = 0;                        // phases served (start, restarts)
  int node_clients_ = 0;                // clients of the whole node
  bool gathers_group_signals_ = false;  // the node's first server, with group events
  bool node_client_gone_ = false;       // a client of the node died: stop waiting for its Stop
  std::uint32_t published_ = 0;         // store failures published to the clients
  int published_first_ = 0;             // the first unstored iteration published to them
  std::unique_ptr<BlockCollector> collector_;
  std::chrono::steady_clock::time_point last_check_;
  std::chrono::steady_clock::time_point last_message_;  // from any client of this server
  std::chrono::seconds timeout_;
};

}  // namespace ecluse
