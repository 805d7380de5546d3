// Damaris 1.9's damaris::model::ModifyModel on Ecluse (libdamaris, header only): a program
// keeps its XML configuration as a template string, replaces placeholders in it, saves it and
// passes the file to damaris_initialize (OPM Flow does). Ecluse's own implementation of the
// public methods; the XSD model behind Damaris's class does not exist here (Ecluse validates the
// file in damaris_initialize, with file and line in its messages).
#ifndef ECLUSE_DAMARIS_MODEL_MODIFYMODEL_HPP
#define ECLUSE_DAMARIS_MODEL_MODIFYMODEL_HPP

#include <mpi.h>

#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>

namespace damaris {
namespace model {

class ModifyModel {
 public:
  /** A template whose placeholders (_SIM_NAME_, _DC_REGEX_...) are still to be replaced. */
  ModifyModel() : config_xml_(default_template()) {}
  explicit ModifyModel(const std::string& input_xml) : config_xml_(input_xml) {}

  void SetXMLstring(const std::string& input_xml) { config_xml_ = input_xml; }

  /** Replaces every match of each key (an ECMAScript regular expression, as in Damaris) by its
   * value, taken literally, in the map's order. Throws std::regex_error for a key that is not a
   * valid regex. */
  void RepalceWithRegEx(const std::map<std::string, std::string>& find_and_replace) {
    for (const auto& [pattern, value] : find_and_replace) {
      std::string literal;  // the value as it is: '$' would start a back-reference
      for (const char c : value) literal += c == '$' ? std::string("$$") : std::string(1, c);
      config_xml_ = std::regex_replace(config_xml_, std::regex(pattern), literal);
    }
  }
  /** The same, spelled correctly. */
  void ReplaceWithRegEx(const std::map<std::string, std::string>& find_and_replace) {
    RepalceWithRegEx(find_and_replace);
  }

  std::string& GetConfigString() { return config_xml_; }

  /** Writes the XML to filename; throws std::runtime_error (naming the file) if it cannot. */
  void SaveXMLStringToFile(const std::string& filename) const {
    std::ofstream out(filename, std::ios::binary | std::ios::trunc);
    out << config_xml_;
    out.close();
    if (!out) {
      throw std::runtime_error("damaris::model::ModifyModel: cannot write the XML to '" + filename +
                               "' (does its directory exist and is it writable?)");
    }
  }

  /** Rank 0 of comm reads uri and sends it to every rank (collective). False on every rank if
   * it could not be read. */
  bool ReadAndBroadcastXMLFromFile(const MPI_Comm& comm, const std::string& uri) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::string text;
    long long size = -1;
    if (rank == 0) {
      std::ifstream in(uri, std::ios::binary);
      if (in) {
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        size = static_cast<long long>(text.size());
      }
    }
    MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, comm);
    if (size < 0) return false;
    text.resize(static_cast<std::size_t>(size));
    if (size > 0) MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, 0, comm);
    config_xml_ = text;
    return true;
  }

 private:
  static std::string default_template() {
    return "<?xml version=\"1.0\"?>\n"
           "<simulation name=\"_SIM_NAME_\" language=\"c\" "
           "xmlns=\"http://damaris.gforge.inria.fr/damaris/model\">\n"
           "  <architecture>\n"
           "    <domains count=\"1\"/>\n"
           "    <dedicated cores=\"_DC_REGEX_\" nodes=\"_DN_REGEX_\"/>\n"
           "    <buffer name=\"buffer\" size=\"_SHMEM_BUFFER_BYTES_REGEX_\"/>\n"
           "    <placement/>\n"
           "    <queue name=\"queue\" size=\"300\"/>\n"
           "  </architecture>\n"
           "  <data>\n"
           "  </data>\n"
           "  <actions>\n"
           "  </actions>\n"
           "</simulation>\n";
  }

  std::string config_xml_;
};

}  // namespace model
}  // namespace damaris

#endif  // ECLUSE_DAMARIS_MODEL_MODIFYMODEL_HPP
