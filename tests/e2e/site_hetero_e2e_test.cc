// End to end: the whole of examples/site-hetero/ (a site with Slurm GPU,
// Slurm CPU, CS-2, and two Kubernetes partitions) with `hetbench run
// --dry-run`, on a PATH without any scheduler command and with no
// Kubernetes API server (the kubeconfig's server does not resolve). Checks
// the job scripts and hb_k8s.yaml files it writes: no unbound placeholder,
// the Slurm resources asked for, Pods and Jobs that round-trip through
// Debian's python3-kubernetes models, custom resources with apiVersion,
// kind, metadata.name and metadata.namespace, and each object in its own
// partition's namespace.
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace {

const std::string kSource = HB_SOURCE_DIR;
const std::string kExample = kSource + "/examples/site-hetero";
const std::string kPython = "/usr/bin/python3";

// The namespace each Kubernetes partition's objects belong in.
const std::map<std::string, std::string> kNamespaces = {{"eidf-gpu", "eidf095ns"}, {"graphcore", "graphcore-users"}};

// An unbound placeholder: `{` then an identifier's first character, up to
// the next `}`, with no `$` just before (the shell's `${VAR}`, `${X:-y}`
// and Kubernetes' escaped `$${...}` are fine) and no `{`, `}` or `:` inside:
// no expression hetbench reads has a `:`, while the YAML text of a mapping
// parameter's value in a case's name (`%config={gpus: 1, n: 8192}`) does.
const std::regex kPlaceholder(R"((^|[^$])\{([A-Za-z_][^{}:\n]*)\})");

std::vector<std::string> Placeholders(const std::string& text) {
  std::vector<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), kPlaceholder), end; it != end; ++it)
    out.push_back("{" + (*it)[2].str() + "}");
  return out;
}

// What was missing to run the Kubernetes model checks, or "".
std::string PythonKubernetesMissing() {
  if (access(kPython.c_str(), X_OK) != 0) return kPython + " is missing";
  if (e2e::Shell(kPython + " -c 'import kubernetes.client, yaml; print(1)' 2>/dev/null") != "1\n")
    return "Debian's python3-kubernetes and python3-yaml are needed (apt-get install python3-kubernetes python3-yaml)";
  return "";
}

// The output folder's path below PREFIX/output/SESSION/: SYSTEM/PARTITION/ENVIRON/CASE.
std::vector<std::string> PathParts(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

class SiteHeteroTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir();
    // A PATH with no scheduler command (sbatch, squeue, kubectl...): only
    // what a shell needs. hetbench itself runs by its absolute path.
    bin_ = dir_ + "/bin";
    ASSERT_EQ(e2e::Shell("mkdir -p '" + bin_ + "' && for c in sh bash env; do ln -s \"$(command -v $c)\" '" + bin_ +
                         "'/$c; done && echo ok"),
              "ok\n");
    ASSERT_TRUE(e2e::Shell("PATH='" + bin_ + "' command -v sbatch kubectl squeue").empty());
  }

  // Runs the example with `site` as its configuration; the prefix is dir_/p.
  Output RunExample(const std::string& site) {
    return Hetbench({"run", "-C", site, "--system", "epcc", "-c", kExample + "/tests", "--kubeconfig",
                     kExample + "/kubeconfig.yaml", "--dry-run", "--prefix", dir_ + "/p"},
                    dir_, 120, {{"PATH", bin_}, {"HOME", dir_}, {"KUBECONFIG", dir_ + "/no-kubeconfig"}});
  }

  // Every object of every hb_k8s.yaml: validated, and in its partition's namespace.
  void CheckK8sFiles() {
    auto files = e2e::Find(dir_ + "/p/output", "hb_k8s.yaml");
    ASSERT_EQ(files.size(), 6u);  // gpu_gemm x2, nccl_allreduce x2 on eidf-gpu; ipu_bert x2 on graphcore
    std::string missing = PythonKubernetesMissing();
    if (!missing.empty()) GTEST_SKIP() << missing;
    std::string cmd = kPython + " " + kSource + "/tests/e2e/validate_k8s_dry_run.py";
    for (const auto& f : files) cmd += " '" + f + "'";
    std::string out = e2e::Shell(cmd + " 2>&1; echo rc=$?");
    EXPECT_NE(out.find("rc=0\n"), std::string::npos) << out;
    std::map<std::string, int> kinds;
    for (const auto& f : files) {
      std::string rel = f.substr((dir_ + "/p/output/").size());
      auto parts = PathParts(rel);  // SESSION SYSTEM PARTITION ENVIRON CASE hb_k8s.yaml
      ASSERT_EQ(parts.size(), 6u) << rel;
      std::string ns = kNamespaces.at(parts[2]);
      // The validator's line for each object of this file.
      std::regex line("ok " + std::regex_replace(f, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                      R"( (\S+) \S+ namespace=(\S+)\n)");
      int objects = 0;
      for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it, ++objects) {
        EXPECT_EQ((*it)[2].str(), ns) << f << "\n" << out;
        kinds[(*it)[1].str()]++;
      }
      EXPECT_GE(objects, 1) << f << "\n" << out;
      auto stray = Placeholders(Read(f));
      EXPECT_TRUE(stray.empty()) << f << ": unbound " << testing::PrintToString(stray);
    }
    EXPECT_EQ(kinds["Job"], 2) << out;
    EXPECT_EQ(kinds["Pod"], 2) << out;
    EXPECT_EQ(kinds["IPUJob"], 2) << out;
  }

  std::string dir_, bin_;
};

TEST_F(SiteHeteroTest, DryRunWithoutSchedulers) {
  auto o = RunExample(kExample + "/site.yaml");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;

  // Every case is a dry run: 6 stream_triad, 4 gpu_gemm, 2 nccl_allreduce,
  // 2 cs2_gpt2, 2 ipu_bert.
  auto report = e2e::LatestReport(dir_ + "/p");
  ASSERT_TRUE(report.contains("cases")) << o.out << o.err;
  std::map<std::string, int> per_test;
  for (const auto& c : report["cases"]) {
    EXPECT_EQ(c.value("result", ""), "dry-run") << c.dump(1);
    per_test[c.value("name", "")]++;
  }
  EXPECT_EQ(per_test,
            (std::map<std::string, int>{
                {"cs2_gpt2", 2}, {"gpu_gemm", 4}, {"ipu_bert", 2}, {"nccl_allreduce", 2}, {"stream_triad", 6}}))
      << report.dump(1);

  // The job scripts: every case has one, none with an unbound placeholder.
  auto scripts = e2e::Find(dir_ + "/p/output", "hb_job.sh");
  ASSERT_EQ(scripts.size(), 16u);
  std::map<std::string, std::string> by_case;  // PARTITION/ENVIRON/CASE -> script
  for (const auto& s : scripts) {
    std::string text = Read(s);
    auto stray = Placeholders(text);
    EXPECT_TRUE(stray.empty()) << s << ": unbound " << testing::PrintToString(stray) << "\n" << text;
    auto parts = PathParts(s.substr((dir_ + "/p/output/").size()));
    ASSERT_EQ(parts.size(), 6u) << s;
    by_case[parts[2] + "/" + parts[3] + "/" + parts[4]] = text;
  }
  auto script = [&](const std::string& prefix) {
    for (const auto& [k, v] : by_case)
      if (k.rfind(prefix, 0) == 0) return v;
    ADD_FAILURE() << "no job script for " << prefix;
    return std::string();
  };
  auto has = [](const std::string& text, const std::string& line) { return text.find(line) != std::string::npos; };

  // CS-2: the resource template from extra_resources, N from the parameter.
  EXPECT_TRUE(has(script("cs2/cerebras/cs2_gpt2_csx_1"), "#SBATCH --gres=cs:1\n"));
  EXPECT_TRUE(has(script("cs2/cerebras/cs2_gpt2_csx_2"), "#SBATCH --gres=cs:2\n"));
  EXPECT_TRUE(has(script("cs2/cerebras/cs2_gpt2_csx_2"), "--num_csx=2 "));
  EXPECT_TRUE(has(script("cs2/cerebras/cs2_gpt2_csx_2"), "#SBATCH --time=1:00:00\n"));  // overrides csx=2
  // cpus per task from {processor.num_cpus // 2} (64 CPUs).
  EXPECT_TRUE(has(script("cs2/cerebras/cs2_gpt2_csx_1"), "#SBATCH --cpus-per-task=32\n"));

  // Cirrus GPU: --gres=gpu:N from the mapping parameter; per-task CPUs from
  // {processor.num_cpus // config.gpus} (40 CPUs).
  std::string g1 = script("cirrus-gpu/gnu/gpu_gemm_config__gpus__1_");
  std::string g4 = script("cirrus-gpu/gnu/gpu_gemm_config__gpus__4_");
  EXPECT_TRUE(has(g1, "#SBATCH --gres=gpu:1\n")) << g1;
  EXPECT_TRUE(has(g4, "#SBATCH --gres=gpu:4\n")) << g4;
  EXPECT_TRUE(has(g4, "#SBATCH --cpus-per-task=10\n")) << g4;
  EXPECT_TRUE(has(g4, "#SBATCH --qos=short\n")) << g4;                                // overrides by partition
  EXPECT_TRUE(has(g4, "module load pytorch/1.13.1-gpu\n")) << g4;                     // overrides by environment
  EXPECT_TRUE(has(g4, "python3 gemm.py --n=16384 --dtype=fp16 --iters=50\n")) << g4;  // variables
  // No GPU resource where no GPU is asked for.
  for (const auto& [k, v] : by_case) {
    if (k.rfind("archer2/", 0) == 0 || k.rfind("cs2/", 0) == 0 || k.find("stream_triad") != std::string::npos) {
      EXPECT_FALSE(has(v, "--gres=gpu:")) << k;
    }
  }

  // ARCHER2 STREAM: arithmetic over {processor.*} (2 sockets of 64 cores,
  // SMT 2), the base's prerun_cmds with the child's appended, overrides by
  // system, environment and parameter value (the later entry wins).
  std::string s4 = script("archer2/cray/stream_triad_tasks_per_socket_4");
  EXPECT_TRUE(has(s4, "#SBATCH --ntasks=8\n")) << s4;
  EXPECT_TRUE(has(s4, "#SBATCH --cpus-per-task=16\n")) << s4;
  EXPECT_TRUE(has(s4, "#SBATCH --distribution=block:block\n")) << s4;  // system epcc
  EXPECT_FALSE(has(s4, "--qos=short")) << s4;                          // system archer2 is not this site's
  EXPECT_TRUE(has(s4, "export OMP_NUM_THREADS=16\n")) << s4;
  EXPECT_TRUE(has(s4, "export OMP_PROC_BIND=spread\n")) << s4;  // tasks_per_socket=4 after env:cray
  EXPECT_TRUE(has(s4, "srun --cpus-per-task=16 stream_mpi --array-size=268435456 --ntimes=20 --cray\n")) << s4;
  size_t base = s4.find("date -u"), child = s4.find("echo threads per task");
  EXPECT_TRUE(base != std::string::npos && child != std::string::npos && base < child) << s4;
  std::string c1 = script("cirrus-gpu/gnu/stream_triad_tasks_per_socket_1");
  EXPECT_TRUE(has(c1, "#SBATCH --ntasks=2\n#SBATCH --ntasks-per-node=2\n#SBATCH --cpus-per-task=20\n")) << c1;
  EXPECT_FALSE(has(c1, "--cray")) << c1;
  EXPECT_FALSE(has(c1, "OMP_PROC_BIND")) << c1;

  CheckK8sFiles();
}

// The same with the partitions' `namespace` removed from sched_options:
// each Kubernetes partition's context (from --kubeconfig) gives its
// namespace, so the dry run did read the kubeconfig and chose each
// partition's own context.
TEST_F(SiteHeteroTest, NamespacesFromTheContexts) {
  std::string site = Read(kExample + "/site.yaml");
  std::string stripped = std::regex_replace(site, std::regex(R"(\n +namespace: [^\n]*)"), "");
  ASSERT_NE(stripped, site);
  ASSERT_EQ(stripped.find("namespace:"), std::string::npos);
  Write(dir_ + "/site.yaml", stripped);
  auto o = RunExample(dir_ + "/site.yaml");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  CheckK8sFiles();
}

}  // namespace
