# Shared by bench/slurm_bench.sh and bench/slurm_sdiag_bench.sh (sourced):
# the site configuration and the trivial test they run on the project's
# real Slurm cluster (scripts/slurm-up).
#
# Needs: sourced by the Slurm benchmarks; root and scripts/slurm-up, as they
# say.

# slurm_bench_site DIR SCHED: DIR/site.yaml with one partition `debug` of
# scheduler SCHED (slurm or squeue), max_jobs 50.
slurm_bench_site() {
  cat > "$1/site.yaml" <<YAML
systems:
  - name: bench
    hostnames: ['.*']
    partitions:
      - name: debug
        scheduler: $2
        launcher: local
        access: ['--partition=debug']
        environs: [builtin]
        max_jobs: 50
environments:
  - {name: builtin, cc: gcc}
YAML
}

# slurm_bench_test DIR N: DIR/t.yaml with N trivial cases; each job writes
# a nanosecond timestamp as its last act (last_act), kept in the output
# folder, so that the notice delay can be measured.
slurm_bench_test() {
  cat > "$1/t.yaml" <<YAML
name: trivial
executable: echo
executable_opts: ['"value: 1.5"']
parameters: {i: [$(seq -s, 1 "$2")]}
postrun_cmds: ['date +%s.%N > last_act']
keep_files: [last_act]
sanity:
  - {pattern: 'value: '}
performance:
  value: {pattern: 'value: (\S+)', group: 1, unit: s}
YAML
}
