// The C++ API (ecluse::Session): same core, exceptions instead of codes.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "TestSupport.hpp"
#include "ecluse/Session.hpp"

namespace {

const char* kConfig = R"(<simulation name="cpp"><architecture/><data>
  <layout name="l" type="short" dimensions="3"/><variable name="s" layout="l"/></data>
  <storage><store name="st" type="HDF5"><option key="FilesPath">cpp-out</option></store>
  </storage></simulation>)";

TEST(Session, WritesThroughTheCppApi) {
  ecluse::test::fresh_dir("cpp-out");
  auto session = ecluse::Session::from_string(kConfig, MPI_COMM_WORLD);
  ASSERT_TRUE(session.start());
  int rank = 0;
  MPI_Comm_rank(session.client_comm(), &rank);
  std::vector<short> values{1, static_cast<short>(-2), static_cast<short>(rank)};
  session.write("s", values.data());
  session.end_iteration();
  EXPECT_EQ(session.iteration(), 1);
  session.finalize();
  MPI_Barrier(MPI_COMM_WORLD);
  const auto d = ecluse::test::read_dataset("cpp-out/cpp_It0_Pr" + std::to_string(rank) + ".h5",
                                            "s/P" + std::to_string(rank));
  EXPECT_EQ(d.bytes, ecluse::test::as_bytes(values));
}

TEST(Session, ThrowsErrorsWithStatus) {
  try {
    (void)ecluse::Session::from_string(
        "<simulation name='x'><architecture/><data>"
        "<variable name='v' layout='nope'/></data></simulation>",
        MPI_COMM_WORLD);
    FAIL() << "expected a configuration error";
  } catch (const ecluse::Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
    EXPECT_STREQ(e.what(),
                 "<string>:1:43: variable 'v' uses layout 'nope' which is not defined. Fix the "
                 "name or define it with <layout name=\"nope\" type=\"...\" dimensions=\"...\"/>.");
  }
}

}  // namespace
