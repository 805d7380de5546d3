// The calibration file is INI-like so that it can be written by hand on a cluster:
//   [host nid00*]  or  [cpu AMD EPYC 7763*]   then   id = ..., idle_watts = ..., max_watts = ...
#include "energy/Calibration.hpp"

#include <fnmatch.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

constexpr double kDefaultIdleWatts = 100;
constexpr double kDefaultMaxWatts = 250;

struct Section {
  int line = 0;
  std::string kind;     // "host" or "cpu"
  std::string pattern;  // fnmatch pattern
  Calibration values;
  bool has_idle = false;
  bool has_max = false;
};

[[noreturn]] void file_error(const std::string& file, int line, const std::string& message) {
  throw Error(ECLUSE_CONFIG_ERROR, file + ":" + std::to_string(line) + ": " + message);
}

std::string watts_text(double watts) {
  std::ostringstream text;
  text << watts;
  return text.str();
}

std::string check_watts(double idle, double max) {
  if (!std::isfinite(idle) || !std::isfinite(max) || idle < 0) {
    return "idle_watts and max_watts must be finite and non-negative";
  }
  return idle > max
             ? "idle_watts (" + watts_text(idle) + ") is above max_watts (" + watts_text(max) + ")"
             : "";
}

Section open_section(const std::string& file, int line, const std::string& header) {
  const std::string body = trim(header.substr(1, header.size() - 2));
  const auto space = body.find(' ');
  Section section{line, body.substr(0, space), trim(body.substr(space + 1)), {}, false, false};
  if (space == std::string::npos || (section.kind != "host" && section.kind != "cpu")) {
    file_error(file, line, "section '" + header + "' must be [host PATTERN] or [cpu PATTERN]");
  }
  section.values.id = file + ":" + std::to_string(line);
  section.values.origin = file + " [" + body + "]";
  return section;
}

double parse_watts(const std::string& file, int line, const std::string& value) {
  std::size_t used = 0;
  double watts = 0;
  try {
    watts = std::stod(value, &used);
  } catch (const std::exception&) {
  }
  if (used == 0 || used != value.size()) {
    file_error(file, line, "'" + value + "' is not a number of watts");
  }
  return watts;
}

void set_key(Section& s, const std::string& file, int line, const std::string& text) {
  const auto equal = text.find('=');
  if (equal == std::string::npos)
    file_error(file, line, "expected key = value, got '" + text + "'");
  const std::string key = trim(text.substr(0, equal));
  const std::string value = trim(text.substr(equal + 1));
  if (key == "id") {
    s.values.id = value;
  } else if (key == "idle_watts") {
    s.values.idle_watts = parse_watts(file, line, value);
    s.has_idle = true;
  } else if (key == "max_watts") {
    s.values.max_watts = parse_watts(file, line, value);
    s.has_max = true;
  } else {
    file_error(file, line, "unknown key '" + key + "'; known keys: id, idle_watts, max_watts");
  }
}

void finish_section(const Section& s, const std::string& file) {
  if (!s.has_idle || !s.has_max) {
    file_error(file, s.line, "section needs both idle_watts and max_watts");
  }
  const std::string problem = check_watts(s.values.idle_watts, s.values.max_watts);
  if (!problem.empty()) file_error(file, s.line, problem);
}

std::vector<Section> parse_file(std::istream& in, const std::string& file) {
  std::vector<Section> sections;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    text = trim(text);
    if (text.empty() || text[0] == '#') continue;
    if (text.front() == '[' && text.back() == ']') {
      sections.push_back(open_section(file, line, text));
    } else if (sections.empty()) {
      file_error(file, line, "key before the first [host PATTERN] or [cpu PATTERN] section");
    } else {
      set_key(sections.back(), file, line, text);
    }
  }
  for (const Section& s : sections) finish_section(s, file);
  return sections;
}

bool matches(const Section& s, const std::string& host, const std::string& cpu) {
  const std::string& subject = s.kind == "host" ? host : cpu;
  return fnmatch(s.pattern.c_str(), subject.c_str(), 0) == 0;
}

}  // namespace

Calibration default_calibration() {
  return {"default-uncalibrated", kDefaultIdleWatts, kDefaultMaxWatts, true,
          "built-in default (no calibration given): P_idle 100 W, P_max 250 W"};
}

Calibration explicit_calibration(double idle_watts, double max_watts, const std::string& id) {
  const std::string problem = check_watts(idle_watts, max_watts);
  if (!problem.empty()) throw Error(ECLUSE_CONFIG_ERROR, "calibration '" + id + "': " + problem);
  return {id, idle_watts, max_watts, false, "explicit values"};
}

Calibration load_calibration(const std::string& file, const std::string& host,
                             const std::string& cpu_model) {
  std::ifstream in(file);
  if (!in) throw Error(ECLUSE_CONFIG_ERROR, "cannot open calibration file " + file);
  for (const Section& s : parse_file(in, file)) {
    if (matches(s, host, cpu_model)) return s.values;
  }
  Calibration fallback = default_calibration();
  fallback.origin = "built-in default: no section of " + file + " matches host '" + host +
                    "' or CPU '" + cpu_model + "'";
  return fallback;
}

std::string host_name(const SysfsFiles& files) {
  return trim(files.try_read("/proc/sys/kernel/hostname").value_or(""));
}

std::string cpu_model(const SysfsFiles& files) {
  std::istringstream in(files.try_read("/proc/cpuinfo").value_or(""));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    return trim(line.substr(line.find(':') + 1));
  }
  return "";
}

}  // namespace ecluse
