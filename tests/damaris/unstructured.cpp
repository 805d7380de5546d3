// A reservoir-code-style Damaris client (the pattern of OPM Flow's Damaris output): fills an
// XML template with damaris::model::ModifyModel, checks the Damaris 1.9 calls
// (damaris_get_type, damaris_has_plugin, damaris_error_string), spreads cells over the ranks in
// no particular order and writes GLOBAL_CELL_INDEX once, then PRESSURE every iteration, placed
// in Collective files by select-file="GLOBAL_CELL_INDEX". tests/python/test_damaris.py reads
// the files back.
//   unstructured <template.xml> <cores> <nodes> <FileMode> <output dir> [noindex|sameoffset]
// noindex: GLOBAL_CELL_INDEX is never written; sameoffset: every rank numbers its cells from
// offset 0 (a forgotten prefix sum), so the ranks name some cells twice and others never.
#include <Damaris.h>
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <damaris/env/Environment.hpp>
#include <damaris/model/ModifyModel.hpp>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kIterations = 3;
int failures = 0;

void expect(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "unstructured: FAILED: %s\n", what);
  ++failures;
}

void expect_ok(int err, const char* call) {
  if (err == DAMARIS_OK) return;
  std::fprintf(stderr, "unstructured: %s: %s\n", call, damaris_error_string(err));
  ++failures;
}

std::string read_file(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The template filled as a program fills its built-in one; rank 0 writes it.
std::string prepare_xml(char** argv, MPI_Comm comm) {
  damaris::model::ModifyModel model(read_file(argv[1]));
  const std::string dir = argv[5];
  const std::map<std::string, std::string> keywords = {{"_SIM_NAME_", "reservoir"},
                                                       {"_DC_REGEX_", argv[2]},
                                                       {"_DN_REGEX_", argv[3]},
                                                       {"_SHMEM_BUFFER_BYTES_REGEX_", "8388608"},
                                                       {"_File_Mode", argv[4]},
                                                       {"_PATH_REGEX_", dir},
                                                       {"_MYSTORE_OR_EMPTY_REGEX_", "MyStore"}};
  model.RepalceWithRegEx(keywords);
  const std::string file = dir + "/damaris_config.xml";
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) model.SaveXMLStringToFile(file);
  MPI_Barrier(comm);
  return file;
}

void check_api() {
  expect(damaris_has_plugin(DAMARIS_HAS_HDF5) == 1, "damaris_has_plugin(DAMARIS_HAS_HDF5) == 1");
  expect(damaris_has_plugin(DAMARIS_HAS_PARAVIEW) == 0, "damaris_has_plugin(PARAVIEW) == 0");
  expect(std::strstr(damaris_error_string(DAMARIS_UNDEFINED_VARIABLE),
                     "DAMARIS_UNDEFINED_VARIABLE") != nullptr,
         "damaris_error_string names the code");
  DAMARIS_TYPE_STR type = DAMARIS_TYPE_UNDEFINED;
  expect_ok(damaris_get_type("PRESSURE", &type), "damaris_get_type(PRESSURE)");
  expect(type == DAMARIS_TYPE_DOUBLE, "PRESSURE is DAMARIS_TYPE_DOUBLE");
  expect_ok(damaris_get_type("GLOBAL_CELL_INDEX", &type), "damaris_get_type(GLOBAL_CELL_INDEX)");
  expect(type == DAMARIS_TYPE_INT, "GLOBAL_CELL_INDEX is DAMARIS_TYPE_INT");
  expect_ok(damaris_get_type("topologies/topo/elements/types", &type), "damaris_get_type(types)");
  expect(type == DAMARIS_TYPE_CHAR, "types is DAMARIS_TYPE_CHAR");
  expect(damaris_get_type("NO_SUCH_FIELD", &type) == DAMARIS_UNDEFINED_VARIABLE,
         "damaris_get_type of an undefined variable");
}

// Cell k of the concatenation of the ranks' cells (in rank order) is global cell
// (k * stride) % total: a permutation that gives every rank cells from all over the grid.
int stride_for(int total) {
  int stride = 7;
  while (std::gcd(stride, total) != 1) stride += 2;
  return stride;
}

void run_client(const std::string& variant) {
  const bool write_index = variant != "noindex";
  MPI_Comm comm = MPI_COMM_NULL;
  expect_ok(damaris_client_comm_get(&comm), "damaris_client_comm_get");
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int local = 3 + rank;  // uneven: 3, 4, 5... cells
  const int offset = 3 * rank + rank * (rank - 1) / 2;
  const int total = 3 * size + size * (size - 1) / 2;
  const int stride = stride_for(total);
  std::vector<int> global_index(local);
  const int first = variant == "sameoffset" ? 0 : offset;
  for (int k = 0; k < local; ++k) global_index[k] = ((first + k) * stride) % total;

  // As ROSS does: a size_t for an int parameter (Damaris copies what fits; libdamaris converts).
  const std::size_t local_size = static_cast<std::size_t>(local);
  expect_ok(damaris_parameter_set("n_elements_local", &local_size, sizeof local_size),
            "parameter_set with a size_t");
  long long read_back = -1;
  expect_ok(damaris_parameter_get("n_elements_local", &read_back, sizeof read_back),
            "parameter_get into a long long");
  expect(read_back == local, "an int parameter read into a long long");
  const int64_t too_big = int64_t{1} << 40;
  expect(
      damaris_parameter_set("n_elements_local", &too_big, sizeof too_big) == DAMARIS_ARGUMENT_ERROR,
      "a value that does not fit an int parameter is refused");
  expect_ok(damaris_parameter_set("n_elements_local", &local, sizeof(int)), "parameter_set");
  expect_ok(damaris_parameter_set("n_elements_total", &total, sizeof(int)), "parameter_set");
  const int64_t position = offset;
  for (const char* name : {"GLOBAL_CELL_INDEX", "PRESSURE", "MPI_RANK"}) {
    expect_ok(damaris_set_position(name, &position), "damaris_set_position");
  }
  if (write_index) {
    expect_ok(damaris_write("GLOBAL_CELL_INDEX", global_index.data()), "write GLOBAL_CELL_INDEX");
  }
  void* ranks = nullptr;  // zero copy, then handed over and released
  expect_ok(damaris_alloc("MPI_RANK", &ranks), "damaris_alloc(MPI_RANK)");
  if (ranks != nullptr) std::fill_n(static_cast<int*>(ranks), local, rank);
  expect_ok(damaris_commit("MPI_RANK"), "damaris_commit(MPI_RANK)");
  expect_ok(damaris_clear("MPI_RANK"), "damaris_clear(MPI_RANK)");

  std::vector<double> pressure(local);
  for (int it = 0; it < kIterations; ++it) {
    for (int k = 0; k < local; ++k) pressure[k] = 1000.0 * it + global_index[k] + 0.5;
    expect_ok(damaris_write("PRESSURE", pressure.data()), "write PRESSURE");
    const int err = damaris_end_iteration();
    if (write_index) expect_ok(err, "damaris_end_iteration");
    if (!write_index) std::printf("end_iteration %d: %d\n", it, err);
  }
  const int stop = damaris_stop();
  expect(stop == DAMARIS_OK || stop == DAMARIS_NO_SERVER, "damaris_stop");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s template cores nodes FileMode dir [noindex|sameoffset]\n",
                 argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string magic = damaris::Environment::GetMagicNumber(MPI_COMM_WORLD);
  expect(!magic.empty(), "GetMagicNumber gives a number");
  const std::string xml = prepare_xml(argv, MPI_COMM_WORLD);
  expect_ok(damaris_initialize(xml.c_str(), MPI_COMM_WORLD), "damaris_initialize");
  check_api();
  int is_client = 0;
  const int start = damaris_start(&is_client);
  expect(start == DAMARIS_OK || start == DAMARIS_NO_SERVER, "damaris_start");
  if (is_client) run_client(argc < 7 ? "" : argv[6]);
  expect_ok(damaris_finalize(), "damaris_finalize");
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
