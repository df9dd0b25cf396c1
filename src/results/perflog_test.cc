#include "results/perflog.h"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <time.h>

#include <thread>

#include "util/test_temp_dir.h"
#include "util/fs.h"
#include "util/strings.h"

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

CaseResult TutorialCase(const std::string& environ, const std::string& jobid, double submit, double done,
                        double copy, double triad) {
  CaseResult c;
  c.name = c.display_name = "stream_test";
  c.system = "pseudo-cluster";
  c.partition = "compute";
  c.environ = environ;
  c.job_id = jobid;
  c.exit_code = -1;      // the squeue backend there did not report one
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
    if (had_tz_) setenv("TZ", saved_tz_.c_str(), 1);
    else unsetenv("TZ");
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
