// Event actions: bound C/C++ functions first, then the named symbol in a library or the program.
#include "action/EventTable.hpp"

#include <dlfcn.h>

#include "config/Suggest.hpp"
#include "ecluse/Error.hpp"
#include "ecluse/ecluse.h"

namespace ecluse {

EventTable::~EventTable() {
  for (auto& [name, handle] : libraries_) {
    if (handle) dlclose(handle);
  }
}

const Event& EventTable::declared(std::string_view name) const {
  if (const Event* e = config_.find_event(name)) return *e;
  const std::string hint = did_you_mean_or_period(name, names_of(config_.events));
  throw Error(ECLUSE_UNDEFINED_ACTION, "event '" + std::string(name) + "' is not declared in " +
                                           config_.source + hint +
                                           " Declare it in <actions> with <event name=\"" +
                                           std::string(name) + "\" action=\"...\"/>.");
}

void EventTable::bind(std::string_view event, Action action) {
  const Event& e = declared(event);
  if (!action) throw Error(ECLUSE_BIND_ERROR, "bind of event '" + e.name + "': no function.");
  actions_[e.name] = std::move(action);
}

Action EventTable::resolve(const Event& event) {
  void*& handle = libraries_[event.library];
  if (!handle) handle = dlopen(event.library.empty() ? nullptr : event.library.c_str(), RTLD_NOW);
  if (!handle) {
    throw Error(ECLUSE_UNDEFINED_ACTION, "event '" + event.name + "': cannot load library '" +
                                             event.library + "': " + dlerror());
  }
  void* symbol = dlsym(handle, event.action.c_str());
  if (!symbol) {
    const std::string where = event.library.empty() ? "the program" : "'" + event.library + "'";
    throw Error(ECLUSE_UNDEFINED_ACTION,
                "event '" + event.name + "': function '" + event.action + "' not found in " +
                    where +
                    "; export it (extern \"C\", linked with -rdynamic) or bind one "
                    "with ecluse_bind.");
  }
  auto function = reinterpret_cast<ecluse_signal_t>(symbol);
  return [function](const std::string& e, int source, int iteration, const std::string& args) {
    function(e.c_str(), source, iteration, args.c_str());
  };
}

void EventTable::fire(std::string_view name, int source, int iteration) {
  const Event& event = declared(name);
  auto it = actions_.find(event.name);
  if (it == actions_.end()) it = actions_.emplace(event.name, resolve(event)).first;
  it->second(event.name, source, iteration, "");
}

}  // namespace ecluse
