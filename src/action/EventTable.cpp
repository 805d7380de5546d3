// Event actions: bound C/C++ functions first, then the named symbol in a library or the program.
#include "action/EventTable.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "config/ApiNames.hpp"
#include "config/Suggest.hpp"
#include "core/Paths.hpp"
#include "ecluse/Error.hpp"
#include "ecluse/ecluse.h"

namespace ecluse {
namespace {

// ECLUSE_ACTION_LIBRARIES: unset, any library; "none" or empty, none; else ':'-separated
// directories from which libraries may be loaded. nullopt when unset.
std::optional<std::vector<std::string>> allowed_directories() {
  const char* env = std::getenv("ECLUSE_ACTION_LIBRARIES");
  if (env == nullptr) return std::nullopt;
  std::vector<std::string> directories;
  std::string text(env);
  if (text == "none") return directories;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find(':', start), text.size());
    std::error_code error;
    const auto dir = std::filesystem::weakly_canonical(text.substr(start, end - start), error);
    if (end > start && !error) directories.push_back(dir.string());
    start = end + 1;
  }
  return directories;
}

// The file a library name designates: itself when it has a '/', else the first allowed
// directory holding it (dlopen's own search path is not trusted here).
std::string locate(const std::string& library, const std::vector<std::string>& directories) {
  if (library.find('/') != std::string::npos) return library;
  for (const std::string& dir : directories) {
    if (std::filesystem::exists(dir + "/" + library)) return dir + "/" + library;
  }
  return library;
}

bool inside(const std::string& file, const std::vector<std::string>& directories) {
  std::error_code error;
  const std::string real = std::filesystem::canonical(file, error).string();
  if (error) return false;
  return std::any_of(directories.begin(), directories.end(),
                     [&](const std::string& dir) { return real != dir && is_under(real, dir); });
}

Action signal_action(ecluse_signal_t function) {
  return [function](const std::string& e, int source, int iteration, const std::string& args) {
    function(e.c_str(), source, iteration, args.c_str());
  };
}

}  // namespace

EventTable::EventTable(const Config& config, ActionPlaces places) : config_(config) {
  try {
    if (const auto directories = allowed_directories()) {
      for (const Event& event : config_.events) {
        if (!event.library.empty()) allow(event, *directories);
      }
    }
    for (const Event& event : config_.events) {
      if (runs_here(event, places)) load(event);
    }
  } catch (...) {
    close_libraries();
    throw;
  }
}

// A signal action without a library is a function of the program or one bound later with
// ecluse_bind: it is looked for at its first signal.
bool EventTable::runs_here(const Event& event, ActionPlaces places) {
  if (event.kind == EventKind::Iteration) return places.remote;
  if (event.library.empty()) return false;
  return event.execution == EventExecution::Local ? places.local : places.remote;
}

void EventTable::load(const Event& event) {
  void* handle = open(event, ECLUSE_CONFIG_ERROR);
  if (event.kind == EventKind::Iteration) {
    load_plugin(event, handle);
    return;
  }
  actions_.emplace(event.name, signal_action(function_of<ecluse_signal_t>(
                                   event, handle, event.action, ECLUSE_CONFIG_ERROR)));
}

// The library must say which plugin.h it was built against: an old one is refused here rather
// than misread at the first iteration.
void EventTable::load_plugin(const Event& event, void* handle) {
  const std::string library = event.library.empty() ? "the program" : "'" + event.library + "'";
  const auto* version = static_cast<const std::uint32_t*>(dlsym(handle, "ecluse_plugin_version"));
  if (version == nullptr) {
    throw failure(event, ECLUSE_CONFIG_ERROR,
                  library +
                      " does not declare its plugin interface version; add "
                      "ECLUSE_PLUGIN_DECLARE(); to one of its source files (ecluse/plugin.h).");
  }
  if (*version != ECLUSE_PLUGIN_VERSION) {
    throw failure(event, ECLUSE_CONFIG_ERROR,
                  library + " was built for plugin interface version " + std::to_string(*version) +
                      ", this Ecluse provides version " + std::to_string(ECLUSE_PLUGIN_VERSION) +
                      "; rebuild it against this Ecluse's ecluse/plugin.h.");
  }
  IterationPlugin plugin;
  plugin.run =
      function_of<ecluse_plugin_iteration_t>(event, handle, event.action, ECLUSE_CONFIG_ERROR);
  plugin.init =
      reinterpret_cast<ecluse_plugin_init_t>(dlsym(handle, (event.action + "_init").c_str()));
  plugin.finish =
      reinterpret_cast<ecluse_plugin_finish_t>(dlsym(handle, (event.action + "_finish").c_str()));
  plugins_[event.name] = plugin;
}

const IterationPlugin& EventTable::plugin(const Event& event) const {
  const auto it = plugins_.find(event.name);
  if (it == plugins_.end()) {
    throw Error(ECLUSE_UNDEFINED_ACTION,
                "event '" + event.name + "': its plugin was not loaded on this rank.");
  }
  return it->second;
}

// At initialize (ECLUSE_CONFIG_ERROR) the message starts with the event's place in the file.
Error EventTable::failure(const Event& event, ecluse_status status, const std::string& what) {
  const std::string where = status == ECLUSE_CONFIG_ERROR ? to_string(event.where) + ": " : "";
  return Error(status, where + "event '" + event.name + "': " + what);
}

void* EventTable::open(const Event& event, ecluse_status status) {
  void*& handle = libraries_[event.library];
  // With ECLUSE_ACTION_LIBRARIES, the file checked at initialize, by its full path.
  const auto allowed = allowed_paths_.find(event.library);
  const std::string& file = allowed == allowed_paths_.end() ? event.library : allowed->second;
  if (!handle) handle = dlopen(file.empty() ? nullptr : file.c_str(), RTLD_NOW);
  if (!handle) {
    throw failure(event, status,
                  "cannot load library '" + event.library + "' of action '" + event.action +
                      "': " + dlerror() +
                      ". Fix: give the library's path in library=, or add its directory to "
                      "LD_LIBRARY_PATH.");
  }
  return handle;
}

void* EventTable::symbol(const Event& event, void* handle, const std::string& name,
                         ecluse_status status) const {
  void* found = dlsym(handle, name.c_str());
  if (!found) {
    const bool program = event.library.empty();
    throw failure(event, status,
                  "function '" + name + "' not found in " +
                      (program ? "the program" : "library '" + event.library + "'") +
                      "; export it (extern \"C\"" + (program ? ", linked with -rdynamic" : "") +
                      ") or bind one with " + api_call(config_.dialect, "bind") + ".");
  }
  return found;
}

void EventTable::allow(const Event& event, const std::vector<std::string>& directories) {
  const std::string file = locate(event.library, directories);
  if (inside(file, directories)) {
    allowed_paths_[event.library] = std::filesystem::canonical(file).string();
    return;
  }
  throw Error(ECLUSE_CONFIG_ERROR,
              to_string(event.where) + ": event '" + event.name + "' loads library '" +
                  event.library +
                  "', which is not a file in the directories that "
                  "ECLUSE_ACTION_LIBRARIES allows ('" +
                  std::getenv("ECLUSE_ACTION_LIBRARIES") +
                  "'). Fix: install the library in one of them, add its directory to "
                  "ECLUSE_ACTION_LIBRARIES, or bind the action with " +
                  api_call(config_.dialect, "bind"));
}

EventTable::~EventTable() {
  close_libraries();
}

void EventTable::close_libraries() {
  for (auto& [name, handle] : libraries_) {
    if (handle) dlclose(handle);
  }
  libraries_.clear();
}

// An iteration action is not run by signals nor bound: its function has another signature.
const Event& EventTable::declared(std::string_view name) const {
  if (const Event* e = config_.find_event(name)) {
    if (e->kind == EventKind::Signal) return *e;
    throw Error(ECLUSE_UNDEFINED_ACTION,
                "event '" + e->name + "' (" + to_string(e->where) +
                    ") has kind=\"iteration\": it runs at the end of every " +
                    std::to_string(e->every > 0 ? e->every : 1) +
                    "-th iteration, not on signals nor through " +
                    api_call(config_.dialect, "bind") +
                    ". Declare another "
                    "<event> for the signal.");
  }
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

// A declared event whose function cannot be found: ECLUSE_BIND_ERROR (an undeclared event is
// ECLUSE_UNDEFINED_ACTION), so that libdamaris can answer as Damaris does (it logs, returns OK).
Action EventTable::resolve(const Event& event) {
  void* handle = open(event, ECLUSE_BIND_ERROR);
  return signal_action(
      function_of<ecluse_signal_t>(event, handle, event.action, ECLUSE_BIND_ERROR));
}

std::vector<std::string> EventTable::unresolved_signals(ActionPlaces places) {
  std::vector<std::string> problems;
  for (const Event& event : config_.events) {
    if (event.kind != EventKind::Signal || actions_.count(event.name)) continue;
    if (!(event.execution == EventExecution::Local ? places.local : places.remote)) continue;
    try {
      actions_.emplace(event.name, resolve(event));
    } catch (const Error& e) {
      problems.emplace_back(e.what());
    }
  }
  return problems;
}

void EventTable::fire(std::string_view name, int source, int iteration) {
  const Event& event = declared(name);
  auto it = actions_.find(event.name);
  if (it == actions_.end()) {
    try {
      it = actions_.emplace(event.name, resolve(event)).first;
    } catch (const Error&) {
      ++(config_.dialect == Dialect::Damaris ? unbound_signals_ : failures_);
      throw;
    }
  }
  it->second(event.name, source, iteration, "");
}

}  // namespace ecluse
