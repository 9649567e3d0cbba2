#!/usr/bin/env bash
# record.sh LOG SEEDS REGRESSIONS ARGS - the figures of one libFuzzer run, as
# the key,value rows of data/fuzz.csv, from the run's log (-print_final_stats=1)
# and its directories. Called by `make fuzz` after a run that found no crash.
set -euo pipefail
log=$1 seeds=$2 regressions=$3 args=$4
final_stat() { awk -F':[ \t]+' -v k="stat::$1" '$1 == k { v = $2 } END { print v + 0 }' "$log"; }
# The last status line: "#N  DONE cov: C ft: F corp: K/Sb ..."
last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
field() { echo "$last" | awk -v k="$1:" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
seconds=$(awk '/^Done [0-9]+ runs in [0-9]+ second/ { print $5 }' "$log" | tail -n 1)
corpus=$(field corp)
echo "key,value"
echo "date,$(date -u +%Y-%m-%d)"
echo "seconds,${seconds:-0}"
echo "executions,$(final_stat number_of_executed_units)"
echo "exec_per_second,$(final_stat average_exec_per_sec)"
echo "new_units,$(final_stat new_units_added)"
echo "peak_rss_mb,$(final_stat peak_rss_mb)"
echo "coverage_edges,$(field cov)"
echo "features,$(field ft)"
echo "corpus_units,${corpus%%/*}"
echo "seeds,$(find "$seeds" -type f | wc -l)"
echo "regressions,$(find "$regressions" -type f ! -name '*.md' | wc -l)"
echo "crashes,0"
echo "max_len,$(echo "$args" | sed -n 's/.*-max_len=\([0-9]*\).*/\1/p')"
echo "clang,$(clang --version | sed -n 's/.*clang version \([0-9.]*\).*/\1/p' | head -n 1)"
echo "commit,$(git describe --always --dirty 2>/dev/null || echo unknown)"
