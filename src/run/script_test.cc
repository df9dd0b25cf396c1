#include "run/script.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

TEST(Script, RunScriptKeepsTheProgramsExitStatus) {
  ScriptParts p;
  p.directives = {"#SBATCH --ntasks=4"};
  p.workdir = "/stage/my case";
  p.env = {{"HETBENCH_BIN_DIR", "/opt/hb"}};
  p.prepare_cmds = {"source /etc/site.sh"};
  p.environ = {"_hb_module module load gcc", "export OMP_NUM_THREADS=2", "export PATH=$HOME/bin:$PATH"};
  p.prerun_cmds = {"echo pre"};
  p.launcher = {"mpirun -np 4"};
  p.executable = "./stream";
  p.executable_opts = {"'two words'", "> out.txt"};
  p.postrun_cmds = {"echo post"};
  EXPECT_EQ(RunScript(p),
            "#!/bin/bash\n"
            "#SBATCH --ntasks=4\n"
            "\n"
            "cd '/stage/my case' || exit 125\n"
            "export HETBENCH_BIN_DIR=/opt/hb\n"
            "source /etc/site.sh\n"
            "_hb_module module load gcc\n"
            "export OMP_NUM_THREADS=2\n"
            "export PATH=$HOME/bin:$PATH\n"
            "echo pre\n"
            "mpirun -np 4 ./stream 'two words' > out.txt\n"
            "_hb_status=$?\n"
            "echo post\n"
            "exit $_hb_status\n");
}

TEST(Script, RunScriptWithoutPostrunEndsWithTheProgram) {
  ScriptParts p;
  p.workdir = "/s";
  p.executable = "echo";
  p.executable_opts = {"hi"};
  EXPECT_EQ(RunScript(p), "#!/bin/bash\ncd /s || exit 125\necho hi\n");
}

TEST(Script, BuildScriptStopsAtTheFirstFailingCommand) {
  std::string s = BuildScript("/s", {{"CC", "gcc"}}, {"source /etc/site.sh"}, {"_hb_module module load gcc/12"},
                              {"gcc -O2 a.c -o a", "strip a"});
  EXPECT_NE(s.find("trap _hb_onerror ERR\n"), std::string::npos);
  EXPECT_NE(s.find("export CC=gcc\nsource /etc/site.sh\n_hb_module module load gcc/12\ngcc -O2 a.c -o a\nstrip a\n"),
            std::string::npos);
}

}  // namespace
}  // namespace hb
