# Cluster queue "all.q" of hetbench's test cluster: 16 slots on this host
# (@HOST@ is replaced by the host name). Loaded by scripts/sge-up with
# `qconf -Aq` / `-Mq`. Differences from `qconf -sq` (the default template)
# are marked with "hetbench:".
qname                 all.q
hostlist              @HOST@
seq_no                0
# hetbench: NONE (default np_load_avg=1.75): a busy 2-core CI machine must
# not put the queue in alarm state and stop scheduling.
load_thresholds       NONE
suspend_thresholds    NONE
nsuspend              1
suspend_interval      00:05:00
priority              0
min_cpu_interval      00:05:00
processors            UNDEFINED
qtype                 BATCH INTERACTIVE
ckpt_list             NONE
# hetbench: the parallel environments of scripts/sge/pe-*.
pe_list               smp mpi
rerun                 FALSE
# hetbench: 16 slots (default 1), more than the 2 cores, so tests can keep
# several jobs running at once.
slots                 16
tmpdir                /tmp
# hetbench: unix_behavior + bash: a job script's #! line picks its
# interpreter, as under Slurm (posix_compliant would run every script with
# the queue's shell, ignoring #!).
shell                 /bin/bash
prolog                NONE
epilog                NONE
shell_start_mode      unix_behavior
starter_method        NONE
suspend_method        NONE
resume_method         NONE
terminate_method      NONE
notify                00:00:60
owner_list            NONE
user_lists            NONE
xuser_lists           NONE
subordinate_list      NONE
complex_values        NONE
projects              NONE
xprojects             NONE
calendar              NONE
initial_state         default
s_rt                  INFINITY
h_rt                  INFINITY
s_cpu                 INFINITY
h_cpu                 INFINITY
s_fsize               INFINITY
h_fsize               INFINITY
s_data                INFINITY
h_data                INFINITY
s_stack               INFINITY
h_stack               INFINITY
s_core                INFINITY
h_core                INFINITY
s_rss                 INFINITY
h_rss                 INFINITY
s_vmem                INFINITY
h_vmem                INFINITY
