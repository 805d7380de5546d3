// Hands a <pyscript> the blocks of its variables, zero copy, on the iterations it asks for.
#include "insitu/PyScriptHook.hpp"

#include <algorithm>

namespace ecluse {
namespace {

const char* numpy_type(DataType type) {
  switch (type) {
    case DataType::Int8:
      return "=i1";
    case DataType::Int16:
      return "=i2";
    case DataType::Int32:
      return "=i4";
    case DataType::Int64:
      return "=i8";
    case DataType::Float32:
      return "=f4";
    case DataType::Float64:
      return "=f8";
    case DataType::String:
      break;
    case DataType::UInt8:
      return "=u1";
    case DataType::UInt16:
      return "=u2";
    case DataType::UInt32:
      return "=u4";
    case DataType::UInt64:
      return "=u8";
  }
  return "S1";
}

std::uint64_t bytes_of(const BlockData& block) {
  std::uint64_t n = data_type_size(block.type);
  for (const std::uint64_t d : block.dims) n *= d;
  return n;
}

}  // namespace

EclusePyBlock python_view_of(const BlockData& block) {
  const bool positioned = block.position.size() == block.dims.size();
  return {block.variable->name.c_str(),
          numpy_type(block.type),
          block.source,
          block.block,
          static_cast<int>(block.dims.size()),
          block.dims.data(),
          block.ghost_lo.data(),
          block.ghost_hi.data(),
          positioned ? block.position.data() : nullptr,
          block.data,
          bytes_of(block)};
}

PyScriptHook::PyScriptHook(const PyScript& script, int index,
                           std::shared_ptr<PyScriptLibrary> library)
    : script_(script), index_(index), library_(std::move(library)) {}

bool PyScriptHook::wants(const BlockData& block) const {
  const auto& names = block.variable->scripts;
  return std::find(names.begin(), names.end(), script_.name) != names.end();
}

void PyScriptHook::on_iteration(int iteration, const std::vector<BlockData>& blocks) {
  if (iteration % script_.frequency != 0) return;
  std::vector<EclusePyBlock> views;
  for (const BlockData& block : blocks) {
    if (wants(block)) views.push_back(python_view_of(block));
  }
  library_->run(index_, iteration, views);
}

void PyScriptHook::finish() {
  library_->finish();
}

}  // namespace ecluse
