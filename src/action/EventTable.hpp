// Actions of the events declared in <actions>: bound functions or symbols found with dlsym.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/Config.hpp"
#include "ecluse/Session.hpp"

namespace ecluse {

class EventTable {
 public:
  /** Checks every <event library=...> against ECLUSE_ACTION_LIBRARIES (see docs/reliability.md)
   * and throws ECLUSE_CONFIG_ERROR, with the event's location, for one it does not allow. */
  explicit EventTable(const Config& config);
  ~EventTable();
  EventTable(const EventTable&) = delete;
  EventTable& operator=(const EventTable&) = delete;

  void bind(std::string_view event, Action action);
  /** Runs the action of `event` here (synchronously). */
  void fire(std::string_view event, int source, int iteration);

 private:
  [[nodiscard]] const Event& declared(std::string_view name) const;
  Action resolve(const Event& event);
  void allow(const Event& event, const std::vector<std::string>& directories);
  const Config& config_;
  std::map<std::string, Action, std::less<>> actions_;
  std::map<std::string, void*> libraries_;
  std::map<std::string, std::string> allowed_paths_;  // library as written -> file to load
};

}  // namespace ecluse
