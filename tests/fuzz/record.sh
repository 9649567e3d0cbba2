#!/usr/bin/env bash
# record.sh TARGET LOG SEEDS REGRESSIONS ARGS - the figures of one libFuzzer
# run of TARGET, as TARGET.KEY,value rows of data/fuzz.csv (the Makefile
# writes the key,value header once), from the run's log
# (-print_final_stats=1) and its directories. Called by `make fuzz` after a
# run that found no crash.
set -euo pipefail
target=$1 log=$2 seeds=$3 regressions=$4 args=$5
final_stat() { awk -F':[ \t]+' -v k="stat::$1" '$1 == k { v = $2 } END { print v + 0 }' "$log"; }
# The last status line: "#N  DONE cov: C ft: F corp: K/Sb ..."
last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
field() { echo "$last" | awk -v k="$1:" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
seconds=$(awk '/^Done [0-9]+ runs in [0-9]+ second/ { print $5 }' "$log" | tail -n 1)
corpus=$(field corp)
row() { echo "$target.$1,$2"; }
row date "$(date -u +%Y-%m-%d)"
row seconds "${seconds:-0}"
row executions "$(final_stat number_of_executed_units)"
row exec_per_second "$(final_stat average_exec_per_sec)"
row new_units "$(final_stat new_units_added)"
row peak_rss_mb "$(final_stat peak_rss_mb)"
cov=$(field cov); ft=$(field ft)
row coverage_edges "${cov:-0}"
row features "${ft:-0}"
row corpus_units "${corpus%%/*}"
row seeds "$(find "$seeds" -type f | wc -l)"
row regressions "$( { find "$regressions" -type f ! -name '*.md' 2>/dev/null || true; } | wc -l)"
row crashes 0
row max_len "$(echo "$args" | sed -n 's/.*-max_len=\([0-9]*\).*/\1/p')"
row clang "$(clang --version | sed -n 's/.*clang version \([0-9.]*\).*/\1/p' | head -n 1)"
row commit "$(git describe --always --dirty 2>/dev/null || echo unknown)"
