// The XDMF 2 text of an iteration and of the temporal collection (the version VTK's
// vtkXdmfReader, and so ParaView's and VisIt's XDMF readers, open).
#include "store/XdmfDocument.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace ecluse {
namespace {

// Uniform grids of one collection, in the order met; each gets the attributes on its geometry.
struct Grid {
  std::string name;
  std::string topology;  // <Topology .../> and <Geometry>...</Geometry>
  std::vector<std::string> attributes;
};

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

template <class T>
std::string joined(const std::vector<T>& values) {
  std::string text;
  for (const T& v : values) text += (text.empty() ? "" : " ") + std::to_string(v);
  return text;
}

std::string number_type(DataType type) {
  switch (type) {
    case DataType::Int8:
      return R"(NumberType="Char" Precision="1")";
    case DataType::Int16:
      return R"(NumberType="Int" Precision="2")";
    case DataType::Int32:
      return R"(NumberType="Int" Precision="4")";
    case DataType::Int64:
      return R"(NumberType="Int" Precision="8")";
    case DataType::Float32:
      return R"(NumberType="Float" Precision="4")";
    case DataType::UInt8:
      return R"(NumberType="UChar" Precision="1")";
    case DataType::UInt16:
      return R"(NumberType="UInt" Precision="2")";
    case DataType::UInt32:
      return R"(NumberType="UInt" Precision="4")";
    case DataType::UInt64:
      return R"(NumberType="UInt" Precision="8")";
    default:
      return R"(NumberType="Float" Precision="8")";
  }
}

// Every variable without a mesh is a 3-D grid, its missing slow axes of extent 1: a 2-D one a
// plane of one cell (zonal) or one point (nodal) along z, a 1-D one a row along x, a 0-D one a
// cell. Described as 2-D, VTK would place a variable in the YZ plane while one on a 2-D mesh
// (2DRectMesh) lies in the XY plane: the two would be at right angles in one view.
std::vector<std::uint64_t> grid_extent(const std::vector<std::uint64_t>& extent) {
  std::vector<std::uint64_t> padded(extent.size() < 3 ? 3 - extent.size() : 0, 1);
  padded.insert(padded.end(), extent.begin(), extent.end());
  return padded;
}

std::string hdf_item(const XdmfArray& a, const std::vector<std::uint64_t>& dims,
                     const std::string& indent) {
  return indent + "<DataItem Dimensions=\"" + joined(dims) + "\" " + number_type(a.type) +
         " Format=\"HDF\">" + escape(a.file) + ":/" + escape(a.dataset) + "</DataItem>\n";
}

std::string attribute(const XdmfArray& a, const std::vector<std::uint64_t>& dims) {
  const char* center = a.centering == Centering::Nodal ? "Node" : "Cell";
  return "      <Attribute Name=\"" + escape(a.variable) + "\" AttributeType=\"Scalar\" Center=\"" +
         center + "\">\n" + hdf_item(a, dims, "        ") + "      </Attribute>\n";
}

std::string xml_item(const std::string& values, std::size_t count) {
  return "        <DataItem Dimensions=\"" + std::to_string(count) +
         R"(" NumberType="Float" Precision="8" Format="XML">)" + values + "</DataItem>\n";
}

// Origin at the block's position (so the blocks of a variable tile its global grid), spacing 1;
// origin and spacing are listed slowest axis first, like the dimensions.
std::string co_rect_topology(const XdmfArray& a) {
  const std::vector<std::uint64_t> cells = grid_extent(a.extent);
  std::vector<std::uint64_t> points = cells;
  if (a.centering == Centering::Zonal) {
    for (auto& n : points) ++n;
  }
  std::vector<std::int64_t> origin(cells.size(), 0);
  const std::size_t shift = cells.size() - a.extent.size();
  for (std::size_t d = 0; d < a.position.size() && d + shift < origin.size(); ++d) {
    origin[d + shift] = a.position[d];
  }
  return "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" + joined(points) +
         "\"/>\n      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n" +
         xml_item(joined(origin), cells.size()) +
         xml_item(joined(std::vector<int>(cells.size(), 1)), cells.size()) + "      </Geometry>\n";
}

// Every line of text two spaces deeper.
std::string indented(const std::string& text) {
  std::string shifted;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    shifted += "  " + text.substr(start, end == std::string::npos ? end : end - start + 1);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return shifted;
}

using Key = std::tuple<std::string, int, int>;  // variable, source, block

std::string piece_name(const std::string& name, int source, int block, bool blocks) {
  if (source < 0) return name;
  return name + "/P" + std::to_string(source) + (blocks ? "/B" + std::to_string(block) : "");
}

class Builder {
 public:
  Builder(const std::vector<XdmfArray>& arrays, const std::vector<XdmfMesh>& meshes,
          XdmfSkipped& skipped)
      : meshes_(meshes), skipped_(skipped) {
    for (const XdmfArray& a : arrays) {
      by_key_[{a.variable, a.source, a.block}] = &a;
      blocks_ = blocks_ || a.block != 0;
    }
  }

  std::string text() {
    for (const auto& entry : by_key_) add(*entry.second);
    std::string out;
    for (const std::string& name : order_) out += collection(name, collections_[name]);
    return out;
  }

 private:
  void add(const XdmfArray& a) {
    if (const std::string why = unsupported(a); !why.empty()) {
      skipped_.push_back("variable '" + a.variable + "': " + why + "; not described");
      return;
    }
    if (!a.mesh.empty() && add_on_mesh(a)) return;
    Grid& grid = grid_of(a.variable, a);
    grid.topology = co_rect_topology(a);
    grid.attributes.push_back(attribute(a, grid_extent(a.extent)));
  }

  static std::string unsupported(const XdmfArray& a) {
    if (a.type == DataType::String) return "XDMF has no string arrays";
    if (a.extent.size() > 3) {
      return std::to_string(a.extent.size()) + " dimensions (XDMF grids have at most 3)";
    }
    return "";
  }

  Grid& grid_of(const std::string& collection, const XdmfArray& a) {
    auto [it, inserted] = collections_.try_emplace(collection);
    if (inserted) order_.push_back(collection);
    const std::string name = piece_name(collection, a.source, a.block, blocks_);
    for (Grid& g : it->second) {
      if (g.name == name) return g;
    }
    it->second.push_back({name, "", {}});
    return it->second.back();
  }

  bool add_on_mesh(const XdmfArray& a) {
    const XdmfMesh* mesh = find_mesh(a.mesh);
    std::string why;
    std::optional<std::string> topology = mesh ? rect_topology(a, *mesh, why) : std::nullopt;
    if (!mesh) why = "mesh '" + a.mesh + "' is not rectilinear";
    if (!topology) {
      skipped_.push_back("variable '" + a.variable + "' on mesh '" + a.mesh + "': " + why +
                         "; described on its layout instead");
      return false;
    }
    Grid& grid = grid_of(a.mesh, a);
    grid.topology = *topology;
    grid.attributes.push_back(attribute(a, a.extent));
    return true;
  }

  const XdmfMesh* find_mesh(const std::string& name) const {
    for (const XdmfMesh& m : meshes_) {
      if (m.name == name) return &m;
    }
    return nullptr;
  }

  // Coordinate k is the k-th fastest-varying axis: x the last C-order dimension.
  std::optional<std::string> rect_topology(const XdmfArray& a, const XdmfMesh& mesh,
                                           std::string& why) const {
    const std::size_t n = a.extent.size();
    if (n < 2 || mesh.coords.size() != n) {
      why = std::to_string(mesh.coords.size()) + " coordinates for " + std::to_string(n) +
            " dimensions (2 or 3 needed)";
      return std::nullopt;
    }
    std::vector<const XdmfArray*> coords;
    std::vector<std::uint64_t> points(n);
    for (std::size_t k = 0; k < n; ++k) {
      const auto found = by_key_.find({mesh.coords[k], a.source, a.block});
      if (found == by_key_.end() || found->second->extent.size() != 1) {
        why = "coordinate '" + mesh.coords[k] + "' has no 1-D " +
              (a.source < 0 ? std::string("dataset")
                            : "block " + piece_name("", a.source, a.block, blocks_).substr(1)) +
              " in this store's output";
        return std::nullopt;
      }
      coords.push_back(found->second);
      points[n - 1 - k] = found->second->extent[0];
    }
    const std::uint64_t extra = a.centering == Centering::Zonal ? 1 : 0;
    for (std::size_t d = 0; d < n; ++d) {
      if (a.extent[d] + extra != points[d]) {
        why = "its extent " + joined(a.extent) + " does not fit coordinates of " + joined(points) +
              " points for a " + (extra ? "zonal" : "nodal") + " variable";
        return std::nullopt;
      }
    }
    std::string text = "      <Topology TopologyType=\"" + std::to_string(n) +
                       "DRectMesh\" Dimensions=\"" + joined(points) +
                       "\"/>\n      <Geometry GeometryType=\"" + (n == 3 ? "VXVYVZ" : "VXVY") +
                       "\">\n";
    for (const XdmfArray* c : coords) text += hdf_item(*c, c->extent, "        ");
    return text + "      </Geometry>\n";
  }

  static std::string uniform(const Grid& g, const std::string& indent) {
    std::string body = g.topology;
    for (const std::string& a : g.attributes) body += a;
    if (indent.size() > 4) body = indented(body);  // inside a collection: one level deeper
    return indent + "<Grid Name=\"" + escape(g.name) + "\" GridType=\"Uniform\">\n" + body +
           indent + "</Grid>\n";
  }

  static std::string collection(const std::string& name, const std::vector<Grid>& grids) {
    if (grids.size() == 1 && grids[0].name == name) return uniform(grids[0], "    ");
    std::string text = "    <Grid Name=\"" + escape(name) +
                       R"(" GridType="Collection" CollectionType="Spatial">)" + "\n";
    for (const Grid& g : grids) text += uniform(g, "      ");
    return text + "    </Grid>\n";
  }

  const std::vector<XdmfMesh>& meshes_;
  XdmfSkipped& skipped_;
  std::map<Key, const XdmfArray*> by_key_;
  bool blocks_ = false;
  std::map<std::string, std::vector<Grid>> collections_;
  std::vector<std::string> order_;
};

}  // namespace

std::string xdmf_grids(const std::vector<XdmfArray>& arrays, const std::vector<XdmfMesh>& meshes,
                       XdmfSkipped& skipped) {
  return Builder(arrays, meshes, skipped).text();
}

std::string xdmf_iteration_document(const std::string& simulation, int iteration,
                                    const std::string& grids) {
  return "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"2.0\">\n  <Domain>\n    <Grid Name=\"" +
         escape(simulation) + " iteration " + std::to_string(iteration) +
         R"(" GridType="Collection" CollectionType="Spatial">)" + "\n      <Time Value=\"" +
         std::to_string(iteration) + "\"/>\n" + indented(grids) +
         "    </Grid>\n  </Domain>\n</Xdmf>\n";
}

std::string xdmf_temporal_head(const std::string& simulation) {
  return "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"2.0\" "
         "xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n  <Domain>\n    <Grid Name=\"" +
         escape(simulation) + R"(" GridType="Collection" CollectionType="Temporal">)" + "\n";
}

std::string xdmf_temporal_step(const XdmfStep& step) {
  const std::string it = std::to_string(step.iteration);
  return "      <Grid Name=\"iteration " + it +
         R"(" GridType="Collection" CollectionType="Spatial">)" + "\n        <Time Value=\"" + it +
         "\"/>\n        <xi:include href=\"" + escape(step.file) +
         "\" xpointer=\"xpointer(//Xdmf/Domain/Grid/Grid)\"/>\n      </Grid>\n";
}

std::string xdmf_temporal_tail() {
  return "    </Grid>\n  </Domain>\n</Xdmf>\n";
}

std::string xdmf_temporal_document(const std::string& simulation,
                                   const std::vector<XdmfStep>& steps) {
  std::string text = xdmf_temporal_head(simulation);
  for (const XdmfStep& step : steps) text += xdmf_temporal_step(step);
  return text + xdmf_temporal_tail();
}

}  // namespace ecluse
