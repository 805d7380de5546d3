// The group of the servers, and the count of them in a communicator's group.
#include "runtime/ServerCommCheck.hpp"

#include <atomic>
#include <vector>

namespace ecluse {

namespace {

MPI_Group g_servers = MPI_GROUP_NULL;
std::vector<int> g_server_ranks;  // 0 .. size of g_servers - 1
std::atomic<bool> g_watching{false};

}  // namespace

void watch_server_communicators(MPI_Comm world, MPI_Comm clients) {
  if (g_watching.load()) return;
  MPI_Group all = MPI_GROUP_NULL;
  MPI_Group mine = MPI_GROUP_NULL;
  MPI_Comm_group(world, &all);
  MPI_Comm_group(clients, &mine);
  MPI_Group_difference(all, mine, &g_servers);
  MPI_Group_free(&all);
  MPI_Group_free(&mine);
  int size = 0;
  MPI_Group_size(g_servers, &size);
  g_server_ranks.resize(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) g_server_ranks[static_cast<std::size_t>(i)] = i;
  g_watching.store(size > 0);
}

void stop_watching_server_communicators() {
  if (!g_watching.exchange(false)) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Group_free(&g_servers);
  g_server_ranks.clear();
}

}  // namespace ecluse

extern "C" int ecluse_servers_in_comm(MPI_Comm comm) {
  using namespace ecluse;
  if (!g_watching.load() || comm == MPI_COMM_NULL) return 0;
  int inter = 0;
  MPI_Comm_test_inter(comm, &inter);
  if (inter) return 0;
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &group);
  std::vector<int> there(g_server_ranks.size(), MPI_UNDEFINED);
  MPI_Group_translate_ranks(g_servers, static_cast<int>(g_server_ranks.size()),
                            g_server_ranks.data(), group, there.data());
  MPI_Group_free(&group);
  int count = 0;
  for (int rank : there) count += rank != MPI_UNDEFINED ? 1 : 0;
  return count;
}
