// Element types of parameters and layouts.
#include "core/DataType.hpp"

#include <utility>

namespace ecluse {
namespace {

const std::vector<std::pair<std::string, DataType>>& table() {
  static const std::vector<std::pair<std::string, DataType>> names = {
      {"char", DataType::Int8},     {"character", DataType::Int8}, {"short", DataType::Int16},
      {"int", DataType::Int32},     {"integer", DataType::Int32},  {"long", DataType::Int64},
      {"float", DataType::Float32}, {"real", DataType::Float32},   {"double", DataType::Float64},
      {"string", DataType::String}, {"label", DataType::String}};
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

std::size_t data_type_size(DataType type) {
  switch (type) {
    case DataType::Int8:
      return 1;
    case DataType::Int16:
      return 2;
    case DataType::Int32:
      return 4;
    case DataType::Int64:
      return 8;
    case DataType::Float32:
      return 4;
    case DataType::Float64:
      return 8;
    case DataType::String:
      return 1;
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
  }
  return "?";
}

bool is_integer(DataType type) {
  return type == DataType::Int8 || type == DataType::Int16 || type == DataType::Int32 ||
         type == DataType::Int64;
}

bool is_array_type(DataType type) {
  return type != DataType::String;
}

}  // namespace ecluse
