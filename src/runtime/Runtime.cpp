// Construction order and life cycle of one Ecluse instance, for each approach.
#include "runtime/Runtime.hpp"

#include <unistd.h>

#include <chrono>
#include <limits>
#include <map>
#include <optional>

#include "config/ConfigLoader.hpp"
#include "core/Collective.hpp"
#include "core/RunFailure.hpp"
#include "dc/DedicatedCoreServer.hpp"
#include "dc/NodeBuffer.hpp"
#include "dc/ShmTransport.hpp"
#include "dn/DedicatedNodeServer.hpp"
#include "dn/MpiTransport.hpp"
#include "frequency/FrequencyGovernor.hpp"
#include "frequency/FrequencyRestorer.hpp"
#include "insitu/InSitu.hpp"
#include "report/HostEnergy.hpp"
#include "report/PartialReport.hpp"
#include "report/RunReport.hpp"
#include "runtime/ServerCommCheck.hpp"
#include "transport/DirectTransport.hpp"
#include "transport/TransportSupport.hpp"

namespace ecluse {

Runtime::Runtime(const std::string& source_name, const std::string& xml, MPI_Comm comm)
    : accounting_(std::make_unique<Accounting>()),
      comm_(comm),
      cpu_start_(process_cpu_seconds_now()),
      config_(parse_config(source_name, xml)) {
  const WaitScope scope("in initialize");
  Diagnostics ignored;  // values were validated by parse_config
  parameters_ = std::make_unique<Parameters>(config_, ignored);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  log_ = std::make_unique<Log>(config_.log, rank);
  // Before the placement, which may refuse the rank count: the file's warnings are said first.
  if (rank == 0) log_->warnings_also_on_stderr(config_.warnings);
  // Every rank writes to the same report path (the survivors' partial report too).
  const std::string claimed = rank == 0 ? claim_report_path(config_, *log_) : "";
  config_.report.claimed = broadcast_string(comm, claimed, 0);
  if (rank == 0) report_claim_.report = claimed;
  run_collectively(comm,
                   [&] { topology_ = std::make_unique<Topology>(comm, config_.architecture); });
  // Action libraries load here, on the ranks that run them: every rank fails alike.
  const ActionPlaces places{!has_servers() || !topology_->is_client(), topology_->is_client()};
  run_collectively(comm, [&] { events_ = std::make_unique<EventTable>(config_, places); });
  energy_ = std::make_unique<HostEnergy>(comm, config_.energy, *log_);
  governor_ = std::make_unique<FrequencyGovernor>(config_.energy, topology_->role(), *log_,
                                                  system_root(), comm);
  accounting_->on_switch([this](Phase from, Phase to) {
    governor_->on_phase(from, to, accounting_->background_work());
  });
  start_trace(*accounting_, config_, rank, topology_->role(), *log_);
  job_ = job_identifier(comm);
  report_failures();
  bound_finalize_after_lost_peer();
  if (config_.architecture.dedicated_cores > 0) {
    build_dedicated_cores(comm);
  } else if (config_.architecture.dedicated_nodes > 0) {
    build_dedicated_nodes(comm);
  } else {
    build_time_partitioning();
  }
}

// A survivor of a failure cannot take part in the report gather (a process is gone): it adds
// what it saw to a partial report itself, before it gives up.
void Runtime::report_failures() {
  // A dedicated core and its clients know each other by process id: the node's ids give the
  // world rank of the one that died (dedicated nodes know their clients' ranks).
  std::map<long long, int> world_rank_of;
  if (config_.architecture.dedicated_cores > 0) {
    const std::string mine =
        std::to_string(::getpid()) + " " + std::to_string(topology_->world_rank());
    for (const std::string& entry : gather_strings(topology_->node_comm(), mine)) {
      const auto space = entry.find(' ');
      world_rank_of[std::stoll(entry.substr(0, space))] = std::stoi(entry.substr(space + 1));
    }
  }
  // Without a report file (ECLUSE_REPORT=none), `ecluse run` still gets the partial report in
  // its temporary directory: under MPI's error recovery its exit status is the only sign.
  const std::string own = report_path(config_);
  const std::string copy =
      launcher_copy_path(config_.simulation + "-partial-report." + job_ + ".json");
  const std::string path = own.empty() ? copy : own;
  if (path.empty()) return;
  FailureWitness witness{config_.simulation,
                         config_.source,
                         std::string(name_of(config_.architecture.approach())),
                         job_,
                         topology_->world_rank(),
                         std::string(name_of(topology_->role()))};
  set_failure_handler([path, copy, witness, world_rank_of](RunFailure failure) {
    // A timeout ends the process right after this (MPI_Abort, _Exit): no finalize restores.
    FrequencyRestorer::instance().restore_all();
    const auto found = world_rank_of.find(failure.lost_pid);
    if (failure.lost_world_rank < 0 && found != world_rank_of.end()) {
      failure.lost_world_rank = found->second;
    }
    // A report directory that refuses it: the launcher's copy, so its exit status says it.
    if (!add_to_partial_report(path, witness, failure) && path != copy && !copy.empty()) {
      add_to_partial_report(copy, witness, failure);
    }
  });
}

Runtime::~Runtime() {
  set_failure_handler({});
  stop_watching_server_communicators();
  // Stores may use the node communicator until they are destroyed.
  writer_.reset();
  if (node_writers_ != MPI_COMM_NULL) MPI_Comm_free(&node_writers_);
  if (role_writers_ != MPI_COMM_NULL) MPI_Comm_free(&role_writers_);
}

std::unique_ptr<Writer> Runtime::make_writer(MPI_Comm writers, bool stores, bool hooks) {
  int rank = 0;
  MPI_Comm_rank(writers, &rank);
  node_writers_ = split_bounded(writers, topology_->node(), rank);
  StoreEnv env{
      writers,           rank, node_writers_, topology_->node(), config_.architecture.domains,
      config_.simulation};
  auto writer = std::make_unique<Writer>(config_, env, *log_, *accounting_, stores);
  if (hooks) attach_insitu(*writer, {config_, *topology_, writers, job_, *log_, *events_});
  return writer;
}

// <dedicated roles>: the storing cores' writers have the stores (collective among them), the
// analysis cores' the in-situ hooks, over the blocks the storing cores hand on.
std::unique_ptr<Writer> Runtime::make_core_writer() {
  if (config_.architecture.roles.empty()) return make_writer(topology_->servers());
  const NodePlan& plan = topology_->plan();
  const auto local = static_cast<std::size_t>(topology_->local_rank());
  const bool store =
      plan.server_roles[static_cast<std::size_t>(plan.server_index[local])] == ServerRole::Store;
  int rank = 0;
  MPI_Comm_rank(topology_->servers(), &rank);
  role_writers_ = split_bounded(topology_->servers(), store ? 0 : 1, rank);
  return make_writer(role_writers_, store, !store);
}

void Runtime::build_time_partitioning() {
  writer_ = make_writer(topology_->clients());
  agreement_ = std::make_unique<IterationAgreement>(topology_->clients(),
                                                    writer_->stores_together(), *accounting_);
  transport_ = std::make_unique<DirectTransport>(*writer_, agreement_.get());
  int source = 0;
  MPI_Comm_rank(topology_->clients(), &source);
  client_ = std::make_unique<Client>(config_, *parameters_, *transport_, source, *accounting_);
}

// A Damaris file's mask that some node cannot satisfy (the node took Damaris's placement): said
// once, with the file's warnings, by the first rank of the first such node.
void Runtime::warn_placement_fallback(MPI_Comm comm) {
  const std::string& warning = topology_->plan().placement_warning;
  const int first = allreduce_int(
      comm, warning.empty() ? std::numeric_limits<int>::max() : topology_->node(), MPI_MIN);
  if (first == topology_->node() && topology_->local_rank() == 0) {
    log_->warnings_also_on_stderr({warning});
  }
}

void Runtime::build_dedicated_cores(MPI_Comm comm) {
  warn_placement_fallback(comm);
  run_collectively(comm, [&] {
    const std::size_t messages = queue_messages_per_iteration(config_, topology_->plan());
    const std::size_t capacity = queue_capacity_for(config_.architecture, messages);
    node_buffer_ = std::make_unique<NodeBuffer>(*topology_, config_.architecture, job_, capacity);
    const std::string warning = queue_warning(config_.architecture, messages, capacity);
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    if (!warning.empty() && rank == 0) log_->warning(warning);  // once, not once per node
  });
  run_collectively(comm, [&] {
    if (topology_->is_client()) {
      build_dedicated_core_client();
    } else {
      writer_ = make_core_writer();
      server_ = std::make_unique<DedicatedCoreServer>(config_, *topology_, *node_buffer_, *writer_,
                                                      *events_, *log_, *accounting_);
    }
  });
}

void Runtime::build_dedicated_core_client() {
  const auto local = static_cast<std::size_t>(topology_->local_rank());
  const NodePlan& plan = topology_->plan();
  int source = 0;
  MPI_Comm_rank(topology_->clients(), &source);
  transport_ =
      std::make_unique<ShmTransport>(*node_buffer_, config_, plan.server_index[local],
                                     plan.client_index[local], source, *log_, *accounting_);
  client_ = std::make_unique<Client>(config_, *parameters_, *transport_, source, *accounting_);
}

void Runtime::build_dedicated_nodes(MPI_Comm comm) {
  run_collectively(comm, [&] {
    const DedicatedNodePlan& plan = topology_->node_plan();
    const auto me = static_cast<std::size_t>(topology_->world_rank());
    if (topology_->is_client()) {
      const std::uint64_t window =
          client_window(plan, config_.architecture.buffer_size, plan.server_of[me]);
      int source = 0;
      MPI_Comm_rank(topology_->clients(), &source);
      auto transport =
          std::make_unique<MpiTransport>(config_, *topology_, window, source, *log_, *accounting_);
      MpiTransport& dn = *transport;
      transport_ = std::move(transport);
      client_ = std::make_unique<Client>(config_, *parameters_, *transport_, source, *accounting_);
      // After the client's checks, which name a layout that cannot be evaluated or a block
      // larger than the window.
      if (config_.architecture.buffer_prefault) {
        dn.prefault(block_bytes_per_iteration(config_, *parameters_));
      }
    } else {
      writer_ = make_writer(topology_->servers());
      const std::uint64_t memory =
          receive_memory(plan, config_.architecture.buffer_size, topology_->world_rank());
      node_server_ = std::make_unique<DedicatedNodeServer>(config_, *topology_, memory, *writer_,
                                                           *events_, *log_, *accounting_);
      if (config_.architecture.buffer_prefault) {
        node_server_->prefault(block_bytes_per_iteration(config_, *parameters_));
      }
    }
  });
}

bool Runtime::start() {
  if (client_) {
    if (stopped_) restart_client();
    if (has_servers()) watch_server_communicators(comm_, client_comm());
    accounting_->switch_to(Phase::Compute);
    return true;
  }
  // The barrier of a restarted phase (restart_client): this server counted every Stop of the
  // previous phase before any client sends again.
  if (served_) {
    const WaitScope scope("in start for the clients of a restarted phase");
    barrier(comm_);
  }
  if (!served_) warn_unresolved_signals();
  served_ = true;
  if (node_server_) node_server_->run();
  if (server_) server_->run();
  accounting_->switch_to(Phase::Setup);
  return false;
}

// A server runs the remote signals: those whose function it cannot find would fail at every
// signal. Said once, by the first server, when it starts serving (the program bound its
// functions before start).
void Runtime::warn_unresolved_signals() {
  const std::vector<std::string> problems = events_->unresolved_signals(ActionPlaces{true, false});
  int rank = 0;
  MPI_Comm_rank(topology_->servers(), &rank);
  if (rank != 0) return;
  const std::string counted = config_.dialect == Dialect::Damaris
                                  ? "insitu.unbound_signals, not as failures, as in Damaris"
                                  : "insitu.failures";
  for (const std::string& problem : problems) {
    log_->warning(problem +
                  " Nothing was bound by start: each of its signals will fail on the servers "
                  "(the log says so, and the report counts them in " +
                  counted + ").");
  }
}

// Collective, as Damaris's start: without it a client's next messages could reach a server still
// counting the Stops of the previous phase.
void Runtime::restart_client() {
  const WaitScope scope("in start for the servers of a restarted phase");
  barrier(comm_);
  // The clients go on from the same iteration, the next after the furthest any of them got:
  // one that stopped earlier (or ended one iteration fewer at stop) would else write iterations
  // its server already stored, which no other client ends again.
  client_->continue_from(allreduce_int(client_comm(), client_->iteration(), MPI_MAX));
  transport_->restart();
  stopped_ = false;
}

bool Runtime::has_servers() const {
  return config_.architecture.dedicated_cores > 0 || config_.architecture.dedicated_nodes > 0;
}

// Scripts and plugin actions that failed, signals whose action could not run.
std::uint64_t Runtime::insitu_failures() const {
  return (writer_ ? writer_->hook_failures() : 0) + (events_ ? events_->failures() : 0);
}

std::string Runtime::losses_known_here() const {
  std::string said;
  const auto say = [&said](const std::string& what) { said += (said.empty() ? "" : ", ") + what; };
  const auto count = [&say](std::uint64_t n, const std::string& what) {
    if (n > 0) say(std::to_string(n) + " " + what);
  };
  count(accounting_->store_errors(), "failed store(s)");
  count(client_ ? client_->refused_writes() : 0, "write(s) refused with an error");
  count(insitu_failures(), "run(s) of in-situ work failed");
  if (client_ && client_->wrote_unended()) {  // finalize would have ended it
    say("the writes of iteration " + std::to_string(client_->iteration()) +
        ", never ended by an end_iteration");
  }
  return said;
}

Statistics Runtime::statistics() const {
  Statistics all = node_server_ ? node_server_->statistics()
                                : (transport_ ? transport_->statistics() : Statistics{});
  if (writer_ && writer_->scheduled()) {
    const TurnWaits waits = writer_->turn_waits();
    all.push_back({Statistic::ScheduleTurns, static_cast<double>(waits.count)});
    all.push_back({Statistic::ScheduleWaitSeconds, waits.seconds});
    all.push_back({Statistic::ScheduleLongestWaitSeconds, waits.longest});
  }
  // A client's own counters, 0 included: a program checks a clean run by reading them.
  if (client_) {
    all.push_back({Statistic::ClientDroppedAllocations, static_cast<double>(dropped_allocations_)});
    all.push_back(
        {Statistic::ClientUnwantedWrites, static_cast<double>(client_->unwanted_writes())});
    all.push_back({Statistic::ClientRefusedWrites, static_cast<double>(client_->refused_writes())});
  }
  if (const std::uint64_t insitu = insitu_failures(); insitu > 0)
    all.push_back({Statistic::InsituFailures, static_cast<double>(insitu)});
  if (const std::uint64_t unbound = events_ ? events_->unbound_signals() : 0; unbound > 0) {
    all.push_back({Statistic::InsituUnboundSignals, static_cast<double>(unbound)});
  }
  return all;
}

Client& Runtime::client() {
  if (!client_) {
    throw Error(ECLUSE_CORE_IS_SERVER,
                "this rank is an Ecluse server; only clients (is_client = 1 after start) may "
                "call this.");
  }
  if (stopped_) {
    throw Error(ECLUSE_ARGUMENT_ERROR,
                "this client already called stop; no more writes until start opens a new phase.");
  }
  return *client_;
}

void Runtime::signal(std::string_view name) {
  Client& c = client();
  const Event* event = config_.find_event(name);
  // An iteration event is refused here, by the client (EventTable::fire).
  const bool local =
      event && (event->execution == EventExecution::Local || event->kind == EventKind::Iteration);
  if (local || !event || !transport_->signal(std::string(name), c.iteration())) {
    events_->fire(name, c.source(), c.iteration());  // as the servers see it: the client's id
  }
}

void Runtime::stop() {
  if (stopped_ || !transport_) return;
  stopped_ = true;
  std::optional<Error> unended;
  try {
    if (client_ && has_servers()) end_unended_iteration();
  } catch (const Error& e) {
    unended = e;  // the servers must still be told: stop them, then say it
  }
  transport_->stop();
  if (unended) throw *unended;
}

void Runtime::finalize(bool report) {
  if (finalized_) return;
  finalized_ = true;
  // Not from a destructor (report false): it is collective, and may run on one rank only.
  std::optional<Error> unended;
  try {
    if (report && client_ && !has_servers()) end_unended_iteration();
  } catch (const Error& e) {
    unended = e;
  }
  if (transport_) {
    const std::size_t dropped =
        transport_->discard() + (client_ ? client_->discard_allocations() : 0);
    if (dropped > 0) {
      log_->warning(std::to_string(dropped) +
                    " block(s) allocated and never committed were not stored; commit or clear "
                    "them before finalize.");
    }
    stop();
  }
  if (writer_) writer_->leave_schedules();
  if (writer_) writer_->finish_hooks();
  accounting_->switch_to(Phase::Setup);
  stop_watching_server_communicators();
  governor_->finish();
  if (!report) return;
  std::string failure;
  {
    // Clients wait here for their servers' backlog, servers for clients that work on between
    // stop and finalize (a last checkpoint): as long as that takes, unless ECLUSE_TIMEOUT is set.
    const WaitScope scope("in finalize for the store failures of the servers",
                          WaitScope::Bound::PacedByPeers);
    const auto start = std::chrono::steady_clock::now();
    failure = store_failure_of_run();  // a client waits here for its servers' last stores
    if (client_ && has_servers()) finalize_wait_ = seconds_since(start);
  }
  const WaitScope scope("in finalize for the report gather");
  write_report();
  if (!failure.empty()) throw Error(ECLUSE_IO_ERROR, failure);
  if (unended) throw *unended;
}

void Runtime::end_iteration() {
  Client& c = client();  // refused on a server and after stop, as a write is
  if (const std::size_t dropped = transport_->discard() + c.discard_allocations(); dropped > 0) {
    dropped_allocations_ += dropped;
    if (dropped_allocations_ == dropped) {
      log_->warning(std::to_string(dropped) + " block(s) allocated in iteration " +
                    std::to_string(c.iteration()) +
                    " and never committed were dropped at its end, not stored: commit or "
                    "clear them before end_iteration (said once; the report counts them).");
    }
  }
  c.end_iteration();
}

// Blocks written after the last end_iteration are stored as they are. In time partitioning the
// clients agree (collectively, in finalize) whether any has some; under servers each client
// that wrote ends its own at stop, before the servers are told (they store an iteration that
// not every client ended at stop), so that the report counts what was stored.
void Runtime::end_unended_iteration() {
  bool unended = client_->wrote_unended();
  if (!has_servers()) unended = agreement_->in_finalize(client_->iteration(), unended);
  if (!unended) return;
  log_->warning("iteration " + std::to_string(client_->iteration()) +
                " was not ended (no end_iteration after its writes); storing it as it is. Call "
                "end_iteration after the last writes.");
  client_->end_iteration();
}

// Collective: every server has stored all it will. A server returns its own failure; a client
// one it was not told of at an end_iteration (TP clients were told at each).
std::string Runtime::store_failure_of_run() const {
  std::string mine;
  std::uint32_t failures = 0;
  if (server_) {
    mine = server_->store_failure();
    failures = server_->store_failures();
  }
  if (node_server_) {
    mine = node_server_->store_failure();
    failures = node_server_->store_failures();
  }
  // Each rank's count, a newline, then its message.
  const std::vector<std::string> all =
      gather_strings(comm_, std::to_string(failures) + '\n' + mine);
  if (!client_) return mine;
  std::vector<std::uint32_t> counts;
  std::vector<std::string> texts;
  for (const std::string& entry : all) {
    const std::size_t cut = entry.find('\n');
    counts.push_back(static_cast<std::uint32_t>(std::stoul(entry.substr(0, cut))));
    texts.push_back(entry.substr(cut + 1));
  }
  // This client's own server first: its message is about this client's data.
  std::string own = transport_->unraised_store_failures(counts, texts);
  if (!own.empty() || transport_->store_failures_raised() > 0) return own;
  for (const std::string& failure : texts) {
    if (failure.empty()) continue;
    return "another Ecluse server failed to store data of its clients (this client's own "
           "server stored all of this client's): " +
           failure;
  }
  return {};
}

void Runtime::write_report() {
  accounting_->close();
  RankRecord mine;
  mine.totals.rank = topology_->world_rank();
  mine.totals.role = topology_->role();
  mine.totals.node = topology_->node();
  mine.totals.host = energy_->host();
  mine.totals.wall = accounting_->wall_seconds();
  mine.totals.cpu = process_cpu_seconds_now() - cpu_start_;
  mine.totals.bytes = accounting_->bytes();
  mine.totals.finalize_wait = finalize_wait_;
  mine.totals.phases = accounting_->totals();
  mine.series = accounting_->finish_series();
  mine.statistics = statistics();
  mine.frequency = governor_->record();
  if (energy_->leader()) mine.energy = energy_->finish();
  const std::vector<RankRecord> records = gather_records(mine, comm_);
  if (records.empty()) return;
  Config effective = config_;
  effective.architecture.ranks_per_node = effective_ranks_per_node(config_.architecture);
  publish_report(effective, records, topology_->node_count(), energy_->hosts(), *log_);
}

void Runtime::log_failed_call(const std::string& message) {
  log_->to_file(LogLevel::Error, "call failed: " + message);
}

}  // namespace ecluse
