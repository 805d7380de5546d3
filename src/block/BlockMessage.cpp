// A block's description in and out of the fixed-size message that DC and DN servers receive.
#include "block/BlockMessage.hpp"

#include <algorithm>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

template <class T, class U>
void copy_dims(T* out, const std::vector<U>& in) {
  std::copy(in.begin(), in.end(), out);
}

template <class T>
std::vector<T> dims_of(const T* values, int n) {
  return std::vector<T>(values, values + n);
}

bool all_zero(const std::vector<std::uint64_t>& values) {
  return std::all_of(values.begin(), values.end(), [](std::uint64_t v) { return v == 0; });
}

}  // namespace

BlockMessage describe_block(const Config& config, const BlockData& block, std::size_t bytes) {
  BlockMessage e;
  e.type = MessageType::Write;
  e.iteration = block.iteration;
  e.source = block.source;
  e.variable = static_cast<std::int32_t>(block.variable - config.variables.data());
  e.block = block.block;
  e.ndims = static_cast<std::int32_t>(block.dims.size());
  e.bytes = bytes;
  copy_dims(e.dims, block.dims);
  copy_dims(e.ghost_lo, block.ghost_lo);
  copy_dims(e.ghost_hi, block.ghost_hi);
  copy_dims(e.global, block.global);
  copy_dims(e.position, block.position);
  e.positioned = block.position.empty() ? 0 : 1;
  return e;
}

BlockData block_of(const Config& config, const BlockMessage& e, const void* data) {
  const Variable& v = config.variables.at(static_cast<std::size_t>(e.variable));
  BlockData b;
  b.variable = &v;
  b.type = config.find_layout(v.layout)->type;
  b.iteration = e.iteration;
  b.source = e.source;
  b.block = e.block;
  b.dims = dims_of(e.dims, e.ndims);
  b.ghost_lo = dims_of(e.ghost_lo, e.ndims);
  b.ghost_hi = dims_of(e.ghost_hi, e.ndims);
  b.global = dims_of(e.global, e.ndims);
  if (all_zero(b.global)) b.global.clear();
  if (e.positioned) b.position = dims_of(e.position, e.ndims);
  b.data = data;
  return b;
}

void check_dimensions(const BlockData& block, const std::string& approach) {
  if (block.dims.size() <= static_cast<std::size_t>(kMaxDims)) return;
  throw Error(ECLUSE_INVALID_DIMENSIONS,
              "variable '" + block.variable->name + "' has " + std::to_string(block.dims.size()) +
                  " dimensions; " + approach + " handle at most " + std::to_string(kMaxDims) + ".");
}

}  // namespace ecluse
