// Actions of the events declared in <actions>: bound functions or symbols found with dlsym.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/Config.hpp"
#include "ecluse/Error.hpp"
#include "ecluse/Session.hpp"
#include "ecluse/plugin.h"

namespace ecluse {

/** Which actions this rank runs: remote ones and iteration actions (the servers in DC and DN,
 * every rank in TP), local ones (the clients). */
struct ActionPlaces {
  bool remote = true;
  bool local = true;
};

/** The functions of a kind="iteration" event, found at initialize. */
struct IterationPlugin {
  ecluse_plugin_iteration_t run = nullptr;
  ecluse_plugin_init_t init = nullptr;      // optional <action>_init
  ecluse_plugin_finish_t finish = nullptr;  // optional <action>_finish
};

class EventTable {
 public:
  /** Checks every <event library=...> against ECLUSE_ACTION_LIBRARIES (see docs/reliability.md),
   * then loads the library and finds the symbol of every event this rank runs (`places`);
   * throws ECLUSE_CONFIG_ERROR, with the event's location, for a library not allowed, not
   * loadable, a missing symbol or a plugin built for another ECLUSE_PLUGIN_VERSION. */
  explicit EventTable(const Config& config, ActionPlaces places = {});
  ~EventTable();
  EventTable(const EventTable&) = delete;
  EventTable& operator=(const EventTable&) = delete;

  void bind(std::string_view event, Action action);
  /** Runs the action of `event` here (synchronously). A declared event whose action cannot
   * run (its function not found) throws and counts in failures(). */
  void fire(std::string_view event, int source, int iteration);
  /** The signal events run at `places` whose function cannot be found now (a function of the
   * program not exported, a typo, nothing bound): one message each, as fire would throw. The
   * others are resolved and kept. A server asks at start, once the program bound what it binds. */
  [[nodiscard]] std::vector<std::string> unresolved_signals(ActionPlaces places);
  /** Signals of declared events whose action could not run (insitu.failures). In a Damaris
   * file a function never found is not a failure, as Damaris logs it and goes on: those
   * signals count in unbound_signals() (insitu.unbound_signals) instead. */
  [[nodiscard]] std::uint64_t failures() const { return failures_; }
  [[nodiscard]] std::uint64_t unbound_signals() const { return unbound_signals_; }
  /** The functions of a kind="iteration" event loaded at initialize. */
  [[nodiscard]] const IterationPlugin& plugin(const Event& event) const;

 private:
  [[nodiscard]] const Event& declared(std::string_view name) const;
  Action resolve(const Event& event);
  [[nodiscard]] static bool runs_here(const Event& event, ActionPlaces places);
  void load(const Event& event);
  void load_plugin(const Event& event, void* handle);
  void* open(const Event& event, ecluse_status status);
  void* symbol(const Event& event, void* handle, const std::string& name,
               ecluse_status status) const;
  template <typename Function>
  Function function_of(const Event& event, void* handle, const std::string& name,
                       ecluse_status status) const {
    return reinterpret_cast<Function>(symbol(event, handle, name, status));
  }
  static Error failure(const Event& event, ecluse_status status, const std::string& what);
  void close_libraries();
  void allow(const Event& event, const std::vector<std::string>& directories);
  const Config& config_;
  std::map<std::string, Action, std::less<>> actions_;
  std::map<std::string, IterationPlugin, std::less<>> plugins_;
  std::map<std::string, void*> libraries_;
  std::map<std::string, std::string> allowed_paths_;  // library as written -> file to load
  std::uint64_t failures_ = 0;
  std::uint64_t unbound_signals_ = 0;
};

}  // namespace ecluse
