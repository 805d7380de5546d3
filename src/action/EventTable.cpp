// Event actions: bound C/C++ functions first, then the named symbol in a library or the program.
#include "action/EventTable.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "config/Suggest.hpp"
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
                     [&](const std::string& dir) { return real.rfind(dir + "/", 0) == 0; });
}

}  // namespace

EventTable::EventTable(const Config& config) : config_(config) {
  const auto directories = allowed_directories();
  if (!directories) return;
  for (const Event& event : config_.events) {
    if (!event.library.empty()) allow(event, *directories);
  }
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
                  "ECLUSE_ACTION_LIBRARIES, or bind the action with ecluse_bind");
}

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
  // With ECLUSE_ACTION_LIBRARIES, the file checked at initialize, by its full path.
  const auto allowed = allowed_paths_.find(event.library);
  const std::string& file = allowed == allowed_paths_.end() ? event.library : allowed->second;
  if (!handle) handle = dlopen(file.empty() ? nullptr : file.c_str(), RTLD_NOW);
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
