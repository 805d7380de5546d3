// Element types of parameters and layouts, and the XML type names that denote them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ecluse {

// The unsigned types follow String so that the values of ecluse_type (ecluse.h) stay put.
enum class DataType {
  Int8,
  Int16,
  Int32,
  Int64,
  Float32,
  Float64,
  String,
  UInt8,
  UInt16,
  UInt32,
  UInt64
};

/** The type named in XML: Damaris's names (integer, real, character, label...), the fixed-width
 * names (int8 ... uint64, float32, float64) and the C spellings of the unsigned types. */
std::optional<DataType> data_type_from_name(std::string_view name);
/** Every name data_type_from_name accepts, for "did you mean" and help messages. */
const std::vector<std::string>& data_type_names();
/** The names Damaris 1.x's schema knows (char character short int integer long float real double
 * string label): the first of data_type_names(). */
const std::vector<std::string>& damaris_type_names();
std::size_t data_type_size(DataType type);
/** The type's canonical name in messages and files: char, short, int, long, float, double,
 * string, uint8, uint16, uint32, uint64. */
std::string_view data_type_name(DataType type);
/** Signed or unsigned integer. */
bool is_integer(DataType type);
bool is_unsigned(DataType type);
bool is_array_type(DataType type);

}  // namespace ecluse
