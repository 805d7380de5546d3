// Dedicated cores, server side: sleeps on its queue, gathers each iteration's blocks from its
// clients, runs the stores, frees the blocks.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "config/Config.hpp"
#include "core/EventTable.hpp"
#include "core/Log.hpp"
#include "dc/NodeBuffer.hpp"
#include "topology/Topology.hpp"
#include "writer/Writer.hpp"

namespace ecluse {

class DedicatedCoreServer {
 public:
  DedicatedCoreServer(const Config& config, const Topology& topology, NodeBuffer& buffer,
                      Writer& writer, EventTable& events, Log& log);
  /** Serves until every client of this server has stopped; throws ECLUSE_CHANNEL_ERROR if a
   * client dies. */
  void run();

 private:
  struct Iteration {
    std::vector<BlockData> blocks;
    std::vector<shm::Event> writes;  // handle, size and client of each block, to free them
    int ended = 0;
  };
  void handle(const shm::Event& event);
  void on_write(const shm::Event& event);
  void on_end(const shm::Event& event);
  void on_signal(const shm::Event& event);
  void fire(const std::string& name, int source, int iteration);
  void flush_complete();
  void flush(std::map<int, Iteration>::iterator it);
  void receive_broadcasts();
  void receive_broadcast(int from);
  void drain_broadcasts();
  void check_clients();

  const Config& config_;
  NodeBuffer& buffer_;
  Writer& writer_;
  EventTable& events_;
  Log& log_;
  MPI_Comm servers_;
  int index_;                    // this server's index on its node
  std::vector<int> my_clients_;  // node-local client indices served here
  int node_clients_;
  int stopped_ = 0;
  std::map<int, Iteration> iterations_;
  std::map<std::pair<std::string, int>, int> group_counts_;  // (event, iteration) -> signals
  std::chrono::steady_clock::time_point last_check_;
  std::vector<int> sent_to_, received_from_;  // bcast signals per peer server
};

}  // namespace ecluse
