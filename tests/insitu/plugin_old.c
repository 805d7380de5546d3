/* A plugin built for an interface version Ecluse does not provide: refused at initialize. */
#include <stdint.h>

const uint32_t ecluse_plugin_version = 0;

int old_action(const void* it) {
  (void)it;
  return 0;
}
