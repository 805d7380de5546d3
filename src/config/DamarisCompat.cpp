// Damaris 1.x compatibility of the reader: dialect, core placement, store lists, and the
// warnings for what a Damaris file says that Ecluse accepts without doing it.
#include "config/DamarisCompat.hpp"

#include <algorithm>
#include <cctype>

#include "config/ConfigSchema.hpp"
#include "config/Suggest.hpp"
#include "core/SysfsFiles.hpp"

namespace ecluse {
namespace {

std::string without_blanks(std::string text) {
  text.erase(std::remove_if(text.begin(), text.end(),
                            [](unsigned char c) { return std::isspace(c) != 0; }),
             text.end());
  return text;
}

// The children `name` of `node` that hold something (an empty <script></script> is no script).
std::size_t count_filled(const pugi::xml_node& node, const char* name) {
  std::size_t n = 0;
  for (const auto& child : node.children(name)) {
    if (!trim(child.child_value()).empty() || child.first_attribute()) ++n;
  }
  return n;
}

void warn(const AttributeReader& attrs, const pugi::xml_node& node, const std::string& kind,
          const std::string& what) {
  attrs.diagnostics().warning(attrs.source().of(node), kind, what);
}

void warn_at(const AttributeReader& attrs, const pugi::xml_node& node, const char* attribute,
             const std::string& kind, const std::string& what) {
  attrs.diagnostics().warning(attrs.where(node, attribute), kind, what);
}

// What Damaris names the same bits: the signed type of that size for an unsigned one.
std::string damaris_spelling(DataType type) {
  switch (type) {
    case DataType::UInt8:
      return "char";
    case DataType::UInt16:
      return "short";
    case DataType::UInt32:
      return "int";
    case DataType::UInt64:
      return "long";
    default:
      return std::string(data_type_name(type));
  }
}

std::string mask_of(const pugi::xml_node& node, const Architecture& architecture,
                    const AttributeReader& attrs) {
  const std::string mask = without_blanks(attrs.text(node, "mask"));
  if (mask.find_first_not_of("01") != std::string::npos) {
    attrs.diagnostics().error(attrs.where(node, "mask"),
                              "invalid mask '" + mask +
                                  "' on <placement>; write one 0 or 1 per node-local rank, 1 for "
                                  "a dedicated core, e.g. mask=\"0001\" (repeated over the node).");
    return "";
  }
  if (!mask.empty() && architecture.dedicated_cores > 0 && mask.find('1') == std::string::npos) {
    attrs.diagnostics().error(attrs.where(node, "mask"),
                              "mask '" + mask +
                                  "' on <placement> marks no rank as a dedicated core; put a 1 "
                                  "for each of the " +
                                  std::to_string(architecture.dedicated_cores) + " per node.");
  }
  return mask;
}

void check_placement_use(const pugi::xml_node& node, const CorePlacement& p, const Architecture& a,
                         const AttributeReader& attrs) {
  if (!p.given()) return;
  if (node.attribute("servers")) {
    attrs.diagnostics().error(attrs.where(node, "servers"),
                              "<placement> gives servers= and a mask or start/step/blocksize; "
                              "keep one way of placing dedicated cores.");
  } else if (!p.mask.empty() && p.pattern) {
    warn(attrs, node, "placement-mask",
         "<placement> gives a mask and start/step/blocksize; the mask decides which ranks are "
         "dedicated cores: remove start, step and blocksize.");
  }
  if (a.dedicated_nodes > 0) {
    warn(attrs, node, "placement-nodes",
         "<placement> mask/start/step/blocksize place dedicated cores, not dedicated nodes; "
         "they are ignored: use servers=\"first\" or servers=\"last\" to place dedicated nodes.");
  } else if (a.dedicated_cores == 0) {
    warn(attrs, node, "placement-none",
         "<placement> is ignored: there are no dedicated cores (<dedicated cores=\"0\">); set "
         "cores or remove the placement.");
  }
}

/** `<plugin name="a">, <pdi>` for the first few element children of `node`, and how many more. */
std::string describe_children(const pugi::xml_node& node, std::size_t& count) {
  constexpr std::size_t kNamed = 4;
  std::string text;
  count = 0;
  for (const auto& child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    if (++count > kNamed) continue;
    const std::string name = child.attribute("name").value();
    text += (text.empty() ? "<" : ", <") + std::string(child.name()) +
            (name.empty() ? "" : " name=\"" + name + "\"") + ">";
  }
  if (count > kNamed) text += " and " + std::to_string(count - kNamed) + " more";
  return text;
}

/** A newer Damaris's <plugins> (PDI's plugin writes one into every file it generates): nothing
 * to say when empty; what it holds does not run. */
void warn_plugins(const pugi::xml_node& root, const AttributeReader& attrs) {
  const auto plugins = root.child("plugins");
  std::size_t count = 0;
  const std::string named = describe_children(plugins, count);
  if (count == 0) return;
  warn(attrs, plugins, "plugins",
       "<plugins>: Ecluse runs no Damaris server plugins; its " + std::to_string(count) +
           " plugin(s) (" + named +
           ") will not run (variables that name a store are still written). Remove them, or "
           "port each to an <event> action (docs/plugins.md) or a <pyscript>.");
}

void warn_visualization(const pugi::xml_node& root, const AttributeReader& attrs) {
  if (const auto visit = root.child("visit")) {
    warn(attrs, visit, "visit",
         "<visit>: Ecluse has no VisIt back-end; nothing is sent to VisIt (variables that name a "
         "store are still written). Remove <visit>, or open the HDF5 files in VisIt afterwards.");
  }
  if (const auto paraview = root.child("paraview")) {
    const std::size_t scripts = count_filled(paraview, "script");
    const std::string named = scripts == 0
                                  ? "it names no script"
                                  : "its " + std::to_string(scripts) + " script(s) will not run";
    warn(attrs, paraview, "paraview",
         "<paraview>: Ecluse has no ParaView Catalyst back-end; " + named +
             " (variables that name a store are still written). Remove <paraview>" +
             (scripts == 0 ? "." : ", or run the scripts on the HDF5 files afterwards."));
  }
  if (const auto python = root.child("python")) {
    warn(attrs, python, "python",
         "<python>: not used: the servers' Python is the one Ecluse was built with, or the "
         "virtual environment of ECLUSE_PYTHON / VIRTUAL_ENV (docs/python-insitu.md). Remove "
         "it.");
  }
}

void warn_actions(const pugi::xml_node& actions, const AttributeReader& attrs) {
  if (const auto script = actions.child("script")) {
    warn(attrs, script, "action-script",
         "<script> in <actions>: Ecluse runs no script actions; signals naming it run nothing. "
         "Declare an <event> whose action is a C function instead.");
  }
  if (const auto error = actions.child("error")) {
    warn(attrs, error, "error-action",
         "<error>: Ecluse runs no action on errors; an error reaches the simulation as a return "
         "code and is counted in the run report. Remove <error>.");
  }
  for (const auto& event : actions.children("event")) {
    if (!attrs.boolean(event, "external", false)) continue;
    warn_at(attrs, event, "external", "event-external",
            "external=\"true\" on <event> is not used: Ecluse resolves every action the same way "
            "(a function bound with damaris_bind / ecluse_bind, else the symbol in library or in "
            "the executable). Remove external.");
  }
}

}  // namespace

Dialect dialect_of(const pugi::xml_node& root) {
  return is_damaris_namespace(root.attribute("xmlns").value()) ? Dialect::Damaris : Dialect::Ecluse;
}

std::vector<std::string> store_list(const std::string& text) {
  std::vector<std::string> names;
  std::string name;
  for (const char c : text + ",") {
    if (c == ',' || c == ';' || std::isspace(static_cast<unsigned char>(c)) != 0) {
      if (!name.empty() && name != "#") names.push_back(name);
      name.clear();
    } else {
      name += c;
    }
  }
  return names;
}

CorePlacement read_core_placement(const pugi::xml_node& node, const Architecture& architecture,
                                  const AttributeReader& attrs) {
  CorePlacement p;
  p.dedicated_where = architecture.dedicated_where;
  if (!node) return p;
  p.where = attrs.source().of(node);
  p.mask = mask_of(node, architecture, attrs);
  p.start = static_cast<int>(attrs.integer(node, "start", 0, 0));
  p.step = static_cast<int>(attrs.integer(node, "step", 0, 0));
  p.blocksize = static_cast<int>(attrs.integer(node, "blocksize", 0, 0));
  p.pattern = p.start > 0 || p.step > 0 || p.blocksize > 0;
  check_placement_use(node, p, architecture, attrs);
  return p;
}

void warn_without_backend(const pugi::xml_node& root, const AttributeReader& attrs) {
  warn_plugins(root, attrs);
  warn_visualization(root, attrs);
  if (const auto actions = root.child("actions")) warn_actions(actions, attrs);
}

void warn_buffer(const pugi::xml_node& node, const AttributeReader& attrs) {
  if (attrs.text(node, "type") == "sysv") {
    warn_at(attrs, node, "type", "buffer-sysv",
            "<buffer type=\"sysv\">: Ecluse's buffer is POSIX shared memory, which behaves the "
            "same for the simulation; write type=\"posix\" to silence this.");
  }
  if (attrs.integer(node, "blocks", 0, 0) > 0) {
    warn_at(attrs, node, "blocks", "buffer-blocks",
            "<buffer blocks> is not used: Ecluse allocates each block at its size in the buffer "
            "(allocator=\"general\" or \"partitioned\"). Remove blocks.");
  }
  if (!attrs.boolean(node, "enabled", true)) {
    warn_at(attrs, node, "enabled", "buffer-disabled",
            "<buffer enabled=\"false\"> is not used: dedicated cores always receive blocks "
            "through the node's shared buffer (dedicated nodes through MPI). Remove enabled.");
  }
}

void warn_log(const pugi::xml_node& node, const AttributeReader& attrs) {
  std::vector<std::string> unused;
  for (const char* name : {"RotationSize", "LogFormat"}) {
    if (node.attribute(name)) unused.emplace_back(name);
  }
  if (unused.empty()) return;
  warn(attrs, node, "log",
       "<log> " + join(unused, " and ") +
           " not used: Ecluse writes one file per rank (<FileName>.<rank>.log) with lines "
           "\"[ecluse <rank>] <level>: <message>\", never rotated. Remove " +
           join(unused, " and ") + ".");
}

void warn_variable(const pugi::xml_node& node, const AttributeReader& attrs) {
  for (const char* name : {"select", "select-mem", "select-subset", "vectorlength"}) {
    const std::string value = node.attribute(name).value();
    if (!node.attribute(name) || value.empty() || value == "#") continue;
    warn_at(attrs, node, name, std::string("variable-") + name,
            std::string(name) +
                "= on <variable> is not used by Ecluse: every block is written "
                "as the simulation gives it. Remove " +
                name + ".");
  }
  // Damaris's DamarisVar helper writes time_varying="true" on every variable it generates
  // (PDI's Damaris plugin): Damaris ignores the attribute, so only another value is said.
  const pugi::xml_attribute varying = node.attribute("time_varying");
  if (!varying || std::string(varying.value()) == "true" || node.attribute("time-varying")) return;
  warn_at(attrs, node, "time_varying", "variable-time_varying",
          "time_varying=\"" + std::string(varying.value()) +
              "\" on <variable> is ignored, as Damaris 1.x ignores it (its attribute is "
              "time-varying=): the variable is written at every iteration it is given. Write "
              "time-varying= to mean it.");
}

void warn_layout(const pugi::xml_node& node, const AttributeReader& attrs) {
  if (!node.attribute("ghost")) return;
  warn_at(attrs, node, "ghost", "layout-ghost",
          "ghost= on <layout> is ignored, as Damaris 1.x ignores it (its attribute is "
          "ghosts=): the whole block is written. Remove it, or write ghosts= to leave these "
          "ghost zones out of the files (that changes what is written).");
}

bool is_damaris_type_name(std::string_view name) {
  const auto& names = damaris_type_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

void warn_type(const pugi::xml_node& node, const std::string& name, const AttributeReader& attrs) {
  const std::optional<DataType> type = data_type_from_name(name);
  if (!type || is_damaris_type_name(name)) return;
  const std::string bits = std::to_string(8 * data_type_size(*type));
  const std::string how = is_unsigned(*type) ? " (the same " + bits +
                                                   " bits, read as signed: Damaris has no "
                                                   "unsigned types)."
                                             : ", its Damaris name.";
  warn_at(attrs, node, "type", "damaris-type",
          "type=\"" + name + "\" is an Ecluse type that Damaris 1.x does not know (it knows " +
              join(damaris_type_names()) +
              "): Damaris refuses this file. Ecluse honours it; to keep the file readable by "
              "Damaris, write type=\"" +
              damaris_spelling(*type) + "\"" + how);
}

}  // namespace ecluse
