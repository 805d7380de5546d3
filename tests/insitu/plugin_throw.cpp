// A C++ plugin whose action throws: Ecluse catches it at the boundary and logs it.
#include <ecluse/plugin.h>

#include <stdexcept>
#include <string>

extern "C" int throw_always(const ecluse_plugin_iteration* it) {
  throw std::runtime_error("plugin exploded at " + std::to_string(it->iteration));
}
