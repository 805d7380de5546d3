// The XDMF text of small cases, compared whole: a variable on its layout in two blocks, a
// variable on a rectilinear mesh, what cannot be described, and the temporal collection.
#include <gtest/gtest.h>

#include "store/XdmfDocument.hpp"

namespace ecluse {
namespace {

XdmfArray array(const std::string& name, std::vector<std::uint64_t> extent, int source,
                std::vector<std::int64_t> position = {}) {
  XdmfArray a;
  a.variable = name;
  a.extent = std::move(extent);
  a.position = std::move(position);
  a.source = source;
  a.file = "sim_It3_Pr" + std::to_string(source) + ".h5";
  a.dataset = name + "/P" + std::to_string(source);
  return a;
}

TEST(XdmfDocument, BlocksOfAVariableTileItsGrid) {
  XdmfArray nodal = array("t", {2, 3}, 1, {2, 0});
  nodal.centering = Centering::Nodal;
  nodal.type = DataType::Float32;
  XdmfSkipped skipped;
  const std::string text =
      xdmf_grids({array("t", {2, 3}, 0, {0, 0}), array("n", {4}, 0)}, {}, skipped);
  EXPECT_EQ(text,
            R"(    <Grid Name="n" GridType="Collection" CollectionType="Spatial">
      <Grid Name="n/P0" GridType="Uniform">
        <Topology TopologyType="3DCoRectMesh" Dimensions="2 2 5"/>
        <Geometry GeometryType="ORIGIN_DXDYDZ">
          <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="XML">0 0 0</DataItem>
          <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="XML">1 1 1</DataItem>
        </Geometry>
        <Attribute Name="n" AttributeType="Scalar" Center="Cell">
          <DataItem Dimensions="1 1 4" NumberType="Float" Precision="8" Format="HDF">sim_It3_Pr0.h5:/n/P0</DataItem>
        </Attribute>
      </Grid>
    </Grid>
    <Grid Name="t" GridType="Collection" CollectionType="Spatial">
      <Grid Name="t/P0" GridType="Uniform">
        <Topology TopologyType="3DCoRectMesh" Dimensions="2 3 4"/>
        <Geometry GeometryType="ORIGIN_DXDYDZ">
          <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="XML">0 0 0</DataItem>
          <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="XML">1 1 1</DataItem>
        </Geometry>
        <Attribute Name="t" AttributeType="Scalar" Center="Cell">
          <DataItem Dimensions="1 2 3" NumberType="Float" Precision="8" Format="HDF">sim_It3_Pr0.h5:/t/P0</DataItem>
        </Attribute>
      </Grid>
    </Grid>
)");
  EXPECT_TRUE(skipped.empty());
  const std::string more = xdmf_grids({array("t", {2, 3}, 0, {0, 0}), nodal}, {}, skipped);
  EXPECT_NE(more.find(R"(<Grid Name="t/P1" GridType="Uniform">
        <Topology TopologyType="3DCoRectMesh" Dimensions="1 2 3"/>)"),
            std::string::npos)
      << more;
  EXPECT_NE(more.find(R"(Format="XML">0 2 0</DataItem>)"), std::string::npos) << more;
  EXPECT_NE(more.find(R"(<Attribute Name="t" AttributeType="Scalar" Center="Node">
          <DataItem Dimensions="1 2 3" NumberType="Float" Precision="4" Format="HDF">sim_It3_Pr1.h5:/t/P1</DataItem>)"),
            std::string::npos)
      << more;
}

TEST(XdmfDocument, VariableOnRectilinearMeshInACollectiveFile) {
  auto whole = [](const std::string& name, std::vector<std::uint64_t> extent) {
    XdmfArray a = array(name, std::move(extent), -1);
    a.file = "out/sim_It0.h5";
    a.dataset = name;
    return a;
  };
  XdmfArray p = whole("p", {2, 3});  // zonal: 3 x 4 points
  p.mesh = "m";
  XdmfArray q = p;
  q.variable = q.dataset = "q";
  q.type = DataType::Int32;
  XdmfSkipped skipped;
  const std::string text =
      xdmf_grids({p, q, whole("x", {4}), whole("y", {3})}, {{"m", {"x", "y"}}}, skipped);
  EXPECT_EQ(text.substr(0, text.find("    <Grid Name=\"x\"")),
            R"(    <Grid Name="m" GridType="Uniform">
      <Topology TopologyType="2DRectMesh" Dimensions="3 4"/>
      <Geometry GeometryType="VXVY">
        <DataItem Dimensions="4" NumberType="Float" Precision="8" Format="HDF">out/sim_It0.h5:/x</DataItem>
        <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="HDF">out/sim_It0.h5:/y</DataItem>
      </Geometry>
      <Attribute Name="p" AttributeType="Scalar" Center="Cell">
        <DataItem Dimensions="2 3" NumberType="Float" Precision="8" Format="HDF">out/sim_It0.h5:/p</DataItem>
      </Attribute>
      <Attribute Name="q" AttributeType="Scalar" Center="Cell">
        <DataItem Dimensions="2 3" NumberType="Int" Precision="4" Format="HDF">out/sim_It0.h5:/q</DataItem>
      </Attribute>
    </Grid>
)");
  EXPECT_TRUE(skipped.empty());
}

// XDMF 2's names of the unsigned types: UChar, then UInt with the size as Precision.
TEST(XdmfDocument, UnsignedTypesAreUCharAndUInt) {
  const std::vector<std::pair<DataType, std::string>> types = {
      {DataType::UInt8, R"(NumberType="UChar" Precision="1")"},
      {DataType::UInt16, R"(NumberType="UInt" Precision="2")"},
      {DataType::UInt32, R"(NumberType="UInt" Precision="4")"},
      {DataType::UInt64, R"(NumberType="UInt" Precision="8")"}};
  for (const auto& [type, number_type] : types) {
    XdmfArray a = array("mask", {4}, 0);
    a.type = type;
    XdmfSkipped skipped;
    const std::string text = xdmf_grids({a}, {}, skipped);
    EXPECT_NE(text.find(R"(<DataItem Dimensions="1 1 4" )" + number_type + R"( Format="HDF">)"),
              std::string::npos)
        << text;
    EXPECT_TRUE(skipped.empty());
  }
}

TEST(XdmfDocument, WhatCannotBeDescribedIsSaid) {
  XdmfArray text = array("name", {8}, 0);
  text.type = DataType::String;
  XdmfArray bad = array("p", {2, 2}, 0);
  bad.mesh = "m";
  XdmfSkipped skipped;
  const std::string grids =
      xdmf_grids({text, array("big", {1, 2, 3, 4}, 0), bad, array("x", {5}, 0), array("y", {3}, 0)},
                 {{"m", {"x", "y"}}}, skipped);
  EXPECT_EQ(skipped,
            (XdmfSkipped{"variable 'big': 4 dimensions (XDMF grids have at most 3); not described",
                         "variable 'name': XDMF has no string arrays; not described",
                         "variable 'p' on mesh 'm': its extent 2 2 does not fit coordinates of 3 "
                         "5 points for a zonal variable; described on its layout instead"}));
  EXPECT_NE(grids.find(R"(<Grid Name="p/P0" GridType="Uniform">
        <Topology TopologyType="3DCoRectMesh" Dimensions="2 3 3"/>)"),
            std::string::npos)
      << grids;
}

TEST(XdmfDocument, TemporalCollectionIncludesEachIteration) {
  EXPECT_EQ(xdmf_temporal_document("a&b", {{0, "a&b_It0.xmf"}, {5, "a&b_It5.xmf"}}),
            R"xml(<?xml version="1.0" ?>
<Xdmf Version="2.0" xmlns:xi="http://www.w3.org/2001/XInclude">
  <Domain>
    <Grid Name="a&amp;b" GridType="Collection" CollectionType="Temporal">
      <Grid Name="iteration 0" GridType="Collection" CollectionType="Spatial">
        <Time Value="0"/>
        <xi:include href="a&amp;b_It0.xmf" xpointer="xpointer(//Xdmf/Domain/Grid/Grid)"/>
      </Grid>
      <Grid Name="iteration 5" GridType="Collection" CollectionType="Spatial">
        <Time Value="5"/>
        <xi:include href="a&amp;b_It5.xmf" xpointer="xpointer(//Xdmf/Domain/Grid/Grid)"/>
      </Grid>
    </Grid>
  </Domain>
</Xdmf>
)xml");
  EXPECT_EQ(xdmf_iteration_document("s", 7, "G\n"), R"(<?xml version="1.0" ?>
<Xdmf Version="2.0">
  <Domain>
    <Grid Name="s iteration 7" GridType="Collection" CollectionType="Spatial">
      <Time Value="7"/>
  G
    </Grid>
  </Domain>
</Xdmf>
)");
}

}  // namespace
}  // namespace ecluse
