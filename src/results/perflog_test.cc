#include "results/perflog.h"

#include <gtest/gtest.h>

#include <grp.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cmath>

#include <thread>

#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

// ReFrame's tutorial (docs/tutorial.rst, "Performance logging") shows the
// perflog of its stream_test under the default configuration; these are
// that header and those two lines, byte for byte.
const char* kTutorialHeader =
    "result|job_completion_time|descr|env_vars|environ|exclusive_access|extra_resources|"
    "job_completion_time_unix|job_exitcode|job_nodelist|job_submit_time|jobid|modules|name|"
    "num_cpus_per_task|num_gpus_per_node|num_tasks|num_tasks_per_core|num_tasks_per_node|"
    "num_tasks_per_socket|partition|copy_bw_value|copy_bw_unit|copy_bw_ref|copy_bw_lower_thres|"
    "copy_bw_upper_thres|triad_bw_value|triad_bw_unit|triad_bw_ref|triad_bw_lower_thres|"
    "triad_bw_upper_thres|short_name|system|unique_name|use_multithreading";
const char* kTutorialLine1 =
    "pass|2024-02-21T22:51:16||{}|gnu|false|{}|1708555876.746763|null|None|1708555874.6122677|65||"
    "stream_test|null|null|1|null|null|null|compute|21116.7|MB/s|0|None|None|14813.0|MB/s|0|None|"
    "None|stream_test|pseudo-cluster|stream_test|null";
const char* kTutorialLine2 =
    "pass|2024-02-21T22:51:19||{}|clang|false|{}|1708555879.4456542|null|None|1708555877.3607173|66||"
    "stream_test|null|null|1|null|null|null|compute|18405.7|MB/s|0|None|None|14997.1|MB/s|0|None|"
    "None|stream_test|pseudo-cluster|stream_test|null";

PerfResult Perf(const std::string& name, double value, const std::string& unit) {
  PerfResult p;
  p.name = name;
  p.value = value;
  p.unit = unit;
  return p;
}

CaseResult TutorialCase(const std::string& environ, const std::string& jobid, double submit, double done, double copy,
                        double triad) {
  CaseResult c;
  c.name = c.display_name = "stream_test";
  c.system = "pseudo-cluster";
  c.partition = "compute";
  c.environ = environ;
  c.job_id = jobid;
  c.exit_code = -1;       // the squeue backend there did not report one
  c.nodelist = {"None"};  // ... and reported the node list as "None"
  c.job_submit_time = submit;
  c.job_completion_time = done;
  c.perf = {Perf("copy_bw", copy, "MB/s"), Perf("triad_bw", triad, "MB/s")};
  return c;
}

class PerflogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = getenv("TZ");
    saved_tz_ = tz ? tz : "";
    had_tz_ = tz != nullptr;
    setenv("TZ", "UTC", 1);
    tzset();
    session_.version = "0.1.0";
  }
  void TearDown() override {
    if (had_tz_)
      setenv("TZ", saved_tz_.c_str(), 1);
    else
      unsetenv("TZ");
    tzset();
  }
  std::string Log(const CaseResult& c) { return *ReadFile(PerflogPath(dir_.path(), c)); }

  TempDir dir_;
  SessionInfo session_;
  std::string saved_tz_;
  bool had_tz_ = false;
};

TEST_F(PerflogTest, DefaultFormatMatchesReframeByteForByte) {
  CaseResult gnu = TutorialCase("gnu", "65", 1708555874.6122677, 1708555876.746763, 21116.7, 14813.0);
  CaseResult clang = TutorialCase("clang", "66", 1708555877.3607173, 1708555879.4456542, 18405.7, 14997.1);
  ASSERT_TRUE(AppendPerflog(dir_.path(), session_, gnu).ok());
  ASSERT_TRUE(AppendPerflog(dir_.path(), session_, clang).ok());
  EXPECT_EQ(PerflogPath(dir_.path(), gnu), dir_.path() + "/pseudo-cluster/compute/stream_test.log");
  EXPECT_EQ(Log(gnu), std::string(kTutorialHeader) + "\n" + kTutorialLine1 + "\n" + kTutorialLine2 + "\n");
}

TEST_F(PerflogTest, ParametersReferencesAndNames) {
  CaseResult c;
  c.name = "stream";
  c.display_name = "stream %threads=2";
  c.parameters = {{"threads", "2"}};
  c.system = "hpc";
  c.partition = "cpu";
  c.environ = "gnu";
  c.job_id = "1234";
  c.exit_code = 0;
  c.nodelist = {"n1", "n2"};
  c.env_vars = {{"OMP_NUM_THREADS", "2"}};
  c.modules = {"gcc/12", "openmpi"};
  c.num_tasks = 4;
  c.num_tasks_per_node = 2;
  c.end_time = 1708555876.5;  // used when the job's completion time is unknown
  Reference ref;
  ref.value = 200000;
  ref.lower = -0.05;
  c.perf = {Perf("triad", 190123.5, "MB/s")};
  c.perf[0].reference = ref;
  EXPECT_EQ(PerflogHeader(PerflogFormat(), c),
            "result|job_completion_time|descr|env_vars|environ|exclusive_access|extra_resources|"
            "job_completion_time_unix|job_exitcode|job_nodelist|job_submit_time|jobid|modules|name|"
            "num_cpus_per_task|num_gpus_per_node|num_tasks|num_tasks_per_core|num_tasks_per_node|"
            "num_tasks_per_socket|partition|triad_value|triad_unit|triad_ref|triad_lower_thres|"
            "triad_upper_thres|short_name|system|threads|unique_name|use_multithreading");
  // short_name is ReFrame's <name>_<hashcode>: sha256("stream" "threads=2")[:8].
  EXPECT_EQ(PerflogRecord(PerflogFormat(), session_, c),
            "pass|2024-02-21T22:51:16||{\"OMP_NUM_THREADS\": \"2\"}|gnu|false|{}|1708555876.5|0|n1,n2|null|"
            "1234|gcc/12,openmpi|stream %threads=2|null|null|4|null|2|null|cpu|190123.5|MB/s|200000|-0.05|"
            "None|stream_d1de718e|hpc|2|stream_d1de718e|null");
  EXPECT_EQ(PerflogPath("/p", c), "/p/hpc/cpu/stream.log");  // the base name: every variant, one file
}

TEST_F(PerflogTest, CustomFormats) {
  // The comma-separated format of ReFrame's own unit tests
  // (unittests/test_policies.py, test_perf_logging_lazy).
  PerflogFormat fmt;
  fmt.format =
      "%(check_job_completion_time)s,%(version)s,%(check_display_name)s,%(check_system)s,"
      "%(check_partition)s,%(check_environ)s,%(check_jobid)s,%(check_result)s,%(check_perfvalues)s";
  fmt.format_perfvars =
      "%(check_perf_value)s,%(check_perf_unit)s,%(check_perf_ref)s,%(check_perf_lower_thres)s,"
      "%(check_perf_upper_thres)s,";
  CaseResult c = TutorialCase("gnu", "65", 1708555874.6122677, 1708555876.746763, 21116.7, 14813.0);
  EXPECT_EQ(PerflogHeader(fmt, c),
            "job_completion_time,version,display_name,system,partition,environ,jobid,result,"
            "copy_bw_value,copy_bw_unit,copy_bw_ref,copy_bw_lower_thres,copy_bw_upper_thres,"
            "triad_bw_value,triad_bw_unit,triad_bw_ref,triad_bw_lower_thres,triad_bw_upper_thres");
  EXPECT_EQ(PerflogRecord(fmt, session_, c),
            "2024-02-21T22:51:16,0.1.0,stream_test,pseudo-cluster,compute,gnu,65,pass,"
            "21116.7,MB/s,0,None,None,14813.0,MB/s,0,None,None");
  // Literal text, %%, %:z, check_info and unknown names.
  fmt.format = "%(check_info)s|100%% %(check_nope)s %(nope)s|t=%(check_job_completion_time)s";
  fmt.datefmt = "%FT%T%:z";
  EXPECT_EQ(PerflogRecord(fmt, session_, c),
            "stream_test /2e15a047 @pseudo-cluster:compute+gnu|100% null None|t=2024-02-21T22:51:16+00:00");
}

TEST_F(PerflogTest, EveryAttributeHetbenchKnows) {
  CaseResult c = TutorialCase("gnu", "65", 1708555874.6122677, 1708555876.746763, 21116.7, 14813.0);
  c.name = "stream";
  c.display_name = "stream %threads=2";
  c.parameters = {{"threads", "2"}};
  c.variables = {{"spec", "stream@5.10 +openmp stream_array_size=64000000"}};
  c.exit_code = 0;
  c.nodelist = {"n1", "n2"};
  c.result = "fail";
  c.fail_stage = "performance";
  c.fail_reason = "triad below reference";
  session_.hostname = "login1";
  session_.user = "alice";
  PerflogFormat fmt;
  fmt.format =
      "%(check_system)s|%(check_partition)s|%(check_environ)s|%(osuser)s|%(hostname)s|%(version)s|"
      "%(check_display_name)s|%(check_threads)s|%(check_spec)s|%(check_result)s|%(check_fail_phase)s|"
      "%(check_fail_reason)s|%(check_jobid)s|%(check_job_exitcode)s|%(check_job_nodelist)s|"
      "%(check_job_submit_time)s|%(check_job_completion_time_unix)s|%(levelname)s|%(levelno)s|%(name)s|"
      "%(message)s|%(check_perf_value)s|%(check_other_test_var)s|%(other)s";
  ASSERT_TRUE(CheckPerflogFormat(fmt).ok()) << CheckPerflogFormat(fmt).str();
  EXPECT_EQ(PerflogRecord(fmt, session_, c),
            "pseudo-cluster|compute|gnu|alice|login1|0.1.0|stream %threads=2|2|"
            "stream@5.10 +openmp stream_array_size=64000000|fail|performance|triad below reference|65|0|n1,n2|"
            "1708555874.6122677|1708555876.746763|info|20|reframe|sent by alice|null|null|None");
  // osgroup is the process's group, as osext.osgroup() reads it.
  fmt.format = "%(osgroup)s";
  const group* gr = getgrgid(getgid());
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(PerflogRecord(fmt, session_, c), gr->gr_name);
  // asctime and created: the time of the record, in datefmt and as a float.
  fmt.format = "%(created)s %(asctime)s";
  fmt.datefmt = "%s";
  double before = std::floor(static_cast<double>(time(nullptr)));
  std::vector<std::string> got = Split(PerflogRecord(fmt, session_, c), ' ');
  double after = static_cast<double>(time(nullptr)) + 1;
  ASSERT_EQ(got.size(), 2u);
  EXPECT_GE(std::stod(got[0]), before);
  EXPECT_LE(std::stod(got[0]), after);
  EXPECT_EQ(got[1], std::to_string(static_cast<long long>(std::floor(std::stod(got[0])))));
}

TEST_F(PerflogTest, DatefmtWithMicrosecondsAndUtcOffset) {
  setenv("TZ", "XYZ-2", 1);  // POSIX: two hours east of UTC
  tzset();
  CaseResult c = TutorialCase("gnu", "65", 1708555874.6122677, 1708555876.746763, 21116.7, 14813.0);
  PerflogFormat fmt;
  fmt.format = "%(check_job_completion_time)s";
  fmt.datefmt = "%FT%T.%f%:z (%%f)";
  EXPECT_EQ(PerflogRecord(fmt, session_, c), "2024-02-22T00:51:16.746763+02:00 (%f)");
}

TEST_F(PerflogTest, PrefixNamesTheFolders) {
  FilelogConfig cfg;
  cfg.basedir = dir_.path();
  cfg.prefix = "%(check_system)s/%(check_environ)s-%(check_arch)s";
  cfg.fmt.format = "%(check_environ)s";
  ASSERT_TRUE(CheckFilelogConfig(cfg).ok()) << CheckFilelogConfig(cfg).str();
  FilelogHandler h(cfg);
  CaseResult c = TutorialCase("gnu", "65", 1708555874.6122677, 1708555876.746763, 21116.7, 14813.0);
  c.variables = {{"arch", "zen3"}};
  ASSERT_TRUE(h.Log(session_, c).ok());
  EXPECT_EQ(*ReadFile(dir_ / "pseudo-cluster/gnu-zen3/stream_test.log"), "environ\ngnu\n");
  // As in ReFrame, a case without that attribute cannot be logged there.
  c.variables.clear();
  Status st = h.Log(session_, c);
  EXPECT_EQ(st.str(), "logging failed: unknown placeholder in filename pattern: 'check_arch'");
}

TEST_F(PerflogTest, AppendFalseStartsEachFileAfreshOncePerRun) {
  FilelogConfig cfg;
  cfg.basedir = dir_.path();
  cfg.append = false;
  cfg.fmt.format = "%(check_environ)s|%(check_perfvalues)s";
  cfg.fmt.format_perfvars = "%(check_perf_value)s|";
  CaseResult gnu = TutorialCase("gnu", "65", 1, 2, 1.5, 2.5);
  CaseResult clang = TutorialCase("clang", "66", 1, 2, 3.5, 4.5);
  const std::string header = "environ|copy_bw_value|triad_bw_value\n";
  for (int run = 0; run < 2; ++run) {
    FilelogHandler h(cfg);  // one run
    ASSERT_TRUE(h.Log(session_, gnu).ok());
    ASSERT_TRUE(h.Log(session_, clang).ok());
    EXPECT_EQ(Log(gnu), header + "gnu|1.5|2.5\nclang|3.5|4.5\n") << "run " << run;
  }
  EXPECT_FALSE(PathExists(PerflogPath(dir_.path(), gnu) + ".h0")) << "same header: emptied, not rotated";
  // Another header: the old file is kept aside, as with append: true.
  cfg.fmt.format = "%(check_environ)s";
  FilelogHandler h(cfg);
  ASSERT_TRUE(h.Log(session_, gnu).ok());
  EXPECT_EQ(Log(gnu), "environ\ngnu\n");
  EXPECT_EQ(*ReadFile(PerflogPath(dir_.path(), gnu) + ".h0"), header + "gnu|1.5|2.5\nclang|3.5|4.5\n");
}

TEST_F(PerflogTest, FormatsHetbenchCannotHonourAreErrors) {
  EXPECT_TRUE(CheckPerflogFormat(PerflogFormat()).ok()) << "ReFrame's builtin handler";
  PerflogFormat fmt;
  fmt.format = "%(check_result)s|100%";
  EXPECT_NE(CheckPerflogFormat(fmt).str().find("format: '%' at offset 20"), std::string::npos)
      << CheckPerflogFormat(fmt).str();
  fmt.format = "%(check_result)s|%(lineno)s";
  EXPECT_EQ(CheckPerflogFormat(fmt).str(),
            "format: %(lineno)s: hetbench does not record this attribute, so it cannot be written as ReFrame "
            "would; remove it");
  fmt.format = "%(check_#ALL)s";
  fmt.ignore_keys = {"check_build_locally"};
  EXPECT_EQ(CheckPerflogFormat(fmt).str(),
            "format: %(check_#ALL)s would include check_build_time_limit, check_executable, check_executable_opts, "
            "check_keep_files, check_local, check_max_pending_time, check_postbuild_cmds, check_postrun_cmds, "
            "check_prebuild_cmds, check_prerun_cmds, check_readonly_files, check_sourcepath, check_sourcesdir, "
            "check_strict_check, check_time_limit, check_valid_prog_environs, check_valid_systems, which hetbench "
            "does not record; list them in ignore_keys (as ReFrame's builtin handler does)");
  fmt = PerflogFormat();
  fmt.format_perfvars = "%(check_perf_value)s|%(check_perf_lower)s|";
  EXPECT_NE(CheckPerflogFormat(fmt).str().find("format_perfvars: %(check_perf_lower)s: only check_perf_var"),
            std::string::npos);
}

TEST_F(PerflogTest, HeaderChangeRotatesTheOldFile) {
  CaseResult c = TutorialCase("gnu", "65", 1708555874.6122677, 1708555876.746763, 21116.7, 14813.0);
  ASSERT_TRUE(AppendPerflog(dir_.path(), session_, c).ok());
  std::string first = Log(c);
  c.perf.push_back(Perf("scale_bw", 1.5, "MB/s"));
  ASSERT_TRUE(AppendPerflog(dir_.path(), session_, c).ok());
  std::string path = PerflogPath(dir_.path(), c);
  EXPECT_EQ(*ReadFile(path + ".h0"), first);
  std::vector<std::string> lines = Split(Log(c), '\n');
  ASSERT_EQ(lines.size(), 3u);  // header, one record, ""
  EXPECT_EQ(lines[0], PerflogHeader(PerflogFormat(), c));
  c.perf.pop_back();
  ASSERT_TRUE(AppendPerflog(dir_.path(), session_, c).ok());
  EXPECT_TRUE(PathExists(path + ".h1"));
  EXPECT_EQ(Log(c), first);
}

TEST_F(PerflogTest, OnlyCasesThatReachedThePerformanceStage) {
  CaseResult c = TutorialCase("gnu", "65", 1, 2, 3, 4);
  EXPECT_TRUE(ShouldLogPerformance(c));
  c.result = "fail";
  c.fail_stage = "performance";
  EXPECT_TRUE(ShouldLogPerformance(c));
  c.fail_stage = "sanity";
  EXPECT_FALSE(ShouldLogPerformance(c));
  c.result = "skip";
  EXPECT_FALSE(ShouldLogPerformance(c));
  c.result = "pass";
  c.perf.clear();
  EXPECT_FALSE(ShouldLogPerformance(c));
  ASSERT_TRUE(AppendPerflog(dir_.path(), session_, c).ok());
  EXPECT_FALSE(PathExists(PerflogPath(dir_.path(), c)));
}

TEST_F(PerflogTest, ConcurrentAppendsNeverInterleave) {
  CaseResult c = TutorialCase("gnu", "65", 1708555874.6122677, 1708555876.746763, 21116.7, 14813.0);
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&] {
      for (int i = 0; i < 50; ++i) ASSERT_TRUE(AppendPerflog(dir_.path(), session_, c).ok());
    });
  }
  for (auto& w : writers) w.join();
  std::vector<std::string> lines = Split(Log(c), '\n');
  ASSERT_EQ(lines.size(), 202u);
  EXPECT_EQ(lines[0], kTutorialHeader);
  for (size_t i = 1; i < 201; ++i) ASSERT_EQ(lines[i], kTutorialLine1) << i;
  EXPECT_FALSE(PathExists(PerflogPath(dir_.path(), c) + ".h0"));
}

}  // namespace
}  // namespace hb
