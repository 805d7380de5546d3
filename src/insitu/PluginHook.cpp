// Iteration plugins: the blocks handed to C as views into the writer's buffer, failures turned
// into errors the writer logs with the iteration.
#include "insitu/PluginHook.hpp"

#include "ecluse/Error.hpp"

namespace ecluse {

PluginHook::PluginHook(const Event& event, const IterationPlugin& plugin, MPI_Comm writers,
                       Log& log)
    : event_(event), plugin_(plugin), log_(log), every_(event.every > 0 ? event.every : 1) {
  MPI_Comm_rank(writers, &rank_);
  MPI_Comm_size(writers, &count_);
  if (plugin_.init == nullptr) return;
  const int status = plugin_.init(event_.name.c_str(), rank_, count_, &user_);
  if (status != 0) {
    throw Error(ECLUSE_INIT_ERROR, to_string(event_.where) + ": " + name() + ": " + event_.action +
                                       "_init returned " + std::to_string(status) + " on writer " +
                                       std::to_string(rank_));
  }
}

std::string PluginHook::name() const {
  return "action '" + event_.name + "'";
}

void PluginHook::describe(const std::vector<BlockData>& blocks) {
  views_.resize(blocks.size());
  interiors_.resize(blocks.size());
  positions_.resize(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const BlockData& b = blocks[i];
    interiors_[i] = b.interior();
    // A block written without a position is at the origin, as the stores and Python see it.
    positions_[i] = b.position.empty() ? std::vector<std::int64_t>(b.dims.size(), 0) : b.position;
    views_[i] = {b.variable->name.c_str(),
                 b.block,
                 b.source,
                 b.iteration,
                 static_cast<std::int32_t>(b.type),  // DataType and ecluse_type share the order
                 data_type_size(b.type),
                 static_cast<std::int32_t>(b.dims.size()),
                 b.dims.data(),
                 b.ghost_lo.data(),
                 b.ghost_hi.data(),
                 interiors_[i].data(),
                 positions_[i].data(),
                 b.global.empty() ? nullptr : b.global.data(),
                 b.data};
  }
}

// A C++ plugin's exception stops here, as its return code would.
int PluginHook::call(const ecluse_plugin_iteration& view) const {
  try {
    return plugin_.run(&view);
  } catch (const std::exception& e) {
    throw Error(ECLUSE_ERROR_UNKNOWN, event_.action + " threw: " + e.what());
  } catch (...) {
    throw Error(ECLUSE_ERROR_UNKNOWN, event_.action +
                                          " threw an exception that is not a "
                                          "std::exception");
  }
}

void PluginHook::on_iteration(int iteration, const std::vector<BlockData>& blocks) {
  if (iteration % every_ != 0) return;
  describe(blocks);
  const ecluse_plugin_iteration view{ECLUSE_PLUGIN_VERSION,
                                     sizeof(ecluse_plugin_iteration),
                                     event_.name.c_str(),
                                     iteration,
                                     rank_,
                                     count_,
                                     views_.size(),
                                     views_.data(),
                                     user_};
  ++runs_;
  int status = 0;
  try {
    status = call(view);
  } catch (...) {
    ++failures_;
    throw;
  }
  if (status != 0) {
    ++failures_;
    throw Error(ECLUSE_ERROR_UNKNOWN, event_.action + " returned " + std::to_string(status));
  }
}

void PluginHook::finish() {
  if (failures_ > 0) {
    log_.error(name() + " failed " + std::to_string(failures_) + " time(s) out of " +
               std::to_string(runs_) + " run(s) on writer " + std::to_string(rank_));
  }
  if (plugin_.finish != nullptr) plugin_.finish(event_.name.c_str(), user_);
}

}  // namespace ecluse
