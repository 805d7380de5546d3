// Layout and life cycle of a node's shared segment.
#include "dc/NodeBuffer.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "config/Limits.hpp"
#include "core/Collective.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

namespace {
constexpr std::uint64_t kMagic = 0x45434c5553453031ull;  // "ECLUSE01"
constexpr int kMaxServers = 64;
constexpr int kMaxClients = 4096;
constexpr std::size_t kAlign = 4096;
constexpr std::size_t kFailureText = 1024;

std::size_t round_up(std::size_t n, std::size_t to) {
  return (n + to - 1) / to * to;
}

// The node-local rank of the node's first server, which creates the segment.
int creator_of(const NodePlan& plan) {
  for (std::size_t local = 0; local < plan.roles.size(); ++local) {
    if (plan.roles[local] != Role::Client && plan.server_index[local] == 0) {
      return static_cast<int>(local);
    }
  }
  return 0;
}

std::size_t power_of_two_from(std::size_t requested) {
  std::size_t capacity = 2;
  while (capacity < requested) capacity *= 2;
  return capacity;
}

constexpr std::size_t kDefaultQueue = 1024;
constexpr std::size_t kLargestSizedQueue = 16384;
}  // namespace

struct NodeBuffer::Header {
  std::uint64_t magic;
  std::int32_t servers;
  std::int32_t clients;
  std::uint64_t queue_offset[kMaxServers];
  std::uint64_t allocator_offset;
  std::uint64_t allocator_size;
  std::int32_t server_pid[kMaxServers];
  std::int32_t client_pid[kMaxClients];
  std::atomic<std::uint64_t> held[kMaxClients];
  std::uint32_t partitioned;
  std::atomic<std::uint32_t> store_failures[kMaxServers];
  char store_failure[kMaxServers][kFailureText];
  std::atomic<std::int32_t> first_unstored[kMaxServers];
  std::atomic<std::uint32_t> client_stops;  // Stops pushed by the node's clients, every phase
};

std::string job_identifier(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string id;
  if (rank == 0) {
    const auto now = std::chrono::system_clock::now().time_since_epoch().count();
    id = std::to_string(getpid()) + "x" + std::to_string(now % 1000000000);
  }
  return broadcast_string(comm, id, 0);
}

std::size_t queue_messages_per_iteration(const Config& config, const NodePlan& plan) {
  std::size_t blocks = 0;
  for (const Variable& v : config.variables) {
    if (v.enabled) blocks += static_cast<std::size_t>(config.architecture.domains);
  }
  std::size_t clients = 0;
  for (int s = 0; s < plan.servers; ++s) clients = std::max(clients, plan.clients_of(s).size());
  return clients * (blocks + 2);
}

std::size_t queue_capacity_for(const Architecture& architecture, std::size_t per_iteration) {
  if (architecture.queue_where.line > 0) {
    return power_of_two_from(static_cast<std::size_t>(architecture.queue_size));
  }
  return power_of_two_from(std::clamp(2 * per_iteration, kDefaultQueue, kLargestSizedQueue));
}

std::string queue_warning(const Architecture& architecture, std::size_t per_iteration,
                          std::size_t capacity) {
  if (per_iteration <= capacity) return {};
  const std::size_t two = std::min(power_of_two_from(2 * per_iteration),
                                   static_cast<std::size_t>(limits::kQueueMessages));
  const std::string now =
      architecture.queue_where.line > 0
          ? "<queue size> (" + std::to_string(architecture.queue_size) + ", at " +
                to_string(architecture.queue_where) + ")"
          : "the queue sized from the data (at most " + std::to_string(kLargestSizedQueue) + ")";
  return "an iteration may put " + std::to_string(per_iteration) +
         " messages (a block each, and an end) on a dedicated core's event queue, which holds " +
         std::to_string(capacity) + ": " + now +
         ": the clients then wait for the dedicated core to take each message past that, "
         "several microseconds a block; set <queue size=\"" +
         std::to_string(two) + "\"/> in <architecture> (" +
         std::to_string(shm::EventQueue::footprint(two) / 1024) +
         " KiB of shared memory per dedicated core) so that " +
         (two >= 2 * per_iteration ? "two iterations fit"
                                   : "as many as can fit (the most it takes; fewer blocks per "
                                     "iteration or more dedicated cores would fit two)");
}

NodeBuffer::NodeBuffer(const Topology& topology, const Architecture& architecture,
                       const std::string& job, std::size_t queue_capacity)
    : servers_(topology.plan().servers), clients_(topology.plan().clients) {
  if (servers_ > kMaxServers || clients_ > kMaxClients) {
    throw Error(ECLUSE_INIT_ERROR, "a node may have at most " + std::to_string(kMaxServers) +
                                       " dedicated cores and " + std::to_string(kMaxClients) +
                                       " clients.");
  }
  const WaitScope scope("in initialize for the shared segment of node " +
                        std::to_string(topology.node()));
  // Unnamed (memfd): a kill at any point of the set-up cannot leave a file in /dev/shm.
  const std::string label =
      shm::segment_name(job, topology.node(), architecture.buffer_name).substr(1);
  const auto local = static_cast<std::size_t>(topology.local_rank());
  const NodePlan& plan = topology.plan();
  const bool creator = !topology.is_client() && plan.server_index[local] == 0;
  MPI_Comm node = topology.node_comm();
  run_collectively(node, [&] {
    if (creator) create(architecture, label, queue_capacity);
  });
  const std::string path =
      broadcast_string(node, creator ? segment_->path() : "", creator_of(plan));
  run_collectively(node, [&] {
    if (!creator) attach(architecture, path);
    // Each process maps the pages in its own page table: no write, alloc or commit of a
    // client (nor a read of the server) faults on a page of the buffer later.
    if (architecture.buffer_prefault) segment_->prefault();
  });
  (topology.is_client() ? header().client_pid[plan.client_index[local]]
                        : header().server_pid[plan.server_index[local]]) = getpid();
  barrier(node);
  if (creator) segment_->unlink();  // every process of the node has it mapped now
}

NodeBuffer::~NodeBuffer() = default;

NodeBuffer::Header& NodeBuffer::header() const {
  return *static_cast<Header*>(segment_->base());
}

void NodeBuffer::create(const Architecture& architecture, const std::string& label,
                        std::size_t capacity) {
  const std::size_t queue_bytes = round_up(shm::EventQueue::footprint(capacity), kAlign);
  const std::size_t first_queue = round_up(sizeof(Header), kAlign);
  const std::size_t allocator_offset = first_queue + queue_bytes * servers_;
  const std::size_t allocator_size =
      shm::allocator_overhead(architecture.allocator, clients_) + architecture.buffer_size;
  segment_ = std::make_unique<shm::SharedSegment>(
      shm::SharedSegment::create_unnamed(label, allocator_offset + allocator_size));
  Header& h = *new (segment_->base()) Header{};
  h.servers = servers_;
  h.clients = clients_;
  for (int s = 0; s < servers_; ++s) {
    h.queue_offset[s] = first_queue + queue_bytes * static_cast<std::size_t>(s);
    queues_.push_back(shm::EventQueue::create(address(h.queue_offset[s]), capacity));
  }
  h.partitioned = architecture.allocator == AllocatorKind::Partitioned ? 1 : 0;
  h.allocator_offset = allocator_offset;
  h.allocator_size = allocator_size;
  allocator_ = shm::make_allocator(architecture.allocator, segment_->base(), allocator_offset,
                                   allocator_size, clients_, true);
  h.magic = kMagic;
}

void NodeBuffer::attach(const Architecture& architecture, const std::string& path) {
  segment_ = std::make_unique<shm::SharedSegment>(shm::SharedSegment::open_path(path));
  const Header& h = header();
  if (h.magic != kMagic || h.servers != servers_ || h.clients != clients_) {
    throw Error(ECLUSE_CHANNEL_ERROR, "shared segment '" + path +
                                          "' does not hold this job's buffer: the dedicated "
                                          "core of this node and its clients disagree on the "
                                          "configuration.");
  }
  for (int s = 0; s < servers_; ++s) {
    queues_.push_back(shm::EventQueue::attach(address(h.queue_offset[s])));
  }
  allocator_ = shm::make_allocator(architecture.allocator, segment_->base(), h.allocator_offset,
                                   h.allocator_size, clients_, false);
}

void* NodeBuffer::address(shm::Handle handle) const {
  return static_cast<char*>(segment_->base()) + handle;
}

std::atomic<std::uint64_t>& NodeBuffer::held(int client) const {
  return header().held[client];
}

std::size_t NodeBuffer::share(int client) const {
  const std::size_t capacity = allocator_->capacity(client);
  return header().partitioned ? capacity : capacity / static_cast<std::size_t>(clients_);
}

std::uint32_t NodeBuffer::store_failures(int server) const {
  return header().store_failures[server].load(std::memory_order_acquire);
}

std::string NodeBuffer::store_failure(int server) const {
  const char* text = header().store_failure[server];
  return std::string(text, strnlen(text, kFailureText));
}

void NodeBuffer::publish_store_failures(int server, std::uint32_t failures,
                                        const std::string& first) {
  Header& h = header();
  if (h.store_failures[server].load() == 0) {
    std::strncpy(h.store_failure[server], first.c_str(), kFailureText - 1);
  }
  h.store_failures[server].store(failures, std::memory_order_release);
}

int NodeBuffer::first_unstored(int server) const {
  return header().first_unstored[server].load(std::memory_order_acquire);
}

void NodeBuffer::publish_first_unstored(int server, int iteration) {
  header().first_unstored[server].store(iteration, std::memory_order_release);
}

pid_t NodeBuffer::server_pid(int server) const {
  return header().server_pid[server];
}
pid_t NodeBuffer::client_pid(int client) const {
  return header().client_pid[client];
}

void NodeBuffer::count_client_stop() {
  header().client_stops.fetch_add(1, std::memory_order_release);
}

std::uint32_t NodeBuffer::client_stops() const {
  return header().client_stops.load(std::memory_order_acquire);
}

}  // namespace ecluse
