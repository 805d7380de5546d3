// Energy of each physical host over the run: the host's first rank probes the best source
// (pm_counters, RAPL, NVML, model), reads it at start and at finalize, with a ticker between.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/Config.hpp"
#include "core/Log.hpp"
#include "energy/CpuTimes.hpp"
#include "energy/EnergySource.hpp"
#include "energy/EnergyTicker.hpp"

namespace ecluse {

/** One host's energy over the run, with its labels. */
struct HostEnergyFigure {
  std::string host, source, quality, calibration, note;
  double joules = 0;
  double seconds = 0;
  // The host's CPU time outside idle and steal over the same window (/proc/stat), -1 when
  // unknown; every energy source counts it, whoever spent it. The job's part is summed from
  // its ranks' records on rank 0 (RunReport), where the rest is told as other processes' load.
  double busy_cpu_s = -1;
  double job_cpu_s = 0;
};

class HostEnergy {
 public:
  /** Collective over world. Ranks of one host are found with MPI_COMM_TYPE_SHARED, whatever
   * the virtual nodes: energy belongs to the physical machine. */
  HostEnergy(MPI_Comm world, const EnergyConfig& config, Log& log);
  ~HostEnergy();
  HostEnergy(const HostEnergy&) = delete;
  HostEnergy& operator=(const HostEnergy&) = delete;

  [[nodiscard]] bool leader() const { return host_rank_ == 0; }
  /** Index of this rank's host, 0..hosts-1 (numbered by their first rank). */
  [[nodiscard]] int host() const { return host_; }
  [[nodiscard]] int hosts() const { return hosts_; }
  /** Leaders: the energy since construction (reading failures give 0 J and a note). */
  HostEnergyFigure finish();

 private:
  void open_source(const EnergyConfig& config, Log& log);
  int host_rank_ = 0, host_ = 0, hosts_ = 1;
  std::string host_name_;
  std::optional<CpuTimes> start_cpu_;
  std::unique_ptr<EnergySource> source_;
  std::unique_ptr<EnergyTicker> ticker_;
  EnergyReading start_;
  double start_time_ = 0;
};

/** The root of /sys and /proc for energy and frequency: ECLUSE_SYSFS_ROOT, default "/". */
std::string system_root();

}  // namespace ecluse
