// Parameter values (get, set, sizes, strings, scopes) and layout shapes that follow them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "config/Parameters.hpp"
#include "ecluse/Error.hpp"

namespace {

using ecluse::Config;
using ecluse::Diagnostics;
using ecluse::Error;
using ecluse::evaluate_layout;
using ecluse::LayoutShape;
using ecluse::Parameters;
using Dims = std::vector<std::uint64_t>;

const char* kConfig = R"(<simulation name="p">
  <architecture><domains count="1"/></architecture>
  <data>
    <parameter name="WIDTH" type="int" value="64"/>
    <parameter name="size" type="int" value="4"/>
    <parameter name="HEIGHT" type="long" value="16"/>
    <parameter name="nz" type="short" value="3"/>
    <parameter name="tiny" type="char" value="-5"/>
    <parameter name="dt" type="double" value="0.25"/>
    <parameter name="ratio" type="float" value="1.5"/>
    <parameter name="title" type="string" value="supercell run"/>
    <layout name="slab" type="double" dimensions="WIDTH/size,HEIGHT" global="WIDTH,HEIGHT"/>
    <layout name="halo" type="float" dimensions="WIDTH/size+2,HEIGHT+4,nz"
            ghosts="1:1,2:2,0:0"/>
    <layout name="halo_short" type="float" dimensions="WIDTH/size+2,HEIGHT+4,nz"
            ghosts="1, size/2 ,0"/>
    <layout name="fslab" type="real" dimensions="WIDTH/size+2,HEIGHT+4,nz" ghosts="1:1,3:1,0:0"
            global="WIDTH,HEIGHT*2,nz" language="fortran"/>
    <group name="g">
      <parameter name="size" type="int" value="8"/>
      <layout name="slab" type="double" dimensions="WIDTH/size"/>
    </group>
  </data>
</simulation>)";

class ParametersTest : public ::testing::Test {
 protected:
  Config config = ecluse::parse_config("<test>", kConfig);
  Diagnostics diagnostics;
  Parameters parameters{config, diagnostics};

  LayoutShape shape(const std::string& layout) const {
    return evaluate_layout(*config.find_layout(layout), parameters);
  }
  template <class T>
  T get(const std::string& name) const {
    T value{};
    parameters.get(name, &value, sizeof value);
    return value;
  }
  template <class T>
  void set(const std::string& name, T value) {
    parameters.set(name, &value, sizeof value);
  }
};

/** The status and message of the Error thrown by f, or {ECLUSE_OK, ""}. */
template <class F>
std::pair<ecluse_status, std::string> failure(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.status(), e.what()};
  }
  return {ECLUSE_OK, ""};
}

TEST_F(ParametersTest, ReadsDeclaredValuesOfEveryType) {
  EXPECT_TRUE(diagnostics.empty());
  EXPECT_EQ(get<std::int32_t>("WIDTH"), 64);
  EXPECT_EQ(get<std::int64_t>("HEIGHT"), 16);
  EXPECT_EQ(get<std::int16_t>("nz"), 3);
  EXPECT_EQ(get<std::int8_t>("tiny"), -5);
  EXPECT_EQ(get<double>("dt"), 0.25);
  EXPECT_EQ(get<float>("ratio"), 1.5f);
}

TEST_F(ParametersTest, IntegerLooksInTheScopeFirst) {
  EXPECT_EQ(parameters.integer("size"), 4);
  EXPECT_EQ(parameters.integer("size", "g/"), 8);
  EXPECT_EQ(parameters.integer("WIDTH", "g/"), 64);
  EXPECT_EQ(parameters.integer("g/size"), 8);
  EXPECT_EQ(parameters.integer("tiny"), -5);
  EXPECT_EQ(parameters.integer("dt"), std::nullopt);
  EXPECT_EQ(parameters.integer("title"), std::nullopt);
  EXPECT_EQ(parameters.integer("nope"), std::nullopt);
  EXPECT_EQ(parameters.lookup("g/")("size"), 8);
  EXPECT_EQ(ecluse::scope_of("a/b/c"), "a/b/");
  EXPECT_EQ(ecluse::scope_of("c"), "");
}

TEST_F(ParametersTest, GetWithAWrongSizeSaysWhichSizeIsNeeded) {
  std::int64_t wide = 0;
  EXPECT_EQ(
      failure([&] { parameters.get("WIDTH", &wide, sizeof wide); }),
      std::make_pair(ECLUSE_ARGUMENT_ERROR,
                     std::string("parameter 'WIDTH' is of type int (4 bytes) but the buffer has "
                                 "8 bytes; pass a buffer of exactly 4 bytes.")));
  std::int32_t narrow = 0;
  EXPECT_EQ(
      failure([&] { parameters.get("HEIGHT", &narrow, sizeof narrow); }),
      std::make_pair(ECLUSE_ARGUMENT_ERROR,
                     std::string("parameter 'HEIGHT' is of type long (8 bytes) but the buffer "
                                 "has 4 bytes; pass a buffer of exactly 8 bytes.")));
}

TEST_F(ParametersTest, SetWithAWrongSizeLeavesTheValue) {
  const std::int16_t small = 2;
  EXPECT_EQ(
      failure([&] { parameters.set("WIDTH", &small, sizeof small); }),
      std::make_pair(ECLUSE_ARGUMENT_ERROR,
                     std::string("parameter 'WIDTH' is of type int (4 bytes) but the buffer has "
                                 "2 bytes; pass a buffer of exactly 4 bytes.")));
  EXPECT_EQ(get<std::int32_t>("WIDTH"), 64);
}

TEST_F(ParametersTest, UndeclaredParametersAreRefused) {
  int value = 0;
  const auto expected =
      std::make_pair(ECLUSE_UNDEFINED_PARAMETER,
                     std::string("parameter 'nope' is not declared in the configuration"));
  EXPECT_EQ(failure([&] { parameters.get("nope", &value, sizeof value); }), expected);
  EXPECT_EQ(failure([&] { parameters.set("nope", &value, sizeof value); }), expected);
  EXPECT_TRUE(parameters.raw("nope").empty());
}

TEST_F(ParametersTest, StringsNeedRoomForTheTerminatingNul) {
  char exact[14];
  parameters.get("title", exact, sizeof exact);
  EXPECT_STREQ(exact, "supercell run");
  char small[4];
  EXPECT_EQ(
      failure([&] { parameters.get("title", small, sizeof small); }),
      std::make_pair(ECLUSE_ARGUMENT_ERROR,
                     std::string("parameter 'title' is of type string (14 bytes) but the buffer "
                                 "has 4 bytes; pass a buffer of at least 14 bytes.")));
}

TEST_F(ParametersTest, StringsTakeAnyLengthAndStopAtNul) {
  parameters.set("title", "abc", 3);
  char buffer[32];
  parameters.get("title", buffer, sizeof buffer);
  EXPECT_STREQ(buffer, "abc");
  const char with_nul[8] = "de\0fgh";
  parameters.set("title", with_nul, sizeof with_nul);
  parameters.get("title", buffer, sizeof buffer);
  EXPECT_STREQ(buffer, "de");
  const std::string longer(100, 'x');
  parameters.set("title", longer.c_str(), longer.size());
  EXPECT_EQ(parameters.raw("title").size(), 100u);
}

TEST_F(ParametersTest, RawAndRestoreRoundTrip) {
  const std::vector<unsigned char> saved = parameters.raw("WIDTH");
  EXPECT_EQ(saved.size(), 4u);
  set<std::int32_t>("WIDTH", 128);
  EXPECT_EQ(get<std::int32_t>("WIDTH"), 128);
  parameters.restore("WIDTH", saved);
  EXPECT_EQ(get<std::int32_t>("WIDTH"), 64);
}

TEST_F(ParametersTest, EvaluatesShapesInCOrder) {
  const LayoutShape slab = shape("slab");
  EXPECT_EQ(slab.dims, (Dims{16, 16}));
  EXPECT_EQ(slab.ghost_lo, (Dims{0, 0}));
  EXPECT_EQ(slab.ghost_hi, (Dims{0, 0}));
  EXPECT_EQ(slab.global, (Dims{64, 16}));
  EXPECT_EQ(slab.elements, 256u);
  EXPECT_EQ(shape("g/slab").dims, (Dims{8}));  // g/size = 8 shadows size = 4
}

TEST_F(ParametersTest, EvaluatesGhosts) {
  const LayoutShape halo = shape("halo");
  EXPECT_EQ(halo.dims, (Dims{18, 20, 3}));
  EXPECT_EQ(halo.ghost_lo, (Dims{1, 2, 0}));
  EXPECT_EQ(halo.ghost_hi, (Dims{1, 2, 0}));
  EXPECT_TRUE(halo.global.empty());
  EXPECT_EQ(halo.elements, 18u * 20u * 3u);
}

// One number for a dimension is as many ghosts on both sides, as Damaris's BoxLayout reads it.
TEST_F(ParametersTest, OneGhostNumberIsBothSides) {
  const LayoutShape halo = shape("halo_short");
  EXPECT_EQ(halo.ghost_lo, (Dims{1, 2, 0}));
  EXPECT_EQ(halo.ghost_hi, (Dims{1, 2, 0}));
}

TEST_F(ParametersTest, ReversesFortranLayouts) {
  EXPECT_TRUE(config.find_layout("fslab")->fortran);
  const LayoutShape f = shape("fslab");
  EXPECT_EQ(f.dims, (Dims{3, 20, 18}));
  EXPECT_EQ(f.ghost_lo, (Dims{0, 3, 1}));
  EXPECT_EQ(f.ghost_hi, (Dims{0, 1, 1}));
  EXPECT_EQ(f.global, (Dims{3, 32, 64}));
}

TEST_F(ParametersTest, LayoutsFollowParameterChanges) {
  set<std::int32_t>("WIDTH", 128);
  set<std::int64_t>("HEIGHT", 10);
  EXPECT_EQ(shape("slab").dims, (Dims{32, 10}));
  EXPECT_EQ(shape("slab").global, (Dims{128, 10}));
  EXPECT_EQ(shape("g/slab").dims, (Dims{16}));
  EXPECT_EQ(shape("fslab").dims, (Dims{3, 14, 34}));
  set<std::int32_t>("size", 2);
  EXPECT_EQ(shape("slab").dims, (Dims{64, 10}));
  EXPECT_EQ(shape("g/slab").dims, (Dims{16}));  // still g/size
}

TEST_F(ParametersTest, ParameterChangesCanMakeLayoutsInvalid) {
  set<std::int32_t>("WIDTH", 0);
  EXPECT_EQ(failure([&] { (void)shape("slab"); }),
            std::make_pair(ECLUSE_INVALID_DIMENSIONS,
                           std::string("layout 'slab': dimension 1 \"WIDTH/size\" is 0 (WIDTH=0, "
                                       "size=4); dimensions must be positive.")));
  set<std::int32_t>("WIDTH", 64);
  set<std::int32_t>("size", 0);
  EXPECT_EQ(failure([&] { (void)shape("slab"); }),
            std::make_pair(ECLUSE_INVALID_DIMENSIONS,
                           std::string("layout 'slab': dimension 1 \"WIDTH/size\": division by "
                                       "zero (WIDTH=64, size=0); change the parameter values or "
                                       "the expression.")));
  set<std::int32_t>("size", 4);
  set<std::int16_t>("nz", 1);
  set<std::int64_t>("HEIGHT", -3);
  EXPECT_EQ(failure([&] { (void)shape("halo"); }),
            std::make_pair(ECLUSE_INVALID_DIMENSIONS,
                           std::string("layout 'halo': ghosts of dimension 2 are 2:2 for a "
                                       "dimension of 1; ghosts must be >= 0 and leave at least "
                                       "one interior cell.")));
}

TEST(ParametersValues, BadValuesAreReportedAndNotUsable) {
  Config config;
  config.parameters.push_back({"n", ecluse::DataType::Int32, "four", {"f.xml", 3, 5}});
  config.parameters.push_back({"s", ecluse::DataType::Int16, "40000", {"f.xml", 4, 5}});
  config.parameters.push_back({"x", ecluse::DataType::Float64, "1.5e", {"f.xml", 5, 5}});
  config.parameters.push_back({"c", ecluse::DataType::Int8, "-128", {"f.xml", 6, 5}});
  config.parameters.push_back({"n", ecluse::DataType::Int32, "1", {"f.xml", 7, 5}});
  // Too large for the type: refused, not stored as infinity (an explicit "inf" is taken).
  config.parameters.push_back({"f", ecluse::DataType::Float32, "1e40", {"f.xml", 8, 5}});
  config.parameters.push_back({"d", ecluse::DataType::Float64, "1e400", {"f.xml", 9, 5}});
  config.parameters.push_back({"i", ecluse::DataType::Float32, "-inf", {"f.xml", 10, 5}});
  Diagnostics diagnostics;
  const Parameters parameters(config, diagnostics);
  EXPECT_EQ(diagnostics.text(),
            "f.xml:3:5: parameter 'n' has value 'four' which is not a valid int; give a whole "
            "number from -2147483648 to 2147483647.\n"
            "f.xml:4:5: parameter 's' has value '40000' which is not a valid short; give a whole "
            "number from -32768 to 32767.\n"
            "f.xml:5:5: parameter 'x' has value '1.5e' which is not a valid double; give a number "
            "such as 0.5, -2 or 1e-3, at most 1.8e308.\n"
            "f.xml:7:5: duplicate parameter 'n' (first defined at f.xml:3:5); rename or remove one "
            "of them.\n"
            "f.xml:8:5: parameter 'f' has value '1e40' which is not a valid float; give a number "
            "such as 0.5, -2 or 1e-3, at most 3.4e38.\n"
            "f.xml:9:5: parameter 'd' has value '1e400' which is not a valid double; give a "
            "number such as 0.5, -2 or 1e-3, at most 1.8e308.");
  EXPECT_EQ(parameters.integer("n"), std::nullopt);
  EXPECT_EQ(parameters.integer("c"), -128);
}

// Unsigned parameters take their whole range (above the signed maximum of their size) and refuse
// a sign or an overflow with the range they take.
TEST(ParametersValues, UnsignedValuesTakeTheirWholeRangeAndNoSign) {
  using ecluse::DataType;
  Config config;
  config.parameters.push_back({"b", DataType::UInt8, "255", {"f.xml", 3, 5}});
  config.parameters.push_back({"w", DataType::UInt16, "65535", {"f.xml", 4, 5}});
  config.parameters.push_back({"d", DataType::UInt32, "4294967295", {"f.xml", 5, 5}});
  config.parameters.push_back({"q", DataType::UInt64, "18446744073709551615", {"f.xml", 6, 5}});
  config.parameters.push_back({"neg", DataType::UInt16, "-1", {"f.xml", 7, 5}});
  config.parameters.push_back({"zero", DataType::UInt32, "-0", {"f.xml", 8, 5}});
  config.parameters.push_back({"over", DataType::UInt8, "256", {"f.xml", 9, 5}});
  config.parameters.push_back(
      {"over64", DataType::UInt64, "18446744073709551616", {"f.xml", 10, 5}});
  Diagnostics diagnostics;
  const Parameters parameters(config, diagnostics);
  EXPECT_EQ(diagnostics.text(),
            "f.xml:7:5: parameter 'neg' has value '-1' which is not a valid uint16; give a whole "
            "number from 0 to 65535.\n"
            "f.xml:8:5: parameter 'zero' has value '-0' which is not a valid uint32; give a whole "
            "number from 0 to 4294967295.\n"
            "f.xml:9:5: parameter 'over' has value '256' which is not a valid uint8; give a whole "
            "number from 0 to 255.\n"
            "f.xml:10:5: parameter 'over64' has value '18446744073709551616' which is not a valid "
            "uint64; give a whole number from 0 to 18446744073709551615.");
  std::uint8_t b = 0;
  std::uint16_t w = 0;
  std::uint32_t d = 0;
  std::uint64_t q = 0;
  parameters.get("b", &b, sizeof b);
  parameters.get("w", &w, sizeof w);
  parameters.get("d", &d, sizeof d);
  parameters.get("q", &q, sizeof q);
  EXPECT_EQ(b, 255u);
  EXPECT_EQ(w, 65535u);
  EXPECT_EQ(d, 4294967295u);
  EXPECT_EQ(q, UINT64_MAX);
  EXPECT_EQ(parameters.integer("b"), 255);
  EXPECT_EQ(parameters.integer("w"), 65535);
  EXPECT_EQ(parameters.integer("d"), 4294967295LL);
  EXPECT_EQ(parameters.integer("q"), std::nullopt);  // no int64 holds it
  EXPECT_EQ(parameters.layout_problem("w"), "");
  EXPECT_EQ(parameters.layout_problem("q"),
            "parameter 'q' is 18446744073709551615, above 9223372036854775807, the largest value "
            "a layout can use");
}

// A uint64 dimension set above the largest int64 is refused by name, not as an unknown parameter.
TEST(ParametersValues, AUint64ParameterTooLargeForALayoutSaysSo) {
  const Config config = ecluse::parse_config("<test>", R"(<simulation name="u">
  <architecture><domains count="1"/></architecture>
  <data>
    <parameter name="n" type="unsigned long" value="3"/>
    <parameter name="m" type="uint16" value="65535"/>
    <layout name="l" type="uint8" dimensions="n,m"/>
  </data>
</simulation>)");
  Diagnostics diagnostics;
  Parameters parameters(config, diagnostics);
  EXPECT_EQ(evaluate_layout(*config.find_layout("l"), parameters).dims, (Dims{3, 65535}));
  const std::uint64_t huge = std::uint64_t{1} << 63;
  parameters.set("n", &huge, sizeof huge);
  EXPECT_EQ(failure([&] { (void)evaluate_layout(*config.find_layout("l"), parameters); }),
            std::make_pair(ECLUSE_INVALID_DIMENSIONS,
                           std::string("layout 'l': dimension 1 \"n\": parameter 'n' is "
                                       "9223372036854775808, above 9223372036854775807, the "
                                       "largest value a layout can use (n=?); change the "
                                       "parameter values or the expression.")));
}

}  // namespace
