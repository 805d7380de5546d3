// <scripts><pyscript> and script= read into the model (Damaris 1.7's form), and their errors
// with file:line:column; the script file itself is checked where scripts run (initialize).
#include <gtest/gtest.h>

#include <string>

#include "config/ConfigLoader.hpp"
#include "config/ScriptsReader.hpp"
#include "ecluse/Error.hpp"

namespace {

std::string file(const std::string& variable, const std::string& scripts) {
  return "<simulation name=\"s\"><architecture><domains "
         "count=\"1\"/></architecture>\n<data>\n<layout name=\"l\" type=\"double\" "
         "dimensions=\"4\"/>\n" +
         variable + "\n</data>\n" + scripts + "\n</simulation>";
}

std::string error_of(const std::string& text) {
  try {
    (void)ecluse::parse_config("c.xml", text);
  } catch (const ecluse::Error& e) {
    return e.what();
  }
  return "";
}

TEST(PyScriptConfig, ReadsEveryAttributeAndTheVariablesScripts) {
  const ecluse::Config c = ecluse::parse_config(
      "c.xml", file("<variable name=\"v\" layout=\"l\" script=\"a\"/>",
                    "<scripts><pyscript name=\"a\" file=\"a.py\" language=\"python\" "
                    "frequency=\"3\" scheduler-file=\"s.json\" nthreads=\"2\" keep-workers=\"yes\" "
                    "timeout=\"7\"/><pyscript name=\"b\" file=\"b.py\" nthreads=\"openmp\"/>"
                    "</scripts>"));
  ASSERT_EQ(c.scripts.size(), 2u);
  const ecluse::PyScript& a = c.scripts[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.file, "a.py");
  EXPECT_EQ(a.frequency, 3);
  EXPECT_EQ(a.scheduler_file, "s.json");
  EXPECT_EQ(a.nthreads, 2);
  EXPECT_TRUE(a.keep_workers);
  EXPECT_EQ(a.timeout_seconds, 7);
  EXPECT_EQ(c.scripts[1].frequency, 1);
  EXPECT_EQ(c.scripts[1].nthreads, 0);  // OMP_NUM_THREADS where the worker starts
  EXPECT_FALSE(c.scripts[1].keep_workers);
  EXPECT_EQ(c.scripts[1].timeout_seconds, 10);  // the connection's bound (Damaris: 2)
  EXPECT_EQ(c.find_variable("v")->scripts, std::vector<std::string>{"a"});
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
}

TEST(PyScriptConfig, UnknownScriptNamedWithLineAndSuggestion) {
  EXPECT_EQ(error_of(file("<variable name=\"v\" layout=\"l\" script=\"stat\"/>",
                          "<scripts><pyscript name=\"stats\" file=\"a.py\"/></scripts>")),
            "c.xml:4:31: variable 'v' names script 'stat', which is not a <pyscript>; did you "
            "mean 'stats'? Known scripts: stats.");
  EXPECT_EQ(error_of(file("<variable name=\"v\" layout=\"l\" script=\"x\"/>", "")),
            "c.xml:4:31: variable 'v' names script 'x', which is not a <pyscript>. There is no "
            "<scripts> section: declare <scripts><pyscript name=\"x\" file=\"...\"/></scripts>.");
  EXPECT_EQ(error_of(file("<variable name=\"v\" layout=\"l\" script=\"#\"/>", "")), "");
}

TEST(PyScriptConfig, FrequencyAndDuplicatesAndSchedulers) {
  EXPECT_EQ(
      error_of(file("",
                    "<scripts><pyscript name=\"a\" file=\"a.py\" frequency=\"0\"/>"
                    "</scripts>")),
      "c.xml:6:41: invalid value '0' for 'frequency' on <pyscript>; expected an integer >= 1.");
  EXPECT_EQ(error_of(file("",
                          "<scripts><pyscript name=\"a\" file=\"a.py\"/>\n"
                          "<pyscript name=\"a\" file=\"b.py\"/></scripts>")),
            "c.xml:7:1: duplicate pyscript 'a' (first defined at c.xml:6:10); rename or remove "
            "one of them.");
  EXPECT_EQ(error_of(file("",
                          "<scripts><pyscript name=\"a\" file=\"a.py\" scheduler-file=\"x\"/>\n"
                          "<pyscript name=\"b\" file=\"b.py\" scheduler-file=\"y\"/></scripts>")),
            "c.xml:7:1: <pyscript name=\"b\"> names scheduler-file 'y' but 'a' names 'x'; each "
            "server runs one Dask worker: give every <pyscript> the same scheduler-file.");
}

TEST(PyScriptConfig, UnreadableFileNamedWithItsAttribute) {
  const ecluse::Config c = ecluse::parse_config(
      "c.xml", file("", "<scripts><pyscript name=\"a\" file=\"/nonexistent/a.py\"/></scripts>"));
  EXPECT_EQ(ecluse::script_file_problem(c.scripts[0]),
            "c.xml:6:29: cannot read the script file '/nonexistent/a.py' of <pyscript "
            "name=\"a\">: No such file or directory (a relative path is taken from the working "
            "directory); fix file= or the file's permissions.");
}

}  // namespace
