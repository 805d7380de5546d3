// Reads and checks <scripts><pyscript> and script= on variables (docs/python-insitu.md).
#include "config/ScriptsReader.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "config/DamarisCompat.hpp"
#include "config/Suggest.hpp"

namespace ecluse {
namespace {

// nthreads="openmp" or "0" (Damaris) means OMP_NUM_THREADS, read where the worker starts: 0.
int read_nthreads(const pugi::xml_node& node, const AttributeReader& attrs) {
  if (attrs.text(node, "nthreads") == "openmp") return 0;
  return static_cast<int>(attrs.integer(node, "nthreads", 1, 0, 1024));
}

PyScript read_pyscript(const pugi::xml_node& node, const AttributeReader& attrs) {
  PyScript s;
  s.name = attrs.text(node, "name");
  s.file = attrs.text(node, "file");
  s.frequency = static_cast<int>(attrs.integer(node, "frequency", 1, 1));
  s.scheduler_file = attrs.text(node, "scheduler-file");
  s.nthreads = read_nthreads(node, attrs);
  s.keep_workers = attrs.boolean(node, "keep-workers", false);
  s.timeout_seconds = static_cast<double>(attrs.integer(node, "timeout", 10, 1, 3600));
  s.where = attrs.source().of(node);
  s.file_where = attrs.where(node, "file");
  return s;
}

void check_one_worker_per_server(const Config& config, Diagnostics& d) {
  const PyScript* first = nullptr;
  for (const PyScript& s : config.scripts) {
    if (s.scheduler_file.empty()) continue;
    if (first && first->scheduler_file != s.scheduler_file) {
      d.error(s.where, "<pyscript name=\"" + s.name + "\"> names scheduler-file '" +
                           s.scheduler_file + "' but '" + first->name + "' names '" +
                           first->scheduler_file +
                           "'; each server runs one Dask worker: give every <pyscript> the same "
                           "scheduler-file.");
    }
    if (!first) first = &s;
  }
}

void check_variable_scripts(const Variable& v, const Config& config, Diagnostics& d) {
  std::vector<std::string> names;
  for (const PyScript& s : config.scripts) names.push_back(s.name);
  for (const std::string& name : v.scripts) {
    if (config.find_script(name)) continue;
    const std::string known = names.empty() ? " There is no <scripts> section: declare "
                                              "<scripts><pyscript name=\"" +
                                                  name + "\" file=\"...\"/></scripts>."
                                            : " Known scripts: " + join(names) + ".";
    d.error(v.scripts_where, "variable '" + v.name + "' names script '" + name +
                                 "', which is not a <pyscript>" +
                                 did_you_mean_or_period(name, names) + known);
  }
}

}  // namespace

std::vector<PyScript> read_scripts(const pugi::xml_node& scripts, const AttributeReader& attrs) {
  std::vector<PyScript> out;
  for (const auto& node : scripts.children("pyscript")) out.push_back(read_pyscript(node, attrs));
  return out;
}

void read_variable_scripts(const pugi::xml_node& node, const AttributeReader& attrs, Variable& v) {
  if (!node.attribute("script")) return;
  v.scripts = store_list(attrs.text(node, "script"));
  v.scripts_where = attrs.where(node, "script");
}

std::string script_file_problem(const PyScript& s) {
  if (s.file.empty()) {
    return to_string(s.file_where) + ": <pyscript name=\"" + s.name +
           "\"> has an empty file; name the Python file whose main(DD) runs.";
  }
  if (::access(s.file.c_str(), R_OK) == 0) return "";
  const std::string why = std::strerror(errno);
  return to_string(s.file_where) + ": cannot read the script file '" + s.file +
         "' of <pyscript name=\"" + s.name + "\">: " + why +
         " (a relative path is taken from the working directory); fix file= or the file's "
         "permissions.";
}

void check_scripts(const Config& config, Diagnostics& d) {
  check_one_worker_per_server(config, d);
  for (const Variable& v : config.variables) check_variable_scripts(v, config, d);
}

}  // namespace ecluse
