// A node's shared segment for dedicated cores: header, one event queue per server, the buffer.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "config/Config.hpp"
#include "shm/BufferAllocator.hpp"
#include "shm/EventQueue.hpp"
#include "shm/SharedSegment.hpp"
#include "topology/Topology.hpp"

namespace ecluse {

/** The most messages one iteration puts on one of the node's server queues: each block of every
 * enabled variable and domain, its end and a signal, for every client whose blocks reach that
 * server (an analysis core's: those its storing cores forward). */
std::size_t queue_messages_per_iteration(const Config& config, const NodePlan& plan);

/** Each server queue's capacity in messages (a power of two): <queue size> when given, else
 * room for two iterations of `per_iteration` messages, from 1024 to 16384 (~9 MiB a queue). */
std::size_t queue_capacity_for(const Architecture& architecture, std::size_t per_iteration);

/** "" or the warning that an iteration's `per_iteration` messages do not fit a queue of
 * `capacity`: clients then wait for their dedicated core to take each message (4.4 instead of
 * 1.1 us a block, measured at 4,000 blocks), with the <queue size> that holds two. */
std::string queue_warning(const Architecture& architecture, std::size_t per_iteration,
                          std::size_t capacity);

class NodeBuffer {
 public:
  /** Collective over the node: its first server creates an unnamed segment (memfd, mode
   * 0600, labelled with the job), every rank of the node maps it through /proc/<pid>/fd of the
   * creator, then the creator closes that descriptor. Nothing ever appears in /dev/shm, so a
   * kill at any moment leaves nothing behind. `queue_capacity`: of each server's queue
   * (queue_capacity_for). */
  NodeBuffer(const Topology& topology, const Architecture& architecture, const std::string& job,
             std::size_t queue_capacity);
  ~NodeBuffer();
  NodeBuffer(const NodeBuffer&) = delete;
  NodeBuffer& operator=(const NodeBuffer&) = delete;

  [[nodiscard]] shm::EventQueue& queue(int server) { return queues_.at(server); }
  [[nodiscard]] shm::BufferAllocator& allocator() { return *allocator_; }
  [[nodiscard]] void* address(shm::Handle handle) const;
  [[nodiscard]] pid_t server_pid(int server) const;
  [[nodiscard]] pid_t client_pid(int client) const;
  /** Bytes of the buffer a client holds now (allocated, not yet released by its server). */
  [[nodiscard]] std::atomic<std::uint64_t>& held(int client) const;
  /** The most a client may hold, so that a fast client never starves the others: its fair
   * share of a shared (general) buffer, or its own part of a partitioned one. */
  [[nodiscard]] std::size_t share(int client) const;
  /** Iterations a server failed to store so far, and its first failure (set once, before the
   * count first turns non-zero). */
  [[nodiscard]] std::uint32_t store_failures(int server) const;
  [[nodiscard]] std::string store_failure(int server) const;
  void publish_store_failures(int server, std::uint32_t failures, const std::string& first);
  /** The first iteration a server has not stored yet, as it last said (0 before it said):
   * what its clients name as lost if it dies. */
  [[nodiscard]] int first_unstored(int server) const;
  void publish_first_unstored(int server, int iteration);
  /** A client counts its Stop once it pushed it (after every event of its phase); the node's
   * first server waits for them all when it gathers group signals. */
  void count_client_stop();
  [[nodiscard]] std::uint32_t client_stops() const;
  [[nodiscard]] int servers() const { return servers_; }
  [[nodiscard]] int clients() const { return clients_; }

 private:
  struct Header;
  void create(const Architecture& architecture, const std::string& label, std::size_t capacity);
  void attach(const Architecture& architecture, const std::string& path);
  [[nodiscard]] Header& header() const;
  std::unique_ptr<shm::SharedSegment> segment_;
  std::vector<shm::EventQueue> queues_;
  std::unique_ptr<shm::BufferAllocator> allocator_;
  int servers_ = 0;
  int clients_ = 0;
};

/** A job-unique identifier, the same on every rank of comm (made on rank 0). */
std::string job_identifier(MPI_Comm comm);

}  // namespace ecluse
