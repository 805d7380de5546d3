// The configuration corpus: every file in tests/configs/valid parses into the expected model;
// every tests/configs/broken/NAME.xml fails with exactly the text of NAME.expected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "TestSupport.hpp"
#include "config/ConfigLoader.hpp"
#include "config/Parameters.hpp"
#include "ecluse/Error.hpp"

namespace {

namespace fs = std::filesystem;
using ecluse::Config;
using Dims = std::vector<std::uint64_t>;
using Names = std::vector<std::string>;

std::string corpus_dir(const std::string& kind) {
  return ecluse::test::source_path("tests/configs/" + kind);
}

/** Names (without extension) of the files of a corpus directory with this extension, sorted. */
Names corpus(const std::string& kind, const std::string& extension = ".xml") {
  Names names;
  if (!fs::is_directory(corpus_dir(kind))) return names;
  for (const auto& entry : fs::directory_iterator(corpus_dir(kind))) {
    if (entry.path().extension() == extension) names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Config load(const std::string& kind, const std::string& name) {
  const std::string file = name + ".xml";
  return ecluse::parse_config(file, ecluse::test::read_text(corpus_dir(kind) + "/" + file));
}

Config valid(const std::string& name) {
  return load("valid", name);
}

std::string without_trailing_newlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  return name;
}

class ValidConfig : public ::testing::TestWithParam<std::string> {};

/** NAME.warnings of a corpus directory, one warning a line; none when the file is absent. */
std::string expected_warnings(const std::string& kind, const std::string& name) {
  const std::string file = corpus_dir(kind) + "/" + name + ".warnings";
  return fs::exists(file) ? without_trailing_newlines(ecluse::test::read_text(file)) : "";
}

std::string warnings_of(const Config& config) {
  std::string text;
  for (const std::string& line : config.warnings) text += (text.empty() ? "" : "\n") + line;
  return text;
}

TEST_P(ValidConfig, Parses) {
  try {
    const Config config = valid(GetParam());
    EXPECT_EQ(config.source, GetParam() + ".xml");
    EXPECT_EQ(warnings_of(config), expected_warnings("valid", GetParam()));
  } catch (const ecluse::Error& e) {
    FAIL() << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, ValidConfig, ::testing::ValuesIn(corpus("valid")), test_name);

// Damaris 1.x files as CM1, OPM Flow, code_saturne and Damaris's examples write them: each
// loads, with exactly the warnings of NAME.warnings (printed once at initialize).
class DamarisConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(DamarisConfig, LoadsWithTheExpectedWarnings) {
  try {
    const Config config = load("damaris", GetParam());
    EXPECT_EQ(config.dialect, ecluse::Dialect::Damaris);
    EXPECT_EQ(warnings_of(config), expected_warnings("damaris", GetParam()));
  } catch (const ecluse::Error& e) {
    FAIL() << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, DamarisConfig, ::testing::ValuesIn(corpus("damaris")), test_name);

class BrokenConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(BrokenConfig, FailsWithTheExpectedMessage) {
  const std::string expected_file = corpus_dir("broken") + "/" + GetParam() + ".expected";
  ASSERT_TRUE(fs::exists(expected_file)) << "missing " << expected_file;
  const std::string expected = without_trailing_newlines(ecluse::test::read_text(expected_file));
  try {
    (void)load("broken", GetParam());
    FAIL() << GetParam() << ".xml parsed without error";
  } catch (const ecluse::Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, BrokenConfig, ::testing::ValuesIn(corpus("broken")), test_name);

TEST(Corpus, IsComplete) {
  EXPECT_GE(corpus("valid").size(), 6u);
  EXPECT_GE(corpus("broken").size(), 30u);
  EXPECT_EQ(corpus("broken", ".expected"), corpus("broken")) << "every NAME.xml needs a "
                                                                "NAME.expected and vice versa";
  EXPECT_GE(corpus("damaris").size(), 6u);
  EXPECT_EQ(corpus("damaris", ".warnings"), corpus("damaris")) << "every NAME.xml needs a "
                                                                  "NAME.warnings and vice versa";
}

TEST(Corpus, UnreadableFileSaysWhichPath) {
  try {
    (void)ecluse::read_config_file("/nonexistent/ecluse.xml");
    FAIL() << "expected an error";
  } catch (const ecluse::Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
    EXPECT_EQ(std::string(e.what()),
              "cannot read configuration file '/nonexistent/ecluse.xml': No such file or "
              "directory; check the path given to ecluse_initialize.");
  }
}

/** Shapes of a model's layouts, evaluated with its declared parameter values. */
class Shapes {
 public:
  explicit Shapes(const Config& config) : config_(config), parameters_(config, diagnostics_) {}
  [[nodiscard]] ecluse::LayoutShape operator()(const std::string& layout) const {
    return ecluse::evaluate_layout(*config_.find_layout(layout), parameters_);
  }

 private:
  const Config& config_;
  ecluse::Diagnostics diagnostics_;
  ecluse::Parameters parameters_;
};

TEST(ValidModel, MinimalHasDefaults) {
  const Config c = valid("minimal");
  EXPECT_EQ(c.simulation, "minimal");
  EXPECT_EQ(ecluse::name_of(c.language), "c");
  EXPECT_EQ(c.architecture.domains, 1);
  EXPECT_EQ(c.architecture.dedicated_cores, 0);
  EXPECT_EQ(c.architecture.dedicated_nodes, 0);
  EXPECT_EQ(c.architecture.buffer_size, 67108864u);
  EXPECT_EQ(ecluse::name_of(c.architecture.full_policy), "block");
  EXPECT_TRUE(c.architecture.buffer_prefault);
  EXPECT_EQ(ecluse::name_of(c.architecture.buffer_copy), "auto");
  EXPECT_TRUE(c.parameters.empty());
  EXPECT_TRUE(c.layouts.empty());
  EXPECT_TRUE(c.variables.empty());
  EXPECT_TRUE(c.stores.empty());
}

TEST(ValidModel, Cm1Architecture) {
  const Config c = valid("cm1_damaris");
  EXPECT_EQ(c.simulation, "cm1");
  EXPECT_EQ(ecluse::name_of(c.language), "fortran");
  EXPECT_EQ(c.architecture.dedicated_cores, 1);
  EXPECT_EQ(c.architecture.buffer_name, "cm1-buffer");
  EXPECT_EQ(c.architecture.buffer_size, 268435456u);
  EXPECT_EQ(c.architecture.queue_name, "cm1-queue");
  EXPECT_EQ(c.architecture.queue_size, 100);
}

TEST(ValidModel, Cm1NamesAreResolvedToFullNames) {
  const Config c = valid("cm1_damaris");
  EXPECT_EQ(c.parameters.size(), 7u);
  EXPECT_EQ(c.layouts.size(), 8u);
  EXPECT_EQ(c.variables.size(), 8u);  // the disabled group is left out
  EXPECT_EQ(c.find_variable("disabled/ignored"), nullptr);
  EXPECT_EQ(c.find_variable("atmosphere/theta")->layout, "atmosphere/cells");
  EXPECT_EQ(c.find_variable("atmosphere/qv")->layout, "atmosphere/cells");
  EXPECT_EQ(c.find_variable("atmosphere/qv")->mesh, "");
  EXPECT_EQ(c.find_variable("atmosphere/surface")->layout, "slab");
  EXPECT_EQ(c.find_variable("atmosphere/winds/u")->layout, "atmosphere/winds/face");
  EXPECT_EQ(c.find_variable("atmosphere/winds/w")->layout, "atmosphere/cells");
  EXPECT_EQ(c.find_variable("atmosphere/theta")->mesh, "grid");
  EXPECT_EQ(c.find_variable("atmosphere/theta")->unit, "K");
  EXPECT_EQ(ecluse::name_of(c.find_variable("atmosphere/surface")->centering), "nodal");
  EXPECT_FALSE(c.find_variable("x")->time_varying);
  EXPECT_TRUE(c.find_variable("step")->time_varying);
  EXPECT_EQ(c.find_variable("atmosphere/theta")->stores, Names{"h5"});
  EXPECT_EQ(c.find_variable("atmosphere/winds/w")->stores, (Names{"h5", "raw"}));
  EXPECT_TRUE(c.find_variable("step")->stores.empty());
  EXPECT_FALSE(c.find_variable("step")->every_store);  // Damaris: no store= is no store
}

TEST(ValidModel, Cm1LanguageDecidesTheOrder) {
  const Config c = valid("cm1_damaris");
  EXPECT_TRUE(c.find_layout("slab")->fortran);
  EXPECT_FALSE(c.find_layout("halo")->fortran);             // language="c"
  EXPECT_TRUE(c.find_layout("column")->fortran);            // from <simulation language>
  EXPECT_TRUE(c.find_layout("atmosphere/cells")->fortran);  // idem
  EXPECT_EQ(c.find_layout("slab")->type, ecluse::DataType::Float32);
  EXPECT_EQ(c.find_layout("column")->type, ecluse::DataType::Int32);
  EXPECT_EQ(c.find_layout("scalar")->type, ecluse::DataType::Int64);
}

TEST(ValidModel, Cm1ShapesInCOrder) {
  const Config c = valid("cm1_damaris");
  const Shapes shape(c);
  EXPECT_EQ(shape("slab").dims, (Dims{16, 16}));
  EXPECT_EQ(shape("slab").global, (Dims{16, 64}));
  EXPECT_EQ(shape("halo").dims, (Dims{18, 20}));
  EXPECT_EQ(shape("halo").ghost_lo, (Dims{1, 2}));
  EXPECT_EQ(shape("halo").ghost_hi, (Dims{1, 2}));
  EXPECT_EQ(shape("halo").global, (Dims{64, 16}));
  EXPECT_EQ(shape("column").dims, (Dims{10}));
  EXPECT_EQ(shape("xcoord").dims, (Dims{17}));
  EXPECT_EQ(shape("scalar").dims, (Dims{1}));
  EXPECT_TRUE(shape("scalar").global.empty());
  EXPECT_TRUE(shape("scalar").ghost_lo == (Dims{0}));
  EXPECT_EQ(shape("atmosphere/cells").dims, (Dims{3, 16, 16}));
  EXPECT_EQ(shape("atmosphere/cells").elements, 768u);
  EXPECT_EQ(shape("atmosphere/winds/face").dims, (Dims{16, 17}));
}

TEST(ValidModel, Cm1MeshesStoresEventsLog) {
  const Config c = valid("cm1_damaris");
  ASSERT_EQ(c.meshes.size(), 1u);
  const ecluse::Mesh& grid = *c.find_mesh("grid");
  EXPECT_EQ(ecluse::name_of(grid.type), "rectilinear");
  EXPECT_EQ(grid.topology, 2);
  ASSERT_EQ(grid.coords.size(), 2u);
  EXPECT_EQ(grid.coords[0].name, "x");
  EXPECT_EQ(grid.coords[0].label, "West-East");
  EXPECT_EQ(grid.coords[1].name, "y");
  EXPECT_EQ(grid.coords[1].unit, "m");

  ASSERT_EQ(c.stores.size(), 2u);
  const ecluse::Store& h5 = *c.find_store("h5");
  EXPECT_EQ(h5.type, "HDF5");
  EXPECT_EQ(h5.options.size(), 3u);
  EXPECT_EQ(h5.options.at("FileMode"), "FilePerCore");
  EXPECT_EQ(h5.options.at("XDMFMode"), "NoIteration");
  EXPECT_EQ(h5.options.at("FilesPath"), "out/");
  EXPECT_EQ(c.find_store("raw")->type, "null");
  EXPECT_TRUE(c.find_store("raw")->options.empty());

  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.find_event("dump_stats")->action, "cm1_dump");
  EXPECT_EQ(c.find_event("dump_stats")->library, "libcm1plugins.so");
  EXPECT_EQ(ecluse::name_of(c.find_event("checkpoint")->execution), "local");
  EXPECT_EQ(ecluse::name_of(c.find_event("checkpoint")->scope), "bcast");

  EXPECT_EQ(c.log.file, "cm1_log");
  EXPECT_EQ(ecluse::name_of(c.log.level), "warning");
  EXPECT_EQ(c.log.rotation_size, 5000000u);
  EXPECT_EQ(c.log.format, "[%TimeStamp%]: %Message%");
  EXPECT_TRUE(c.log.flush);
}

TEST(ValidModel, Cm1ParameterValues) {
  const Config c = valid("cm1_damaris");
  ecluse::Diagnostics diagnostics;
  const ecluse::Parameters parameters(c, diagnostics);
  EXPECT_TRUE(diagnostics.empty());
  double dt = 0;
  parameters.get("dt", &dt, sizeof dt);
  EXPECT_EQ(dt, 0.25);
  char title[32];
  parameters.get("title", title, sizeof title);
  EXPECT_STREQ(title, "supercell run");
  EXPECT_EQ(parameters.integer("nz"), 10);
  EXPECT_EQ(parameters.integer("levels", "atmosphere/"), 3);
  EXPECT_EQ(c.find_parameter("nz")->type, ecluse::DataType::Int16);
}

TEST(ValidModel, EcluseExtensions) {
  const Config c = valid("ecluse_extensions");
  const ecluse::Architecture& a = c.architecture;
  EXPECT_EQ(ecluse::name_of(c.language), "cpp");
  EXPECT_EQ(a.domains, 2);
  EXPECT_EQ(a.dedicated_cores, 2);
  EXPECT_EQ(a.buffer_name, "heat-buffer");
  EXPECT_EQ(a.buffer_size, 67108864u);
  EXPECT_EQ(ecluse::name_of(a.buffer_type), "sysv");
  EXPECT_EQ(ecluse::name_of(a.allocator), "partitioned");
  EXPECT_EQ(ecluse::name_of(a.full_policy), "skip");
  EXPECT_FALSE(a.buffer_prefault);
  EXPECT_EQ(ecluse::name_of(a.buffer_copy), "streaming");
  EXPECT_EQ(ecluse::name_of(a.placement), "last");
  EXPECT_EQ(a.ranks_per_node, 4);
  EXPECT_EQ(a.queue_size, 4096);
  EXPECT_EQ(ecluse::name_of(c.log.level), "debug");
  EXPECT_EQ(c.log.rotation_size, 1073741824u);
  const Shapes shape(c);
  EXPECT_EQ(shape("block").dims, (Dims{64, 128}));
  EXPECT_EQ(shape("block").ghost_lo, (Dims{1, 1}));
  EXPECT_EQ(c.find_variable("temperature")->stores, Names{"collective"});
  EXPECT_EQ(c.find_store("collective")->options.at("FileMode"), "Collective");
  EXPECT_EQ(c.find_store("collective")->options.at("FileName"), "{simulation}_{iteration}.h5");
}

TEST(ValidModel, NoNamespace) {
  const Config c = valid("no_namespace");
  EXPECT_EQ(c.simulation, "plain");
  EXPECT_EQ(c.architecture.dedicated_nodes, 1);
  EXPECT_EQ(c.architecture.buffer_size, 1048576u);
  EXPECT_EQ(c.find_layout("line")->type, ecluse::DataType::Int8);
  EXPECT_EQ(c.find_variable("flags")->layout, "line");
  EXPECT_EQ(Shapes(c)("line").dims, (Dims{10}));
}

TEST(ValidModel, FortranSimulationReversesEverything) {
  const Config c = valid("fortran_simulation");
  EXPECT_TRUE(c.find_layout("ijk")->fortran);
  EXPECT_FALSE(c.find_layout("kji")->fortran);
  const Shapes shape(c);
  EXPECT_EQ(shape("ijk").dims, (Dims{2, 3, 5}));
  EXPECT_EQ(shape("ijk").ghost_lo, (Dims{0, 0, 1}));
  EXPECT_EQ(shape("ijk").ghost_hi, (Dims{0, 1, 0}));
  EXPECT_EQ(shape("ijk").global, (Dims{2, 3, 10}));
  EXPECT_EQ(shape("kji").dims, (Dims{5, 3, 2}));
}

TEST(ValidModel, AllTypeNamesAndLimits) {
  using ecluse::DataType;
  const Config c = valid("all_types");
  const std::vector<std::pair<std::string, DataType>> parameters = {
      {"c", DataType::Int8},     {"ch", DataType::Int8},    {"s", DataType::Int16},
      {"i", DataType::Int32},    {"ig", DataType::Int32},   {"l", DataType::Int64},
      {"f", DataType::Float32},  {"r", DataType::Float32},  {"d", DataType::Float64},
      {"str", DataType::String}, {"lab", DataType::String}, {"n", DataType::Int32}};
  for (const auto& [name, type] : parameters) EXPECT_EQ(c.find_parameter(name)->type, type) << name;
  const std::vector<std::pair<std::string, DataType>> layouts = {
      {"l_char", DataType::Int8},     {"l_character", DataType::Int8},
      {"l_short", DataType::Int16},   {"l_int", DataType::Int32},
      {"l_integer", DataType::Int32}, {"l_long", DataType::Int64},
      {"l_float", DataType::Float32}, {"l_real", DataType::Float32},
      {"l_double", DataType::Float64}};
  for (const auto& [name, type] : layouts) EXPECT_EQ(c.find_layout(name)->type, type) << name;

  ecluse::Diagnostics diagnostics;
  const ecluse::Parameters values(c, diagnostics);
  EXPECT_EQ(values.integer("c"), -128);
  EXPECT_EQ(values.integer("ch"), 127);
  EXPECT_EQ(values.integer("s"), 32767);
  EXPECT_EQ(values.integer("i"), -2147483648LL);
  EXPECT_EQ(values.integer("ig"), 2147483647);
  EXPECT_EQ(values.integer("l"), INT64_MAX);
  EXPECT_TRUE(values.raw("str").empty());

  const Shapes shape(c);
  EXPECT_EQ(shape("l_char").dims, (Dims{2, 2}));
  EXPECT_EQ(shape("l_double").ghost_lo, (Dims{0}));
  EXPECT_EQ(shape("l_double").ghost_hi, (Dims{1}));
  EXPECT_EQ(shape("l_double").global, (Dims{6}));
  EXPECT_EQ(c.find_layout("l_char")->dimensions.at(0).text(), "n");
  EXPECT_FALSE(c.find_layout("l_int")->fortran);

  EXPECT_EQ(c.architecture.domains, 3);
  EXPECT_EQ(c.architecture.buffer_size, 2000000000u);
  EXPECT_EQ(c.find_variable("v")->stores, (Names{"a", "b"}));
  EXPECT_EQ(c.find_store("a")->options.at("FileMode"), "Collective");
  EXPECT_EQ(c.find_store("a")->options.at("XDMFMode"), "EveryIteration");
  EXPECT_EQ(c.events.size(), 3u);
  EXPECT_EQ(ecluse::name_of(c.find_event("remote")->execution), "remote");
  EXPECT_EQ(ecluse::name_of(c.find_event("remote")->scope), "core");
  EXPECT_EQ(ecluse::name_of(c.find_event("coupled")->execution), "coupled");
  EXPECT_EQ(ecluse::name_of(c.find_event("local")->scope), "group");
  EXPECT_EQ(ecluse::name_of(c.log.level), "trace");
  EXPECT_FALSE(c.log.flush);
}

TEST(ValidModel, EclusesOwnTypeNamesAndUnsignedLimits) {
  using ecluse::DataType;
  const Config c = valid("unsigned_types");
  const std::vector<std::pair<std::string, DataType>> parameters = {
      {"b", DataType::UInt8},     {"w", DataType::UInt16},   {"d", DataType::UInt32},
      {"q", DataType::UInt64},    {"uc", DataType::UInt8},   {"us", DataType::UInt16},
      {"ui", DataType::UInt32},   {"ul", DataType::UInt64},  {"i8", DataType::Int8},
      {"i16", DataType::Int16},   {"i32", DataType::Int32},  {"i64", DataType::Int64},
      {"f32", DataType::Float32}, {"f64", DataType::Float64}};
  for (const auto& [name, type] : parameters) EXPECT_EQ(c.find_parameter(name)->type, type) << name;
  const std::vector<std::pair<std::string, DataType>> layouts = {
      {"l_uint8", DataType::UInt8},     {"l_uint16", DataType::UInt16},
      {"l_uint32", DataType::UInt32},   {"l_uint64", DataType::UInt64},
      {"l_uchar", DataType::UInt8},     {"l_ushort", DataType::UInt16},
      {"l_uint", DataType::UInt32},     {"l_ulong", DataType::UInt64},
      {"l_int8", DataType::Int8},       {"l_int16", DataType::Int16},
      {"l_int32", DataType::Int32},     {"l_int64", DataType::Int64},
      {"l_float32", DataType::Float32}, {"l_float64", DataType::Float64}};
  for (const auto& [name, type] : layouts) EXPECT_EQ(c.find_layout(name)->type, type) << name;

  ecluse::Diagnostics diagnostics;
  const ecluse::Parameters values(c, diagnostics);
  EXPECT_TRUE(diagnostics.empty());
  EXPECT_EQ(values.integer("b"), 255);
  EXPECT_EQ(values.integer("w"), 65535);
  EXPECT_EQ(values.integer("d"), 4294967295LL);
  EXPECT_EQ(values.integer("q"), std::nullopt);  // above INT64_MAX: no layout may use it
  EXPECT_EQ(values.integer("ul"), INT64_MAX);
  EXPECT_EQ(values.integer("i64"), INT64_MIN);
  std::uint64_t q = 0;
  values.get("q", &q, sizeof q);
  EXPECT_EQ(q, UINT64_MAX);

  const Shapes shape(c);
  EXPECT_EQ(shape("l_uint8").dims, (Dims{2, 3}));
  EXPECT_EQ(shape("l_uchar").dims, (Dims{65535}));  // above the int16 maximum
}

TEST(ValidModel, GroupsResolveInTheirGroupThenAtTopLevel) {
  const Config c = valid("groups_and_meshes");
  EXPECT_EQ(c.find_variable("fluid/xs")->layout, "fluid/line");
  EXPECT_EQ(c.find_variable("fluid/global_line")->layout, "fluid/line");
  EXPECT_EQ(c.find_variable("fluid/inner/top")->layout, "line");
  EXPECT_EQ(c.find_variable("fluid/inner/pressure")->layout, "fluid/line");
  EXPECT_EQ(c.find_variable("fluid/inner/pressure")->mesh, "fluid/curve_mesh");
  EXPECT_FALSE(c.find_variable("fluid/ys")->enabled);
  EXPECT_EQ(ecluse::name_of(c.find_mesh("fluid/curve_mesh")->type), "curvilinear");
  EXPECT_EQ(c.find_mesh("fluid/curve_mesh")->coords.at(0).name, "fluid/xs");
  EXPECT_EQ(ecluse::name_of(c.find_mesh("fluid/profile")->type), "curve");
  const Shapes shape(c);
  EXPECT_EQ(shape("line").dims, (Dims{8}));
  EXPECT_EQ(shape("fluid/line").dims, (Dims{6}));  // fluid/n shadows n
}

}  // namespace
