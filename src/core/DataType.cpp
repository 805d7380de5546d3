// Element types of parameters and layouts.
#include "core/DataType.hpp"

#include <utility>

namespace ecluse {
namespace {

// Damaris's names first (the order of the "Known types" messages: the names of Damaris's
// Model.xsd, "undefined" aside, which Ecluse refuses), then Ecluse's own.
constexpr std::size_t kDamarisNames = 11;

const std::vector<std::pair<std::string, DataType>>& table() {
  static const std::vector<std::pair<std::string, DataType>> names = {
      {"char", DataType::Int8},
      {"character", DataType::Int8},
      {"short", DataType::Int16},
      {"int", DataType::Int32},
      {"integer", DataType::Int32},
      {"long", DataType::Int64},
      {"float", DataType::Float32},
      {"real", DataType::Float32},
      {"double", DataType::Float64},
      {"string", DataType::String},
      {"label", DataType::String},
      {"int8", DataType::Int8},
      {"int16", DataType::Int16},
      {"int32", DataType::Int32},
      {"int64", DataType::Int64},
      {"uint8", DataType::UInt8},
      {"uint16", DataType::UInt16},
      {"uint32", DataType::UInt32},
      {"uint64", DataType::UInt64},
      {"float32", DataType::Float32},
      {"float64", DataType::Float64},
      {"unsigned char", DataType::UInt8},
      {"unsigned short", DataType::UInt16},
      {"unsigned int", DataType::UInt32},
      {"unsigned long", DataType::UInt64}};
  return names;
}

}  // namespace

std::optional<DataType> data_type_from_name(std::string_view name) {
  for (const auto& [text, type] : table()) {
    if (text == name) return type;
  }
  return std::nullopt;
}

const std::vector<std::string>& data_type_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : table()) out.push_back(entry.first);
    return out;
  }();
  return names;
}

const std::vector<std::string>& damaris_type_names() {
  static const std::vector<std::string> names(data_type_names().begin(),
                                              data_type_names().begin() + kDamarisNames);
  return names;
}

std::size_t data_type_size(DataType type) {
  switch (type) {
    case DataType::Int8:
    case DataType::UInt8:
    case DataType::String:
      return 1;
    case DataType::Int16:
    case DataType::UInt16:
      return 2;
    case DataType::Int32:
    case DataType::UInt32:
    case DataType::Float32:
      return 4;
    case DataType::Int64:
    case DataType::UInt64:
    case DataType::Float64:
      return 8;
  }
  return 0;
}

std::string_view data_type_name(DataType type) {
  switch (type) {
    case DataType::Int8:
      return "char";
    case DataType::Int16:
      return "short";
    case DataType::Int32:
      return "int";
    case DataType::Int64:
      return "long";
    case DataType::Float32:
      return "float";
    case DataType::Float64:
      return "double";
    case DataType::String:
      return "string";
    case DataType::UInt8:
      return "uint8";
    case DataType::UInt16:
      return "uint16";
    case DataType::UInt32:
      return "uint32";
    case DataType::UInt64:
      return "uint64";
  }
  return "?";
}

bool is_integer(DataType type) {
  return type == DataType::Int8 || type == DataType::Int16 || type == DataType::Int32 ||
         type == DataType::Int64 || is_unsigned(type);
}

bool is_unsigned(DataType type) {
  return type == DataType::UInt8 || type == DataType::UInt16 || type == DataType::UInt32 ||
         type == DataType::UInt64;
}

bool is_array_type(DataType type) {
  return type != DataType::String;
}

}  // namespace ecluse
