// End to end: the `filelog` perflog handler of a site configuration, with
// ExCALIBUR's format (ukri-excalibur/excalibur-tests,
// benchmarks/reframe_config.py), written by a real run and read back by a
// parser written here from ReFrame's documented layout (a header line
// naming the '|'-separated fields, one line per record).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>

#include "e2e_util.h"

namespace {

const char* kExcaliburLogging = R"(
logging:
  - handlers_perflog:
      - type: filelog
        prefix: '%(check_system)s/%(check_partition)s'
        level: info
        format: '%(check_job_completion_time)s|reframe %(version)s|%(check_info)s|%(check_jobid)s|%(check_num_tasks)s|%(check_num_cpus_per_task)s|%(check_num_tasks_per_node)s|%(check_num_gpus_per_node)s|%(check_perfvalues)s|%(check_spack_spec)s|%(check_display_name)s|%(check_system)s|%(check_partition)s|%(check_job_nodelist)s|%(check_environ)s|%(check_extra_resources)s|%(check_env_vars)s|%(check_spack_spec_dict)s|%(check_tags)s'
        format_perfvars: '%(check_perf_value)s|%(check_perf_unit)s|%(check_perf_ref)s|%(check_perf_lower_thres)s|%(check_perf_upper_thres)s|'
        append: true
)";

// The Spack spec, with spaces and '=', is a parameter: it is in the display
// name as well as in its own column.
const char* kStreamTest = R"(
name: StreamBenchmark
parameters:
  spack_spec: ['stream@5.10 +openmp stream_array_size=64000000', 'stream@5.10 +openmp stream_array_size=128000000']
variables:
  arch: {default: zen3, loggable: true}
tags: [performance]
env_vars: {OMP_NUM_THREADS: '4'}
executable: echo
executable_opts: ['Copy: 1234.5']
sanity:
  - {pattern: 'Copy'}
performance:
  Copy: {pattern: 'Copy: (\S+)', group: 1, unit: MB/s}
reference:
  '*': {Copy: [1000, -0.5, 0.5, MB/s]}
)";

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

// Header, then one map per record.
std::vector<std::map<std::string, std::string>> ReadPerflog(const std::string& text,
                                                            std::vector<std::string>* columns) {
  std::vector<std::string> lines = SplitOn(text, '\n');
  std::vector<std::map<std::string, std::string>> rows;
  if (lines.empty()) return rows;
  *columns = SplitOn(lines[0], '|');
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    std::vector<std::string> fields = SplitOn(lines[i], '|');
    EXPECT_EQ(fields.size(), columns->size()) << lines[i];
    std::map<std::string, std::string> row;
    for (size_t k = 0; k < fields.size() && k < columns->size(); ++k) row[(*columns)[k]] = fields[k];
    rows.push_back(row);
  }
  return rows;
}

TEST(PerflogFormatE2E, ExcaliburFormatFromTheSiteConfiguration) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", e2e::LocalSite(kExcaliburLogging));
  Write(dir + "/stream.yaml", kStreamTest);
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "stream.yaml"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ((o.out + o.err).find("warning"), std::string::npos) << o.out << o.err;
  std::string path = dir + "/perflogs/box/p/StreamBenchmark.log";
  ASSERT_TRUE(Exists(path)) << o.out;
  std::vector<std::string> columns;
  auto rows = ReadPerflog(Read(path), &columns);
  std::string header;
  for (const auto& c : columns) header += (header.empty() ? "" : "|") + c;
  EXPECT_EQ(header,
            "job_completion_time|reframe version|info|jobid|num_tasks|num_cpus_per_task|num_tasks_per_node|"
            "num_gpus_per_node|Copy_value|Copy_unit|Copy_ref|Copy_lower_thres|Copy_upper_thres|spack_spec|"
            "display_name|system|partition|job_nodelist|environ|extra_resources|env_vars|spack_spec_dict|tags");
  ASSERT_EQ(rows.size(), 2u);
  std::set<std::string> specs;
  for (auto& row : rows) {
    // display_name: the test's name, then ' %NAME=VALUE' per parameter; the
    // value runs to the next ' %' and keeps its own '=' and spaces.
    const std::string& dn = row["display_name"];
    std::string prefix = "StreamBenchmark %spack_spec=";
    ASSERT_EQ(dn.rfind(prefix, 0), 0u) << dn;
    std::string spec = dn.substr(prefix.size());
    EXPECT_EQ(spec.find(" %"), std::string::npos) << "one parameter only: " << dn;
    EXPECT_EQ(row["spack_spec"], spec);
    specs.insert(spec);
    EXPECT_EQ(row["info"].rfind(dn + " /", 0), 0u) << row["info"];
    EXPECT_NE(row["info"].find(" @box:p+gnu"), std::string::npos) << row["info"];
    EXPECT_EQ(row["reframe version"].rfind("reframe ", 0), 0u);
    EXPECT_EQ(row["job_completion_time"].size(), 19u) << "%FT%T: " << row["job_completion_time"];
    EXPECT_EQ(row["job_completion_time"][10], 'T');
    EXPECT_EQ(std::stod(row["Copy_value"]), 1234.5);
    EXPECT_EQ(row["Copy_unit"], "MB/s");
    EXPECT_EQ(row["Copy_ref"], "1000");
    EXPECT_EQ(row["Copy_lower_thres"], "-0.5");
    EXPECT_EQ(row["Copy_upper_thres"], "0.5");
    EXPECT_EQ(row["system"], "box");
    EXPECT_EQ(row["partition"], "p");
    EXPECT_EQ(row["environ"], "gnu");
    EXPECT_EQ(row["num_tasks"], "1");
    EXPECT_EQ(row["tags"], "performance");
    EXPECT_EQ(row["spack_spec_dict"], "null") << "the test has no such variable";
    EXPECT_EQ(nlohmann::json::parse(row["env_vars"])["OMP_NUM_THREADS"], "4");
    EXPECT_EQ(nlohmann::json::parse(row["extra_resources"]), nlohmann::json::object());
  }
  EXPECT_EQ(specs, (std::set<std::string>{"stream@5.10 +openmp stream_array_size=64000000",
                                          "stream@5.10 +openmp stream_array_size=128000000"}));
}

TEST(PerflogFormatE2E, CompatLinesAndALoggableVariable) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", e2e::LocalSite(R"(
logging:
  - perflog_compat: true
    handlers_perflog:
      - type: filelog
        basedir: custom
        prefix: '%(check_system)s-%(check_arch)s'
        format: '%(check_system)s|%(check_partition)s|%(check_environ)s|%(osuser)s|%(check_arch)s|%(check_perf_var)s|%(check_perf_value)s|%(check_perf_result)s'
)"));
  Write(dir + "/stream.yaml", kStreamTest);
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "stream.yaml", "--exec-policy", "serial"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::string user = e2e::Shell("id -un");
  while (!user.empty() && user.back() == '\n') user.pop_back();
  std::string line = "box|p|gnu|" + user + "|zen3|Copy|1234.5|pass\n";
  EXPECT_EQ(Read(dir + "/custom/box-zen3/StreamBenchmark.log"),
            "system|partition|environ|osuser|arch|perf_var|perf_value|perf_result\n" + line + line);
  EXPECT_NE(o.out.find("Perflogs:   " + dir + "/custom"), std::string::npos) << o.out;
}

TEST(PerflogFormatE2E, AKeyHetbenchCannotHonourIsAConfigurationError) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", e2e::LocalSite(R"(
logging:
  - handlers_perflog:
      - {type: filelog, prefix: '%(check_system)s', format: '%(check_result)s|%(check_executable_opts)s'}
)"));
  Write(dir + "/stream.yaml", kStreamTest);
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "stream.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  // At the handler's line and column (issue 16: handler errors are load errors with their place).
  EXPECT_NE(o.err.find("site.yaml:12:9: logging: handlers_perflog[0] (filelog): format: %(check_executable_opts)s: "
                       "hetbench does not record this attribute"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(Exists(dir + "/perflogs"));
}

}  // namespace
