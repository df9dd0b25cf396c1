// What Grid Engine 8.1.9 printed on the project's test cluster
// (scripts/sge-up), for the SGE unit tests (sge_test.cc,
// sge_scheduler_test.cc). A header for tests only.
#pragma once

#include <string>

namespace hb {

// ---- What Grid Engine 8.1.9 printed on the test cluster (scripts/sge-up).

// `qstat -xml -u root`: a running job, one being deleted (dr), a suspended
// one (s), one waiting for 64 slots of PE smp, one in error state (its -wd
// does not exist) and one on hold. (Two captures, a second apart, joined.)
inline const char* const kQstatXml = R"(<?xml version='1.0'?>
<job_info  xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qstat/qstat.xsd">
  <queue_info>
    <job_list state="running">
      <JB_job_number>39</JB_job_number>
      <JAT_prio>0.25000</JAT_prio>
      <JB_name>hb_cap</JB_name>
      <JB_owner>root</JB_owner>
      <state>r</state>
      <JAT_start_time>2026-11-30T08:49:15</JAT_start_time>
      <queue_name>all.q@vm</queue_name>
      <slots>1</slots>
    </job_list>
    <job_list state="running">
      <JB_job_number>63</JB_job_number>
      <JAT_prio>0.50000</JAT_prio>
      <JB_name>hb_quoted</JB_name>
      <JB_owner>root</JB_owner>
      <state>dr</state>
      <JAT_start_time>2026-11-30T08:50:55</JAT_start_time>
      <queue_name>all.q@vm</queue_name>
      <slots>2</slots>
    </job_list>
    <job_list state="running">
      <JB_job_number>64</JB_job_number>
      <JAT_prio>0.25000</JAT_prio>
      <JB_name>hb_quoted</JB_name>
      <JB_owner>root</JB_owner>
      <state>s</state>
      <JAT_start_time>2026-11-30T08:50:56</JAT_start_time>
      <queue_name>all.q@vm</queue_name>
      <slots>2</slots>
    </job_list>
  </queue_info>
  <job_info>
    <job_list state="pending">
      <JB_job_number>43</JB_job_number>
      <JAT_prio>0.75000</JAT_prio>
      <JB_name>hb_cap</JB_name>
      <JB_owner>root</JB_owner>
      <state>qw</state>
      <JB_submission_time>2026-11-30T08:49:18</JB_submission_time>
      <queue_name></queue_name>
      <slots>64</slots>
    </job_list>
    <job_list state="pending">
      <JB_job_number>44</JB_job_number>
      <JAT_prio>0.25000</JAT_prio>
      <JB_name>hb_cap</JB_name>
      <JB_owner>root</JB_owner>
      <state>Eqw</state>
      <JB_submission_time>2026-11-30T08:49:18</JB_submission_time>
      <queue_name></queue_name>
      <slots>1</slots>
    </job_list>
    <job_list state="pending">
      <JB_job_number>42</JB_job_number>
      <JAT_prio>0.00000</JAT_prio>
      <JB_name>hb_cap</JB_name>
      <JB_owner>root</JB_owner>
      <state>hqw</state>
      <JB_submission_time>2026-11-30T08:49:17</JB_submission_time>
      <queue_name></queue_name>
      <slots>1</slots>
    </job_list>
  </job_info>
</job_info>
)";

// No job at all.
inline const char* const kQstatXmlEmpty = R"(<?xml version='1.0'?>
<job_info  xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qstat/qstat.xsd">
  <queue_info>
  </queue_info>
  <job_info>
  </job_info>
</job_info>
)";

// A held array job (qsub -t 1-3 -h): one entry for its pending tasks.
inline const char* const kQstatXmlArray = R"(<?xml version='1.0'?>
<job_info  xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qstat/qstat.xsd">
  <queue_info>
  </queue_info>
  <job_info>
    <job_list state="pending">
      <JB_job_number>75</JB_job_number>
      <JAT_prio>0.00000</JAT_prio>
      <JB_name>hb_cap</JB_name>
      <JB_owner>root</JB_owner>
      <state>hqw</state>
      <JB_submission_time>2026-11-30T08:55:14</JB_submission_time>
      <queue_name></queue_name>
      <slots>1</slots>
      <tasks>1-3:1</tasks>
    </job_list>
  </job_info>
</job_info>
)";

// `qstat -j 72,46,47` (long lines such as sge_o_path left out): a job
// that cannot get its resources, one in Eqw, one on hold.
inline const char* const kQstatDetails =
    "==============================================================\n"
    "job_number:                 72\n"
    "exec_file:                  job_scripts/72\n"
    "submission_time:            Mon Nov 30 08:52:52 2026\n"
    "owner:                      root\n"
    "uid:                        0\n"
    "sge_o_workdir:              /tmp/sgecap\n"
    "cwd:                        /tmp/sgecap\n"
    "hard resource_list:         mem_free=1000G\n"
    "job_name:                   hb_cap\n"
    "script_file:                job.sh\n"
    "parallel environment:  smp range: 64\n"
    "binding:                    NONE\n"
    "job_type:                   NONE\n"
    "scheduling info:            (-l mem_free=1000G) cannot run in queue \"vm\" because it offers only "
    "hl:mem_free=23.246G\n"
    "                            cannot run in PE \"smp\" because it only offers 0 slots\n"
    "==============================================================\n"
    "job_number:                 46\n"
    "exec_file:                  job_scripts/46\n"
    "submission_time:            Mon Nov 30 08:50:16 2026\n"
    "owner:                      root\n"
    "cwd:                        /nonexistent\n"
    "stderr_path_list:           NONE:NONE:/tmp/sgecap/err.txt\n"
    "job_name:                   hb_cap\n"
    "shell_list:                 NONE:/bin/bash\n"
    "script_file:                job.sh\n"
    "binding:                    NONE\n"
    "job_type:                   NONE\n"
    "error reason          1:      11/30/2026 08:50:17 [0:25841]: error: can't chdir to /nonexistent: No such "
    "file or directory\n"
    "scheduling info:            Job is in error state\n"
    "==============================================================\n"
    "job_number:                 47\n"
    "exec_file:                  job_scripts/47\n"
    "job_name:                   hb_cap\n"
    "binding:                    NONE\n"
    "job_type:                   NONE\n"
    "scheduling info:            Job is in hold state\n";

// The keys of a qacct record after exit_status (8.1.9).
inline const char* const kQacctTail =
    "ru_wallclock 1s\n"
    "ru_utime     0.032s\n"
    "ru_stime     0.026s\n"
    "ru_maxrss    4.773KB\n"
    "ru_ixrss     0.000B\n"
    "ru_ismrss    0.000B\n"
    "ru_idrss     0.000B\n"
    "ru_isrss     0.000B\n"
    "ru_minflt    425                 \n"
    "ru_majflt    2                   \n"
    "ru_nswap     0                   \n"
    "ru_inblock   72                  \n"
    "ru_oublock   8                   \n"
    "ru_msgsnd    0                   \n"
    "ru_msgrcv    0                   \n"
    "ru_nsignals  0                   \n"
    "ru_nvcsw     6                   \n"
    "ru_nivcsw    8                   \n"
    "cpu          0.058s\n"
    "mem          60.817KBs\n"
    "io           24.117KB\n"
    "iow          0.000s\n"
    "maxvmem      4.695MB\n"
    "arid         undefined\n"
    "ar_sub_time  undefined\n"
    "category     NONE\n";

// A qacct record: `qacct -j 40` (a script exiting 3) with the given job
// number, times and failed / exit_status lines.
inline std::string Acct(const std::string& id, const std::string& failed, const std::string& exit_status,
                        const std::string& start = "Mon Nov 30 08:49:16 2026",
                        const std::string& end = "Mon Nov 30 08:49:17 2026") {
  return "==============================================================\n"
         "qname        all.q               \n"
         "hostname     vm                  \n"
         "group        root                \n"
         "owner        root                \n"
         "project      NONE                \n"
         "department   defaultdepartment   \n"
         "jobname      hb_cap              \n"
         "jobnumber    " +
         id +
         "                  \n"
         "taskid       undefined\n"
         "account      sge                 \n"
         "priority     0                   \n"
         "qsub_time    Mon Nov 30 08:49:15 2026\n"
         "start_time   " +
         start +
         "\n"
         "end_time     " +
         end +
         "\n"
         "granted_pe   NONE                \n"
         "slots        1                   \n"
         "failed       " +
         failed +
         "\n"
         "exit_status  " +
         exit_status + "\n" + kQacctTail;
}

// The real failed / exit_status lines.
inline const char* const kExit3 = "3                   ";
inline const char* const kOk = "0    ";
inline const char* const kH_rt = "37  : qmaster enforced h_rt, h_cpu, or h_vmem limit";
inline const char* const kQdel = "100 : assumedly after job";
inline const char* const kKilled = "137                  (Killed)";
inline const char* const kNoCwd = "28  : changing into working directory";
inline const char* const kResched = "25  : rescheduling";

// What qacct prints when no record matches (rc 0), and its errors.
inline const char* const kQacctNone =
    "OWNER     WALLCLOCK         UTIME         STIME           CPU             MEMORY                 IO    "
    "            IOW\n"
    "=============================================================================================================="
    "========\n";
inline const char* const kCommlib =
    "error: commlib error: got select error (Connection refused)\n"
    "error: unable to send message to qmaster using port 6444 on host \"vm\": got send error\n";

}  // namespace hb
