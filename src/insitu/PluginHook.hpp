// A kind="iteration" event: a C plugin (ecluse/plugin.h) called by the writer at the end of
// every N-th iteration with read-only views of the iteration's blocks.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "action/EventTable.hpp"
#include "core/Log.hpp"
#include "writer/IterationHook.hpp"

namespace ecluse {

class PluginHook : public IterationHook {
 public:
  /** Calls the plugin's optional <action>_init; a non-zero return throws ECLUSE_INIT_ERROR. */
  PluginHook(const Event& event, const IterationPlugin& plugin, MPI_Comm writers, Log& log);
  [[nodiscard]] std::string name() const override;
  /** Runs the plugin on iterations that are multiples of `every`; a non-zero return or an
   * exception of a C++ plugin is thrown as an Error (the writer logs it). */
  void on_iteration(int iteration, const std::vector<BlockData>& blocks) override;
  /** Calls <action>_finish and logs how many runs failed, if any. */
  void finish() override;

 private:
  void describe(const std::vector<BlockData>& blocks);
  int call(const ecluse_plugin_iteration& view) const;
  const Event& event_;
  IterationPlugin plugin_;
  Log& log_;
  int every_;
  int rank_ = 0;
  int count_ = 1;
  void* user_ = nullptr;
  std::uint64_t runs_ = 0;
  std::uint64_t failures_ = 0;
  std::vector<ecluse_plugin_block> views_;             // reused: no allocation per iteration
  std::vector<std::vector<std::uint64_t>> interiors_;  // what views_[i].interior points to
  std::vector<std::vector<std::int64_t>> positions_;   // views_[i].position: zeros if none set
};

}  // namespace ecluse
