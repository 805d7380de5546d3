// One Ecluse instance: configuration, topology, client side, transport and writer side.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "client/Client.hpp"
#include "config/Config.hpp"
#include "config/Parameters.hpp"
#include "core/EventTable.hpp"
#include "core/Log.hpp"
#include "ecluse/Session.hpp"
#include "topology/Topology.hpp"
#include "transport/Transport.hpp"
#include "writer/Writer.hpp"

namespace ecluse {

class Runtime {
 public:
  /** Collective over comm: every rank gets the same error if the config is wrong. */
  Runtime(const std::string& source_name, const std::string& xml, MPI_Comm comm);
  ~Runtime();

  bool start();
  [[nodiscard]] MPI_Comm client_comm() const { return topology_->clients(); }
  Client& client();
  const Parameters& parameters() const { return *parameters_; }
  EventTable& events() { return *events_; }
  void signal(std::string_view event);
  void stop();
  void finalize();

 private:
  Config config_;
  std::unique_ptr<Parameters> parameters_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<Log> log_;
  std::unique_ptr<Writer> writer_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<EventTable> events_;
  bool started_ = false;
  bool stopped_ = false;
  bool finalized_ = false;
};

}  // namespace ecluse
