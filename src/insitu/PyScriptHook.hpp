// A <pyscript>: every `frequency` iterations, main(DD) of its file runs in the writer's embedded
// interpreter with the blocks of the variables whose script= names it (docs/python-insitu.md).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "insitu/PyScriptLibrary.hpp"
#include "writer/IterationHook.hpp"

namespace ecluse {

class PyScriptHook : public IterationHook {
 public:
  /** Script `index` of the configuration, run through `library` (shared by the process's
   * scripts). */
  PyScriptHook(const PyScript& script, int index, std::shared_ptr<PyScriptLibrary> library);

  [[nodiscard]] std::string name() const override { return "pyscript '" + script_.name + "'"; }
  void on_iteration(int iteration, const std::vector<BlockData>& blocks) override;
  /** Stops the Dask worker once (the first hook to finish does it for all). */
  void finish() override;

 private:
  [[nodiscard]] bool wants(const BlockData& block) const;
  const PyScript& script_;
  int index_;
  std::shared_ptr<PyScriptLibrary> library_;
};

/** The C view of a block for the embedded runtime (pointers into `block`). */
EclusePyBlock python_view_of(const BlockData& block);

}  // namespace ecluse
