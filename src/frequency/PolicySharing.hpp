// cpufreq sets one frequency per policy, and a policy may drive several CPUs (related_cpus). A
// rank lowers its CPU only if no other rank of the job on its host may run on a CPU of that
// policy: otherwise it would slow that rank, and two ranks saving and restoring one policy can
// leave it lowered after the run.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "core/Role.hpp"
#include "core/SysfsFiles.hpp"

namespace ecluse {

/** What one rank may run on and, if it lowers its CPU, which CPUs that lowering drives. */
struct CpuClaim {
  int rank = 0;  // in the communicator given to host_claims
  Role role = Role::Client;
  bool lowers = false;       // a frequency policy exists for its role
  int cpu = 0;               // the CPU it runs on now (sched_getcpu)
  std::vector<int> allowed;  // its affinity mask, ascending
  std::vector<int> policy;   // related_cpus of every CPU of `allowed` (it lowers the one it runs
                             // on); empty when one is unreadable (no cpufreq)
};

/** "0-3,8" -> {0, 1, 2, 3, 8}; throws ecluse::Error on anything else (kernel cpu lists). */
std::vector<int> parse_cpu_list(const std::string& text);
/** {0, 1, 2, 3, 8} -> "0-3,8" */
std::string format_cpu_list(const std::vector<int>& cpus);

/** This rank's claim: its CPU, affinity and, under `files`' root, its CPU's policy. */
CpuClaim claim_of_this_rank(const SysfsFiles& files, int rank, Role role, bool lowers);

/** Every claim of the ranks sharing this rank's host (MPI_COMM_TYPE_SHARED: real hosts, not
 * virtual nodes), this rank's among them. Collective over comm. */
std::vector<CpuClaim> host_claims(MPI_Comm comm, const CpuClaim& mine);

/** Why the claim at `me` must not lower its CPU (one line: which ranks and CPUs, how to fix),
 * or nothing. Nothing too when its policy is unknown: the controller reports a missing
 * cpufreq itself. */
std::optional<std::string> policy_conflict(const std::vector<CpuClaim>& host, std::size_t me);

}  // namespace ecluse
