// Construction order and life cycle of one Ecluse instance.
#include "core/Runtime.hpp"

#include "config/ConfigLoader.hpp"
#include "core/Collective.hpp"
#include "transport/DirectTransport.hpp"

namespace ecluse {

Runtime::Runtime(const std::string& source_name, const std::string& xml, MPI_Comm comm)
    : config_(parse_config(source_name, xml)) {
  Diagnostics ignored;  // values were validated by parse_config
  parameters_ = std::make_unique<Parameters>(config_, ignored);
  run_collectively(comm,
                   [&] { topology_ = std::make_unique<Topology>(comm, config_.architecture); });
  int rank = 0;
  MPI_Comm_rank(topology_->clients(), &rank);
  log_ = std::make_unique<Log>(config_.log, rank);
  StoreEnv env{topology_->clients(), rank, config_.architecture.domains, config_.simulation};
  writer_ = std::make_unique<Writer>(config_, env, *log_);
  transport_ = std::make_unique<DirectTransport>(*writer_);
  client_ = std::make_unique<Client>(config_, *parameters_, *transport_, rank);
  events_ = std::make_unique<EventTable>(config_);
}

Runtime::~Runtime() = default;

bool Runtime::start() {
  started_ = true;
  return topology_->role() == Role::Client;
}

Client& Runtime::client() {
  if (stopped_) {
    throw Error(ECLUSE_ARGUMENT_ERROR, "this client already called stop; no more writes.");
  }
  return *client_;
}

void Runtime::signal(std::string_view event) {
  events_->fire(event, topology_->world_rank(), client_->iteration());
}

void Runtime::stop() {
  stopped_ = true;
}

void Runtime::finalize() {
  if (finalized_) return;
  finalized_ = true;
  const std::size_t dropped = transport_->discard();
  if (dropped > 0) {
    log_->warning(std::to_string(dropped) +
                  " block(s) written after the last end_iteration "
                  "were not stored; call end_iteration before finalize.");
  }
}

}  // namespace ecluse
