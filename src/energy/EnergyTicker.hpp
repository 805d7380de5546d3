// A low-rate background thread that reads an energy source every period (default 10 s) so that
// no counter wrap goes unseen between phase boundaries; phase readings go through read_now().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "energy/EnergySource.hpp"

namespace ecluse {

class EnergyTicker {
 public:
  static constexpr std::chrono::milliseconds kDefaultPeriod{10000};

  /** Starts the thread; the source must outlive the ticker. */
  explicit EnergyTicker(EnergySource& source, std::chrono::milliseconds period = kDefaultPeriod);
  ~EnergyTicker();
  EnergyTicker(const EnergyTicker&) = delete;
  EnergyTicker& operator=(const EnergyTicker&) = delete;

  /** A reading now (phase boundary), serialized with the thread's; throws what read() throws. */
  EnergyReading read_now();
  /** Wakes the thread and joins it; returns within one source read. Idempotent. */
  void stop();

  [[nodiscard]] std::optional<EnergyReading> last() const;
  /** The last background read's error, empty when it succeeded. */
  [[nodiscard]] std::string last_error() const;
  [[nodiscard]] std::uint64_t ticks() const;

 private:
  void run();
  void tick();

  EnergySource& source_;
  const std::chrono::milliseconds period_;
  mutable std::mutex mutex_;  // guards source_ and every field below
  std::condition_variable wake_;
  bool stopping_ = false;
  std::optional<EnergyReading> last_;
  std::string last_error_;
  std::uint64_t ticks_ = 0;
  std::thread thread_;  // last: starts once the fields above exist
};

}  // namespace ecluse
