// The XDMF 2 text of one iteration (every variable as grids over its HDF5 datasets) and of the
// temporal collection across iterations: pure functions of the datasets' descriptions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/ConfigEnums.hpp"
#include "core/DataType.hpp"

namespace ecluse {

/** One HDF5 dataset holding one block of a variable (or, in a collective file, all of it). */
struct XdmfArray {
  std::string variable;  // full name, e.g. "group/var"
  std::string mesh;      // a rectilinear mesh's name, empty: described on its layout
  Centering centering = Centering::Zonal;
  DataType type = DataType::Float64;
  std::vector<std::uint64_t> extent;   // C order, interior only, as stored
  std::vector<std::int64_t> position;  // C order; empty: at the origin
  int source = -1;                     // -1: the whole variable (collective file)
  int block = 0;
  std::string file;     // relative to the XDMF file
  std::string dataset;  // path inside the file, without the leading '/'
};

/** A rectilinear mesh: its coordinate variables, x (fastest-varying axis) first. */
struct XdmfMesh {
  std::string name;
  std::vector<std::string> coords;
};

/** What could not be described, one line each (the caller warns once per line). */
using XdmfSkipped = std::vector<std::string>;

/** The grids of one iteration, without the document around them: one spatial collection per
 * mesh or variable holding a uniform grid per block. */
std::string xdmf_grids(const std::vector<XdmfArray>& arrays, const std::vector<XdmfMesh>& meshes,
                       XdmfSkipped& skipped);
/** A whole XDMF document holding `grids` in a spatial collection named after the iteration. */
std::string xdmf_iteration_document(const std::string& simulation, int iteration,
                                    const std::string& grids);
/** One iteration of the temporal collection: where its document is, relative to the
 * collection's file. */
struct XdmfStep {
  int iteration = 0;
  std::string file;
};
/** The temporal collection: each step includes its iteration document's grids (XInclude), with
 * the iteration as its time: the head, each step's text, the tail. */
std::string xdmf_temporal_document(const std::string& simulation,
                                   const std::vector<XdmfStep>& steps);
std::string xdmf_temporal_head(const std::string& simulation);
std::string xdmf_temporal_step(const XdmfStep& step);
std::string xdmf_temporal_tail();

}  // namespace ecluse
