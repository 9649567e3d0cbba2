#!/usr/bin/env bash
# record.sh TARGET LOG SEEDS REGRESSIONS ARGS PROCESSES SOURCES - the figures of one
# libFuzzer run of TARGET, as TARGET.KEY,value rows of data/fuzz.csv (the
# Makefile writes the key,value header once), from the run's log and its
# directories. Called by `make fuzz` after a run that found no crash.
#
# A run in one process ends with -print_final_stats=1 lines and a status line
# "#N DONE cov: C ft: F corp: K/Sb ..."; a run of PROCESSES > 1 under -fork
# prints the parent's lines "#N: cov: C ft: F corp: K exec/s E ... time: Ts"
# and "INFO: exiting: 0 time: Ts", with no final stats (so no new_units and
# no peak_rss_mb rows). In both, cov counts the program counters the corpus
# reaches and ft libFuzzer's features.
#
# SOURCES lists the folders (and files) the target is built from; the
# record names them and their digest, so that the summary can tell whether
# the record is of the code being woven (paper/90-appendix-report.md, "Is
# the fuzz record of this code"): sha256sum of the sha256sum lines of every
# .c and .h file directly in them, in the byte order of their paths.
set -euo pipefail
target=$1 log=$2 seeds=$3 regressions=$4 args=$5 processes=${6:-1} sources=$7
row() { echo "$target.$1,$2"; }
if [ "$processes" -gt 1 ]; then
  last=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -n 1)
  field() { echo "$last" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
  executions=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
  seconds=$(sed -n 's/^INFO: exiting: 0 time: \([0-9]*\)s.*/\1/p' "$log" | tail -n 1)
  cov=$(field cov:); ft=$(field ft:); corpus=$(field corp:)
  per_second=$(( ${executions:-0} / (${seconds:-0} > 0 ? ${seconds:-1} : 1) ))
else
  final_stat() { awk -F':[ \t]+' -v k="stat::$1" '$1 == k { v = $2 } END { print v + 0 }' "$log"; }
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  field() { echo "$last" | awk -v k="$1:" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
  executions=$(final_stat number_of_executed_units)
  seconds=$(awk '/^Done [0-9]+ runs in [0-9]+ second/ { print $5 }' "$log" | tail -n 1)
  cov=$(field cov); ft=$(field ft); corpus=$(field corp); corpus=${corpus%%/*}
  per_second=$(final_stat average_exec_per_sec)
fi
row date "$(date -u +%Y-%m-%d)"
row seconds "${seconds:-0}"
row processes "$processes"
row executions "${executions:-0}"
row exec_per_second "$per_second"
if [ "$processes" -eq 1 ]; then
  row new_units "$(final_stat new_units_added)"
  row peak_rss_mb "$(final_stat peak_rss_mb)"
fi
row coverage_edges "${cov:-0}"
row features "${ft:-0}"
row corpus_units "${corpus:-0}"
row seeds "$(find "$seeds" -type f | wc -l)"
row regressions "$( { find "$regressions" -type f ! -name '*.md' 2>/dev/null || true; } | wc -l)"
row crashes 0
row max_len "$(echo "$args" | sed -n 's/.*-max_len=\([0-9]*\).*/\1/p')"
row clang "$(clang --version | sed -n 's/.*clang version \([0-9.]*\).*/\1/p' | head -n 1)"
row commit "$(git describe --always --dirty 2>/dev/null || echo unknown)"
row sources "$sources"
# shellcheck disable=SC2086
row sources_sha256 "$(find $sources -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) ! -name '.*' |
  LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-64)"
