"""ipctax_client.py - a Python client of ipctax-engine, framed as the original study did it.

Tangled from paper/58-python-client.md; edit the chapter, not this file.
The protocol is that of paper/50-protocol.md and paper/80-stateful.md:
struct for the headers, ndarray.tobytes() for the arrays on the way out,
numpy.frombuffer() for the replies.

    import ipctax_client as ipc
    with ipc.Engine.start("build/ipctax-engine") as engine:   # or ipc.Engine(SOCKET_PATH)
        pnl, trades = engine.sweep(close, ipc.study_grid())    # PnL in percentage points
        print(engine.last_call)                                 # what the call cost, phase by phase

`make install-python` copies this one file to where Debian's python3 finds
it (README.md, "Calling the engine from Python").
"""
import dataclasses
import math
import os
import resource
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import time
from typing import Optional

import numpy as np

OP_SWEEP = 0             # run the kernel over every parameter set
OP_ECHO = 1              # send the close array back, compute nothing
OP_LOAD = 2              # keep a series on the connection
OP_SWEEP_LOADED = 3      # sweep parameter sets over the kept series

TIMING_FLAG = 0x80                # the opcode's top bit: "time this call for me"
ERROR_FRAME_FLAG = 0x80000000     # the length word's top bit: an error frame
FRAME_LENGTH_MASK = 0x7FFFFFFF
PARAMS_PER_COMBO = 6              # h_half, h_len, h_sqrt, t_third, t_half, t_len

LENGTH_WORD = struct.Struct("<I")          # [u32 body_len]
REQUEST_HEADER = struct.Struct("<BII")     # [u8 opcode][u32 n_bars][u32 n_combos]
TIMING_TRAILER = struct.Struct("<7Q")      # engine, decode, compute, encode, cpu: ns;
                                           # the engine's clock on receipt; its page faults


DEFAULT_MAX_FRAME = 16 * 1024 * 1024   # the engine's default --max-frame: largest request body
MAX_ERROR_MESSAGE = 4096               # an error frame's longest text; the engine's fit in 512
DEFAULT_TIMEOUT = 120.0                # seconds waited on the engine at any one time (see text)
READY_TIMEOUT = 10.0                   # seconds Engine.start waits for the "listening" line
STOP_TIMEOUT = 10.0                    # seconds an engine of our own gets to stop on SIGTERM


PARAM_NAMES = ("h_half", "h_len", "h_sqrt", "t_third", "t_half", "t_len")
STUDY_COMBOS = 80                      # the study's parameter sets
GRID_MIN_LENGTH, GRID_MAX_LENGTH = 6, 200
PNL_UNIT = "percentage points"         # of each trade's entry price, summed, fees paid
ROUND_TRIP_FEE = 0.09                  # percentage points charged per closed trade


def study_grid(n_combos=STUDY_COMBOS, max_length=GRID_MAX_LENGTH):
    """The study's parameter sets (paper/30-kernel.md): an (n_combos, 6) int64 array.

    Combination k has the length L = 6 + round(k (max_length - 6) / (n_combos - 1)),
    halves rounded up in integer arithmetic, and the windows of PARAM_NAMES in
    wire order: L // 2, L, isqrt(L), P // 3, P // 2 and P, for the period
    P = L // 2, each at least 1. The defaults are the study's 80 lengths over
    [6, 200]; fewer combinations, or a smaller max_length for a short series,
    spread the same way.
    """
    steps, span = max(n_combos - 1, 1), max_length - GRID_MIN_LENGTH
    rows = []
    for k in range(n_combos):
        length = GRID_MIN_LENGTH + (span * k + steps // 2) // steps
        period = length // 2
        rows.append([max(1, length // 2), length, max(1, math.isqrt(length)),
                     max(1, period // 3), max(1, period // 2), period])
    return np.array(rows, dtype=np.int64).reshape(n_combos, PARAMS_PER_COMBO)


class EngineError(Exception):
    """The engine refused a request with an error frame.

    `message` is the engine's text, verbatim, and `where` names the engine (its
    socket path, or the command of a spawned one); str() gives both. The engine
    closes the connection after an error frame, so the Engine that raised this
    is closed too; open a new one to go on.
    """

    def __init__(self, message, where):
        super().__init__(f"{where}: {message}")
        self.message, self.where = message, where


class ProtocolError(Exception):
    """A reply that does not fit its request, a connection that ended early, or
    bytes nobody asked for. The Engine that raised it is closed, so that it can
    never take what is left for the answer to its next call."""


class EngineTimeout(ProtocolError, TimeoutError):
    """No reply, or not the rest of one, within the Engine's timeout; closed too."""


def _naming(error, what):
    """An OSError of error's kind, its text led by what it concerned."""
    if error.errno is None:
        return type(error)(f"{what}: {error}")
    return type(error)(error.errno, f"{what}: {error.strerror}")


def _minor_faults():
    """The pages this process has touched for the first time so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


@dataclasses.dataclass
class EngineTiming:
    """The engine's own account of one call: the reply's 56-byte trailer."""
    engine_ns: int
    decode_ns: int
    compute_ns: int
    encode_ns: int
    cpu_ns: int
    received_ns: int     # CLOCK_MONOTONIC when the engine held the request whole
    faults: int          # the engine's minor page faults while it served the call


@dataclasses.dataclass
class Call:
    """What one call cost as the client saw it, in ns of time.perf_counter_ns."""
    rtt_ns: int          # the whole call, encode to decode
    encode_ns: int       # struct and tobytes: the request frame as bytes
    send_ns: int         # sendall (a spawned engine: starting it and writing its stdin)
    wait_ns: int         # until the whole reply frame is read
    decode_ns: int       # frombuffer and the trailer: the reply as arrays
    process_ns: Optional[int] = None           # spawned engines: process start to exit
    engine: Optional[EngineTiming] = None    # when the call asked for timing
    sent_at_ns: int = 0                      # the clock as sending began ...
    arrived_at_ns: int = 0                   # ... and as the whole reply was in
    client_faults: Optional[int] = None      # the process's first touches in the call
    request_bytes: int = 0                   # the frames on the wire, length words included
    reply_bytes: int = 0

    def crossings(self):
        """(request_ns, reply_ns): the wait split at the engine's clock, or None."""
        if self.engine is None or not self.sent_at_ns:
            return None
        engine_end = self.engine.received_ns + self.engine.engine_ns
        return (max(self.engine.received_ns - self.sent_at_ns, 0),
                max(self.arrived_at_ns - engine_end, 0))

    def as_dict(self):
        """The record with the field names of the worker's replies."""
        d = {"rtt_ns": self.rtt_ns, "encode_ns": self.encode_ns, "send_ns": self.send_ns,
             "wait_ns": self.wait_ns, "decode_ns": self.decode_ns,
             "request_bytes": self.request_bytes, "reply_bytes": self.reply_bytes}
        if self.process_ns is not None:
            d["process_ns"] = self.process_ns
        if self.client_faults is not None:
            d["client_minor_faults"] = self.client_faults
        if self.engine is not None:
            d.update(engine_ns=self.engine.engine_ns, engine_decode_ns=self.engine.decode_ns,
                     compute_ns=self.engine.compute_ns, engine_encode_ns=self.engine.encode_ns,
                     engine_cpu_ns=self.engine.cpu_ns, engine_minor_faults=self.engine.faults)
            crossings = self.crossings()
            if crossings is not None:
                d.update(request_ns=crossings[0], reply_ns=crossings[1])
        return d


def as_series(values):
    """values as a 1-d array of little-endian doubles (copied only if it must be)."""
    series = np.asarray(values if values is not None else (), dtype="<f8")
    if series.ndim != 1:
        raise ValueError(f"a series must be one-dimensional, not of shape {series.shape}")
    return series


def as_params(params):
    """params as an (n, 6) array of little-endian int64; one set may be given flat.

    An array that numpy cannot cast to int64 by its 'safe' rule (floats, uint64)
    is refused, never truncated.
    """
    p = np.asarray(params if params is not None else np.empty((0, PARAMS_PER_COMBO), "<i8"))
    if p.size > 0 and not np.can_cast(p.dtype, "<i8", casting="safe"):
        values = p.reshape(-1)
        fractional = values[~(values == np.trunc(values))] if p.dtype.kind == "f" else ()
        raise TypeError(f"windows must be integers: {p.dtype} does not cast safely to int64"
                        + (f" ({fractional[0]} would be truncated)" if len(fractional) else ""))
    p = p.astype("<i8", copy=False)
    if p.ndim == 1 and p.size == PARAMS_PER_COMBO:
        p = p.reshape(1, PARAMS_PER_COMBO)
    if p.ndim != 2 or p.shape[1] != PARAMS_PER_COMBO:
        raise ValueError(f"parameter sets must have shape (n, 6), not {p.shape}")
    return p


def _request_parts(opcode, close, params, timing):
    close, params = as_series(close), as_params(params)
    opcode |= TIMING_FLAG if timing else 0
    return [REQUEST_HEADER.pack(opcode, len(close), len(params)),
            close.tobytes(), params.tobytes()]


def request_body(opcode, close=None, params=None, timing=False):
    """The body of a request: [u8 opcode][u32 n_bars][u32 n_combos][close][params]."""
    return b"".join(_request_parts(opcode, close, params, timing))


def request_frame(opcode, close=None, params=None, timing=False):
    """A whole request frame: the body with its length word in front."""
    parts = _request_parts(opcode, close, params, timing)
    return b"".join([LENGTH_WORD.pack(sum(len(p) for p in parts))] + parts)


def decode_request(body):
    """(opcode, close, params) of a request body; the arrays are views of it."""
    if len(body) < REQUEST_HEADER.size:
        raise ProtocolError(f"a request body of {len(body)} bytes has no header")
    opcode, n_bars, n_combos = REQUEST_HEADER.unpack_from(body)
    expected = REQUEST_HEADER.size + 8 * n_bars + 8 * PARAMS_PER_COMBO * n_combos
    if len(body) != expected:
        raise ProtocolError(f"a request body of {len(body)} bytes, but n_bars = {n_bars} "
                            f"and n_combos = {n_combos} need {expected}")
    close = np.frombuffer(body, dtype="<f8", count=n_bars, offset=REQUEST_HEADER.size)
    params = np.frombuffer(body, dtype="<i8", count=PARAMS_PER_COMBO * n_combos,
                           offset=REQUEST_HEADER.size + 8 * n_bars)
    return opcode, close, params.reshape(n_combos, PARAMS_PER_COMBO)


def finite_series(series, what="close"):
    """series (an array from as_series) if every value is finite; ValueError otherwise."""
    finite = np.isfinite(series)
    if not finite.all():
        i = int(np.argmin(finite))
        raise ValueError(f"{what}[{i}] is {series[i]}: a series to sweep must be finite")
    return series


def check_windows(params, n_bars, what):
    """ValueError unless every window is in 1..n_bars (n_bars None: at least 1)."""
    bad = params < 1 if n_bars is None else (params < 1) | (params > n_bars)
    if bad.any():
        k, i = np.argwhere(bad)[0]
        where = "below 1" if n_bars is None else f"outside 1..{what} ({n_bars})"
        raise ValueError(f"combo {k}, {PARAM_NAMES[i]}: window {params[k, i]} is {where}")


def check_size(n_bars, n_combos, max_frame):
    """ValueError if the request body would be larger than max_frame."""
    size = REQUEST_HEADER.size + 8 * n_bars + 8 * PARAMS_PER_COMBO * n_combos
    if size > max_frame:
        raise ValueError(f"a request body of {size} bytes is larger than max_frame "
                         f"({max_frame}), the engine's --max-frame; an engine started with "
                         "a larger one takes it, with max_frame= to match")


def checked_request(opcode, close, params, loaded_bars, max_frame):
    """(close, params) as arrays, after every check a call makes (see the text)."""
    close, params = as_series(close), as_params(params)
    check_size(len(close), len(params), max_frame)
    if opcode in (OP_SWEEP, OP_LOAD):
        finite_series(close)
    if opcode == OP_SWEEP:
        check_windows(params, len(close), "n_bars")
    elif opcode == OP_SWEEP_LOADED:
        check_windows(params, loaded_bars, "the loaded n_bars")
    return close, params


def reply_size(opcode, n_bars, n_combos):
    """Bytes of the reply body to a request with these counts, trailer excluded."""
    if opcode in (OP_SWEEP, OP_SWEEP_LOADED):
        return 16 * n_combos
    if opcode == OP_ECHO:
        return 8 * n_bars
    if opcode == OP_LOAD:
        return 0
    return None


def expected_reply(opcode, n_bars, n_combos, timing, max_frame):
    """(size, exact): a reply body is exactly size bytes, or at most size when not exact."""
    size = reply_size(opcode, n_bars, n_combos)
    if size is None:
        return max_frame + TIMING_TRAILER.size, False
    return size + (TIMING_TRAILER.size if timing else 0), True


def checked_length(word, size, exact, where):
    """The body length a frame's length word announces, if the reply may have it."""
    n = word & FRAME_LENGTH_MASK
    if word & ERROR_FRAME_FLAG:
        if n > MAX_ERROR_MESSAGE:
            raise ProtocolError(f"{where}: an error frame of {n} bytes, longer than any "
                                f"the engine writes ({MAX_ERROR_MESSAGE})")
    elif n > size or (exact and n != size):
        raise ProtocolError(f"{where}: a reply of {n} bytes to a request whose reply is "
                            f"{'' if exact else 'at most '}{size}")
    return n


def decode_reply(opcode, body, n_bars, n_combos, timing=False):
    """(result, EngineTiming or None) of the reply body to a request with these counts.

    result is (pnl, trades) for a sweep, the echoed array for an echo, None for
    a load, and the body itself for an opcode this module does not know.
    """
    size = reply_size(opcode, n_bars, n_combos)
    if size is None:
        return bytes(body), None
    trailer = TIMING_TRAILER.size if timing else 0
    if len(body) != size + trailer:
        raise ProtocolError(f"the reply to opcode {opcode} is {len(body)} bytes, not "
                            f"{size}" + (f" + {trailer} of timing" if timing else ""))
    engine = EngineTiming(*TIMING_TRAILER.unpack_from(body, size)) if timing else None
    if opcode == OP_ECHO:
        return np.frombuffer(body, dtype="<f8", count=n_bars), engine
    if opcode == OP_LOAD:
        return None, engine
    pnl = np.frombuffer(body, dtype="<f8", count=n_combos)
    trades = np.frombuffer(body, dtype="<i8", count=n_combos, offset=8 * n_combos)
    return (pnl, trades), engine


def _socket_timeouts(sock, seconds):
    """SO_RCVTIMEO and SO_SNDTIMEO: the kernel ends any one wait after seconds."""
    whole = int(seconds)
    timeval = struct.pack("@ll", whole, max(int((seconds - whole) * 1e6), 0 if whole else 1))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)


class Engine:
    """A connection to an engine on a Unix socket (ipctax-engine --unix PATH).

    Engine(path) connects to a running engine, Engine.start(...) to one of its
    own. timeout is how long the client waits on the engine at any one time
    (DEFAULT_TIMEOUT seconds; None waits for ever); max_frame is the engine's
    --max-frame, which no request may pass. Every call takes timing=True to ask
    the engine for its own account of the call, and leaves a Call record in
    last_call. A failed exchange closes the connection. Use it as a context
    manager, or call close().
    """

    def __init__(self, path, timeout=DEFAULT_TIMEOUT, max_frame=DEFAULT_MAX_FRAME):
        if not REQUEST_HEADER.size <= max_frame <= FRAME_LENGTH_MASK:
            raise ValueError(f"max_frame must be in {REQUEST_HEADER.size}..{FRAME_LENGTH_MASK}")
        if timeout is not None and not timeout > 0:
            raise ValueError("timeout must be a number of seconds above 0, or None")
        self.path, self.where = str(path), f"engine at {path}"
        self.timeout, self.max_frame = timeout, max_frame
        self.last_call = self.loaded_bars = self.process = None
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if timeout is not None:
                _socket_timeouts(self._sock, timeout)
            self._sock.connect(self.path)
        except BaseException as error:
            self._sock.close()
            if isinstance(error, OSError):
                raise _naming(error, f"cannot connect to an engine at {self.path}") from None
            raise
        self._pending = select.poll()
        self._pending.register(self._sock, select.POLLIN)

    @classmethod
    def start(cls, engine=None, args=(), timeout=DEFAULT_TIMEOUT, max_frame=None):
        """An Engine connected to an engine of its own (EngineProcess), which close() stops.

        engine and args are EngineProcess's; max_frame, when given, is passed as
        --max-frame and is this client's limit too. The process is in .process.
        """
        limit = ("--max-frame", str(max_frame)) if max_frame is not None else ()
        process = EngineProcess(engine, (*limit, *args))
        try:
            connection = cls(process.path, timeout, max_frame or DEFAULT_MAX_FRAME)
        except BaseException:
            process.stop()
            raise
        connection.process = process
        return connection

    def echo(self, values, timing=False):
        """values back from the engine, verbatim (opcode 1); any doubles, NaN too."""
        return self._call(OP_ECHO, values, None, timing)

    def sweep(self, close, params, timing=False):
        """(pnl, trades) of every parameter set over close (opcode 0).

        close must be finite, and params an (n, 6) array of integer windows in
        1..len(close), such as study_grid(). pnl[k] is combination k's PnL in
        percentage points (PNL_UNIT), trades[k] the trades it closed.
        """
        return self._call(OP_SWEEP, close, params, timing)

    def load(self, close, timing=False):
        """Keeps close (finite) on this connection for sweep_loaded (opcode 2)."""
        return self._call(OP_LOAD, close, None, timing)

    def sweep_loaded(self, params, timing=False):
        """(pnl, trades) of every parameter set over the loaded series (opcode 3)."""
        return self._call(OP_SWEEP_LOADED, None, params, timing)

    def request(self, opcode, close=None, params=None, timing=False):
        """Any opcode, checked and decoded as the named calls are when it is theirs."""
        return self._call(opcode, close, params, timing)

    def _call(self, opcode, close, params, timing):
        self.last_call = None
        close, params = checked_request(opcode, close, params, self.loaded_bars, self.max_frame)
        size, exact = expected_reply(opcode, len(close), len(params), timing, self.max_frame)
        try:
            self._check_in_step()
            faults = _minor_faults()
            t0 = time.perf_counter_ns()
            frame = request_frame(opcode, close, params, timing)
            t1 = time.perf_counter_ns()
            self._send(frame)
            t2 = time.perf_counter_ns()
            body = self._receive(size, exact)
            t3 = time.perf_counter_ns()
        except BaseException as error:
            self._raise_broken(error)
        result, engine = decode_reply(opcode, body, len(close), len(params), timing)
        t4 = time.perf_counter_ns()
        faults = _minor_faults() - faults
        if opcode == OP_LOAD:
            self.loaded_bars = len(close)
        self.last_call = Call(t4 - t0, t1 - t0, t2 - t1, t3 - t2, t4 - t3, engine=engine,
                              sent_at_ns=t1, arrived_at_ns=t3, client_faults=faults,
                              request_bytes=len(frame), reply_bytes=LENGTH_WORD.size + len(body))
        return result

    def round_trip(self, frame):
        """Sends frame exactly as given, unchecked; returns the reply body."""
        self.loaded_bars = None
        try:
            self._check_in_step()
            self._send(frame)
            return self._receive(self.max_frame + TIMING_TRAILER.size, exact=False)
        except BaseException as error:
            self._raise_broken(error)

    def _send(self, frame):
        try:
            self._sock.sendall(frame)
        except (BrokenPipeError, ConnectionResetError) as broken:
            try:
                self._receive(0)         # raises the engine's EngineError, if it said why
            except (ProtocolError, OSError):
                pass
            raise ProtocolError(f"{self.where}: the engine closed the connection before it had "
                                f"the whole request ({broken.strerror}) and said nothing") from None

    def _receive(self, size, exact=True):
        (word,) = LENGTH_WORD.unpack(self._read_exactly(LENGTH_WORD.size))
        n = checked_length(word, size, exact, self.where)
        if word & ERROR_FRAME_FLAG:
            self._raise_error_frame(n)
        return self._read_exactly(n)

    def _raise_error_frame(self, n):
        message = self._read_exactly(n).decode("utf-8", "replace")
        self._disconnect()
        raise EngineError(message, self.where)

    def _read_exactly(self, n):
        buf = bytearray(n)
        view, got = memoryview(buf), 0
        while got < n:
            k = self._sock.recv_into(view[got:])
            if k == 0:
                raise ProtocolError(f"{self.where}: the engine closed the connection after "
                                    f"{got} of {n} bytes")
            got += k
        return buf

    def _check_in_step(self):
        if self._sock is None:
            raise ProtocolError(f"{self.where}: this connection is closed")
        if not self._pending.poll(0):
            return
        if self._sock.recv(1, socket.MSG_PEEK) == b"":
            raise ProtocolError(f"{self.where}: the engine has closed this connection "
                                "(idle past its --idle-timeout?)")
        (word,) = LENGTH_WORD.unpack(self._read_exactly(LENGTH_WORD.size))
        if word & ERROR_FRAME_FLAG:             # "engine busy", said as it accepted us
            self._raise_error_frame(checked_length(word, 0, False, self.where))
        raise ProtocolError(f"{self.where}: the engine sent a frame that no request asked for")

    def _raise_broken(self, error):
        """Closes the connection and raises error, as a ProtocolError if it is an OSError."""
        self._disconnect()
        if isinstance(error, (socket.timeout, BlockingIOError)):
            raise EngineTimeout(f"{self.where}: no answer within {self.timeout} s; "
                                "the connection is closed") from None
        if isinstance(error, OSError):
            raise ProtocolError(f"{self.where}: {error}; the connection is closed") from error
        raise error

    @property
    def closed(self):
        return self._sock is None

    def close(self):
        """Closes the connection, and stops the engine if this Engine started it."""
        self._disconnect()
        if self.process is not None:
            self.process.stop()
            self.process = None

    def _disconnect(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class EngineProcess:
    """An ipctax-engine of this process's own, on a socket in a new temporary folder.

    engine is the binary (default $IPCTAX_ENGINE, else ipctax-engine on PATH),
    args more options, e.g. ("--kernel", "tuned"). The engine runs with
    --die-with-parent, and the constructor returns once it has said it is
    listening, so that a connection made right after cannot fail. Its stderr
    goes to log_path. stop() ends it and removes the folder.
    """

    def __init__(self, engine=None, args=()):
        binary = engine or os.environ.get("IPCTAX_ENGINE") or shutil.which("ipctax-engine")
        if not binary:
            raise FileNotFoundError("no engine to start: give the path of ipctax-engine, "
                                    "or set IPCTAX_ENGINE")
        self.folder = tempfile.TemporaryDirectory(prefix="ipctax-engine-")
        self.path = os.path.join(self.folder.name, "engine.sock")
        self.log_path = os.path.join(self.folder.name, "engine.log")
        self.command = [str(binary), "--unix", self.path, "--die-with-parent", *map(str, args)]
        self.popen = None
        try:
            with open(self.log_path, "wb") as log:
                self.popen = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                              stdout=subprocess.PIPE, stderr=log)
            self._wait_until_listening()
        except BaseException:
            self.stop()
            raise

    def _wait_until_listening(self):
        expected = f"listening unix:{self.path}\n".encode()
        line, ended, deadline = b"", False, time.monotonic() + READY_TIMEOUT
        stdout = self.popen.stdout.fileno()
        while len(line) < len(expected) and not line.endswith(b"\n") and not ended:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([stdout], [], [], left)[0]:
                break
            chunk = os.read(stdout, len(expected) - len(line))
            line, ended = line + chunk, not chunk
        if line != expected:
            raise RuntimeError(f"{' '.join(self.command)} did not start: "
                               + self._why_not(line, ended))

    def _why_not(self, line, ended):
        """What went wrong; a standard output that ended is an exit on its way."""
        try:
            status = self.popen.wait(STOP_TIMEOUT) if ended else self.popen.poll()
        except subprocess.TimeoutExpired:
            status = None
        log = self.log().strip()
        if status is not None:
            return f"it exited with status {status}" + (f": {log}" if log else "")
        if line:
            return f"it said {line!r}, not 'listening unix:...'"
        return f"no 'listening' line within {READY_TIMEOUT} s"

    def log(self):
        """What the engine has written to its stderr so far."""
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self):
        """SIGTERM (the engine removes its socket), SIGKILL after STOP_TIMEOUT."""
        if self.popen is not None:
            if self.popen.poll() is None:
                self.popen.terminate()
                try:
                    self.popen.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.popen.kill()
                    self.popen.wait()
            self.popen.stdout.close()
            self.popen = None
        self.folder.cleanup()


class SpawnedEngine:
    """One engine process per call: ipctax-engine --stdin, the original's spawn_stdin.

    The same echo, sweep, request and round_trip as Engine, with the same checks
    (a process that exits after one request keeps no state, so there is no
    load); last_call adds process_ns.
    """

    def __init__(self, engine_path, args=(), max_frame=DEFAULT_MAX_FRAME):
        self.command = [str(engine_path), "--stdin", *args]
        self.where = f"engine {engine_path} --stdin"
        self.max_frame, self.last_call = max_frame, None

    def echo(self, values, timing=False):
        return self._call(OP_ECHO, values, None, timing)

    def sweep(self, close, params, timing=False):
        return self._call(OP_SWEEP, close, params, timing)

    def request(self, opcode, close=None, params=None, timing=False):
        return self._call(opcode, close, params, timing)

    def round_trip(self, frame):
        """Sends frame exactly as given to a new process; returns the reply body."""
        size = self.max_frame + TIMING_TRAILER.size
        reply, status, _ = self._run(frame, size)
        return self._unframe(reply, status, size, False)

    def _call(self, opcode, close, params, timing):
        self.last_call = None
        close, params = checked_request(opcode, close, params, None, self.max_frame)
        size, exact = expected_reply(opcode, len(close), len(params), timing, self.max_frame)
        faults = _minor_faults()
        t0 = time.perf_counter_ns()
        frame = request_frame(opcode, close, params, timing)
        t1 = time.perf_counter_ns()
        reply, status, t2 = self._run(frame, size)
        t3 = time.perf_counter_ns()
        body = self._unframe(reply, status, size, exact)
        result, engine = decode_reply(opcode, body, len(close), len(params), timing)
        t4 = time.perf_counter_ns()
        faults = _minor_faults() - faults
        self.last_call = Call(t4 - t0, t1 - t0, t2 - t1, t3 - t2, t4 - t3,
                              process_ns=t3 - t1, engine=engine, sent_at_ns=t1,
                              arrived_at_ns=t3, client_faults=faults,
                              request_bytes=len(frame), reply_bytes=LENGTH_WORD.size + len(body))
        return result

    def _run(self, frame, size):
        """(what the process wrote, its exit status, when its stdin was written)."""
        proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                bufsize=0)
        try:
            try:
                view = memoryview(frame)
                while view:
                    view = view[proc.stdin.write(view):]
            except BrokenPipeError:
                pass                  # it refused early and exited; its error frame says why
            finally:
                try:
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            written = time.perf_counter_ns()
            reply = self._read_reply(proc, LENGTH_WORD.size + max(size, MAX_ERROR_MESSAGE))
            status = proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        return reply, status, written

    @staticmethod
    def _read_reply(proc, most):
        """What the process writes, up to most bytes; more, and it is killed."""
        buf = bytearray(most + 1)
        view, got = memoryview(buf), 0
        while got <= most:
            k = proc.stdout.readinto(view[got:])
            if not k:
                break
            got += k
        if got > most:
            proc.kill()
        return view[:got]

    def _unframe(self, reply, status, size, exact):
        if len(reply) < LENGTH_WORD.size:
            raise ProtocolError(f"{self.where} exited with status {status} after writing "
                                f"{len(reply)} bytes")
        (word,) = LENGTH_WORD.unpack_from(reply)
        n = checked_length(word, size, exact, self.where)
        if word & ERROR_FRAME_FLAG:
            raise EngineError(bytes(reply[4:4 + n]).decode("utf-8", "replace"), self.where)
        if len(reply) != LENGTH_WORD.size + n or status != 0:
            raise ProtocolError(f"{self.where} wrote {len(reply)} bytes for a {n}-byte reply "
                                f"and exited with status {status}")
        return reply[LENGTH_WORD.size:]


def engine_times_calls(path):
    """True if the engine on path honours the timing bit, False if it refuses or ignores it."""
    probe = np.array([1.5])
    with Engine(path) as engine:
        try:
            body = engine.round_trip(request_frame(OP_ECHO, probe, None, timing=True))
        except EngineError:
            return False                  # "unknown opcode 129": no timing bit yet
    if len(body) == 8:
        return False                      # the bit was ignored
    if len(body) == 8 + TIMING_TRAILER.size and bytes(body[:8]) == probe.tobytes():
        return True
    raise ProtocolError(f"a timed echo of one double came back as {len(body)} bytes")
