/*
 * columns.h - the columns of every file of data/, once: name, type, range,
 * unit and description, as lists (X-macros) the writer, the reader and the
 * data dictionary expand.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_COLUMNS_H
#define IPCTAX_COLUMNS_H

/* <<columns-of-the-runs-and-their-calls>>, paper/90-appendix-report.md */
/* architectures.csv: one timed run */
#define RUNS_COLUMNS(_, row)                                                                       \
    _(row, architecture, TEXT, NAME_OF(63), "", "its name (schema/architectures.h)")             \
    _(row, pairing, TEXT, NAME_OF(15), "", "duet, sequential, or none for a row not set up")       \
    _(row, round, INT, RANGE(0, MAX_ROUNDS), "", "1, 2, ...; 0 for a row not set up")            \
    _(row, position, INT, COUNT, "", "the unit's place in the round's random order")               \
    _(row, unit, INT, COUNT, "", "the independent unit the run belongs to")                        \
    _(row, slot, INT, RANGE(0, MAX_UNIT_SLOTS), "", "the run's place in its unit")                 \
    _(row, run, INT, COUNT, "", "the run's number, in the order the runs were made")               \
    _(row, partner, NUM_OR_EMPTY, COUNT, "", "the run it ran beside in a duet")                    \
    _(row, bars, INT, RANGE(0, MAX_BARS), "", "the bars of the part of the job it did")            \
    _(row, combos, INT, RANGE(0, MAX_COMBOS), "", "the combinations of that part")                 \
    _(row, status, TEXT, NAME_OF(15), "", "ok, failed, gate_failed or setup_failed")               \
    _(row, start_s, NUM, SECONDS, "s", "when it began, after the first round began")               \
    _(row, seconds, NUM, TIMED_S, "s", "wall time of the sweep")                                   \
    _(row, client_cpu_s, NUM, SECONDS, "s", "processor time of its client")                        \
    _(row, engine_cpu_s, NUM_OR_EMPTY, SECONDS, "s", "processor time of its engine or engines")    \
    _(row, cpus_allowed, TEXT, TEXT_OF(0, 31), "", "the CPUs it was allowed (taskset -c)")         \
    _(row, cpu_start, NUM_OR_EMPTY, CPU, "", "the CPU its client started on")                      \
    _(row, cpu_end, NUM_OR_EMPTY, CPU, "", "the CPU its client ended on")                          \
    _(row, engine_cpu, NUM_OR_EMPTY, CPU, "", "the CPU its engine last ran on")                    \
    _(row, client_minor_faults, NUM_OR_EMPTY, COUNT, "pages", "first touches of its client")       \
    _(row, engine_minor_faults, NUM_OR_EMPTY, COUNT, "pages", "first touches of its engine")

/* calls.csv: one boundary call of a timed run. The fields from rtt_ns on are
 * a call's record (CALL_RECORD_COLUMNS), which cold.csv shares in part. */
#define CALLS_COLUMNS(_, row)                                                                      \
    _(row, architecture, TEXT, NAME_OF(63), "", "the architecture (architectures.csv)")            \
    _(row, round, INT, ROUND, "", "its round")                                                     \
    _(row, run, INT, ORDINAL, "", "its run (architectures.csv's run)")                             \
    _(row, call, INT, COUNT, "", "the call's index within the run")                                \
    CALL_RECORD_COLUMNS(_, row)

/* A call's phases as its client and its engine timed them; the engine's
 * may be empty (engine_type NUM_OR_EMPTY) where a call carried no timing. */
#define CALL_PHASE_COLUMNS(_, row, engine_type)                                                    \
    _(row, rtt_ns, NUM, NANOS, "ns", "the whole call as its client saw it")                        \
    _(row, encode_ns, NUM, NANOS, "ns", "the client writing the request")                          \
    _(row, send_ns, NUM, NANOS, "ns", "handing it to the transport")                               \
    _(row, wait_ns, NUM, NANOS, "ns", "until the reply's length word arrived")                     \
    _(row, receive_ns, NUM, NANOS, "ns", "reading the rest of the reply")                          \
    _(row, decode_ns, NUM, NANOS, "ns", "turning the reply into results")                          \
    _(row, engine_ns, engine_type, NANOS, "ns", "the engine's own time for the request")           \
    _(row, engine_decode_ns, engine_type, NANOS, "ns", "the engine decoding and checking it")      \
    _(row, compute_ns, engine_type, NANOS, "ns", "the kernel")                                     \
    _(row, engine_encode_ns, engine_type, NANOS, "ns", "the engine encoding the reply")

#define CALL_RECORD_COLUMNS(_, row)                                                                \
    CALL_PHASE_COLUMNS(_, row, NUM_OR_EMPTY)                                                       \
    _(row, engine_cpu_ns, NUM_OR_EMPTY, NANOS, "ns", "the engine's processor time meanwhile")      \
    _(row, process_ns, NUM_OR_EMPTY, NANOS, "ns", "a spawned engine, from its spawn to its end")   \
    _(row, process_cpu_ns, NUM_OR_EMPTY, NANOS, "ns", "a spawned engine's processor time")         \
    _(row, process_minor_faults, NUM_OR_EMPTY, COUNT, "pages", "a spawned engine's first touches") \
    CALL_BYTES_COLUMNS(_, row)                                                                     \
    CALL_CROSSING_COLUMNS(_, row)

/* Added with the trailer's clock reading and fault count: each crossing
 * apart, and the pages each side touched first during the call. */
#define CALL_CROSSING_COLUMNS(_, row)                                                              \
    _(row, request_ns, OPTIONAL(NUM_OR_EMPTY), NANOS, "ns", "the request's crossing: sent until held whole")    \
    _(row, reply_ns, OPTIONAL(NUM_OR_EMPTY), NANOS, "ns", "the reply's crossing: the engine's end to arrived")  \
    _(row, engine_minor_faults, OPTIONAL(NUM_OR_EMPTY), COUNT, "pages", "the engine's first touches, serving")  \
    _(row, client_minor_faults, OPTIONAL(NUM_OR_EMPTY), COUNT, "pages", "the client's first touches in the call")

/* The bytes on the wire, frames included (0 when the client did not count them). */
#define CALL_BYTES_COLUMNS(_, row)                                                                 \
    _(row, request_bytes, NUM, COUNT, "bytes", "the request on the wire, frame included")          \
    _(row, reply_bytes, NUM, COUNT, "bytes", "the reply on the wire, frame included")

/* <<columns-of-the-witnesses>>, paper/90-appendix-report.md */
/* witnesses.csv: an echo timed right after a run's last call, on the same
 * connection, in the same duet side; or (kind away) at a round's start, on
 * an away probe's own connection, before the round's first run. The fields
 * from rtt_ns on are a call's record. Added with the witnesses: older runs
 * have none, and runs before the away probes none of kind away. */
#define WITNESS_COLUMNS(_, row)                                                                    \
    _(row, architecture, TEXT, NAME_OF(63), "", "the architecture whose run it follows (away: precedes)") \
    _(row, round, INT, ROUND, "", "its round")                                                     \
    _(row, run, INT, ORDINAL, "", "the run it follows, or precedes (architectures.csv's run)")     \
    _(row, kind, TEXT, NAME_OF(15), "", "floor, payload, warm, away, away-shm, retouch; -mid; load-mid; retouch-unit")\
    _(row, seq, INT, ORDINAL, "", "1 right after the run's last call (away: its place in the set), then 2, 3, ...") \
    _(row, floats, INT, COUNT, "doubles", "an echo's payload, each way; 0 for warm")               \
    _(row, start_s, NUM, SECONDS, "s", "when it began, after the first round began")              \
    CALL_RECORD_COLUMNS(_, row)

/* <<columns-of-the-gate-and-the-reference>>, paper/90-appendix-report.md */
/* gate.csv: one architecture's verdict */
#define GATE_COLUMNS(_, row)                                                                       \
    _(row, architecture, TEXT, NAME_OF(63), "", "the architecture")                                \
    _(row, combos, INT, RANGE(0, MAX_COMBOS), "", "combinations compared")                         \
    _(row, identical, INT, RANGE(0, MAX_COMBOS), "", "of them identical, bit for bit")             \
    _(row, max_abs_pnl_diff, NUM_OR_EMPTY, RANGE(0, 2 * MAX_PNL), "percentage points",             \
      "the largest difference of a PnL")                                                           \
    _(row, verdict, TEXT, NAME_OF(15), "", "pass, FAIL or not run")                                \
    _(row, error, TEXT, TEXT_OF(0, 255), "", "why it did not run, if it did not")

/* sweep.csv: the in-process reference result of one combination */
#define SWEEP_COLUMNS(_, row)                                                                      \
    _(row, combo, INT, COMBO, "", "the combination")                                               \
    _(row, L, INT, WINDOW, "bars", "its length")                                                   \
    _(row, h_half, INT, WINDOW, "bars", "a window length")                                         \
    _(row, h_len, INT, WINDOW, "bars", "a window length")                                          \
    _(row, h_sqrt, INT, WINDOW, "bars", "a window length")                                         \
    _(row, t_third, INT, WINDOW, "bars", "a window length")                                        \
    _(row, t_half, INT, WINDOW, "bars", "a window length")                                         \
    _(row, t_len, INT, WINDOW, "bars", "a window length")                                          \
    _(row, pnl, NUM, PNL, "percentage points", "its PnL, to 17 significant digits")                \
    _(row, trades, INT, RANGE(0, MAX_BARS), "", "trades it closed")

/* <<columns-of-the-measurements>>, paper/65-echo.md */
/* echo.csv: one round trip */
#define ECHO_COLUMNS(_, row)                                                                       \
    _(row, client, TEXT, NAME_OF(15), "", "c, python, or python_copying (the original's way)")     \
    _(row, transport, TEXT, NAME_OF(15), "", "unix, tcp, pipe, shm_futex, shm_spin")               \
    _(row, placement, TEXT, NAME_OF(7), "", "same CPU or cross")                                   \
    _(row, client_cpu, INT, CPU, "", "the CPU the client ran on")                                  \
    _(row, engine_cpu, INT, RANGE(-1, 4095), "", "the CPU its engine was seen on")                 \
    _(row, mode, TEXT, NAME_OF(23), "", "protocol, protocol_timed or raw")                         \
    _(row, floats, INT, COUNT, "doubles", "the payload, each way")                                 \
    _(row, bytes, INT, COUNT, "bytes", "the payload, each way")                                    \
    _(row, pass, INT, RANGE(1, MAX_ECHO_PASSES), "", "the pass over all blocks")                   \
    _(row, block, INT, COUNT, "", "the block the sample belongs to")                               \
    _(row, rep, INT, ORDINAL, "", "the sample's number within its block")                          \
    _(row, rtt_ns, NUM, NANOS, "ns", "the round trip")                                             \
    _(row, engine_ns, NUM_OR_EMPTY, NANOS, "ns", "the engine's time, when timed")
/* <<columns-of-the-measurements>>, paper/66-cold.md */
/* cold.csv: a fresh engine's first call, or its second */
#define COLD_COLUMNS(_, row)                                                                       \
    _(row, client, TEXT, NAME_OF(15), "", "c")                                                     \
    _(row, rep, INT, ORDINAL, "", "the repetition")                                                \
    _(row, warmth, TEXT, NAME_OF(7), "", "cold (the first call) or warm (the second)")             \
    _(row, cpu, INT, CPU, "", "the CPU the client ran on")                                         \
    _(row, engine_cpu, INT, CPU, "", "the CPU the engine ran on")                                  \
    CALL_PHASE_COLUMNS(_, row, NUM)                                                                \
    _(row, client_minor_faults, NUM, COUNT, "pages", "first touches of the client")                \
    _(row, engine_minor_faults, NUM, COUNT, "pages", "first touches of the engine")                \
    CALL_BYTES_COLUMNS(_, row)
/* <<columns-of-the-measurements>>, paper/67-mechanisms.md */
/* states.csv: one echo right after a stretch (@sec:mechanisms); the fields
 * from rtt_ns on are a call's record */
#define STATES_COLUMNS(_, row)                                                                     \
    _(row, client, TEXT, NAME_OF(15), "", "c or python: the client that timed it")                 \
    _(row, state, TEXT, NAME_OF(15), "", "hot, engine, client, idle; kernel, chain: stretch calls") \
    _(row, stretch, TEXT, NAME_OF(15), "", "none, short, long, away or sweep: what it was")           \
    _(row, partner, TEXT, NAME_OF(7), "", "busy or idle: the other CPU meanwhile")                 \
    _(row, cpu, INT, CPU, "", "the CPU client and engine shared")                                  \
    _(row, pass, INT, RANGE(1, MAX_MECH_PASSES), "", "the pass: the unit")                         \
    _(row, order, INT, ORDINAL, "", "its place in its partner's block of the pass")                \
    _(row, floats, INT, COUNT, "doubles", "the echo's payload, each way")                          \
    _(row, stretch_ns, NUM, NANOS, "ns", "the stretch as timed; 0 for a hot echo")                 \
    CALL_RECORD_COLUMNS(_, row)                                                                    \
    _(row, link, OPTIONAL(NUM_OR_EMPTY), COUNT, "", "a chain's call: 1, 2, ... after the first; else 0")

/* faults.csv: one fault probe, a fresh mapping touched (@sec:mechanisms) */
#define FAULTS_COLUMNS(_, row)                                                                     \
    _(row, role, TEXT, NAME_OF(15), "", "c or python: the process that touched")                   \
    _(row, pass, INT, RANGE(1, MAX_MECH_PASSES), "", "the pass: the unit")                         \
    _(row, order, INT, ORDINAL, "", "its place in the pass's fault probes")                        \
    _(row, touch, TEXT, NAME_OF(15), "", "first, again; copy-out, copy-in, read-in (and -again)")   \
    _(row, pages, INT, COUNT, "pages", "pages of 4 KiB, each touched or copied")                   \
    _(row, ns, NUM, NANOS, "ns", "the touching")                                                   \
    _(row, minor_faults, NUM, COUNT, "pages", "the minor faults meanwhile")
/* <<columns-of-the-measurements>>, paper/69-host.md */
/* host.csv: one CPU's spin in one pass (@sec:host) */
#define HOST_COLUMNS(_, row)                                                                       \
    _(row, pass, INT, RANGE(1, MAX_MECH_PASSES), "", "the pass: the round it followed")            \
    _(row, cpu, INT, CPU, "", "the CPU the spinning thread was pinned to")                         \
    _(row, spin_ns, NUM, NANOS, "ns", "the spin as timed, first reading to last")                  \
    _(row, reads, NUM, COUNT, "", "clock readings made")                                           \
    _(row, gaps, NUM, COUNT, "", "gaps of at least gap_min_ns between two readings")               \
    _(row, gap_ns, NUM, NANOS, "ns", "their total")                                                \
    _(row, longest_ns, NUM, NANOS, "ns", "the longest gap")                                        \
    _(row, gap_min_ns, NUM, NANOS, "ns", "the least a gap counted")
/* <<columns-of-the-measurements>>, paper/70-serialization.md */
/* serialization.csv: one encode, decode, copy or release of the series */
#define SERIAL_COLUMNS(_, row)                                                                     \
    _(row, language, TEXT, NAME_OF(15), "", "c or python")                                         \
    _(row, format, TEXT, NAME_OF(15), "", "raw, raw_fresh, memcpy, json, json_cold, json_busy, text; tobytes, ...")      \
    _(row, operation, TEXT, NAME_OF(15), "", "encode, decode, copy or release")                    \
    _(row, rep, INT, ORDINAL, "", "the repetition")                                                \
    _(row, ns, NUM, NANOS, "ns", "its time")                                                       \
    _(row, bytes, NUM, COUNT, "bytes", "the encoding's size on the wire")                          \
    _(row, position, OPTIONAL(NUM_OR_EMPTY), ORDINAL, "", "its format's place in the repetition")  \
    _(row, buffer, OPTIONAL(TEXT), TEXT_OF(0, 15), "", "where it writes: reused, fresh or codec")  \
    _(row, minor_faults, OPTIONAL(NUM_OR_EMPTY), COUNT, "pages", "pages it touched first")
/* <<columns-of-the-measurements>>, paper/72-handoff.md */
/* handoff.csv: one timed loop of a repetition (@sec:handoff) */
#define HANDOFF_COLUMNS(_, row)                                                                    \
    _(row, rep, INT, ORDINAL, "", "the repetition")                                                \
    _(row, position, INT, ORDINAL, "", "the loop's place in the repetition's drawn order")         \
    _(row, kind, TEXT, NAME_OF(15), "", "clock, syscall, same_cpu, polling or sleeping")           \
    _(row, cpu, INT, CPU, "", "the CPU of the thread that timed the loop")                         \
    _(row, peer_cpu, INT, CPU, "", "the CPU of the thread at the socket's other end (cpu if none)")\
    _(row, count, NUM, COUNT, "", "operations timed: clock readings, entries or round trips")      \
    _(row, ns, NUM, NANOS, "ns", "the loop's time, first operation to last")

/* The kinds of loop of a repetition of handoff.csv, in the order the
 * summary reports them. */
enum handoff_kind { HANDOFF_CLOCK, HANDOFF_SYSCALL, HANDOFF_SAME_CPU, HANDOFF_POLLING,
                    HANDOFF_SLEEPING, N_HANDOFF_KINDS };
#define HANDOFF_KIND_NAMES {"clock", "syscall", "same_cpu", "polling", "sleeping"}
/* <<columns-of-the-measurements>>, paper/75-crossings.md */
/* spawn.csv: one spawned call, or its warm twin; from spawn_ns on, added
 * with the split of a spawn (older runs lack them) */
#define SPAWN_COLUMNS(_, row)                                                                      \
    _(row, kind, TEXT, NAME_OF(15), "", "exit, echo, sweep, or warm (@sec:crossings)")                 \
    _(row, rep, INT, ORDINAL, "", "the repetition")                                                \
    _(row, combo, INT, COMBO, "", "the combination swept")                                         \
    _(row, rtt_ns, NUM, NANOS, "ns", "the call, from the spawn to the reply")                      \
    _(row, process_ns, NUM_OR_EMPTY, NANOS, "ns", "the engine, from its spawn to its end")         \
    _(row, process_cpu_ns, NUM_OR_EMPTY, NANOS, "ns", "its processor time")                        \
    _(row, minor_faults, NUM_OR_EMPTY, COUNT, "pages", "its first touches")                        \
    _(row, compute_ns, NUM_OR_EMPTY, NANOS, "ns", "the kernel inside it; empty for an echo")       \
    _(row, spawn_ns, OPTIONAL(NUM_OR_EMPTY), NANOS, "ns", "the parent's call that started the engine")          \
    _(row, request_ns, OPTIONAL(NUM_OR_EMPTY), NANOS, "ns", "from the request's first byte to the engine's")    \
    _(row, engine_decode_ns, OPTIONAL(NUM_OR_EMPTY), NANOS, "ns", "the engine decoding the request")            \
    _(row, engine_minor_faults, OPTIONAL(NUM_OR_EMPTY), COUNT, "pages", "its first touches while serving")
/* <<columns-of-the-measurements>>, paper/76-layout.md */
/* The side of layout.csv and counts.csv where the kernel ran in the measuring
 * process itself: a side of a measurement, not an architecture (though spelt
 * as the baseline is). */
#define IN_PROCESS_SIDE "in_process"

/* layout.csv: one reduced sweep */
#define LAYOUT_COLUMNS(_, row)                                                                     \
    _(row, side, TEXT, NAME_OF(31), "", "where the kernel ran: in_process, engine, ...")           \
    _(row, code_shift, NUM_OR_EMPTY, COUNT, "bytes", "past a cache line; empty when aligned")      \
    _(row, series_offset, INT, COUNT, "bytes", "the series within its page")                       \
    _(row, array_offset, INT, COUNT, "bytes", "the first work array within its page")              \
    _(row, array_stagger, INT, COUNT, "bytes", "added for each further array")                     \
    _(row, pass, INT, RANGE(1, MAX_LAYOUT_PASSES), "", "the pass")                                 \
    _(row, seconds, NUM, TIMED_S, "s", "the kernel's own time")
/* <<columns-of-the-measurements>>, paper/77-roofline.md */
/* roofline.csv: one timed loop, a CPU's clock, or a part of the tuned kernel */
#define ROOF_COLUMNS(_, row)                                                                       \
    _(row, kind, TEXT, NAME_OF(15), "", "avx512, reg_avx512, clock_cpu0, tuned_steps, ...")        \
    _(row, lanes, INT, ORDINAL, "", "doubles per vector")                                          \
    _(row, threads, INT, ORDINAL, "", "threads that ran it")                                       \
    _(row, pass, INT, ORDINAL, "", "the pass")                                                     \
    _(row, flops, NUM, COUNT, "flops", "operations performed; a clock's additions; 0 for the tuned kernel") \
    _(row, seconds, NUM, TIMED_S, "s", "its time")
/* <<columns-of-the-measurements>>, paper/78-counts.md */
/* counts.csv: instructions or system calls */
enum { STRACE_REQUESTS = 21 };     /* the requests of the longer strace run (@sec:counts) */
#define COUNTS_COLUMNS(_, row)                                                                     \
    _(row, side, TEXT, NAME_OF(15), "", "in_process, engine or job")                               \
    _(row, what, TEXT, NAME_OF(31), "", "kernel_instructions, total_instructions, syscalls, ...")  \
    _(row, requests, INT, COUNT, "", "requests the count covers")                                  \
    _(row, value, NUM, COUNT, "", "the count")

/* <<columns-of-the-kept-files>>, paper/90-appendix-report.md */
/* original.csv: one figure of the original study */
#define ORIGINAL_COLUMNS(_, row)                                                                   \
    _(row, key, TEXT, NAME_OF(127), "", "the figure's name")                                       \
    _(row, value, TEXT, TEXT_OF(0, 255), "", "its value, as the original gives it")                \
    _(row, unit, TEXT, NAME_OF(31), "", "its unit (text for names and set-up)")                    \
    _(row, source, TEXT, NAME_OF(127), "", "the table or section of the original")

/* Every key-value file: one key and its value per row. */
#define KV_COLUMNS(_, row)                                                                         \
    _(row, key, TEXT, NAME_OF(127), "", "the key")                                                 \
    _(row, value, TEXT, TEXT_OF(0, 511), "", "its value")

/* manifest.csv: one file of the run */
#define MANIFEST_COLUMNS(_, row)                                                                   \
    _(row, file, TEXT, NAME_OF(255), "", "its name in the data folder")                            \
    _(row, sha256, TEXT, TEXT_OF(64, 64), "", "the SHA-256 of its bytes, lower-case hex")          \
    _(row, bytes, INT, COUNT, "bytes", "its length (a compressed file's: of what it holds)")

/* <<column-indices>>, paper/90-appendix-report.md */
#define COLUMN_INDEX(prefix, name, ...) prefix##_##name,
#define ROWS(member, row, prefix, ...) enum { prefix##_COLUMNS(COLUMN_INDEX, prefix) prefix##_N };
#include "schema/files.def"
enum { KV_COLUMNS(COLUMN_INDEX, KV) KV_N };
enum { MANIFEST_COLUMNS(COLUMN_INDEX, MANIFEST) MANIFEST_N };
/* A call's record alone, as the Python worker and the harness's sink hold it. */
enum { CALL_RECORD_COLUMNS(COLUMN_INDEX, RECORD) RECORD_N };
#undef COLUMN_INDEX

#endif
