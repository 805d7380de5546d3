// One Ecluse instance: configuration, topology, client side, transport and writer side.
#pragma once

#include <memory>
#include <string>

#include "accounting/Accounting.hpp"
#include "action/EventTable.hpp"
#include "client/Client.hpp"
#include "config/Config.hpp"
#include "config/Parameters.hpp"
#include "core/Log.hpp"
#include "ecluse/Session.hpp"
#include "report/RunReport.hpp"
#include "topology/Topology.hpp"
#include "transport/IterationAgreement.hpp"
#include "transport/Transport.hpp"
#include "writer/Writer.hpp"

namespace ecluse {

class NodeBuffer;
class DedicatedCoreServer;
class DedicatedNodeServer;
class HostEnergy;
class FrequencyGovernor;

class Runtime {
 public:
  /** Collective over comm: every rank gets the same error if the config is wrong. */
  Runtime(const std::string& source_name, const std::string& xml, MPI_Comm comm);
  ~Runtime();

  /** Clients: returns true at once. Servers: serve until their clients stop, return false.
   * After a stop (clients) or a served phase (servers), start again is a restarted phase and
   * collective over the runtime's communicator, as Damaris's start is. */
  bool start();
  /** True when this run has server ranks (dedicated cores or nodes). */
  [[nodiscard]] bool has_servers() const;
  [[nodiscard]] MPI_Comm client_comm() const { return topology_->clients(); }
  Client& client();
  const Parameters& parameters() const { return *parameters_; }
  [[nodiscard]] const Config& config() const { return config_; }
  EventTable& events() { return *events_; }
  void signal(std::string_view event);
  /** Ends the client's iteration. Allocations live for their iteration only: a block allocated
   * and never committed is dropped (its room given back, warned once), so that a view of it
   * kept by the program cannot change what a later iteration stores. */
  void end_iteration();
  void stop();
  /** `report`: write the run report (collective over the runtime's communicator: every rank
   * must finalize; the destructor path passes false). */
  void finalize(bool report = true);
  /** A failed API call's message, into the rank's log file if <log FileName> gives one. */
  void log_failed_call(const std::string& message);
  /** Counters of this rank's transport or server (credit state, bytes moved...). */
  [[nodiscard]] Statistics statistics() const;
  /** What this rank knows was not stored or not done ("2 failed store(s), ..."), "" for
   * nothing: a run that ends without finalize writes no report, so ecluse run hears it so. */
  [[nodiscard]] std::string losses_known_here() const;

 private:
  [[nodiscard]] std::uint64_t insitu_failures() const;
  void build_time_partitioning();
  void build_dedicated_cores(MPI_Comm comm);
  void warn_placement_fallback(MPI_Comm comm);
  void build_dedicated_core_client();
  void build_dedicated_nodes(MPI_Comm comm);
  std::unique_ptr<Writer> make_writer(MPI_Comm writers, bool stores = true, bool hooks = true);
  std::unique_ptr<Writer> make_core_writer();
  void write_report();
  void report_failures();
  [[nodiscard]] std::string store_failure_of_run() const;
  void end_unended_iteration();
  void restart_client();
  void warn_unresolved_signals();

  std::unique_ptr<Accounting> accounting_;  // first: the run's time starts at initialize
  MPI_Comm comm_;
  std::string job_;           // run-unique identifier, the same on every rank
  double cpu_start_;          // process CPU seconds at initialize (MPI_Init's are not the run's)
  double finalize_wait_ = 0;  // a client's wait in finalize for its servers' last stores
  std::uint64_t dropped_allocations_ = 0;  // allocated, never committed, dropped at iteration end

  Config config_;
  // Rank 0: <report>.running is this run's until the runtime is gone (an initialize that
  // fails later included).
  struct ReportClaim {
    std::string report;
    ReportClaim() = default;
    ReportClaim(const ReportClaim&) = delete;
    ReportClaim& operator=(const ReportClaim&) = delete;
    ~ReportClaim() { release_report_claim(report); }
  } report_claim_;
  std::unique_ptr<Parameters> parameters_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<Log> log_;
  std::unique_ptr<EventTable> events_;
  std::unique_ptr<NodeBuffer> node_buffer_;
  std::unique_ptr<Writer> writer_;
  std::unique_ptr<DedicatedCoreServer> server_;
  std::unique_ptr<DedicatedNodeServer> node_server_;
  std::unique_ptr<IterationAgreement> agreement_;  // time partitioning
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<HostEnergy> energy_;
  std::unique_ptr<FrequencyGovernor> governor_;
  MPI_Comm node_writers_ = MPI_COMM_NULL;
  MPI_Comm role_writers_ = MPI_COMM_NULL;  // asymmetric dedicated cores: the servers of one role
  bool stopped_ = false;
  bool served_ = false;  // a server returned from a phase: its next start is a restart
  bool finalized_ = false;
};

}  // namespace ecluse
