// Builds the configuration model from the XML document, section by section.
#include "config/ConfigReader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "config/AttributeReader.hpp"
#include "config/DamarisCompat.hpp"
#include "config/EnergySourceKinds.hpp"
#include "config/Limits.hpp"
#include "config/ScriptsReader.hpp"
#include "config/StoreKinds.hpp"
#include "config/Suggest.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

// List items keep their spaces ("a, b"); names and expressions shown in messages do not.
ListItem trimmed(const ListItem& item) {
  const std::size_t first = item.text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {"", item.offset};
  const std::size_t last = item.text.find_last_not_of(" \t\r\n");
  return {item.text.substr(first, last - first + 1), item.offset + first};
}

std::vector<std::string> type_names(bool array) {
  std::vector<std::string> names;
  for (const auto& name : data_type_names()) {
    if (!array || is_array_type(*data_type_from_name(name))) names.push_back(name);
  }
  return names;
}

class Reader {
 public:
  Reader(const XmlSource& source, Diagnostics& diagnostics)
      : attrs_(source, diagnostics), source_(source), diagnostics_(diagnostics) {}

  Config read(const pugi::xml_node& root) {
    config_.source = source_.name();
    config_.dialect = dialect_of(root);
    attrs_.damaris_booleans(damaris());
    config_.simulation = simulation_name(root);
    config_.language = simulation_language(root);
    read_architecture(root.child("architecture"));
    read_data(root.child("data"), "", {});
    read_storage(root.child("storage"));
    read_actions(root.child("actions"));
    config_.scripts = read_scripts(root.child("scripts"), attrs_);
    if (damaris()) drop_scripts_without_file();
    read_log(root.child("log"));
    read_energy(root.child("energy"));
    read_report(root.child("report"));
    warn_without_backend(root, attrs_);
    return std::move(config_);
  }

 private:
  [[nodiscard]] bool damaris() const { return config_.dialect == Dialect::Damaris; }

  // A Damaris file's <pyscript file=""> is a script turned off (OPM's template writes it when
  // the run has none; Damaris runs nothing): dropped with a warning, with the variables' script=
  // naming it. In an Ecluse file it stays an error (insitu/InSitu.cpp).
  void drop_scripts_without_file() {
    auto& scripts = config_.scripts;
    for (auto it = scripts.begin(); it != scripts.end();) {
      if (!it->file.empty()) {
        ++it;
        continue;
      }
      diagnostics_.warning(it->file_where, "pyscript-empty",
                           "<pyscript name=\"" + it->name +
                               "\"> has an empty file: as in Damaris, no script runs. Name the "
                               "Python file whose main(DD) runs, or remove the <pyscript>.");
      for (Variable& v : config_.variables) std::erase(v.scripts, it->name);
      it = scripts.erase(it);
    }
  }

  // Damaris's "unknown" (its default) lays arrays out in C order, as "c" does.
  Language simulation_language(const pugi::xml_node& root) {
    const std::string name =
        attrs_.choice(root, "language", {"c", "cpp", "fortran", "python", "unknown"}, "c");
    for (const auto& entry : enum_names(Language{})) {
      if (entry.name == name) return entry.value;
    }
    return Language::C;
  }

  void read_architecture(const pugi::xml_node& node) {
    Architecture& a = config_.architecture;
    a.domains =
        static_cast<int>(attrs_.integer(node.child("domains"), "count", 1, 1, limits::kDomains));
    read_dedicated(node.child("dedicated"), node);
    read_buffer(node.child("buffer"));
    a.placement = attrs_.choice(node.child("placement"), "servers", ServerPlacement::Last);
    a.core_placement = read_core_placement(node.child("placement"), a, attrs_);
    a.core_placement.mask_may_yield = damaris();  // Damaris 1.x ignores the mask
    a.queue_name = attrs_.text(node.child("queue"), "name", a.queue_name);
    a.queue_size = static_cast<int>(
        attrs_.integer(node.child("queue"), "size", 1024, 1, limits::kQueueMessages));
    if (node.child("queue").attribute("size")) a.queue_where = source_.of(node.child("queue"));
    a.ranks_per_node =
        static_cast<int>(attrs_.integer(node.child("virtual-nodes"), "ranks-per-node", 0, 1));
  }

  // <dedicated roles="store analysis">: one word per dedicated core (checked by the validator).
  void read_roles(const pugi::xml_node& dedicated) {
    if (!dedicated.attribute("roles")) return;
    Architecture& a = config_.architecture;
    a.roles_where = attrs_.where(dedicated, "roles");
    std::istringstream words(attrs_.text(dedicated, "roles"));
    for (std::string word; words >> word;) {
      const auto& names = enum_names(ServerRole{});
      const auto role = std::find_if(names.begin(), names.end(),
                                     [&](const auto& entry) { return entry.name == word; });
      // An unknown word still counts as a core, so the count is not reported wrong as well.
      a.roles.push_back(role != names.end() ? role->value : ServerRole::Store);
      if (role != names.end()) continue;
      diagnostics_.error(a.roles_where, "unknown role '" + word +
                                            "' in <dedicated roles>; each dedicated core is "
                                            "'store' or 'analysis'.");
    }
  }

  // Damaris runs dedicated nodes when both are given; Ecluse's own files must choose (validator).
  void read_dedicated(const pugi::xml_node& dedicated, const pugi::xml_node& architecture) {
    Architecture& a = config_.architecture;
    a.dedicated_cores = static_cast<int>(attrs_.integer(dedicated, "cores", 0, 0));
    a.dedicated_nodes = static_cast<int>(attrs_.integer(dedicated, "nodes", 0, 0));
    a.dedicated_where = dedicated ? source_.of(dedicated) : source_.of(architecture);
    read_roles(dedicated);
    if (!damaris() || a.dedicated_cores == 0 || a.dedicated_nodes == 0) return;
    diagnostics_.warning(a.dedicated_where, "dedicated-both",
                         "<dedicated> asks for cores=\"" + std::to_string(a.dedicated_cores) +
                             "\" and nodes=\"" + std::to_string(a.dedicated_nodes) +
                             "\"; as in Damaris, dedicated nodes are used and cores is ignored: "
                             "write cores=\"0\".");
    a.dedicated_cores = 0;
  }

  void read_energy(const pugi::xml_node& node) {
    EnergyConfig& e = config_.energy;
    e.where = source_.of(node);
    e.source = energy_source(node);
    e.period_seconds = seconds(node, "period", 10);
    e.calibration_file = attrs_.text(node, "calibration", "");
    const pugi::xml_node model = node.child("model");
    e.model_given = static_cast<bool>(model);
    e.model_where = source_.of(model);
    e.idle_watts = watts(model, "idle-watts");
    e.max_watts = watts(model, "max-watts");
    e.model_id = attrs_.text(model, "id", "config");
    for (const auto& f : node.children("frequency")) read_frequency(f);
  }

  // "auto" (the probe) or one of the sources of the table.
  const PluginSpec* energy_source(const pugi::xml_node& node) {
    const std::vector<std::string> names = names_of(energy_source_specs());
    std::vector<std::string> allowed{"auto"};
    allowed.insert(allowed.end(), names.begin(), names.end());
    const std::string name = attrs_.choice(node, "source", allowed, "auto");
    return find_energy_source_spec(name);
  }

  void read_frequency(const pugi::xml_node& node) {
    try {
      config_.energy.frequency.push_back(
          {FrequencyPolicy::parse(attrs_.text(node, "role"), attrs_.text(node, "when", "idle"),
                                  attrs_.text(node, "target")),
           source_.of(node)});
    } catch (const Error& e) {
      diagnostics_.error(source_.of(node), std::string(e.what()) + ".");
    }
  }

  // "10s", "500ms" or a plain number of seconds, > 0.
  double seconds(const pugi::xml_node& node, const char* name, double fallback) {
    const std::string text = attrs_.text(node, name, "");
    if (text.empty()) return fallback;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    const std::string unit = end;
    const double scale = unit == "ms" ? 1e-3 : (unit == "s" || unit.empty() ? 1 : -1);
    if (scale > 0 && value * scale >= 1e-3) return value * scale;
    diagnostics_.error(attrs_.where(node, name),
                       "invalid duration '" + text + "' for '" + name + "' on <" + node.name() +
                           ">; write a number of seconds of at least 1 ms, e.g. 10s or 500ms.");
    return fallback;
  }

  double watts(const pugi::xml_node& node, const char* name) {
    if (!node) return 0;
    const std::string text = attrs_.text(node, name, "");
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (!text.empty() && *end == '\0' && value >= 0) return value;
    diagnostics_.error(attrs_.where(node, name),
                       "invalid power '" + text + "' for '" + name + "' on <" + node.name() +
                           ">; write a number of watts, e.g. 110 or 390.5.");
    return 0;
  }

  void read_report(const pugi::xml_node& node) {
    config_.report.file = attrs_.text(node, "file", config_.report.file);
    config_.report.summary = attrs_.boolean(node, "summary", true);
    config_.report.trace = attrs_.text(node, "trace", config_.report.trace);
  }

  void read_buffer(const pugi::xml_node& node) {
    Architecture& a = config_.architecture;
    a.buffer_name = attrs_.text(node, "name", a.buffer_name);
    a.buffer_where = source_.of(node);
    if (damaris() && std::string_view(node.attribute("size").value()) == "0") {
      read_zero_buffer_size(node);
    } else {
      a.buffer_size = attrs_.bytes(node, "size", a.buffer_size);
    }
    a.buffer_type = attrs_.choice(node, "type", BufferType::Posix);
    a.allocator = attrs_.choice(node, "allocator", AllocatorKind::General);
    a.full_policy = attrs_.choice(node, "policy", FullPolicy::Block);
    a.buffer_prefault = attrs_.boolean(node, "prefault", a.buffer_prefault);
    a.buffer_copy = attrs_.choice(node, "copy", BufferCopy::Auto);
    warn_buffer(node, attrs_);
  }

  // Damaris's size is an unsignedInt, and its files without dedicated cores give 0 (Nek5000's
  // "use MPI"): its synchronous mode and dedicated nodes do not use it. Ecluse's dedicated nodes
  // do (their receive memory): the default then, said.
  void read_zero_buffer_size(const pugi::xml_node& node) {
    const Architecture& a = config_.architecture;
    if (a.dedicated_cores > 0) {
      diagnostics_.error(attrs_.where(node, "size"),
                         "<buffer size=\"0\">: dedicated cores copy the clients' blocks into this "
                         "node-wide buffer; give it a size, e.g. size=\"64MiB\" (ecluse-check "
                         "--ranks N says what one iteration needs).");
    } else if (a.dedicated_nodes > 0) {
      diagnostics_.warning(attrs_.where(node, "size"), "buffer-zero",
                           "<buffer size=\"0\">: a dedicated node receives the clients' blocks "
                           "into memory of this size (per node); the default, 64 MiB, is used. "
                           "Give a size to choose it.");
    }
  }

  // `stores`: the store= of the enclosing groups, which Ecluse's variables inherit.
  void read_data(const pugi::xml_node& node, const std::string& prefix,
                 const std::vector<std::string>& stores) {
    for (const auto& child : node.children()) {
      const std::string kind = child.name();
      if (kind == "parameter") read_parameter(child, prefix);
      if (kind == "layout") read_layout(child, prefix);
      if (kind == "variable") read_variable(child, prefix, stores);
      if (kind == "mesh" || kind == "curve") read_mesh(child, prefix);
      if (kind == "group") read_group(child, prefix, stores);
    }
  }

  void read_group(const pugi::xml_node& node, const std::string& prefix,
                  std::vector<std::string> stores) {
    const std::string name = checked_name(node, limits::kNameBytes, true);
    if (!attrs_.boolean(node, "enabled", true)) return;
    if (node.attribute("store") && damaris()) {
      diagnostics_.warning(attrs_.where(node, "store"), "group-store",
                           "store= on <group> is not used in Damaris's namespace (Damaris "
                           "ignores it): give store=\"...\" on each variable to store it.");
    } else if (node.attribute("store")) {
      stores = store_list(attrs_.text(node, "store"));
    }
    read_data(node, prefix + name + "/", stores);
  }

  // A group's name may hold '/' ("a/b", as OPM Flow writes): nested groups in one element.
  // "." and ".." name no HDF5 object of their own (a dataset "." is the file's root group).
  static bool valid_path(const std::string& name, bool nested) {
    if (name.empty()) return false;
    if (!nested) return name.find('/') == std::string::npos && name != "." && name != "..";
    if (name.front() == '/' || name.back() == '/' || name.find("//") != std::string::npos)
      return false;
    const std::string parts = "/" + name + "/";
    return parts.find("/./") == std::string::npos && parts.find("/../") == std::string::npos;
  }

  std::string checked_name(const pugi::xml_node& node, std::size_t longest = limits::kNameBytes,
                           bool nested = false) {
    const std::string name = attrs_.text(node, "name");
    if (!valid_path(name, nested) && nested) {
      diagnostics_.error(attrs_.where(node, "name"),
                         "invalid name '" + printable(name) +
                             "' for <group>; a group name is "
                             "non-empty parts separated by single '/', none of them '.' or "
                             "'..', e.g. \"a/b\".");
    } else if (!valid_path(name, nested)) {
      diagnostics_.error(attrs_.where(node, "name"),
                         std::string("invalid name '") + name + "' for <" + node.name() +
                             ">; a name must be non-empty, not '.' or '..', and contain no '/' "
                             "(to nest, use <group name=\"...\">).");
    } else if (name.size() > longest || has_control_character(name)) {
      diagnostics_.error(attrs_.where(node, "name"),
                         "invalid name '" + printable(name) + "' for <" + node.name() +
                             ">; a name has at most " + std::to_string(longest) +
                             " bytes and no control characters.");
    }
    return name;
  }

  // The simulation's name becomes file names: it may not leave the output directory.
  std::string simulation_name(const pugi::xml_node& root) {
    const std::string name = attrs_.text(root, "name");
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.size() > limits::kNameBytes || has_control_character(name)) {
      diagnostics_.error(attrs_.where(root, "name"),
                         "invalid simulation name '" + printable(name) +
                             "'; it names output files: use 1 to " +
                             std::to_string(limits::kNameBytes) +
                             " bytes, no '/', no control characters, not '.' or '..'.");
    }
    return name;
  }

  static bool has_control_character(const std::string& text) {
    return std::any_of(text.begin(), text.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  }

  // At most 64 bytes of a name, control characters as '?': what a message can quote.
  static std::string printable(const std::string& text) {
    std::string out = text.substr(0, 64);
    for (char& c : out) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    return text.size() > 64 ? out + "..." : out;
  }

  DataType read_type(const pugi::xml_node& node, const char* fallback, bool array) {
    const std::string name = attrs_.text(node, "type", fallback);
    auto type = data_type_from_name(name);
    if (type && damaris()) warn_type(node, name, attrs_);
    if (type && (!array || is_array_type(*type))) return *type;
    const std::vector<std::string> known = type_names(array);
    if (type) {
      diagnostics_.error(attrs_.where(node, "type"),
                         "type '" + name + "' cannot be used for the elements of a layout; use " +
                             "one of: " + join(known) + ".");
      return DataType::Int32;
    }
    diagnostics_.error(attrs_.where(node, "type"), "type '" + name + "' does not exist" +
                                                       did_you_mean_or_period(name, known) +
                                                       " Known types: " + join(known) + ".");
    return DataType::Int32;
  }

  void read_parameter(const pugi::xml_node& node, const std::string& prefix) {
    Parameter p;
    p.name = prefix + checked_name(node);
    p.type = read_type(node, "int", false);
    p.value = attrs_.text(node, "value");
    p.where = source_.of(node);
    if (damaris() && p.type == DataType::Int8 && p.value.size() == 1) damaris_char(node, p);
    config_.parameters.push_back(std::move(p));
  }

  // Damaris reads a char parameter's value as one character (lexical_cast<char>): "a" is 97,
  // and "5" is the character '5' (53), not 5; its code is the value here too.
  void damaris_char(const pugi::xml_node& node, Parameter& p) {
    const char c = p.value.front();
    const std::string code = std::to_string(static_cast<int>(static_cast<signed char>(c)));
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      diagnostics_.warning(attrs_.where(node, "value"), "char-parameter",
                           "value=\"" + p.value + "\" of char parameter '" + p.name +
                               "' is the character '" + p.value + "' (code " + code +
                               "), as in Damaris; to mean the number " + p.value +
                               ", write type=\"short\" or type=\"int\".");
    }
    p.value = code;
  }

  std::vector<Expression> expressions(const pugi::xml_node& node, const char* name, bool& broken) {
    std::vector<Expression> out;
    const pugi::xml_attribute attribute = node.attribute(name);
    if (!attribute || std::string(attribute.value()) == "#") return out;
    for (const ListItem& item : split_list(attribute.value(), ',')) {
      out.push_back(parse_expression(node, name, item, broken));
    }
    return out;
  }

  Expression parse_expression(const pugi::xml_node& node, const char* name,
                              const ListItem& untrimmed, bool& broken) {
    const ListItem item = trimmed(untrimmed);
    try {
      return Expression::parse(item.text);
    } catch (const ExpressionError& e) {
      broken = true;
      diagnostics_.error(source_.in_value(node, name, item.offset + e.offset()),
                         std::string("syntax error in '") + name + "' of <" + node.name() + "> \"" +
                             node.attribute(name).value() + "\": " + e.what() +
                             "; write integer expressions over parameters with + - * / % "
                             "and parentheses, separated by commas.");
      return Expression::parse("1");
    }
  }

  void read_ghosts(const pugi::xml_node& node, Layout& layout) {
    const pugi::xml_attribute attribute = node.attribute("ghosts");
    if (!attribute || std::string(attribute.value()) == "#") return;
    for (const ListItem& untrimmed : split_list(attribute.value(), ',')) {
      const ListItem item = trimmed(untrimmed);
      const std::size_t colon = item.text.find(':');
      if (colon == std::string::npos) {  // one number: as many on both sides (Damaris's BoxLayout)
        const Expression both = parse_expression(node, "ghosts", item, layout.broken);
        layout.ghosts.emplace_back(both, both);
        continue;
      }
      ListItem lo{item.text.substr(0, colon), item.offset};
      ListItem hi{item.text.substr(colon + 1), item.offset + colon + 1};
      layout.ghosts.emplace_back(parse_expression(node, "ghosts", lo, layout.broken),
                                 parse_expression(node, "ghosts", hi, layout.broken));
    }
  }

  // Damaris names string and label element types that it cannot store; they are 1-byte
  // characters here, said once. Ecluse's own files must write char.
  DataType layout_type(const pugi::xml_node& node) {
    const std::string name = attrs_.text(node, "type");
    if (!damaris() || (name != "string" && name != "label")) return read_type(node, "double", true);
    diagnostics_.warning(attrs_.where(node, "type"), "layout-string",
                         "type=\"" + name +
                             "\" on <layout>: elements are stored as 1-byte characters (HDF5 "
                             "char); write type=\"char\" to silence this.");
    return DataType::Int8;
  }

  void check_dimension_count(const pugi::xml_node& node, Layout& layout) {
    if (layout.dimensions.size() <= limits::kDimensions) return;
    layout.broken = true;
    diagnostics_.error(attrs_.where(node, "dimensions"),
                       "layout '" + layout.name + "' has " +
                           std::to_string(layout.dimensions.size()) + " dimensions; the limit is " +
                           std::to_string(limits::kDimensions) +
                           " (ECLUSE_MAX_DIMENSIONS): merge dimensions into fewer.");
  }

  void read_layout(const pugi::xml_node& node, const std::string& prefix) {
    Layout layout;
    layout.name = prefix + checked_name(node);
    layout.type = layout_type(node);
    layout.dimensions = expressions(node, "dimensions", layout.broken);
    check_dimension_count(node, layout);
    layout.global = expressions(node, "global", layout.broken);
    read_ghosts(node, layout);
    warn_layout(node, attrs_);
    const std::string language =
        attrs_.choice(node, "language", {"c", "cpp", "fortran", "python", "unknown"}, "unknown");
    layout.fortran =
        language == "fortran" || (language == "unknown" && config_.language == Language::Fortran);
    (void)attrs_.boolean(node, "visualizable", true);
    layout.where = source_.of(node);
    config_.layouts.push_back(std::move(layout));
  }

  void read_variable(const pugi::xml_node& node, const std::string& prefix,
                     const std::vector<std::string>& inherited) {
    Variable v;
    v.name = prefix + checked_name(node);
    v.group = prefix;
    v.layout = attrs_.text(node, "layout");
    v.unit = attrs_.text(node, "unit");
    v.mesh = attrs_.text(node, "mesh");
    if (v.mesh == "#") v.mesh.clear();
    v.enabled = attrs_.boolean(node, "enabled", true);
    v.time_varying = attrs_.boolean(node, "time-varying", true);
    v.centering = attrs_.choice(node, "centering", Centering::Zonal);
    (void)attrs_.choice(node, "type",
                        {"scalar", "vector", "tensor", "symmetric-tensor", "material", "matspecies",
                         "label", "array", "mesh", "curve"},
                        "scalar");
    (void)attrs_.boolean(node, "visualizable", true);
    read_variable_stores(node, inherited, v);
    read_variable_scripts(node, attrs_, v);
    v.select_file = attrs_.text(node, "select-file");
    if (v.select_file == "#") v.select_file.clear();
    warn_variable(node, attrs_);
    v.where = source_.of(node);
    config_.variables.push_back(std::move(v));
  }

  // Without store=, Damaris writes a variable in no store and Ecluse in every store (or in its
  // group's stores); "#" or an empty list names none in both.
  void read_variable_stores(const pugi::xml_node& node, const std::vector<std::string>& inherited,
                            Variable& v) const {
    if (node.attribute("store")) {
      v.stores = store_list(attrs_.text(node, "store"));
      v.store_given = true;
      return;
    }
    if (damaris()) return;
    v.stores = inherited;
    v.every_store = inherited.empty();
  }

  void read_mesh(const pugi::xml_node& node, const std::string& prefix) {
    Mesh mesh;
    mesh.name = prefix + checked_name(node);
    mesh.type = std::string(node.name()) == "curve" ? MeshType::Curve : mesh_type(node);
    mesh.group = prefix;
    mesh.topology = static_cast<int>(attrs_.integer(node, "topology", 2, 0));
    mesh.time_varying = attrs_.boolean(node, "time-varying", true);
    for (const auto& coord : node.children("coord")) {
      mesh.coords.push_back({attrs_.text(coord, "name"), attrs_.text(coord, "unit"),
                             attrs_.text(coord, "label"), source_.of(coord)});
    }
    read_mesh_parts(node, mesh);
    mesh.where = source_.of(node);
    config_.meshes.push_back(std::move(mesh));
  }

  void read_mesh_parts(const pugi::xml_node& node, Mesh& mesh) const {
    for (const auto& child : node.children()) {
      const std::string role = child.name();
      if (child.type() != pugi::node_element || role == "coord") continue;
      const std::string variable = attrs_.text(child, "name");
      if (variable.empty() || variable == "#") continue;
      const auto offset = attrs_.integer(child, "offset", 0, -2147483648LL);
      mesh.parts.push_back({role, variable, offset, source_.of(child)});
    }
  }

  // A <mesh type>: every MeshType but Curve, which is its own element.
  MeshType mesh_type(const pugi::xml_node& node) {
    std::vector<std::string> names = names_of_enum<MeshType>();
    names.pop_back();
    const std::string name = attrs_.choice(node, "type", names, names.front());
    for (const auto& entry : enum_names(MeshType{})) {
      if (entry.name == name) return entry.value;
    }
    return MeshType::Rectilinear;
  }

  void read_storage(const pugi::xml_node& node) {
    if (node) config_.storage_where = source_.of(node);
    for (const auto& child : node.children("store")) read_store(child);
  }

  void read_store(const pugi::xml_node& node) {
    Store store;
    store.name = checked_name(node);
    store.type = attrs_.text(node, "type");
    store.where = source_.of(node);
    store.frequency = static_cast<int>(attrs_.integer(node, "frequency", 1, 1));
    if (damaris() && store.frequency > 1) warn_store_frequency(node, store);
    store.enabled = attrs_.boolean(node, "enabled", true);
    const StoreKind* kind = find_store_kind(store.type);
    if (!kind) unknown_store_type(node, store.type);
    for (const auto& option : node.children("option")) read_option(option, store, kind);
    if (kind && kind->name == "HDF5") check_schedule(node, store);
    config_.stores.push_back(std::move(store));
  }

  // Damaris 1.x reads frequency= and stores every iteration: a file ported from it would
  // otherwise silently keep a fraction of what it kept there.
  void warn_store_frequency(const pugi::xml_node& node, const Store& store) {
    const std::string n = std::to_string(store.frequency);
    diagnostics_.warning(attrs_.where(node, "frequency"), "store-frequency",
                         "store '" + store.name + "' has frequency=\"" + n +
                             "\": Ecluse honours it and stores only the iterations that are "
                             "multiples of " +
                             n +
                             ", while Damaris 1.x ignores it and stores every iteration, so "
                             "writes at other iterations are not stored. Remove frequency to "
                             "store every iteration.");
  }

  // ConcurrentWriters (docs/scheduling.md) and XDMFMode with Compression, each reported at
  // its <option>.
  void check_schedule(const pugi::xml_node& node, const Store& store) {
    const std::string problem = concurrent_writers_problem(store);
    if (!problem.empty()) {
      const auto option = node.find_child_by_attribute("option", "key", "ConcurrentWriters");
      diagnostics_.error(source_.of(option), problem);
    }
    const std::string xdmf = xdmf_compression_problem(store);
    if (xdmf.empty()) return;
    diagnostics_.error(source_.of(node.find_child_by_attribute("option", "key", "XDMFMode")), xdmf);
  }

  void unknown_store_type(const pugi::xml_node& node, const std::string& type) {
    std::vector<std::string> names;
    for (const auto& kind : store_kinds()) names.push_back(kind.name);
    const std::string hint = did_you_mean_or_period(type, names);
    diagnostics_.error(attrs_.where(node, "type"), "unknown store type '" + type + "'" + hint +
                                                       " Known store types: " + join(names) + ".");
  }

  void read_option(const pugi::xml_node& node, Store& store, const StoreKind* kind) {
    const std::string key = attrs_.text(node, "key");
    const std::string value = trimmed({node.text().as_string(), 0}).text;
    if (store.options.count(key)) {
      diagnostics_.error(source_.of(node), "option '" + key + "' is given twice in store '" +
                                               store.name + "'; keep one.");
    }
    if (kind && damaris() && !kind->option(key)) return passed_through(node, key, *kind);
    store.options[key] = value;
    if (kind) check_option(node, key, value, *kind);
    if (kind && kind->name == "HDF5") warn_hdf5_option(node, key, value);
  }

  // Damaris hands a store every option and lets it ignore those it does not know.
  void passed_through(const pugi::xml_node& node, const std::string& key, const StoreKind& kind) {
    std::vector<std::string> known;
    for (const OptionSpec& option : kind.options) known.push_back(option.key);
    diagnostics_.warning(
        attrs_.where(node, "key"), "option-" + key,
        "option '" + key + "' is not known to store type '" + kind.name +
            "' and is ignored, as Damaris does" + did_you_mean_or_period(key, known) +
            (known.empty() ? " Remove it." : " Known options: " + join(known) + "."));
  }

  void warn_hdf5_option(const pugi::xml_node& node, const std::string& key,
                        const std::string& value) {
    if (key == "FilesPath" && damaris() && !value.empty() && value.back() != '/') {
      diagnostics_.warning(source_.of(node), "files-path",
                           "FilesPath '" + value + "' is a directory for Ecluse: files go to '" +
                               value + "/'; Damaris would prefix the file names with it ('" +
                               value + "<simulation>_It...'). Write '" + value +
                               "/' to silence this.");
    }
  }

  void check_option(const pugi::xml_node& node, const std::string& key, const std::string& value,
                    const StoreKind& kind) {
    const OptionCheck check = ecluse::check_option(kind, key, value);
    if (check.status == OptionCheck::Status::UnknownKey) {
      const std::string hint = did_you_mean_or_period(key, check.known);
      const std::string known =
          check.known.empty()
              ? " Store type '" + kind.name + "' takes no options; remove this <option>."
              : " Known options: " + join(check.known) + ".";
      diagnostics_.error(
          attrs_.where(node, "key"),
          "unknown option '" + key + "' for store type '" + kind.name + "'" + hint + known);
    }
    if (check.status == OptionCheck::Status::BadValue) {
      const std::string hint =
          check.closest.empty() ? "expected" : "did you mean '" + check.closest + "'? Expected";
      diagnostics_.error(source_.of(node), "invalid value '" + value + "' for option '" + key +
                                               "' of store type '" + kind.name + "'; " + hint +
                                               " one of: " + join(check.known) + "." +
                                               placeholder_hint(value));
    }
  }

  void read_actions(const pugi::xml_node& node) {
    for (const auto& child : node.children("event")) {
      Event e;
      e.name = checked_name(child, limits::kEventNameBytes);
      e.action = attrs_.text(child, "action");
      e.library = attrs_.text(child, "library");
      e.execution = attrs_.choice(child, "execution", EventExecution::Remote);
      e.scope = attrs_.choice(child, "scope", EventScope::Core);
      e.kind = attrs_.choice(child, "kind", EventKind::Signal);
      e.every = static_cast<int>(attrs_.integer(child, "every", 0, 1));
      e.where = source_.of(child);
      config_.events.push_back(std::move(e));
    }
  }

  void read_log(const pugi::xml_node& node) {
    LogConfig& log = config_.log;
    log.file = attrs_.text(node, "FileName");
    log.format = attrs_.text(node, "LogFormat");
    log.level = attrs_.choice(node, "LogLevel", LogLevel::Info);
    log.rotation_size = attrs_.bytes(node, "RotationSize", 0);
    log.flush = attrs_.boolean(node, "Flush", false);
    // Damaris's schema requires both (a file without them does not load there): read, not used,
    // and not warned in its files (docs/damaris-xml.md).
    if (!damaris()) warn_log(node, attrs_);
  }

  AttributeReader attrs_;
  const XmlSource& source_;
  Diagnostics& diagnostics_;
  Config config_;
};

}  // namespace

Config read_config(const pugi::xml_document& document, const XmlSource& source,
                   Diagnostics& diagnostics) {
  return Reader(source, diagnostics).read(document.document_element());
}

}  // namespace ecluse
