// The claims travel as one text line per rank; the check itself is a pure function of them.
#include "frequency/PolicySharing.hpp"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/Collective.hpp"
#include "core/EnumNames.hpp"
#include "ecluse/Error.hpp"
#include "frequency/FrequencyController.hpp"

namespace ecluse {
namespace {

constexpr int kMaxCpu = 1 << 20;   // above any machine's CPU number
constexpr std::size_t kNamed = 4;  // ranks named in a conflict line, the rest counted

int parse_cpu(const std::string& text, const std::string& list) {
  if (text.empty() || text.size() > 7 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(c) != 0; })) {
    throw Error(ECLUSE_ARGUMENT_ERROR, "not a CPU list: '" + list + "'");
  }
  const int cpu = std::stoi(text);
  if (cpu >= kMaxCpu) throw Error(ECLUSE_ARGUMENT_ERROR, "not a CPU list: '" + list + "'");
  return cpu;
}

std::vector<int> affinity() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

std::vector<int> policy_of(const SysfsFiles& files, int cpu) {
  const auto text = files.try_read(cpufreq_file(cpu, "related_cpus"));
  if (!text) return {};
  try {
    return parse_cpu_list(trim(*text));
  } catch (const Error&) {
    return {};
  }
}

// Every CPU the rank may lower: it lowers the one it runs on at each low phase, and may run on
// any CPU of its mask. Empty when a policy cannot be read (no cpufreq there).
std::vector<int> policies_of(const SysfsFiles& files, const std::vector<int>& allowed) {
  std::vector<int> all;
  for (int cpu : allowed) {
    const std::vector<int> policy = policy_of(files, cpu);
    if (policy.empty()) return {};
    all.insert(all.end(), policy.begin(), policy.end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

std::string encode(const CpuClaim& c) {
  const auto list = [](const std::vector<int>& cpus) {
    return cpus.empty() ? std::string("-") : format_cpu_list(cpus);
  };
  return std::to_string(c.rank) + " " + std::to_string(index_of(c.role)) + " " +
         (c.lowers ? "1" : "0") + " " + std::to_string(c.cpu) + " " + list(c.allowed) + " " +
         list(c.policy);
}

CpuClaim decode(const std::string& line) {
  std::istringstream in(line);
  CpuClaim c;
  std::size_t role = 0;
  int lowers = 0;
  std::string allowed, policy;
  in >> c.rank >> role >> lowers >> c.cpu >> allowed >> policy;
  c.role = kRoles.at(role);
  c.lowers = lowers != 0;
  if (allowed != "-") c.allowed = parse_cpu_list(allowed);
  if (policy != "-") c.policy = parse_cpu_list(policy);
  return c;
}

std::vector<int> shared(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both;
}

std::string who(const CpuClaim& c) {
  const std::string name =
      "rank " + std::to_string(c.rank) + " (" + std::string(name_of(c.role)) + ")";
  if (c.allowed.size() == 1) return name + " on CPU " + std::to_string(c.allowed[0]);
  return name + ", not bound to one CPU (it may run on CPUs " + format_cpu_list(c.allowed) + ")";
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto dash = item.find('-');
    const int first = parse_cpu(item.substr(0, dash), text);
    const int last = dash == std::string::npos ? first : parse_cpu(item.substr(dash + 1), text);
    if (last < first) throw Error(ECLUSE_ARGUMENT_ERROR, "not a CPU list: '" + text + "'");
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  if (cpus.empty()) throw Error(ECLUSE_ARGUMENT_ERROR, "not a CPU list: '" + text + "'");
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    text += (text.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) text += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return text;
}

CpuClaim claim_of_this_rank(const SysfsFiles& files, int rank, Role role, bool lowers) {
  CpuClaim c;
  c.rank = rank;
  c.role = role;
  c.lowers = lowers;
  c.cpu = std::max(sched_getcpu(), 0);
  c.allowed = affinity();
  if (c.allowed.empty()) c.allowed = {c.cpu};
  if (lowers) c.policy = policies_of(files, c.allowed);
  return c;
}

std::vector<CpuClaim> host_claims(MPI_Comm comm, const CpuClaim& mine) {
  MPI_Comm host = split_shared_bounded(comm, 0);
  std::vector<std::string> lines;
  try {
    lines = gather_strings(host, encode(mine));
  } catch (...) {
    MPI_Comm_free(&host);
    throw;
  }
  MPI_Comm_free(&host);
  std::vector<CpuClaim> claims;
  for (const std::string& line : lines) claims.push_back(decode(line));
  return claims;
}

std::optional<std::string> policy_conflict(const std::vector<CpuClaim>& host, std::size_t me) {
  const CpuClaim& c = host.at(me);
  if (!c.lowers || c.policy.empty()) return std::nullopt;
  std::vector<std::string> others;
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (i != me && !shared(host[i].allowed, c.policy).empty()) others.push_back(who(host[i]));
  }
  if (others.empty()) return std::nullopt;
  std::string named;
  for (std::size_t i = 0; i < others.size() && i < kNamed; ++i) {
    named += (named.empty() ? "" : "; ") + others[i];
  }
  if (others.size() > kNamed) named += "; and " + std::to_string(others.size() - kNamed) + " more";
  const std::string mine = c.allowed.size() == 1 ? "policy of its CPU " + std::to_string(c.cpu)
                                                 : "policies of the CPUs it may run on (" +
                                                       format_cpu_list(c.allowed) + ")";
  return "the " + std::string(name_of(c.role)) + " frequency policy is not applied on rank " +
         std::to_string(c.rank) + ": the cpufreq " + mine +
         (c.allowed.size() == 1 ? " drives " : " drive ") +
         (c.policy.size() == 1 ? "CPU " : "CPUs ") + format_cpu_list(c.policy) +
         " (related_cpus), where other ranks of "
         "this job may run too (" +
         named +
         "); lowering it would slow them, and ranks sharing "
         "one policy can leave it lowered after the run; bind every rank to one CPU "
         "(mpiexec --bind-to core, srun --cpu-bind=cores) so that each lowered rank's policy "
         "is its own, or remove the <frequency> policy";
}

}  // namespace ecluse
