// The one plugin table: every family lists its plugins with typed options, every plugin built
// has a factory in its layer, and the listing tools print comes from the same tables.
#include <gtest/gtest.h>

#include "config/PluginCatalog.hpp"
#include "energy/EnergyRegistry.hpp"
#include "frequency/FrequencyRegistry.hpp"
#include "store/StoreRegistry.hpp"

namespace ecluse {
namespace {

template <class Factory>
void expect_every_built_plugin_has_a_factory(const PluginRegistry<Factory>& registry,
                                             const std::vector<PluginSpec>& specs) {
  ASSERT_EQ(registry.entries().size(), specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& entry = registry.entries()[i];
    EXPECT_EQ(entry.spec, &specs[i]);
    EXPECT_EQ(static_cast<bool>(entry.make), specs[i].not_built.empty()) << specs[i].name;
    EXPECT_EQ(registry.find(specs[i]), &entry);
  }
}

TEST(Plugins, EveryFamilyHasItsFactories) {
  expect_every_built_plugin_has_a_factory(store_registry(), store_kinds());
  expect_every_built_plugin_has_a_factory(energy_registry(), energy_source_specs());
  expect_every_built_plugin_has_a_factory(frequency_registry(), frequency_controller_specs());
}

TEST(Plugins, ListingComesFromTheTables) {
  const std::string listing = plugin_listing();
  std::size_t plugins = 0;
  for (const PluginFamily& family : plugin_families()) {
    for (const PluginSpec& plugin : *family.plugins) {
      ++plugins;
      EXPECT_NE(listing.find(std::string(family.noun) + " " + plugin.name + ": " +
                             plugin.description + "\n"),
                std::string::npos)
          << plugin.name;
      for (const OptionSpec& option : plugin.options) {
        EXPECT_NE(listing.find("    " + option.key + " ("), std::string::npos) << option.key;
      }
    }
  }
  EXPECT_EQ(plugins, 9u);  // HDF5, null; pm_counters, rapl, nvml, model; userspace, clamp, null
  EXPECT_NE(listing.find("    FileMode (choice: FilePerCore | FilePerProcess | FilePerNode | "
                         "Collective | CollectiveTest, default FilePerCore): "),
            std::string::npos)
      << listing;
  EXPECT_NE(listing.find("    idle_watts (number): "), std::string::npos) << listing;
}

TEST(Plugins, OneCheckOfOptions) {
  const PluginSpec& hdf5 = *find_store_kind("HDF5");
  EXPECT_EQ(check_option(hdf5, "FileMode", "Collective").status, OptionCheck::Status::Ok);
  const OptionCheck key = check_option(hdf5, "FilePath", "x");
  EXPECT_EQ(key.status, OptionCheck::Status::UnknownKey);
  EXPECT_EQ(key.closest, "FilesPath");
  const OptionCheck value = check_option(hdf5, "FileMode", "FilePerNod");
  EXPECT_EQ(value.status, OptionCheck::Status::BadValue);
  EXPECT_EQ(value.closest, "FilePerNode");
  EXPECT_EQ(hdf5_options(Store{"s", "HDF5", {{"FileMode", "FilePerProcess"}}, {}}).mode,
            Hdf5FileMode::PerCore);
}

}  // namespace
}  // namespace ecluse
