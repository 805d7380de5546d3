// Structural checks of the configuration XML (a superset of Damaris 1.x).
#include "config/ConfigSchema.hpp"

#include <algorithm>
#include <set>

#include "config/Suggest.hpp"

namespace ecluse {
namespace {

const std::vector<std::string> kDataChildren = {"parameter", "layout", "variable",
                                                "group",     "mesh",   "curve"};

std::vector<std::string> mesh_children() {
  std::vector<std::string> children{"coord"};
  const auto& parts = unstructured_mesh_parts();
  children.insert(children.end(), parts.begin(), parts.end());
  return children;
}

std::vector<ElementRule> mesh_part_rules() {
  std::vector<ElementRule> table;
  for (const auto& part : unstructured_mesh_parts()) {
    if (part == "vertex_global_id") {
      table.push_back({part, {"name", "offset"}, {"name"}, {}});
    } else {
      table.push_back({part, {"name"}, {"name"}, {}});
    }
  }
  return table;
}

std::vector<ElementRule> build_rules() {
  std::vector<ElementRule> table = {
      {"simulation",
       {"name", "language", "xmlns"},
       {"name"},
       {"architecture", "data", "storage", "actions", "scripts", "plugins", "visit", "paraview",
        "python", "log", "energy", "report"}},
      {"energy", {"source", "period", "calibration"}, {}, {"model", "frequency"}, {"frequency"}},
      {"model", {"idle-watts", "max-watts", "id"}, {"idle-watts", "max-watts"}, {}},
      {"frequency", {"role", "when", "target"}, {"role", "target"}, {}},
      {"report", {"file", "summary", "trace"}, {}, {}},
      {"architecture",
       {"name"},
       {},
       {"domains", "dedicated", "buffer", "placement", "queue", "virtual-nodes"}},
      {"domains", {"count"}, {}, {}},  // count defaults to 1, as in Damaris's schema
      {"dedicated", {"cores", "nodes", "roles"}, {}, {}},
      {"buffer",
       {"name", "size", "type", "blocks", "enabled", "allocator", "policy", "prefault", "copy"},
       {"size"},
       {}},
      {"placement", {"mask", "start", "step", "blocksize", "servers"}, {}, {}},
      {"queue", {"name", "size"}, {}, {}},
      {"virtual-nodes", {"ranks-per-node"}, {"ranks-per-node"}, {}},
      {"data", {}, {}, kDataChildren, kDataChildren},
      {"group", {"name", "enabled", "store"}, {"name"}, kDataChildren, kDataChildren},
      {"parameter", {"name", "type", "value"}, {"name", "value"}, {}},
      {"layout",
       {"name", "type", "dimensions", "global", "ghosts", "language", "visualizable"},
       {"name", "type", "dimensions"},
       {},
       {},
       {"ghost"}},  // Damaris's own examples carry this misspelling; Damaris ignores it
      {"variable",
       {"name", "layout", "unit", "enabled", "mesh", "type", "centering", "visualizable",
        "time-varying", "store", "script", "select", "select-file", "select-mem", "select-subset",
        "vectorlength"},
       {"name", "layout"},
       {},
       {},
       {"time_varying"}},  // Damaris's DamarisVar XML helper (PDI's plugin) writes it; ignored
      {"mesh",
       {"name", "type", "topology", "time-varying"},
       {"name", "type"},
       mesh_children(),
       {"coord"}},
      {"curve", {"name"}, {"name"}, {"coord"}, {"coord"}},
      {"coord", {"name", "unit", "label"}, {"name"}, {}},
      {"storage", {}, {}, {"store"}, {"store"}},
      {"store", {"name", "type", "frequency", "enabled"}, {"name", "type"}, {"option"}, {"option"}},
      {"option", {"key"}, {"key"}, {}},
      {"actions", {}, {}, {"event", "error", "script"}, {"event", "error", "script"}},
      {"event",
       {"name", "action", "library", "execution", "scope", "external", "kind", "every"},
       {"name", "action"},
       {}},
      {"error", {"event", "script", "action", "library"}, {}, {}},  // all optional in Damaris
      {"script",
       {"name", "file", "execution", "language", "scope", "external", "frequency"},
       {},
       {}},
      {"scripts", {}, {}, {"pyscript"}, {"pyscript"}},
      {"pyscript",
       {"name", "file", "language", "frequency", "scheduler-file", "nthreads", "keep-workers",
        "timeout", "execution", "scope"},
       {"name", "file"},
       {}},
      {"visit", {"update-frequency"}, {}, {"path", "options"}},
      {"paraview",
       {"update-frequency", "write-vtk", "write-vtk-binary", "realtime-timestep", "end-iteration"},
       {},
       {"script"},
       {"script"}},
      {"python", {}, {}, {"path", "home"}},
      {"plugins", {}, {}, {}, {}, {}, true},  // Damaris's server plugins (PDI's generated files)
      {"path", {}, {}, {}},
      {"options", {}, {}, {}},
      {"home", {}, {}, {}},
      {"log", {"FileName", "RotationSize", "LogFormat", "LogLevel", "Flush"}, {}, {}},
  };
  for (auto& rule : mesh_part_rules()) table.push_back(std::move(rule));
  return table;
}

const std::vector<ElementRule>& rules() {
  static const std::vector<ElementRule> table = build_rules();
  return table;
}

bool contains(const std::vector<std::string>& list, const std::string& word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

std::string article(const std::string& word) {
  return std::string("aeiou").find(word.front()) == std::string::npos ? "a" : "an";
}

bool damaris_file(const pugi::xml_node& node) {
  const pugi::xml_node root = node.root().child("simulation");
  return is_damaris_namespace(root.attribute("xmlns").value());
}

/** Whether `name` may stand on an element of `rule` in this node's file. */
bool allowed_attribute(const pugi::xml_node& node, const ElementRule& rule,
                       const std::string& name) {
  // xmlns:* declare prefixes; xsi:* (schemaLocation, ...) are XML Schema's own, allowed on
  // any element, as a validating parser (Damaris's Xerces) allows them.
  if (contains(rule.attributes, name) || name == "comment" || name.rfind("xmlns:", 0) == 0 ||
      name.rfind("xsi:", 0) == 0) {
    return true;
  }
  return contains(rule.damaris_ignored, name) && damaris_file(node);
}

std::vector<std::string> allowed_attributes(const ElementRule& rule) {
  std::vector<std::string> allowed = rule.attributes;
  allowed.emplace_back("comment");
  return allowed;
}

/** Whether an attribute outside the schema refuses the file. In a Damaris 1.x file it is
 * ignored with a warning, as Damaris's reader ignores it, unless it stands for a required
 * attribute the element lacks (Damaris refuses that element too). */
bool unknown_attribute_refused(const pugi::xml_node& node, const std::string& guess) {
  return !damaris_file(node) || (!guess.empty() && !node.attribute(guess.c_str()));
}

void warn_ignored_attribute(const pugi::xml_node& node, const ElementRule& rule,
                            const std::string& name, const std::vector<std::string>& allowed,
                            const XmlSource& source, Diagnostics& diagnostics) {
  const std::string kind = "unknown-attribute:" + rule.name + ":" + name;
  if (diagnostics.repeated_warning(kind)) return;  // its place is worked out once
  diagnostics.warning(source.of(node, name.c_str()), kind,
                      "unknown attribute '" + name + "' on <" + rule.name +
                          "> is ignored, as Damaris 1.x ignores attributes outside its schema" +
                          did_you_mean_or_period(name, allowed) + " Allowed attributes: " +
                          join(allowed) + ". Correct its name or remove it.");
}

void check_attributes(const pugi::xml_node& node, const ElementRule& rule, const XmlSource& source,
                      Diagnostics& diagnostics) {
  std::set<std::string, std::less<>> seen;  // a set: a node may have very many attributes
  std::vector<std::string> suggested;       // a misspelt required attribute is reported once
  const std::vector<std::string> allowed = allowed_attributes(rule);
  for (const auto& attribute : node.attributes()) {
    const std::string name = attribute.name();
    const bool known = allowed_attribute(node, rule, name);
    const std::string guess = known ? "" : closest(name, rule.required);
    if (!known && !unknown_attribute_refused(node, guess)) {
      warn_ignored_attribute(node, rule, name, allowed, source, diagnostics);
      seen.insert(name);
      continue;
    }
    if (!diagnostics.listing()) {  // finding the place of each is linear: only count them
      if (seen.count(name) != 0 || !known) diagnostics.count_unlisted();
      seen.insert(name);
      continue;
    }
    if (seen.count(name) != 0) {
      diagnostics.error(
          source.of(node, attribute.name()),
          "attribute '" + name + "' is given twice on <" + rule.name + ">; keep one.");
      continue;
    }
    seen.insert(name);
    if (known) continue;
    suggested.push_back(closest(name, allowed));
    diagnostics.error(source.of(node, attribute.name()),
                      "unknown attribute '" + name + "' on <" + rule.name + ">" +
                          did_you_mean_or_period(name, allowed) +
                          " Allowed attributes: " + join(allowed) + ".");
  }
  for (const auto& required : rule.required) {
    if (node.attribute(required.c_str()) || contains(suggested, required)) continue;
    diagnostics.error(source.of(node), "<" + rule.name + "> needs " + article(required) + " '" +
                                           required + "' attribute; add " + required + "=\"...\".");
  }
}

void check_element(const pugi::xml_node& node, const ElementRule& rule, const XmlSource& source,
                   Diagnostics& diagnostics);

void check_child(const pugi::xml_node& child, const ElementRule& parent, const XmlSource& source,
                 Diagnostics& diagnostics) {
  const std::string name = child.name();
  const ElementRule* rule = find_rule(name);
  if (rule && contains(parent.children, name)) {
    check_element(child, *rule, source, diagnostics);
    return;
  }
  std::string hint = closest(name, parent.children);
  hint = hint.empty() ? "." : "; did you mean <" + hint + ">?";
  const std::string allowed = parent.children.empty() ? "none" : join(parent.children);
  diagnostics.error(source.of(child), "unknown element <" + name + "> in <" + parent.name + ">" +
                                          hint + " Allowed here: " + allowed + ".");
}

// The reader takes the first of a child it reads once: a second one would be ignored.
void check_single(const pugi::xml_node& child, const ElementRule& parent,
                  std::vector<pugi::xml_node>& seen, const XmlSource& source,
                  Diagnostics& diagnostics) {
  const std::string name = child.name();
  if (contains(parent.repeatable, name) || !contains(parent.children, name)) return;
  for (const pugi::xml_node& first : seen) {
    if (name != first.name()) continue;
    if (!diagnostics.listing()) return diagnostics.count_unlisted();
    diagnostics.error(source.of(child), "<" + name + "> given twice (first at line " +
                                            std::to_string(source.of(first).line) + "); keep one.");
    return;
  }
  seen.push_back(child);
}

void check_element(const pugi::xml_node& node, const ElementRule& rule, const XmlSource& source,
                   Diagnostics& diagnostics) {
  if (rule.opaque) return;
  check_attributes(node, rule, source, diagnostics);
  std::vector<pugi::xml_node> seen;
  for (const auto& child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    check_child(child, rule, source, diagnostics);
    check_single(child, rule, seen, source, diagnostics);
  }
}

void check_namespace(const pugi::xml_node& root, const XmlSource& source,
                     Diagnostics& diagnostics) {
  const pugi::xml_attribute ns = root.attribute("xmlns");
  if (!ns) return;
  const std::string uri = ns.value();
  if (uri == kEcluseNamespace || is_damaris_namespace(uri)) return;
  diagnostics.error(source.of(root, "xmlns"), "unknown namespace '" + uri + "'; use xmlns=\"" +
                                                  kEcluseNamespace + "\" (Ecluse) or xmlns=\"" +
                                                  kDamarisNamespace + "\" (Damaris 1.x).");
}

}  // namespace

const std::vector<std::string>& unstructured_mesh_parts() {
  static const std::vector<std::string> parts = {"vertex_global_id",
                                                 "element_offsets",
                                                 "section_types",
                                                 "section_sizes",
                                                 "section_connectivity",
                                                 "polyhedral_cell_faces_connectivity",
                                                 "polyhedral_cell_faces_offsets",
                                                 "polyhedral_n_faces_per_cell"};
  return parts;
}

const ElementRule* find_rule(const std::string& element) {
  for (const auto& rule : rules()) {
    if (rule.name == element) return &rule;
  }
  return nullptr;
}

void check_schema(const pugi::xml_document& document, const XmlSource& source,
                  Diagnostics& diagnostics) {
  const pugi::xml_node root = document.document_element();
  if (!root || std::string(root.name()) != "simulation") {
    const std::string found = root ? "<" + std::string(root.name()) + ">" : "nothing";
    diagnostics.error(root ? source.of(root) : source.at(0),
                      "the root element must be <simulation>, found " + found +
                          "; start the file with <simulation name=\"...\">.");
    return;
  }
  check_namespace(root, source, diagnostics);
  check_element(root, *find_rule("simulation"), source, diagnostics);
  if (!root.child("architecture")) {
    diagnostics.error(source.of(root),
                      "<simulation> needs an <architecture> element; add at least "
                      "<architecture><domains count=\"1\"/></architecture>.");
  }
}

}  // namespace ecluse
