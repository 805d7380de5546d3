// The thread sleeps on a condition variable rather than in sleep_for, so stop() at finalize
// does not wait up to a whole period; background errors are kept, never thrown.
#include "energy/EnergyTicker.hpp"

#include "ecluse/Error.hpp"

namespace ecluse {

EnergyTicker::EnergyTicker(EnergySource& source, std::chrono::milliseconds period)
    : source_(source), period_(period) {
  if (period_.count() <= 0) {
    throw Error(ECLUSE_ARGUMENT_ERROR, "energy ticker period must be positive, got " +
                                           std::to_string(period_.count()) + " ms");
  }
  thread_ = std::thread([this] { run(); });
}

EnergyTicker::~EnergyTicker() {
  stop();
}

void EnergyTicker::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EnergyTicker::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) tick();
}

// Called with mutex_ held.
void EnergyTicker::tick() {
  try {
    last_ = source_.read();
    last_error_.clear();
  } catch (const std::exception& e) {
    last_error_ = e.what();
  }
  ++ticks_;
}

EnergyReading EnergyTicker::read_now() {
  std::lock_guard<std::mutex> lock(mutex_);
  last_ = source_.read();
  return *last_;
}

std::optional<EnergyReading> EnergyTicker::last() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_;
}

std::string EnergyTicker::last_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_error_;
}

std::uint64_t EnergyTicker::ticks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ticks_;
}

}  // namespace ecluse
