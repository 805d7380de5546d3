// The in-situ hooks of a writer, made from the configuration.
#include "insitu/InSitu.hpp"

#include "core/Collective.hpp"

namespace ecluse {

void attach_insitu(Writer& writer, const InSituContext& context) {
  run_collectively(context.writers, [&] {
    (void)writer;  // hooks are added here as the configuration asks for them
  });
}

}  // namespace ecluse
