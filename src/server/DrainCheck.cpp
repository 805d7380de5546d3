// The signal check of a server's waits for its store thread.
#include "server/DrainCheck.hpp"

#include "server/BlockCollector.hpp"
#include "server/TerminationWatch.hpp"

namespace ecluse {

DrainCheck::DrainCheck(BlockCollector& collector, ServerSignals& signals) : collector_(collector) {
  collector_.while_draining([&signals] { signals.check(); });
}

DrainCheck::~DrainCheck() {
  collector_.while_draining({});
}

}  // namespace ecluse
