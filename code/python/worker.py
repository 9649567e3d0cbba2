"""worker.py - the Python rows of the harness, in one persistent process.

Tangled from paper/58-python-client.md; edit the chapter, not this file.
The harness (ipctax-bench) drives it over stdin and stdout, one JSON object
per line each way; the chapter gives the protocol. It measures, it never
judges. Run it as: /usr/bin/python3 -B code/python/worker.py
"""
import collections
import ctypes
import json
import mmap
import os
import pickle
import random
import resource
import sys
import time
import traceback

import numpy as np

import ipctax_client as ipc

# <<worker-message-channel>>, paper/58-python-client.md
class Failure(Exception):
    """A command that cannot be done; its text goes back as the error."""


class Channel:
    """JSON lines, and a job's raw bytes, in; JSON lines out."""

    def __init__(self, inp, out):
        self.inp, self.out = inp, out

    def receive(self):
        """The next message, or None at the end of the input."""
        line = self.inp.readline()
        if not line:
            return None
        message = json.loads(line)
        if not isinstance(message, dict):
            raise Failure("a message must be a JSON object")
        return message

    def receive_bytes(self, n):
        data = self.inp.read(n)
        if len(data) != n:
            raise EOFError(f"the input ended after {len(data)} of a job's {n} bytes")
        return data

    def send(self, reply):
        self.out.write(json.dumps(reply, separators=(",", ":")).encode("utf-8") + b"\n")
        self.out.flush()


# <<worker-where-it-runs>>, paper/58-python-client.md
def current_cpu():
    """The CPU this process's main thread is running on now."""
    with open("/proc/self/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[36])              # field 39, "processor"; fields[0] is field 3


def minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


# <<worker-the-job>>, paper/58-python-client.md
class Job:
    """The series and the parameter sets every row sweeps."""

    def __init__(self, message, body):
        opcode, close, params = ipc.decode_request(body)
        if opcode != ipc.OP_SWEEP:
            raise Failure(f"a job is an opcode-0 request body, not opcode {opcode}")
        if (len(close), len(params)) != (message["n_bars"], message["n_combos"]):
            raise Failure(f"the job line says {message['n_bars']} bars and "
                          f"{message['n_combos']} combos; its body holds {len(close)} "
                          f"and {len(params)}")
        self.close = close.astype(np.float64)
        self.params = params.astype(np.int64)

    def part(self, bars, step):
        """The part of the job a row runs: the first bars bars, every step-th set."""
        if not 1 <= bars <= len(self.close) or step < 1:
            raise Failure(f"no part of {bars} bars and every {step}th set in a job of "
                          f"{len(self.close)} bars")
        part = Job.__new__(Job)
        part.close = np.ascontiguousarray(self.close[:bars])
        part.params = np.ascontiguousarray(self.params[::step])
        return part


# <<worker-rows>>, paper/58-python-client.md
class NumbaInProcess:
    """numba_in_process: the kernel of paper/37-numba.md in this interpreter."""

    def prepare(self, job, message):
        import kernel_numba             # importing numba takes seconds: never timed
        self.kernel = kernel_numba
        self.workspace = kernel_numba.Workspace()
        kernel_numba.sweep(job.close, job.params[:1], self.workspace)   # compiles it

    def run(self, job, timing):
        pnl, trades = self.kernel.sweep(job.close, job.params, self.workspace)
        return pnl, trades, []

    def witness(self, job, calls):
        return []                       # nothing crossed

    def close(self):
        pass


class BatchUnix:
    """python_batch_unix: one sweep request per sweep, over a Unix socket."""
    copying = False                     # the careful way, the client's default

    def prepare(self, job, message):
        self.engine = ipc.Engine(message["socket"], copying=self.copying)
        self.warm_up(job)

    def warm_up(self, job):
        self.engine.sweep(job.close, job.params[:1])

    def run(self, job, timing):
        pnl, trades = self.engine.sweep(job.close, job.params, timing)
        return pnl, trades, [self.engine.last_call]

    def witness(self, job, calls):
        """Echoes on this row's connection right after its run (@sec:witnesses)."""
        return witness_echoes(self.engine, job, calls, payload=True)

    def close(self):
        if getattr(self, "engine", None) is not None:
            self.engine.close()


# <<worker-witnesses>>, paper/58-python-client.md
WITNESS_REPS = 3
STRETCH_BYTES = 8 * 1024 * 1024        # each of the state probe's two arrays


def payload_floats(calls, n_bars):
    """The doubles an echo carries each way to ship, both ways together, the
    median call's payload (its frames' headers aside)."""
    sizes = sorted(c.request_bytes + c.reply_bytes for c in calls if c.request_bytes)
    if not sizes:
        return 1
    headers = 2 * ipc.LENGTH_WORD.size + ipc.REQUEST_HEADER.size
    floats = (sizes[len(sizes) // 2] - headers + 15) // 16
    return max(1, min(floats, n_bars))


def witness_echoes(engine, job, calls, payload):
    """[witness dicts]: WITNESS_REPS echoes of one double, then of the payload."""
    kinds = [("floor", 1)] + ([("payload", payload_floats(calls, len(job.close)))]
                              if payload else [])
    seen = []
    for kind, n in kinds:
        values = np.ascontiguousarray(job.close[:n])
        back = np.empty_like(values)     # lent to every echo: a witness allocates nothing
        for seq in range(1, WITNESS_REPS + 1):
            at = time.perf_counter_ns()
            engine.echo(values, timing=True, out=back)
            seen.append(dict(engine.last_call.as_dict(), kind=kind, seq=seq, floats=n,
                             at_ns=at))
    return seen


# <<worker-rows-that-call-per-combination>>, paper/58-python-client.md
class BatchUnixCopying(BatchUnix):
    """python_batch_unix_copying: python_batch_unix, the original's way (a copy per call)."""
    copying = True


class ChattyUnix(BatchUnix):
    """python_chatty_unix: one request per combination, the series re-sent each time."""

    def run(self, job, timing):
        n = len(job.params)
        pnl, trades, calls = np.empty(n), np.empty(n, dtype=np.int64), []
        for k in range(n):
            p, t = self.engine.sweep(job.close, job.params[k:k + 1], timing)
            pnl[k], trades[k] = p[0], t[0]
            calls.append(self.engine.last_call)
        return pnl, trades, calls


class StatefulUnix(BatchUnix):
    """python_stateful_unix: the series loaded at prepare, one opcode 3 per combination."""

    def warm_up(self, job):
        self.engine.load(job.close)
        self.engine.sweep_loaded(job.params[:1])

    def run(self, job, timing):
        n = len(job.params)
        pnl, trades, calls = np.empty(n), np.empty(n, dtype=np.int64), []
        for k in range(n):
            p, t = self.engine.sweep_loaded(job.params[k:k + 1], timing)
            pnl[k], trades[k] = p[0], t[0]
            calls.append(self.engine.last_call)
        return pnl, trades, calls


# <<worker-the-spawned-row-and-the-table>>, paper/58-python-client.md
class SpawnStdin(BatchUnix):
    """python_spawn_stdin: one ipctax-engine --stdin process per sweep."""

    def prepare(self, job, message):
        path = message["engine"]
        if not os.access(path, os.X_OK):
            raise Failure(f"{path} is not an executable engine")
        self.engine = ipc.SpawnedEngine(path)
        self.warm_up(job)

    def witness(self, job, calls):
        return witness_echoes(self.engine, job, calls, payload=False)  # a spawn's floor

    def close(self):
        pass                            # nothing stays open between sweeps


ROWS = {
    "numba_in_process": NumbaInProcess,
    "python_batch_unix": BatchUnix,
    "python_batch_unix_copying": BatchUnixCopying,
    "python_batch_unix_tuned": BatchUnix,       # the same client; the engine runs the tuned kernel
    "python_chatty_unix": ChattyUnix,
    "python_stateful_unix": StatefulUnix,
    "python_spawn_stdin": SpawnStdin,
}


# <<worker-echo>>, paper/58-python-client.md
def echo_payload(job, n):
    """The job's first n closes, repeated from the start if the job is shorter."""
    if job is None or len(job.close) == 0:
        return 100.0 + np.arange(n, dtype=np.float64) / 1024.0
    return np.resize(job.close, n)


def echo(job, message):
    n, reps = int(message["floats"]), int(message["reps"])
    warmup, timing = int(message.get("warmup", 0)), bool(message.get("timing", False))
    copying = bool(message.get("copying", False))
    values = echo_payload(job, n)
    back = None if copying else np.empty_like(values)
    rtts, calls = [], []
    with ipc.Engine(message["socket"], copying=copying) as engine:
        if engine.echo(values, out=back).tobytes() != values.tobytes():
            raise Failure(f"the echo of {n} doubles came back different")
        for _ in range(warmup):
            engine.echo(values, timing, out=back)
        for _ in range(reps):
            engine.echo(values, timing, out=back)
            rtts.append(engine.last_call.rtt_ns)
            calls.append(engine.last_call)
    reply = {"ok": True, "rtt_ns": rtts, "client_cpu": current_cpu()}
    if timing:
        reply["calls"] = [c.as_dict() for c in calls]
    return reply


# <<worker-serialization-tax>>, paper/58-python-client.md
Codec = collections.namedtuple("Codec", "encode decode buffer prepare")


def decode_tobytes(data):
    return np.frombuffer(data, dtype=np.float64)


def decode_json(text):
    return np.array(json.loads(text))


def codecs(series):
    """name: Codec for the job's series; encode() and prepare() take no argument."""
    kept = bytearray(series.nbytes)
    into, source = memoryview(kept), memoryview(series).cast("B")
    at = ctypes.addressof((ctypes.c_char * len(kept)).from_buffer(kept))

    def poison_kept():
        ctypes.memset(at, 0xFF, len(kept))
        series.sum()                    # the source read, as the destination is written

    def tobytes_into_kept():
        into[:] = source
        return kept

    def tobytes_into_fresh():
        fresh = mmap.mmap(-1, len(kept))
        fresh.write(source)
        return fresh

    return {
        "tobytes": Codec(tobytes_into_kept, decode_tobytes, "reused", poison_kept),
        "tobytes_fresh": Codec(tobytes_into_fresh, decode_tobytes, "fresh", None),
        "pickle": Codec(lambda: pickle.dumps(series), pickle.loads, "codec", None),
        "json": Codec(lambda: json.dumps(series.tolist()), decode_json, "codec", None),
    }
MMAP_THRESHOLD = 128 * 1024             # glibc's default M_MMAP_THRESHOLD, made fixed
M_MMAP_THRESHOLD = -3                   # mallopt's parameter number (malloc.h)


def fix_mmap_threshold():
    """mallopt(M_MMAP_THRESHOLD, 128 KiB): the threshold set, or None if it cannot be."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return None
    return MMAP_THRESHOLD if mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 else None
def timed(step):
    """(what step() returned, its ns, its minor faults)."""
    f0 = minor_faults()
    t0 = time.perf_counter_ns()
    result = step()
    t1 = time.perf_counter_ns()
    return result, t1 - t0, minor_faults() - f0


def codec_turn(name, codec, series):
    """{operation: (ns, faults)} and the encoding's size, for one turn of one codec."""
    if codec.prepare is not None:
        codec.prepare()
    data, encode_ns, encode_faults = timed(codec.encode)
    back, decode_ns, decode_faults = timed(lambda: codec.decode(data))
    if back.dtype != np.float64 or not np.array_equal(back.view(np.int64),
                                                       series.view(np.int64)):
        raise Failure(f"{name} did not give the series back bit for bit")
    size = len(data)                    # json.dumps is ASCII: characters are bytes
    holder = [data, back]
    del data, back
    _, release_ns, release_faults = timed(holder.clear)
    return {"encode": (encode_ns, encode_faults), "decode": (decode_ns, decode_faults),
            "release": (release_ns, release_faults)}, size
def serialize(job, message):
    if job is None:
        raise Failure("serialize needs a job")
    threshold = fix_mmap_threshold()
    series, reps = job.close, int(message["reps"])
    table = codecs(series)
    rng = random.Random(message.get("seed", 42))
    names = list(table)
    reply = {"ok": True, "encodings": names, "bytes": {}, "order": [],
             "buffers": {name: table[name].buffer for name in names},
             "pickle_protocol": pickle.DEFAULT_PROTOCOL, "mmap_threshold": threshold}
    for op in ("encode", "decode", "release"):
        reply[f"{op}_ns"] = {name: [] for name in names}
        reply[f"{op}_faults"] = {name: [] for name in names}
    for _ in range(reps):
        order = names[:]
        rng.shuffle(order)
        reply["order"].append(order)
        for name in order:
            costs, reply["bytes"][name] = codec_turn(name, table[name], series)
            for op, (ns, faults) in costs.items():
                reply[f"{op}_ns"][name].append(ns)
                reply[f"{op}_faults"][name].append(faults)
    return reply


# <<worker-commands>>, paper/58-python-client.md
class Worker:
    def __init__(self, channel):
        self.channel = channel
        self.job = None
        self.rows = {}
        self.row_jobs = {}              # each prepared row's part of the job
        self.probes = None              # the state probes' engine (@sec:mechanisms)
        self.probe_array = None
        self.probe_loaded = False       # the series on the probes' connection
        self.probe_compute_ns = 0       # the engine's last stretch there
        self.stretch_arrays = None

    def handle(self, message):
        """The reply to one message; None for quit."""
        command = message.get("cmd")
        if command == "quit":
            return None
        handler = getattr(self, "cmd_" + str(command), None)
        if handler is None:
            raise Failure(f"unknown command {command!r}")
        return handler(message)

    # <<worker-a-job-and-a-row>>, paper/58-python-client.md
    def cmd_job(self, message):
        body = self.channel.receive_bytes(int(message["bytes"]))   # read it whatever follows
        self.close_rows()
        self.job = None
        self.job = Job(message, body)
        return {"ok": True}

    def cmd_prepare(self, message):
        name = message.get("row")
        if name not in ROWS:
            raise Failure(f"unknown row {name!r} (rows are {', '.join(ROWS)})")
        if self.job is None:
            raise Failure("prepare needs a job")
        self.close_row(name)                # a failed prepare leaves it unprepared
        row = ROWS[name]()
        job = self.job.part(int(message.get("bars", len(self.job.close))),
                            int(message.get("step", 1)))
        try:
            row.prepare(job, message)
        except BaseException:
            row.close()
            raise
        self.rows[name] = row
        self.row_jobs[name] = job
        return {"ok": True}

    # <<worker-a-timed-run>>, paper/58-python-client.md
    def cmd_run(self, message):
        row = self.rows.get(message.get("row"))
        if row is None:
            raise Failure(f"row {message.get('row')!r} is not prepared")
        timing = bool(message.get("timing", False))
        faults, cpu_start = minor_faults(), current_cpu()
        c0 = time.process_time_ns()
        t0 = time.perf_counter_ns()
        job = self.row_jobs[message.get("row")]
        pnl, trades, calls = row.run(job, timing)
        t1 = time.perf_counter_ns()
        c1 = time.process_time_ns()
        cpu_end, faults = current_cpu(), minor_faults() - faults
        witnesses = row.witness(job, calls) if timing else []
        return {"ok": True, "seconds": (t1 - t0) * 1e-9, "client_cpu_s": (c1 - c0) * 1e-9,
                "cpu_start": cpu_start, "cpu_end": cpu_end, "client_minor_faults": faults,
                "pnl": [float.hex(float(x)) for x in pnl],
                "trades": [int(x) for x in trades],
                "calls": [c.as_dict() for c in calls], "witnesses": witnesses}

    # <<worker-echo-serialization-and-closing>>, paper/58-python-client.md
    MAX_CHAIN = 16                  # the stretch calls a state probe chains at most

    def cmd_echo(self, message):
        return echo(self.job, message)

    def cmd_serialize(self, message):
        return serialize(self.job, message)

    def cmd_touch(self, message):
        pages, page = int(message["pages"]), int(message["page_bytes"])
        mapping = mmap.mmap(-1, pages * page)
        memory = np.frombuffer(mapping, dtype=np.uint8)
        answer = {"ok": True}
        for touch, value in (("first", 1), ("again", 2)):
            faults = minor_faults()
            t0 = time.perf_counter_ns()
            memory[::page] = value
            t1 = time.perf_counter_ns()
            answer[touch + "_ns"], answer[touch + "_faults"] = t1 - t0, minor_faults() - faults
        del memory
        mapping.close()
        return answer

    def cmd_state(self, message):
        state, n = message["state"], int(message["floats"])
        if state not in ("hot", "engine", "client", "idle"):
            raise Failure(f"a Python state probe is hot, engine, client or idle, not {state!r}")
        engine = self.probe_engine(message["socket"])
        values = np.ascontiguousarray(self.job.close[:n])
        back = self.probe_out(n)
        t0 = time.perf_counter_ns()
        if state == "hot":
            engine.echo(values, out=back)   # the same echo just before: the curve's condition
        elif state == "engine":
            chain = int(message.get("chain", 0))
            if not 0 <= chain <= self.MAX_CHAIN:
                raise Failure(f"a chain is 0 to {self.MAX_CHAIN} stretch calls, not {chain}")
            engine.echo(values, out=back)   # its engine just served: only the stretch between
            kernel_call = self.probe_kernel(engine).as_dict()   # the client waits through it
            chain_calls = [self.probe_kernel(engine).as_dict() for _ in range(chain)]
            engine.echo(values, timing=True, out=back)
            return {"ok": True, "call": engine.last_call.as_dict(), "kernel_call": kernel_call,
                    "chain_calls": chain_calls, "stretch_ns": self.probe_compute_ns}
        else:
            engine.echo(values, out=back)   # every buffer just touched: only the stretch between
            t0 = time.perf_counter_ns()
            if state == "client":
                self.stretch(int(message["stretch_ns"]))
            else:
                time.sleep(int(message["stretch_ns"]) * 1e-9)
        t1 = time.perf_counter_ns()
        engine.echo(values, timing=True, out=back)
        return {"ok": True, "call": engine.last_call.as_dict(),
                "stretch_ns": t1 - t0 if state != "hot" else 0}

    def probe_out(self, n):
        """A kept array of n doubles for the probes' echoes: they allocate nothing."""
        if self.probe_array is None or len(self.probe_array) < n:
            self.probe_array = np.empty(n)
        return self.probe_array[:n]

    def probe_engine(self, path):
        """The probes' engine at path, connected once and kept."""
        if self.probes is None or self.probes.path != os.fspath(path):
            self.probes = ipc.Engine(path)
            self.probe_loaded = False
        return self.probes

    def probe_kernel(self, engine):
        """The C probe's long stretch from this client: the middle combination
        over the series, loaded on this connection once; the call's record."""
        if not self.probe_loaded:
            engine.load(self.job.close)
            self.probe_loaded = True
        middle = len(self.job.params) // 2
        engine.sweep_loaded(self.job.params[middle:middle + 1], timing=True)
        self.probe_compute_ns = engine.last_call.engine.compute_ns
        return engine.last_call

    def stretch(self, ns):
        """numpy copying between two workspace-sized arrays for about ns."""
        if self.stretch_arrays is None:
            a = np.ones(STRETCH_BYTES // 8)
            self.stretch_arrays = (a, np.empty_like(a))
        a, b = self.stretch_arrays
        end = time.perf_counter_ns() + ns
        while time.perf_counter_ns() < end:
            np.copyto(b, a)
            a, b = b, a

    def close_row(self, name):
        row = self.rows.pop(name, None)
        if row is not None:
            row.close()

    def close_rows(self):
        for name in list(self.rows):
            self.close_row(name)


# <<worker-main-loop>>, paper/58-python-client.md
def describe(error):
    if isinstance(error, ipc.EngineError):
        return f"engine error: {error.message}"
    if isinstance(error, Failure):
        return str(error)
    if isinstance(error, KeyError):
        return f"the message lacks the field {error}"
    return f"{type(error).__name__}: {error}"


# The refusals a request can meet by design: their message says it all.
REFUSALS = (ipc.EngineError, ipc.ProtocolError, Failure, KeyError, ValueError)


def where(error):
    """The file and line an unforeseen exception was raised at: " (at
    worker.py:123)"; nothing for a refusal, whose message is its reason."""
    if isinstance(error, REFUSALS):
        return ""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    return f" (at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno})"


def main():
    out = os.fdopen(os.dup(1), "wb")    # the protocol's own copy of standard output
    os.dup2(2, 1)                       # anything else written to fd 1 goes to stderr
    sys.stdout = sys.stderr
    channel = Channel(sys.stdin.buffer, out)
    worker = Worker(channel)
    try:
        while True:
            try:
                message = channel.receive()
                if message is None:
                    break                   # the harness has gone
                reply = worker.handle(message)
            except EOFError:
                break
            except Exception as error:      # every failure is a reply, never a crash
                if os.environ.get("IPCTAX_TRACEBACK"):
                    traceback.print_exc(file=sys.stderr)
                reply = {"ok": False, "error": describe(error) + where(error)}
            channel.send(reply if reply is not None else {"ok": True})
            if reply is None:
                break                       # quit
    except BrokenPipeError:
        return 1                            # nobody is listening any more
    finally:
        worker.close_rows()
    return 0


if __name__ == "__main__":
    sys.exit(main())
