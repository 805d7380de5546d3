// A server's signal check while it waits for its store thread (server/TerminationWatch): the
// backlog stored after the clients stopped may take seconds, and a job's ending signal then
// must not wait for it.
#pragma once

namespace ecluse {

class BlockCollector;
class ServerSignals;

/** While it lives, the collector's waits for its store thread check the server's signals. */
class DrainCheck {
 public:
  DrainCheck(BlockCollector& collector, ServerSignals& signals);
  ~DrainCheck();
  DrainCheck(const DrainCheck&) = delete;
  DrainCheck& operator=(const DrainCheck&) = delete;

 private:
  BlockCollector& collector_;
};

}  // namespace ecluse
