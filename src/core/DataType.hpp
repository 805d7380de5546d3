// Element types of parameters and layouts, and the XML type names that denote them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ecluse {

enum class DataType { Int8, Int16, Int32, Int64, Float32, Float64, String };

/** The type named in XML (Damaris names included: integer, real, character, label...). */
std::optional<DataType> data_type_from_name(std::string_view name);
/** Every name data_type_from_name accepts, for "did you mean" and help messages. */
const std::vector<std::string>& data_type_names();
std::size_t data_type_size(DataType type);
std::string_view data_type_name(DataType type);
bool is_integer(DataType type);
bool is_array_type(DataType type);

}  // namespace ecluse
