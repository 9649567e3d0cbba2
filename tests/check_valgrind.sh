#!/usr/bin/env bash
# check_valgrind.sh ENGINE DRIVER OUTDIR - the engine under valgrind's memcheck.
#
# 1. The engine on a Unix socket serves tests/drive_engine.c's session
#    (echo, sweeps, the stateful opcodes, state left behind, a bad frame, a
#    request cut off), then receives SIGTERM once it has no connection thread
#    left, so every connection has been freed by the engine's own code and
#    whatever is still allocated at exit was lost, not merely in use.
# 2. The engine in --stdin mode answers one sweep.
#
# Fails when valgrind reports any error, or any byte "definitely" or
# "indirectly" lost, or when the engine does not exit 0 or leaves its socket
# file. "Possibly lost" and "still reachable" blocks are reported, not failed:
# they are memory that something could still reach at exit (libc's own).
# With VALGRIND_OUT=FILE the totals are written there as key,value rows.
#
# Its scratch folder is OUTDIR/scratch-PID, not in the temporary directory:
# a check killed outright (SIGKILL skips the trap below) once left an
# ipctax-valgrind-* folder there for good; now the next check removes the
# folders whose process is gone. The engine dies with the check
# (--die-with-parent), and valgrind makes no vgdb pipes in /tmp (--vgdb=no).
set -uo pipefail
engine=$1 driver=$2 out=$3
mkdir -p "$out"
for stale in "$out"/scratch-*; do
  [ -d "$stale" ] && ! kill -0 "${stale##*-}" 2>/dev/null && rm -rf "$stale"
done
dir=$out/scratch-$$
mkdir "$dir" || exit 1
sock=$dir/engine.sock
vpid=
cleanup() { [ -n "$vpid" ] && kill -KILL "$vpid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
VALGRIND=(valgrind --tool=memcheck --vgdb=no --leak-check=full --show-leak-kinds=all
          --errors-for-leak-kinds=definite,indirect --error-exitcode=1)
fail() { echo "check-valgrind: $*" >&2; exit 1; }

"${VALGRIND[@]}" --log-file="$out/socket.log" "$engine" --die-with-parent --unix "$sock" &
vpid=$!
"$driver" "$sock" || fail "the engine's replies were wrong (see above)"
# Wait (at most 30 s) until the engine is down to its main thread.
for _ in $(seq 300); do
  [ "$(ls /proc/$vpid/task 2>/dev/null | wc -l)" -le 1 ] && break
  sleep 0.1
done
kill -TERM "$vpid"
wait "$vpid"; status=$?
vpid=
[ "$status" = 0 ] || fail "engine under valgrind exited $status on SIGTERM (see $out/socket.log)"
[ -e "$sock" ] && fail "the engine left its socket file"

"$driver" --request "$dir/request" || fail "cannot write a request"
"${VALGRIND[@]}" --log-file="$out/stdin.log" "$engine" --stdin < "$dir/request" > "$dir/reply"
status=$?
[ "$status" = 0 ] || fail "engine --stdin under valgrind exited $status (see $out/stdin.log)"

# Totals from a log: errors, allocations, and bytes in each leak kind.
totals() {
  awk -v mode="$1" '
    /ERROR SUMMARY:/      { errors = $4 }
    /total heap usage:/   { gsub(",", ""); allocs = $5; frees = $7; bytes = $9 }
    /definitely lost:/    { gsub(",", ""); definite = $4 }
    /indirectly lost:/    { gsub(",", ""); indirect = $4 }
    /possibly lost:/      { gsub(",", ""); possible = $4 }
    /still reachable:/    { gsub(",", ""); reachable = $4 }
    END {
      printf "%s.errors,%d\n%s.allocs,%d\n%s.frees,%d\n%s.bytes_allocated,%d\n", \
        mode, errors, mode, allocs, mode, frees, mode, bytes
      printf "%s.definitely_lost,%d\n%s.indirectly_lost,%d\n", mode, definite, mode, indirect
      printf "%s.possibly_lost,%d\n%s.still_reachable,%d\n", mode, possible, mode, reachable
    }' "$2"
}
summary=$( { totals socket "$out/socket.log"; totals stdin "$out/stdin.log"; } )
echo "$summary" | sed 's/^/check-valgrind: /'
if [ -n "${VALGRIND_OUT:-}" ]; then
  { echo "key,value"
    echo "valgrind,$(valgrind --version | sed 's/^valgrind-//')"
    echo "$summary"; } > "$VALGRIND_OUT"
fi
echo "check-valgrind: no errors, nothing definitely or indirectly lost"
