// The payload of a generated manifest, run by a real shell as the
// container would run it, and the pod log it writes.
#include "k8s/manifest.h"

#include <gtest/gtest.h>

#include "k8s/manifest_test_util.h"

namespace hb {
namespace {

// ------------------------------------------------------------- the payload

// Runs a container's command as the kubelet would: $(VAR) expanded from the
// container's env (values expanded too), in a clean environment.
struct PodRun {
  int status = -1;
  std::string log, shell_err;
};

PodRun RunContainer(const json& container, const TempDir& tmp) {
  std::map<std::string, std::string> env;
  std::vector<std::pair<std::string, std::string>> env_list = {{"HOME", tmp.path()}, {"TMPDIR", tmp.path()}};
  for (const auto& e : container["env"]) {
    if (!e.contains("value")) continue;
    std::string v = KubeExpand(e["value"], env);
    env[e["name"]] = v;
    env_list.emplace_back(e["name"], v);
  }
  SpawnOptions so;
  for (const auto& a : container["command"]) so.argv.push_back(KubeExpand(a, env));
  so.cwd = tmp.path();
  so.env = env_list;
  so.stdout_path = tmp / "pod.log";
  so.stderr_path = tmp / "pod.stderr";
  PodRun r;
  auto pid = SpawnProcess(so);
  EXPECT_TRUE(pid.ok()) << pid.status().str();
  if (!pid.ok()) return r;
  int st = 0;
  waitpid(*pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.log = ReadFile(so.stdout_path).value();
  r.shell_err = ReadFile(so.stderr_path).value();
  return r;
}

TEST(ManifestPayloadTest, RoundTripThroughAShell) {
  // Shell and Kubernetes metacharacters in every path and name.
  Stage s("st age $(HOME) $$ 'q' \"d\" `x` ;&|");
  s.job.script_path = s.tmp.Write("st age $(HOME) $$ 'q' \"d\" `x` ;&|/run me.sh",
                                  "#!/bin/bash\n"
                                  "cd " +
                                      ShellQuote(s.dir) +
                                      " || exit 125\n"
                                      "echo \"hello stdout\"\n"
                                      "printf 'no newline'\n"
                                      "echo \"hello stderr\" >&2\n"
                                      "cat input.txt > 'out $1 file.txt'\n"
                                      "echo dat > a.dat; echo dat > b.dat\n"
                                      "exit 3\n");
  s.tmp.Write("st age $(HOME) $$ 'q' \"d\" `x` ;&|/input.txt", "from the stage\n");
  s.job.build_script_path = s.tmp.Write("st age $(HOME) $$ 'q' \"d\" `x` ;&|/hb_build.sh",
                                        "echo building; echo built > built.bin; echo warn >&2\n");
  s.job.fetch_files = {"out $1 file.txt", "*.dat", "missing.txt", "built.bin"};
  ManifestSet m = Make(s.job, Options());
  ExpectValid(m);
  // The pod starts without the stage directory: it must come from the manifest.
  ASSERT_EQ(std::rename(s.dir.c_str(), (s.tmp / "original").c_str()), 0);

  PodRun run = RunContainer(Container(MainJob(m)), s.tmp);
  EXPECT_EQ(run.status, 3) << run.log << run.shell_err;
  EXPECT_EQ(run.shell_err, "");
  auto out = ParsePodLog(run.log, m.nonce, "hb-stream-abcde");
  ASSERT_TRUE(out.ok()) << out.status().str();
  EXPECT_EQ(out->stdout_text, "hello stdout\nno newline");
  EXPECT_EQ(out->exit_status, 3);
  ASSERT_FALSE(out->archive.empty());

  std::string back = s.tmp / "back";
  Status st = ExtractArchive(out->archive, back);
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_EQ(ReadFile(JoinPath(back, "out $1 file.txt")).value(), "from the stage\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "a.dat")).value(), "dat\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "b.dat")).value(), "dat\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "built.bin")).value(), "built\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "hb_job.err")).value(), "hello stderr\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "hb_build.out")).value(), "building\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "hb_build.err")).value(), "warn\n");
  EXPECT_FALSE(PathExists(JoinPath(back, "missing.txt")));
  EXPECT_FALSE(PathExists(JoinPath(back, "input.txt")));  // only what was asked for
}

TEST(ManifestPayloadTest, FailedBuildStopsTheJob) {
  Stage s;
  s.job.build_script_path = s.tmp.Write("stage/hb_build.sh", "echo compiling; echo 'error: no cc' >&2; exit 7\n");
  ManifestSet m = Make(s.job, Options());
  ASSERT_EQ(std::rename(s.dir.c_str(), (s.tmp / "original").c_str()), 0);
  PodRun run = RunContainer(Container(MainJob(m)), s.tmp);
  EXPECT_EQ(run.status, 7);
  auto out = ParsePodLog(run.log, m.nonce, "p");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->stdout_text, "");  // the job script never ran
  EXPECT_EQ(out->exit_status, 7);
  ASSERT_TRUE(ExtractArchive(out->archive, s.tmp / "back").ok());
  EXPECT_EQ(ReadFile(s.tmp / "back/hb_build.err").value(), "error: no cc\n");
  EXPECT_NE(ReadFile(s.tmp / "back/hb_job.err").value().find("the build script hb_build.sh failed with exit status 7"),
            std::string::npos);
}

TEST(ManifestPayloadTest, StageThatCannotBeCreatedIsReported) {
  Stage s;
  s.job.workdir = "/proc/hetbench-cannot-be-here";
  s.job.script_path = "/proc/hetbench-cannot-be-here/hb_job.sh";
  s.job.stderr_path.clear();
  // Packing needs the folder on this side: make the payload from a real one.
  auto p = MakePayload(s.job, Options());
  ASSERT_FALSE(p.ok());  // tar cannot read it
  Stage real;
  auto ok = MakePayload(real.job, Options());
  ASSERT_TRUE(ok.ok());
  std::string script = ReplaceAll(ok->command[2], ShellQuote(real.dir), "/proc/hetbench-cannot-be-here");
  json c = {{"command", {"/bin/sh", "-c", EscapeKubeExpansion(script)}}, {"env", json::array()}};
  for (const auto& [k, v] : ok->env) c["env"].push_back({{"name", k}, {"value", v}});
  PodRun run = RunContainer(c, real.tmp);
  EXPECT_EQ(run.status, 1);
  auto out = ParsePodLog(run.log, ok->nonce, "p");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->exit_status, 1);
  EXPECT_NE(out->stdout_text.find("hetbench: cannot create the stage directory /proc/hetbench-cannot-be-here"),
            std::string::npos)
      << out->stdout_text;
}

TEST(ManifestPayloadTest, StderrFileFollowsTheJob) {
  Stage s;
  auto p = MakePayload(s.job, Options());
  ASSERT_TRUE(p.ok());
  EXPECT_NE(p->command[2].find("hb_err=hb_job.err\n"), std::string::npos);
  s.job.stderr_path = JoinPath(s.dir, "logs/err file.txt");
  p = MakePayload(s.job, Options());
  EXPECT_NE(p->command[2].find("hb_err='logs/err file.txt'\n"), std::string::npos);
  s.job.stderr_path = "/elsewhere/run.err";  // outside: its base name in the stage
  p = MakePayload(s.job, Options());
  EXPECT_NE(p->command[2].find("hb_err=run.err\n"), std::string::npos);
  s.job.stderr_path.clear();
  p = MakePayload(s.job, Options());
  EXPECT_NE(p->command[2].find("hb_err=hb_job.err\n"), std::string::npos);
  // Scripts and result files must be in the stage directory.
  s.job.script_path = "/elsewhere/hb_job.sh";
  p = MakePayload(s.job, Options());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("the job script '/elsewhere/hb_job.sh' is not in the stage directory"),
            std::string::npos);
  Stage t;
  t.job.fetch_files = {"../secret"};
  EXPECT_FALSE(MakePayload(t.job, Options()).ok());
  t.job.fetch_files = {JoinPath(t.dir, "out/*.json")};  // absolute inside: made relative
  p = MakePayload(t.job, Options());
  ASSERT_TRUE(p.ok()) << p.status().str();
  EXPECT_NE(p->command[2].find("for hb_f in out/*.json "), std::string::npos);
}

TEST(ManifestPayloadTest, ParsePodLogEdges) {
  auto r = ParsePodLog("just output\n", "0123456789abcdef", "p");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "just output\n");
  EXPECT_EQ(r->exit_status, -1);
  EXPECT_EQ(r->archive, "");

  // Killed while writing the files: no end marker.
  r = ParsePodLog("out\n@@hetbench-files 0123456789abcdef begin@@\nH4sI", "0123456789abcdef", "p");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "out\n");
  EXPECT_EQ(r->exit_status, -1);

  // Another job's markers are output.
  std::string other = "@@hetbench-files ffffffffffffffff begin@@\n@@hetbench-files ffffffffffffffff end 0@@\n";
  r = ParsePodLog(other, "0123456789abcdef", "p");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, other);

  r = ParsePodLog("x@@hetbench-files n begin@@\naGVs\nbG8=\n@@hetbench-files n end 0@@\n", "n", "p");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "x");
  EXPECT_EQ(r->exit_status, 0);
  EXPECT_EQ(r->archive, "hello");

  r = ParsePodLog("@@hetbench-files n begin@@\n%%%\n@@hetbench-files n end 2@@\n", "n", "hb-x-1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "pod hb-x-1: the result files in the log are not valid base64");
}

TEST(ManifestPayloadTest, ExtractRefusesPathsOutsideAndLinks) {
  TempDir t;
  auto pack = [&](const std::string& py) {
    std::string file = t / "a.tgz";
    std::string cmd = "/usr/bin/python3 -c " + ShellQuote(
                                                   "import io, tarfile\n"
                                                   "t = tarfile.open('" +
                                                   file + "', 'w:gz')\n" + py + "t.close()\n");
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return ReadFile(file).value();
  };
  std::string add =
      "def add(name, data=b'x'):\n"
      "    i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))\n";
  Status st = ExtractArchive(pack(add + "add('ok.txt')\nadd('../evil.txt')\n"), t / "out");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'../evil.txt', which is outside the stage directory"), std::string::npos) << st.str();
  EXPECT_FALSE(PathExists(t / "evil.txt"));
  st = ExtractArchive(pack(add + "add('/tmp/abs.txt')\n"), t / "out");
  EXPECT_FALSE(st.ok());
  st = ExtractArchive(pack("i = tarfile.TarInfo('l'); i.type = tarfile.SYMTYPE; i.linkname = '/etc'; t.addfile(i)\n"),
                      t / "out");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("link"), std::string::npos);
  st = ExtractArchive(pack(add + "add('sub/ok.txt', b'fine')\n"), t / "out");
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_EQ(ReadFile(t / "out/sub/ok.txt").value(), "fine");
  EXPECT_FALSE(ExtractArchive("not a tar", t / "out").ok());
}

TEST(ManifestPayloadTest, EscapeSurvivesKubernetesExpansion) {
  for (std::string s : {"plain", "$HOME", "$(HOME)", "$$", "a$", "$$(X)", "$(", "x $(MASTER_ADDR) $1 $$$"}) {
    EXPECT_EQ(KubeExpand(EscapeKubeExpansion(s), {{"HOME", "/root"}, {"X", "y"}, {"MASTER_ADDR", "m"}}), s) << s;
  }
}

}  // namespace
}  // namespace hb
