// Node detection: virtual nodes of k ranks on one machine, and real nodes by shared memory.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>

#include "ecluse/Error.hpp"
#include "topology/Topology.hpp"

namespace {

int rank_in(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

TEST(Topology, VirtualNodesGroupConsecutiveRanks) {
  ecluse::Architecture a;
  a.ranks_per_node = 2;
  ecluse::Topology t(MPI_COMM_WORLD, a);
  const int rank = rank_in(MPI_COMM_WORLD);
  const int size = size_of(MPI_COMM_WORLD);
  EXPECT_EQ(t.node(), rank / 2);
  EXPECT_EQ(t.node_count(), (size + 1) / 2);
  EXPECT_EQ(t.local_rank(), rank % 2);
  EXPECT_EQ(t.local_size(), (rank / 2 == size / 2) ? size % 2 : 2);
  EXPECT_EQ(t.role(), ecluse::Role::Client);
  EXPECT_EQ(size_of(t.clients()), size);
}

TEST(Topology, RealNodesFromSharedMemory) {
  ecluse::Architecture a;
  ecluse::Topology t(MPI_COMM_WORLD, a);
  EXPECT_EQ(t.node(), 0);  // every rank of an mpiexec on one machine shares its memory
  EXPECT_EQ(t.node_count(), 1);
  EXPECT_EQ(t.local_size(), size_of(MPI_COMM_WORLD));
}

TEST(Topology, EnvironmentOverridesTheConfiguration) {
  setenv("ECLUSE_RANKS_PER_NODE", "1", 1);
  ecluse::Architecture a;
  a.ranks_per_node = 4;
  ecluse::Topology t(MPI_COMM_WORLD, a);
  EXPECT_EQ(t.node(), rank_in(MPI_COMM_WORLD));
  setenv("ECLUSE_RANKS_PER_NODE", "zero", 1);
  try {
    ecluse::Topology bad(MPI_COMM_WORLD, a);
    ADD_FAILURE() << "expected an error";
  } catch (const ecluse::Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_INIT_ERROR);
    EXPECT_STREQ(e.what(),
                 "ECLUSE_RANKS_PER_NODE='zero' is not a positive integer; unset it or fix it.");
  }
  unsetenv("ECLUSE_RANKS_PER_NODE");
}

}  // namespace
