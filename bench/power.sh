#!/usr/bin/env bash
# The measured power of hetbench's verdicts on synthetic series (issue 17):
#   bench/power.sh compare   how often `compare --fail-on-regression 5`
#                            catches a true slowdown, and how often it fires
#                            on no change (bench/compare_power.cc)
#   bench/power.sh changes   how often `results changes` finds a regression
#                            of the last sessions of a history, and its
#                            false alarms (bench/changes_power.cc)
# Each builds its program against the analysis library the commands use
# and prints the table bench/RESULTS.md holds.
# Usage: bench/power.sh compare|changes [build folder] [-- program options]
#
# Needs: a build (./scripts/build); the script builds its programs itself
# (ninja -C build compare_power changes_power).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
what="${1:-}"
case "$what" in
  compare|changes) ;;
  *) echo "usage: bench/power.sh compare|changes [build folder] [-- options]" >&2; exit 2 ;;
esac
shift
build="${1:-$here/../build}"
[ $# -gt 0 ] && [ "$1" != "--" ] && shift
[ "${1:-}" = "--" ] && shift
ninja -C "$build" "${what}_power" >/dev/null
/usr/bin/time -f "(%e s, %M KiB)" "$build/${what}_power" "$@"
