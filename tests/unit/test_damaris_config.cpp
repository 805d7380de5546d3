// Damaris 1.x files in tests/configs/damaris: the model Ecluse builds from what they say
// (their warnings are checked by the corpus test), and the meanings that differ by namespace.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "TestSupport.hpp"
#include "config/ConfigError.hpp"
#include "config/ConfigLoader.hpp"
#include "config/Parameters.hpp"
#include "config/StoreKinds.hpp"
#include "ecluse/Error.hpp"

namespace {

using ecluse::Config;
using Names = std::vector<std::string>;

Config damaris(const std::string& name) {
  const std::string file = name + ".xml";
  return ecluse::parse_config(
      file, ecluse::test::read_text(ecluse::test::source_path("tests/configs/damaris/" + file)));
}

/** The message parse_config throws ("" if it accepts the text). */
std::string error_of(const std::string& text) {
  try {
    (void)ecluse::parse_config("c.xml", text);
  } catch (const ecluse::Error& e) {
    return e.what();
  }
  return "";
}

const char* const kDamarisNs = "http://damaris.gforge.inria.fr/damaris/model";

std::string file(const std::string& ns, const std::string& data, const std::string& rest = "") {
  return "<simulation name=\"s\"" + (ns.empty() ? "" : " xmlns=\"" + ns + "\"") +
         "><architecture><domains count=\"1\"/></architecture><data>" + data + "</data>" + rest +
         "</simulation>";
}

TEST(DamarisModel, OpmFlowGroupsWithSlashesAndUnstructuredMesh) {
  const Config c = damaris("opm_flow");
  EXPECT_EQ(c.architecture.dedicated_cores, 1);
  EXPECT_EQ(c.architecture.buffer_name, "opm-shm");
  EXPECT_FALSE(c.architecture.core_placement.given());
  ASSERT_NE(c.find_variable("coordset/coords/values/x"), nullptr);
  EXPECT_EQ(c.find_variable("coordset/coords/values/x")->layout, "n_coords_layout");
  EXPECT_FALSE(c.find_variable("coordset/coords/values/x")->time_varying);
  const ecluse::Mesh& mesh = *c.find_mesh("us_mesh");
  EXPECT_EQ(mesh.type, ecluse::MeshType::Unstructured);
  EXPECT_EQ(mesh.topology, 3);
  EXPECT_FALSE(mesh.time_varying);
  ASSERT_EQ(mesh.coords.size(), 3u);
  EXPECT_EQ(mesh.coords[2].name, "coordset/coords/values/z");
  ASSERT_EQ(mesh.parts.size(), 3u);  // the four name="#" are no array
  EXPECT_EQ(mesh.parts[0].role, "element_offsets");
  EXPECT_EQ(mesh.parts[0].variable, "topologies/topo/elements/offsets");
  EXPECT_EQ(mesh.parts[2].role, "section_connectivity");
  EXPECT_EQ(c.find_variable("PRESSURE")->mesh, "us_mesh");
  EXPECT_EQ(c.find_variable("PRESSURE")->stores, Names{"MyStore"});
  EXPECT_TRUE(c.find_variable("1OVERBG")->stores.empty());  // store="": no store
  EXPECT_TRUE(c.find_variable("OUTPUTDIR")->stores.empty());
  EXPECT_FALSE(c.find_variable("OUTPUTDIR")->every_store);
  EXPECT_EQ(c.find_layout("path_string_layout")->type, ecluse::DataType::Int8);
  EXPECT_EQ(c.find_store("MyStore")->options.at("FilesPath"), "output/");
  EXPECT_EQ(ecluse::name_of(c.log.level), "info");
}

TEST(DamarisModel, CodeSaturneMeshPartsAndAGroupsUnstructuredMesh) {
  const Config c = damaris("code_saturne");
  const ecluse::Mesh& mesh = *c.find_mesh("umesh_vars/fluid_domain_umesh");
  ASSERT_EQ(mesh.parts.size(), 4u);
  EXPECT_EQ(mesh.parts[0].role, "vertex_global_id");
  EXPECT_EQ(mesh.parts[0].variable, "umesh_vars/unstructured_gid");
  EXPECT_EQ(mesh.parts[0].offset, -1);
  EXPECT_EQ(mesh.coords.at(0).name, "umesh_vars/unstructured_mesh_xyz");
  // mesh="fluid_domain_umesh" from group "fields": Damaris registers an unstructured mesh of a
  // group under its plain name, so it is the one of group umesh_vars.
  EXPECT_EQ(c.find_variable("fields/pressure")->mesh, "umesh_vars/fluid_domain_umesh");
  EXPECT_EQ(c.find_variable("fields/velocity")->mesh, "umesh_vars/fluid_domain_umesh");
  EXPECT_EQ(c.find_variable("fields/velocity")->layout, "zonal_layout_vect3");
  EXPECT_TRUE(c.find_variable("umesh_vars/sections_offsets")->stores.empty());
  EXPECT_EQ(c.find_store("MyStore")->options.at("FilesPath"), "");
}

TEST(DamarisModel, PythonDaskDomainsAndNoStorage) {
  const Config c = damaris("python_dask");
  EXPECT_EQ(c.architecture.domains, 8);
  EXPECT_EQ(c.architecture.dedicated_cores, 2);
  EXPECT_TRUE(c.stores.empty());
  EXPECT_EQ(c.find_variable("cube_i")->mesh, "");
  EXPECT_EQ(ecluse::name_of(c.log.level), "debug");
}

TEST(DamarisModel, PlacementPatternAndMask) {
  const Config pattern = damaris("placement_pattern");
  const ecluse::CorePlacement& p = pattern.architecture.core_placement;
  EXPECT_TRUE(p.pattern);
  EXPECT_EQ(p.start, 1);
  EXPECT_EQ(p.step, 4);
  EXPECT_EQ(p.blocksize, 2);
  EXPECT_TRUE(p.mask.empty());
  const Config mask = damaris("placement_mask");
  EXPECT_EQ(mask.architecture.core_placement.mask, "100100");
  EXPECT_FALSE(mask.architecture.core_placement.pattern);  // zeros are "not given"
}

TEST(DamarisModel, StorageVariants) {
  const Config c = damaris("storage_variants");
  EXPECT_EQ(c.architecture.dedicated_nodes, 1);
  EXPECT_EQ(c.architecture.dedicated_cores, 0);  // nodes win, as in Damaris
  EXPECT_EQ(ecluse::name_of(c.language), "c");   // language="unknown"
  EXPECT_EQ(c.find_variable("a")->stores, (Names{"files", "every2", "checkpoint"}));
  EXPECT_EQ(c.find_variable("b")->stores, (Names{"files", "checkpoint"}));
  EXPECT_TRUE(c.find_variable("c")->stores.empty());
  EXPECT_TRUE(c.find_variable("d")->stores.empty());
  EXPECT_FALSE(c.find_variable("d")->every_store);
  EXPECT_TRUE(c.find_variable("g/e")->stores.empty());  // a group's store= is not inherited
  EXPECT_FALSE(c.find_variable("off")->enabled);
  EXPECT_EQ(c.find_layout("names")->type, ecluse::DataType::Int8);
  EXPECT_EQ(c.find_store("every2")->frequency, 2);
  EXPECT_EQ(c.find_store("files")->frequency, 1);
  EXPECT_FALSE(c.find_store("checkpoint")->enabled);
  // Options a store does not know are passed over, not kept: the store never sees them.
  EXPECT_EQ(c.find_store("files")->options.count("Checksum"), 0u);
  EXPECT_EQ(c.find_store("every2")->options.count("FileMod"), 0u);
  EXPECT_EQ(ecluse::hdf5_options(*c.find_store("every2")).mode, ecluse::Hdf5FileMode::Collective);
}

TEST(DamarisModel, WithoutStoreEcluseWritesEverywhereDamarisNowhere) {
  const std::string data =
      "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>"
      "<variable name=\"v\" layout=\"l\"/>"
      "<group name=\"g\" store=\"s\"><variable name=\"w\" layout=\"l\"/>"
      "</group>";
  const std::string storage = "<storage><store name=\"s\" type=\"null\"/></storage>";
  const Config ecluse = ecluse::parse_config("e.xml", file("", data, storage));
  EXPECT_TRUE(ecluse.find_variable("v")->every_store);
  EXPECT_FALSE(ecluse.find_variable("g/w")->every_store);
  EXPECT_EQ(ecluse.find_variable("g/w")->stores, Names{"s"});  // inherited from the group
  const Config damaris = ecluse::parse_config("d.xml", file(kDamarisNs, data, storage));
  EXPECT_FALSE(damaris.find_variable("v")->every_store);
  EXPECT_TRUE(damaris.find_variable("v")->stores.empty());
  EXPECT_TRUE(damaris.find_variable("g/w")->stores.empty());
}

TEST(DamarisModel, EcluseNamespaceKeepsItsStrictness) {
  const std::string option =
      "<storage><store name=\"s\" type=\"HDF5\"><option key=\"Checksum\">crc32</option>"
      "</store></storage>";
  EXPECT_EQ(error_of(file("", "", option)),
            "c.xml:1:129: unknown option 'Checksum' for store type 'HDF5'. Known options: "
            "FileMode, FilesPath, FileName, Permissions, Sync, XDMFMode, ConcurrentWriters, "
            "Compression, CompressionLevel, Shuffle, ZfpMode, ZfpValue, ChunkSize.");
  EXPECT_EQ(error_of(file(kDamarisNs, "", option)), "");
  const std::string mesh =
      "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>"
      "<variable name=\"v\" layout=\"l\" mesh=\"nowhere\"/>";
  EXPECT_NE(error_of(file("", mesh)), "");
  EXPECT_EQ(error_of(file(kDamarisNs, mesh)), "");
  const std::string text = "<layout name=\"l\" type=\"string\" dimensions=\"2\"/>";
  EXPECT_NE(error_of(file("", text)), "");
  EXPECT_EQ(error_of(file(kDamarisNs, text)), "");
}

TEST(DamarisModel, GroupNamesMayNestWithSlashes) {
  const std::string data =
      "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>"
      "<group name=\"a/b\"><variable name=\"v\" layout=\"l\"/></group>";
  EXPECT_NE(ecluse::parse_config("g.xml", file("", data)).find_variable("a/b/v"), nullptr);
  EXPECT_EQ(error_of(file("", "<group name=\"a//b\"/>")),
            "c.xml:1:84: invalid name 'a//b' for <group>; a group name is non-empty parts "
            "separated by single '/', none of them '.' or '..', e.g. \"a/b\".");
}

TEST(DamarisModel, EverySingleElementIsRefusedTwiceWithBothLines) {
  const std::string text =
      "<simulation name=\"s\">\n<architecture>\n<domains count=\"1\"/>\n"
      "<dedicated cores=\"1\"/>\n<buffer size=\"1MiB\"/>\n<dedicated cores=\"2\"/>\n"
      "<domains count=\"2\"/>\n</architecture>\n<data/>\n<data/>\n<log/>\n<log/>\n"
      "</simulation>";
  EXPECT_EQ(error_of(text),
            "c.xml:6:1: <dedicated> given twice (first at line 4); keep one.\n"
            "c.xml:7:1: <domains> given twice (first at line 3); keep one.\n"
            "c.xml:10:1: <data> given twice (first at line 9); keep one.\n"
            "c.xml:12:1: <log> given twice (first at line 11); keep one.");
}

TEST(DamarisModel, PluginsSectionIsSilentWhenEmptyAndNamesWhatWillNotRun) {
  // PDI's Damaris plugin writes <plugins> into every file, blank when its YAML names none.
  const Config blank =
      ecluse::parse_config("b.xml", file(kDamarisNs, "", "<plugins>\n  \n</plugins>"));
  EXPECT_TRUE(blank.warnings.empty());
  std::string many = "<plugins>";
  for (int i = 0; i < 6; ++i)
    many += "<plugin name=\"p" + std::to_string(i) + "\"><x y=\"1\"/></plugin>";
  many += "<pdi/></plugins>";
  EXPECT_EQ(ecluse::parse_config("m.xml", file(kDamarisNs, "", many)).warnings,
            Names{"m.xml:1:137: <plugins>: Ecluse runs no Damaris server plugins; its 7 "
                  "plugin(s) (<plugin name=\"p0\">, <plugin name=\"p1\">, <plugin name=\"p2\">, "
                  "<plugin name=\"p3\"> and 3 more) will not run (variables that name a store "
                  "are still written). Remove them, or port each to an <event> action "
                  "(docs/plugins.md) or a <pyscript>."});
}

TEST(DamarisModel, TimeVaryingWithAnUnderscoreIsIgnoredAsDamarisIgnoresIt) {
  // Damaris's DamarisVar helper (PDI's plugin) writes time_varying="true" on every variable.
  const std::string layout = "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>";
  const auto variable = [&](const std::string& attributes) {
    return layout + "<variable name=\"v\" layout=\"l\" " + attributes + "/>";
  };
  // The files have no <storage>: the variable is read by nothing, said first.
  const auto unread = [](const std::string& file) {
    return file +
           ":1:174: 1 variable(s) are read by nothing: the file has no <storage>, and no "
           "script= or iteration plugin reads them, so what is written of them is not kept: v. "
           "Add a <storage> with a <store> (e.g. type=\"HDF5\") to keep them.";
  };
  const Config same =
      ecluse::parse_config("t.xml", file(kDamarisNs, variable("time_varying=\"true\"")));
  EXPECT_EQ(same.warnings, Names{unread("t.xml")});
  EXPECT_TRUE(same.find_variable("v")->time_varying);
  const Config other =
      ecluse::parse_config("f.xml", file(kDamarisNs, variable("time_varying=\"false\"")));
  EXPECT_TRUE(other.find_variable("v")->time_varying);
  const Names warned{unread("f.xml"),
                     "f.xml:1:204: time_varying=\"false\" on <variable> is ignored, as Damaris "
                     "1.x ignores it (its attribute is time-varying=): the variable is written at "
                     "every iteration it is given. Write time-varying= to mean it."};
  EXPECT_EQ(other.warnings, warned);
  const Config both = ecluse::parse_config(
      "b.xml", file(kDamarisNs, variable("time-varying=\"false\" time_varying=\"false\"")));
  EXPECT_EQ(both.warnings, Names{unread("b.xml")});
  EXPECT_FALSE(both.find_variable("v")->time_varying);
  EXPECT_EQ(error_of(file("", variable("time_varying=\"false\""))),
            "c.xml:1:151: unknown attribute 'time_varying' on <variable>; did you mean "
            "'time-varying'? Allowed attributes: name, layout, unit, enabled, mesh, type, "
            "centering, visualizable, time-varying, store, script, select, select-file, "
            "select-mem, select-subset, vectorlength, comment.");
}

TEST(DamarisModel, UnknownAttributesAreIgnoredWithAWarningAsDamarisIgnoresThem) {
  // Damaris's reader skips attributes outside its schema: the file runs there, so it runs here,
  // and each misspelling is said once, with its place and the closest allowed name.
  const std::string data =
      "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>"
      "<variable name=\"a\" layout=\"l\" store=\"f\" units=\"K\" visualisable=\"false\"/>"
      "<variable name=\"b\" layout=\"l\" store=\"f\" units=\"m\" time-varying=\"false\"/>";
  const Config c =
      ecluse::parse_config("w.xml", file(kDamarisNs, data,
                                         "<storage basename=\".\"><store name=\"f\" type=\"null\"/>"
                                         "</storage>"));
  EXPECT_EQ(c.find_variable("a")->unit, "");  // ignored: unit= is not given
  EXPECT_FALSE(c.find_variable("b")->time_varying);
  EXPECT_EQ(
      c.warnings,
      (Names{"w.xml:1:214: unknown attribute 'units' on <variable> is ignored, as Damaris 1.x "
             "ignores attributes outside its schema; did you mean 'unit'? Allowed attributes: "
             "name, layout, unit, enabled, mesh, type, centering, visualizable, time-varying, "
             "store, script, select, select-file, select-mem, select-subset, vectorlength, "
             "comment. Correct its name or remove it. (and 1 more like it)",
             "w.xml:1:224: unknown attribute 'visualisable' on <variable> is ignored, as Damaris "
             "1.x ignores attributes outside its schema; did you mean 'visualizable'? Allowed "
             "attributes: name, layout, unit, enabled, mesh, type, centering, visualizable, "
             "time-varying, store, script, select, select-file, select-mem, select-subset, "
             "vectorlength, comment. Correct its name or remove it.",
             "w.xml:1:334: unknown attribute 'basename' on <storage> is ignored, as Damaris 1.x "
             "ignores attributes outside its schema. Allowed attributes: comment. Correct its "
             "name or remove it."}));
  // Standing for a required attribute the element lacks, it refuses the file, in both dialects
  // (Damaris refuses that element too), with the same message.
  const std::string misspelt = "<layout name=\"l\" type=\"int\" dimension=\"2\"/>";
  const std::string expected =
      "c.xml:1:158: unknown attribute 'dimension' on <layout>; did you mean 'dimensions'? "
      "Allowed attributes: name, type, dimensions, global, ghosts, language, visualizable, "
      "comment.";
  EXPECT_EQ(error_of(file(kDamarisNs, misspelt)), expected);
  EXPECT_EQ(error_of(file("", misspelt)),
            "c.xml:1:105: unknown attribute 'dimension' on "
            "<layout>; did you mean 'dimensions'? Allowed "
            "attributes: name, type, dimensions, global, ghosts, "
            "language, visualizable, comment.");
  // An Ecluse file keeps refusing every attribute outside its schema.
  EXPECT_EQ(error_of(file("",
                          "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>"
                          "<variable name=\"a\" layout=\"l\" units=\"K\"/>")),
            "c.xml:1:151: unknown attribute 'units' on <variable>; did you mean 'unit'? Allowed "
            "attributes: name, layout, unit, enabled, mesh, type, centering, visualizable, "
            "time-varying, store, script, select, select-file, select-mem, select-subset, "
            "vectorlength, comment.");
}

// Found in real Damaris files (OPM's templates, PDI's example): store="#" asks for no store (no
// warning that store= is missing); RotationSize and LogFormat, required by Damaris's schema,
// are not warned; <pyscript file=""> is a script turned off, dropped with a warning along with
// the variables' script= naming it (an Ecluse file refuses it at initialize).
TEST(DamarisModel, WhatRealDamarisFilesWriteIsReadAsDamarisReadsIt) {
  const std::string data =
      "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>"
      "<variable name=\"off\" layout=\"l\" store=\"#\" script=\"Py\"/>"
      "<variable name=\"on\" layout=\"l\" store=\"s\"/>";
  const Config c = ecluse::parse_config(
      "r.xml", file(kDamarisNs, data,
                    "<storage><store name=\"s\" type=\"null\"/></storage>"
                    "<scripts><pyscript name=\"Py\" file=\"\" language=\"python\"/></scripts>"
                    "<log FileName=\"log/r\" RotationSize=\"5\" LogFormat=\"%Message%\" "
                    "LogLevel=\"info\"/>"));
  EXPECT_TRUE(c.scripts.empty());
  EXPECT_TRUE(c.find_variable("off")->scripts.empty());
  EXPECT_TRUE(c.find_variable("off")->stores.empty());
  ASSERT_EQ(c.warnings.size(), 1u) << c.warnings.front();
  EXPECT_NE(c.warnings[0].find(": <pyscript name=\"Py\"> has an empty file: as in Damaris, no "
                               "script runs. Name the Python file whose main(DD) runs, or remove "
                               "the <pyscript>."),
            std::string::npos)
      << c.warnings[0];
}

// Damaris's parser (libxsd) reads a boolean as true when it is "true" or "1", as false
// otherwise: OPM's Flush="True" is false there, and here, with a warning; an Ecluse file reads
// True as true. Attributes that are not booleans in Damaris's schema keep Ecluse's reading.
TEST(DamarisModel, BooleansReadAsDamarisReadsThem) {
  const std::string data =
      "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>"
      "<variable name=\"a\" layout=\"l\" time-varying=\"True\" store=\"s\"/>"
      "<variable name=\"b\" layout=\"l\" time-varying=\" 1 \" enabled=\"0\" store=\"s\"/>";
  const std::string rest =
      "<storage><store name=\"s\" type=\"null\"/></storage>"
      "<log FileName=\"log/r\" LogLevel=\"info\" Flush=\"on\"/>";
  const Config d = ecluse::parse_config("b.xml", file(kDamarisNs, data, rest));
  EXPECT_FALSE(d.find_variable("a")->time_varying);
  EXPECT_TRUE(d.find_variable("b")->time_varying);
  EXPECT_FALSE(d.find_variable("b")->enabled);
  EXPECT_FALSE(d.log.flush);
  ASSERT_EQ(d.warnings.size(), 1u);  // the Flush="on" is the one more like it
  EXPECT_NE(d.warnings[0].find(": time-varying=\"True\" reads as false, as Damaris 1.x reads it "
                               "(its booleans are true, false, 1 or 0, in lower case); write "
                               "time-varying=\"true\" for true. (and 1 more like it)"),
            std::string::npos)
      << d.warnings[0];
  const Config e = ecluse::parse_config(
      "e.xml", file("",
                    "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>"
                    "<variable name=\"a\" layout=\"l\" time-varying=\"True\"/>"));
  EXPECT_TRUE(e.find_variable("a")->time_varying);
}

// What Damaris's own schema and files allow, found in its examples, documentation listings and
// earlier revisions: each is read as Damaris reads it, without a warning of its own.
TEST(DamarisModel, WhatDamarisSchemaAllowsIsAccepted) {
  const std::string data =
      "<layout name=\"l\" type=\"int\" dimensions=\"2\"/><variable name=\"v\" layout=\"l\"/>";
  // The namespace of Damaris's schema for a while (its test.xml of that time) is Damaris's.
  const Config gitlab =
      ecluse::parse_config("g.xml", file("https://gitlab.inria.fr/Damaris/damaris", data,
                                         "<storage><store name=\"s\" type=\"null\"/></storage>"));
  EXPECT_EQ(gitlab.dialect, ecluse::Dialect::Damaris);
  EXPECT_FALSE(gitlab.find_variable("v")->every_store);  // Damaris's meaning: no store=, none
  EXPECT_EQ(gitlab.warnings,
            Names{"g.xml:1:169: 1 variable(s) have no store= and, as in Damaris, are written by no "
                  "store: v. Add store=\"s\" to those to keep."});
  // <domains/> without count: one block per client (count is optional, default 1).
  const Config domains =
      ecluse::parse_config("d.xml", "<simulation name=\"s\" xmlns=\"" + std::string(kDamarisNs) +
                                        "\"><architecture><domains/></architecture></simulation>");
  EXPECT_EQ(domains.architecture.domains, 1);
  EXPECT_TRUE(domains.warnings.empty());
  // <error script=...> without event= (Damaris's listing errorscript.xml): warned as every
  // <error> is, not refused.
  const Config error = ecluse::parse_config(
      "e.xml", file(kDamarisNs, "", "<actions><error script=\"my_script\"/></actions>"));
  EXPECT_EQ(error.warnings,
            Names{"e.xml:1:146: <error>: Ecluse runs no action on errors; an error reaches the "
                  "simulation as a return code and is counted in the run report. Remove "
                  "<error>."});
  // XML Schema's attributes, and <paraview>'s realtime-timestep and end-iteration.
  const Config xsi = ecluse::parse_config(
      "x.xml",
      "<simulation name=\"s\" xmlns=\"" + std::string(kDamarisNs) +
          "\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
          "xsi:schemaLocation=\"http://damaris.gforge.inria.fr/damaris/model Model.xsd\">"
          "<architecture><domains count=\"1\"/></architecture>"
          "<paraview update-frequency=\"1\" realtime-timestep=\"0.1\" end-iteration=\"0\">"
          "<script> </script></paraview></simulation>");  // a blank script is none
  EXPECT_EQ(xsi.warnings,
            Names{"x.xml:1:254: <paraview>: Ecluse has no ParaView Catalyst back-end; it names "
                  "no script (variables that name a store are still written). Remove "
                  "<paraview>."});
  // <buffer size="0"> (Nek5000's file: "use MPI"): unused without dedicated resources, the
  // default on dedicated nodes (said), refused for dedicated cores, which need the buffer.
  const auto zero = [](const std::string& dedicated) {
    return "<simulation name=\"s\" xmlns=\"" + std::string(kDamarisNs) +
           "\"><architecture><domains count=\"1\"/>" + dedicated +
           "<buffer name=\"b\" size=\"0\"/></architecture></simulation>";
  };
  const Config tp = ecluse::parse_config("z.xml", zero("<dedicated cores=\"0\" nodes=\"0\"/>"));
  EXPECT_TRUE(tp.warnings.empty());
  const Config dn = ecluse::parse_config("z.xml", zero("<dedicated cores=\"0\" nodes=\"1\"/>"));
  EXPECT_EQ(dn.architecture.buffer_size, 64u << 20);
  EXPECT_EQ(dn.warnings,
            Names{"z.xml:1:158: <buffer size=\"0\">: a dedicated node receives the clients' "
                  "blocks into memory of this size (per node); the default, 64 MiB, is used. "
                  "Give a size to choose it."});
  EXPECT_EQ(error_of(zero("<dedicated cores=\"1\" nodes=\"0\"/>")),
            "c.xml:1:158: <buffer size=\"0\">: dedicated cores copy the clients' blocks into "
            "this node-wide buffer; give it a size, e.g. size=\"64MiB\" (ecluse-check --ranks N "
            "says what one iteration needs).");
  EXPECT_NE(error_of("<simulation name=\"s\"><architecture><domains count=\"1\"/>"
                     "<buffer size=\"0\"/></architecture></simulation>"),
            "");  // an Ecluse file keeps refusing it
  // Another namespace is still refused, naming Damaris's.
  EXPECT_EQ(error_of(file("https://example.org/damaris", "")),
            "c.xml:1:22: unknown namespace 'https://example.org/damaris'; use "
            "xmlns=\"urn:ecluse:config:1\" (Ecluse) or "
            "xmlns=\"http://damaris.gforge.inria.fr/damaris/model\" (Damaris 1.x).");
}

TEST(DamarisModel, TypeNamesAreOneElementLayoutsAsInDamaris) {
  const std::string data =
      "<group name=\"g\"><variable name=\"t\" layout=\"double\"/>"
      "<variable name=\"n\" layout=\"int\"/><variable name=\"c\" layout=\"short\"/></group>"
      "<layout name=\"real\" type=\"int\" dimensions=\"3\"/><variable name=\"r\" layout=\"real\"/>";
  const Config c = ecluse::parse_config("t.xml", file(kDamarisNs, data));
  const auto layout_of = [&](const std::string& variable) {
    return c.find_layout(c.find_variable(variable)->layout);
  };
  EXPECT_EQ(layout_of("g/t")->name, "double");
  EXPECT_EQ(layout_of("g/t")->type, ecluse::DataType::Float64);
  EXPECT_EQ(layout_of("g/n")->type, ecluse::DataType::Int32);
  EXPECT_EQ(layout_of("g/c")->type, ecluse::DataType::Int16);
  ASSERT_EQ(layout_of("g/t")->dimensions.size(), 1u);
  EXPECT_EQ(layout_of("g/t")->dimensions[0].text(), "1");
  EXPECT_EQ(layout_of("r")->type, ecluse::DataType::Int32);  // the file's own layout wins
  EXPECT_EQ(layout_of("r")->dimensions[0].text(), "3");
  EXPECT_EQ(error_of(file("", "<variable name=\"t\" layout=\"double\"/>")),
            "c.xml:1:77: variable 't' uses layout 'double' which is not defined. Fix the name or "
            "define it with <layout name=\"double\" type=\"...\" dimensions=\"...\"/>.");
}

// Damaris 1.x refuses a file naming a type outside its schema; Ecluse reads Ecluse's names
// there too, says once that Damaris would refuse the file, and defines no one-element layout
// for them (Damaris defines none).
TEST(DamarisModel, EcluseTypeNamesAreAcceptedWithAWarningThatDamarisRefusesThem) {
  const std::string data =
      "<parameter name=\"m\" type=\"uint16\" value=\"65535\"/>"
      "<layout name=\"l\" type=\"int32\" dimensions=\"2\"/>"
      "<layout name=\"u\" type=\"unsigned char\" dimensions=\"m\"/>"
      "<variable name=\"v\" layout=\"l\" store=\"s\"/>"
      "<variable name=\"w\" layout=\"u\" store=\"s\"/>";
  const std::string storage = "<storage><store name=\"s\" type=\"null\"/></storage>";
  const Config c = ecluse::parse_config("t.xml", file(kDamarisNs, data, storage));
  EXPECT_EQ(c.find_parameter("m")->type, ecluse::DataType::UInt16);
  EXPECT_EQ(c.find_layout("l")->type, ecluse::DataType::Int32);
  EXPECT_EQ(c.find_layout("u")->type, ecluse::DataType::UInt8);
  EXPECT_EQ(c.warnings,
            Names{"t.xml:1:150: type=\"uint16\" is an Ecluse type that Damaris 1.x does not know "
                  "(it knows char, character, short, int, integer, long, float, real, double, "
                  "string, label): Damaris refuses this file. Ecluse honours it; to keep the "
                  "file readable by Damaris, write type=\"short\" (the same 16 bits, read as "
                  "signed: Damaris has no unsigned types). (and 2 more like it)"});
  EXPECT_EQ(ecluse::parse_config("t.xml", file(kDamarisNs,
                                               "<layout name=\"l\" type=\"int64\" "
                                               "dimensions=\"2\"/><variable name=\"v\" "
                                               "layout=\"l\" store=\"s\"/>",
                                               storage))
                .warnings,
            Names{"t.xml:1:147: type=\"int64\" is an Ecluse type that Damaris 1.x does not know "
                  "(it knows char, character, short, int, integer, long, float, real, double, "
                  "string, label): Damaris refuses this file. Ecluse honours it; to keep the "
                  "file readable by Damaris, write type=\"long\", its Damaris name."});
  EXPECT_TRUE(ecluse::parse_config("t.xml", file("", data, storage)).warnings.empty());
  EXPECT_EQ(error_of(file(kDamarisNs, "<variable name=\"t\" layout=\"uint8\"/>")),
            "c.xml:1:130: variable 't' uses layout 'uint8' which is not defined. Fix the name or "
            "define it with <layout name=\"uint8\" type=\"...\" dimensions=\"...\"/>.");
}

TEST(DamarisModel, SizesValuedZeroAtInitializeAreWarnedInDamarisFilesOnly) {
  const std::string data =
      "<parameter name=\"n\" type=\"int\" value=\"0\"/>"
      "<layout name=\"l\" type=\"int\" dimensions=\"n,2\" global=\"n*4,2\"/>";
  EXPECT_EQ(ecluse::parse_config("z.xml", file(kDamarisNs, data)).warnings,
            Names{"z.xml:1:172: layout 'l': dimension 1 \"n\" is 0 (n=0) at initialize; as in "
                  "Damaris, the layout is evaluated again at each write: give its parameters "
                  "positive values with damaris_parameter_set before writing its variables (a "
                  "write while it is 0 is refused)."});
  EXPECT_EQ(error_of(file("", data)),
            "c.xml:1:119: layout 'l': dimension 1 \"n\" is 0 (n=0); dimensions must be positive.");
  // A constant 0 is a mistake in either dialect.
  EXPECT_EQ(error_of(file(kDamarisNs, "<layout name=\"l\" type=\"int\" dimensions=\"0\"/>")),
            "c.xml:1:130: layout 'l': dimension 1 \"0\" is 0; dimensions must be positive.");
}

// Damaris evaluates a layout at each write only: a layout naming parameters that is not valid
// with their values at initialize (placeholders the program replaces with parameter_set before
// its first write, as PDI's example does: sizes 1 with ghosts 1:1) is warned in a Damaris file
// and refused in an Ecluse file; one of constants is refused in both.
TEST(DamarisModel, ALayoutInvalidWithPlaceholderValuesWaitsForTheWriteInDamarisFilesOnly) {
  const std::string data =
      "<parameter name=\"n\" type=\"int\" value=\"1\"/>"
      "<layout name=\"l\" type=\"double\" dimensions=\"n,n\" ghosts=\"1:1,1:1\"/>";
  const std::string invalid =
      "layout 'l': ghosts of dimension 1 are 1:1 for a dimension of 1; ghosts must be >= 0 and "
      "leave at least one interior cell.";
  EXPECT_EQ(ecluse::parse_config("z.xml", file(kDamarisNs, data)).warnings,
            Names{"z.xml:1:172: " + invalid +
                  " That is with the parameters' values at initialize; as in Damaris, the "
                  "layout is evaluated again at each write: give its parameters values that "
                  "make it valid with damaris_parameter_set before writing its variables (a "
                  "write while it is not valid is refused)."});
  EXPECT_EQ(error_of(file("", data)), "c.xml:1:119: " + invalid);
  EXPECT_EQ(error_of(file(kDamarisNs,
                          "<layout name=\"l\" type=\"int\" dimensions=\"1\" "
                          "ghosts=\"1:1\"/>")),
            "c.xml:1:130: layout 'l': ghosts of dimension 1 are 1:1 for a dimension of 1; ghosts "
            "must be >= 0 and leave at least one interior cell.");
}

std::vector<std::string> placement_warnings(const std::string& dedicated,
                                            const std::string& placement) {
  return ecluse::parse_config("p.xml", "<simulation name=\"s\">\n<architecture>\n" + dedicated +
                                           "\n" + placement + "\n</architecture>\n</simulation>")
      .warnings;
}

TEST(DamarisModel, PlacementThatCannotApplyIsWarned) {
  EXPECT_EQ(placement_warnings("<dedicated nodes=\"1\"/>", "<placement mask=\"01\"/>"),
            Names{"p.xml:4:1: <placement> mask/start/step/blocksize place dedicated cores, not "
                  "dedicated nodes; they are ignored: use servers=\"first\" or "
                  "servers=\"last\" to place dedicated nodes."});
  EXPECT_EQ(placement_warnings("<dedicated cores=\"0\"/>", "<placement start=\"2\"/>"),
            Names{"p.xml:4:1: <placement> is ignored: there are no dedicated cores (<dedicated "
                  "cores=\"0\">); set cores or remove the placement."});
  EXPECT_EQ(placement_warnings("<dedicated cores=\"1\"/>", "<placement mask=\"01\" step=\"2\"/>"),
            Names{"p.xml:4:1: <placement> gives a mask and start/step/blocksize; the mask "
                  "decides which ranks are dedicated cores: remove start, step and blocksize."});
  EXPECT_TRUE(placement_warnings("<dedicated cores=\"1\"/>", "<placement/>").empty());
}

TEST(DamarisModel, PlacementMistakesAreRefused) {
  const auto arch = [](const std::string& placement) {
    return "<simulation name=\"s\"><architecture><domains count=\"1\"/>"
           "<dedicated cores=\"2\"/>" +
           placement + "</architecture></simulation>";
  };
  EXPECT_EQ(error_of(arch("<placement mask=\"01x1\"/>")),
            "c.xml:1:89: invalid mask '01x1' on <placement>; write one 0 or 1 per node-local "
            "rank, 1 for a dedicated core, e.g. mask=\"0001\" (repeated over the node).");
  EXPECT_EQ(error_of(arch("<placement mask=\"0000\"/>")),
            "c.xml:1:89: mask '0000' on <placement> marks no rank as a dedicated core; put a 1 "
            "for each of the 2 per node.");
  EXPECT_EQ(error_of(arch("<placement start=\"1\" servers=\"first\"/>")),
            "c.xml:1:99: <placement> gives servers= and a mask or start/step/blocksize; keep "
            "one way of placing dedicated cores.");
}

}  // namespace

namespace {

std::string selection(const std::string& index_layout, const std::string& layout,
                      const std::string& select) {
  return file(kDamarisNs,
              "<parameter name=\"n\" type=\"int\" value=\"4\"/>"
              "<layout name=\"idx\" type=\"" +
                  index_layout +
                  "\" dimensions=\"n\"/>"
                  "<layout name=\"field\" type=\"double\" dimensions=\"" +
                  layout + "\" global=\"" + layout +
                  "\"/>"
                  "<variable name=\"GLOBAL_CELL_INDEX\" layout=\"idx\" time-varying=\"false\"/>"
                  "<variable name=\"P\" layout=\"field\" select-file=\"" +
                  select + "\"/>");
}

}  // namespace

TEST(DamarisModel, SelectFileNamesAOneDimensionalIntegerIndex) {
  const Config c = ecluse::parse_config("c.xml", selection("int", "n", "GLOBAL_CELL_INDEX"));
  EXPECT_EQ(c.find_variable("P")->select_file, "GLOBAL_CELL_INDEX");
  EXPECT_EQ(c.find_variable("GLOBAL_CELL_INDEX")->select_file, "");
  EXPECT_EQ(
      ecluse::parse_config("c.xml", selection("int", "n", "#")).find_variable("P")->select_file,
      "");
}

TEST(DamarisModel, SelectFileRefusesWhatCannotPlaceElements) {
  EXPECT_NE(error_of(selection("int", "n", "GLOBAL_CELL_INDX"))
                .find("variable 'P' has select-file 'GLOBAL_CELL_INDX' which is not defined; "
                      "did you mean 'GLOBAL_CELL_INDEX'?"),
            std::string::npos);
  EXPECT_NE(error_of(selection("double", "n", "GLOBAL_CELL_INDEX"))
                .find("variable 'P' has select-file 'GLOBAL_CELL_INDEX', whose layout is not "
                      "one-dimensional with an integer type"),
            std::string::npos);
  EXPECT_NE(error_of(selection("int", "n,2", "GLOBAL_CELL_INDEX"))
                .find("variable 'P' has select-file 'GLOBAL_CELL_INDEX', but its layout has "
                      "more than one dimension"),
            std::string::npos);
  EXPECT_EQ(error_of(selection("int", "n", "GLOBAL_CELL_INDEX")), "");
  std::string disabled = selection("int", "n", "GLOBAL_CELL_INDEX");
  disabled.replace(disabled.find("time-varying"), 0, "enabled=\"false\" ");
  EXPECT_NE(error_of(disabled).find("variable 'P' has select-file 'GLOBAL_CELL_INDEX', which is "
                                    "disabled (enabled=\"false\")"),
            std::string::npos);
}

// Damaris reads a char parameter with lexical_cast<char>: one character, whose code is the value.
TEST(DamarisModel, ACharParameterIsOneCharacterAsInDamaris) {
  const std::string data =
      "<parameter name=\"letter\" type=\"char\" value=\"a\"/>"
      "<parameter name=\"digit\" type=\"character\" value=\"5\"/>"
      "<parameter name=\"number\" type=\"char\" value=\"-12\"/>";
  const std::string text = file(kDamarisNs, data);
  const Config c = ecluse::parse_config("p.xml", text);
  ecluse::Diagnostics ignored;
  const ecluse::Parameters values(c, ignored);
  EXPECT_EQ(values.integer("letter"), 97);
  EXPECT_EQ(values.integer("digit"), 53);
  EXPECT_EQ(values.integer("number"), -12);  // more than one character: a number, as before
  EXPECT_EQ(c.warnings,
            Names{"p.xml:1:" + std::to_string(text.find("value=\"5\"") + 1) +
                  ": value=\"5\" of char parameter 'digit' is the character '5' (code 53), as in "
                  "Damaris; to mean the number 5, write type=\"short\" or type=\"int\"."});
  const Config own = ecluse::parse_config(
      "q.xml", file("", "<parameter name=\"digit\" type=\"char\" value=\"5\"/>"));
  const ecluse::Parameters own_values(own, ignored);
  EXPECT_EQ(own_values.integer("digit"), 5);  // Ecluse's own files: a number
  EXPECT_NE(error_of(file("", "<parameter name=\"letter\" type=\"char\" value=\"a\"/>"))
                .find("parameter 'letter' has value 'a' which is not a valid char; give a whole "
                      "number from -128 to 127."),
            std::string::npos);
}

namespace {

const char* const kLayoutAndVariable =
    "<layout name=\"l\" type=\"int\" dimensions=\"2\"/><variable name=\"v\" layout=\"l\"/>";

}  // namespace

TEST(DamarisModel, AnEmptyStorageIsNamedWhenItsVariablesAreReadByNothing) {
  // Damaris's schema allows <storage></storage> (its test.xml): the file has one, without store.
  const Config c = ecluse::parse_config(
      "e.xml", file(kDamarisNs, kLayoutAndVariable, "\n<storage>\n</storage>"));
  EXPECT_EQ(c.warnings,
            Names{"e.xml:1:174: 1 variable(s) are read by nothing: its <storage> (line 2) has no "
                  "<store>, and no script= or iteration plugin reads them, so what is written of "
                  "them is not kept: v. Add a <store> (e.g. type=\"HDF5\") inside its <storage> "
                  "to keep them."});
}

TEST(DamarisModel, SignalActionsAreSaidToReceiveNoBlocks) {
  // ROSS's RISA: no storage on purpose, a server-side action reads the blocks in Damaris.
  const std::string actions =
      "<actions><event name=\"handle_data\" action=\"handle_data\" library=\"librd.so\" "
      "scope=\"group\"/></actions>";
  const Config c = ecluse::parse_config("r.xml", file(kDamarisNs, kLayoutAndVariable, actions));
  EXPECT_EQ(c.warnings,
            Names{"r.xml:1:174: 1 variable(s) are read by nothing: the file has no <storage>, and "
                  "no script= or iteration plugin reads them; its <event> action(s) "
                  "(handle_data) do not read them either: Ecluse's signal actions receive no "
                  "variables' blocks (Damaris's read them from the servers' memory), so what is "
                  "written of them is dropped: v. Port the action(s) to an iteration plugin "
                  "(kind=\"iteration\", docs/plugins.md), which is given the iteration's blocks, "
                  "or add a <storage> with a <store> (e.g. type=\"HDF5\") to keep them."});
}

TEST(DamarisModel, VariablesReadByAScriptOrAsAnIndexAreNotListedAsUnstored) {
  // OPM's mesh variables go to its Python script; GLOBAL_CELL_INDEX places PRESSURE's elements.
  const std::string data =
      "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>"
      "<variable name=\"mesh\" layout=\"l\" script=\"py\"/>"
      "<variable name=\"index\" layout=\"l\"/>"
      "<variable name=\"p\" layout=\"l\" select-file=\"index\" store=\"s\"/>";
  const std::string rest =
      "<storage><store name=\"s\" type=\"null\"/></storage>"
      "<scripts><pyscript name=\"py\" file=\"x.py\"/></scripts>";
  EXPECT_TRUE(ecluse::parse_config("o.xml", file(kDamarisNs, data, rest)).warnings.empty());
  const Config other = ecluse::parse_config(
      "o.xml", file(kDamarisNs, data + "<variable name=\"lost\" layout=\"l\"/>", rest));
  EXPECT_EQ(other.warnings,
            Names{"o.xml:1:316: 1 variable(s) have no store= and, as in Damaris, are written by "
                  "no store: lost. Add store=\"s\" to those to keep."});
}

TEST(DamarisModel, AParaviewWithoutScriptSaysSo) {
  const Config c =
      ecluse::parse_config("p.xml", file(kDamarisNs, "", "<paraview><script></script></paraview>"));
  EXPECT_EQ(c.warnings,
            Names{"p.xml:1:137: <paraview>: Ecluse has no ParaView Catalyst back-end; it names "
                  "no script (variables that name a store are still written). Remove "
                  "<paraview>."});
}

TEST(DamarisModel, AStoreFrequencyIsWarnedInDamarisFilesOnly) {
  // Damaris 1.x reads frequency= and stores every iteration; Ecluse stores every n-th.
  const std::string data =
      "<layout name=\"l\" type=\"int\" dimensions=\"2\"/>"
      "<variable name=\"v\" layout=\"l\" store=\"s\"/>";
  const std::string storage =
      "<storage><store name=\"s\" type=\"null\" frequency=\"3\"/></storage>";
  EXPECT_EQ(ecluse::parse_config("f.xml", file(kDamarisNs, data, storage)).warnings,
            Names{"f.xml:1:259: store 's' has frequency=\"3\": Ecluse honours it and stores only "
                  "the iterations that are multiples of 3, while Damaris 1.x ignores it and "
                  "stores every iteration, so writes at other iterations are not stored. Remove "
                  "frequency to store every iteration."});
  EXPECT_TRUE(ecluse::parse_config("f.xml", file("", data, storage)).warnings.empty());
  const std::string every = "<storage><store name=\"s\" type=\"null\" frequency=\"1\"/></storage>";
  EXPECT_TRUE(ecluse::parse_config("f.xml", file(kDamarisNs, data, every)).warnings.empty());
}

TEST(DamarisModel, EveryErrorIsItsOwnMessageAndPlaceholdersAreNamed) {
  // OPM's template, not filled in: four errors, each its own message.
  const std::string text =
      "<simulation name=\"s\" xmlns=\"" + std::string(kDamarisNs) +
      "\"><architecture><domains count=\"1\"/>\n"
      "<dedicated cores=\"_DC_REGEX_\" nodes=\"@N@\"/>\n"
      "<buffer name=\"b\" size=\"${SIZE}\"/></architecture><data/>\n"
      "<storage><store name=\"s\" type=\"HDF5\"><option key=\"FileMode\">_File_Mode</option>"
      "</store></storage></simulation>";
  try {
    (void)ecluse::parse_config("t.xml", text);
    FAIL() << "accepted";
  } catch (const ecluse::ConfigError& e) {
    const std::string hint =
        " looks like a template placeholder left unfilled: give the file "
        "its template generates, or put the value in its place.";
    EXPECT_EQ(e.messages(),
              (Names{"t.xml:2:12: invalid value '_DC_REGEX_' for 'cores' on <dedicated>; "
                     "expected an integer >= 0. '_DC_REGEX_'" +
                         hint,
                     "t.xml:2:31: invalid value '@N@' for 'nodes' on <dedicated>; expected an "
                     "integer >= 0. '@N@'" +
                         hint,
                     "t.xml:3:18: invalid value '${SIZE}' for 'size' on <buffer>; expected a "
                     "positive size in bytes, optionally followed by a unit (B, K, KB, M, MB, G, "
                     "GB, KiB, MiB, GiB or TiB), e.g. 67108864 or 64MiB. '${SIZE}'" +
                         hint,
                     "t.xml:4:38: invalid value '_File_Mode' for option 'FileMode' of store type "
                     "'HDF5'; expected one of: FilePerCore, FilePerProcess, FilePerNode, "
                     "Collective, CollectiveTest. '_File_Mode'" +
                         hint}));
    EXPECT_EQ(std::string(e.what()), ecluse::join(e.messages(), "\n"));  // the C API's message
    EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
  }
  // A value that is merely wrong gets no such hint.
  EXPECT_EQ(error_of(file("", "",
                          "<storage><store name=\"s\" type=\"null\" frequency=\"x\"/>"
                          "</storage>")),
            "c.xml:1:121: invalid value 'x' for 'frequency' on <store>; expected an integer >= 1.");
}
