"""ipctax_client.py - a Python client of ipctax-engine, framed as the original study did it.

Tangled from paper/58-python-client.md; edit the chapter, not this file.
The protocol is that of paper/50-protocol.md and paper/80-stateful.md:
struct for the headers, ndarray.tobytes() for the arrays on the way out,
numpy.frombuffer() for the replies.

    from ipctax_client import Engine
    with Engine("/tmp/ipctax.sock") as engine:    # ipctax-engine --unix /tmp/ipctax.sock
        pnl, trades = engine.sweep(close, params)
        print(engine.last_call)                     # what the call cost, phase by phase
"""
import dataclasses
import socket
import subprocess
import struct
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
TIMING_TRAILER = struct.Struct("<5Q")      # engine, decode, compute, encode, cpu: ns


class EngineError(Exception):
    """The engine refused a request with an error frame; `message` is its text.

    The engine closes the connection after an error frame, so the Engine that
    raised this is closed too; open a new one to go on.
    """

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class ProtocolError(Exception):
    """A reply that does not fit its request, or a connection that ended early."""


@dataclasses.dataclass
class EngineTiming:
    """The engine's own account of one call: the reply's 40-byte trailer, in ns."""
    engine_ns: int
    decode_ns: int
    compute_ns: int
    encode_ns: int
    cpu_ns: int


@dataclasses.dataclass
class Call:
    """What one call cost as the client saw it, in ns of time.perf_counter_ns."""
    rtt_ns: int          # the whole call, encode to decode
    encode_ns: int       # struct and tobytes: the request frame as bytes
    send_ns: int         # sendall (a spawned engine: starting it and writing its stdin)
    wait_ns: int         # until the whole reply frame is read
    decode_ns: int       # frombuffer and the trailer: the reply as arrays
    spawn_ns: Optional[int] = None           # spawned engines: process start to exit
    engine: Optional[EngineTiming] = None    # when the call asked for timing

    def as_dict(self):
        """The record with the field names of the worker's replies."""
        d = {"rtt_ns": self.rtt_ns, "encode_ns": self.encode_ns, "send_ns": self.send_ns,
             "wait_ns": self.wait_ns, "decode_ns": self.decode_ns}
        if self.spawn_ns is not None:
            d["spawn_ns"] = self.spawn_ns
        if self.engine is not None:
            d.update(engine_ns=self.engine.engine_ns, engine_decode_ns=self.engine.decode_ns,
                     compute_ns=self.engine.compute_ns, engine_encode_ns=self.engine.encode_ns,
                     engine_cpu_ns=self.engine.cpu_ns)
        return d


def as_series(values):
    """values as a 1-d array of little-endian doubles (copied only if it must be)."""
    series = np.asarray(values if values is not None else (), dtype="<f8")
    if series.ndim != 1:
        raise ValueError(f"a series must be one-dimensional, not of shape {series.shape}")
    return series


def as_params(params):
    """params as an (n, 6) array of little-endian int64; one set may be given flat."""
    p = np.asarray(params if params is not None else np.empty((0, PARAMS_PER_COMBO)),
                   dtype="<i8")
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


def reply_size(opcode, n_bars, n_combos):
    """Bytes of the reply body to a request with these counts, trailer excluded."""
    if opcode in (OP_SWEEP, OP_SWEEP_LOADED):
        return 16 * n_combos
    if opcode == OP_ECHO:
        return 8 * n_bars
    if opcode == OP_LOAD:
        return 0
    return None


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


class Engine:
    """A connection to an engine on a Unix socket (ipctax-engine --unix PATH).

    Every call takes timing=True to ask the engine for its own account of the
    call, and leaves a Call record (client phases, and the engine's timing when
    asked) in last_call. Use it as a context manager, or call close().
    """

    def __init__(self, path, timeout=None):
        self.path = path
        self.last_call = None
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.settimeout(timeout)
            self._sock.connect(path)
        except BaseException:
            self._sock.close()
            raise

    def echo(self, values, timing=False):
        """values back from the engine, verbatim (opcode 1)."""
        return self._call(OP_ECHO, values, None, timing)

    def sweep(self, close, params, timing=False):
        """(pnl, trades) of every parameter set over close (opcode 0)."""
        return self._call(OP_SWEEP, close, params, timing)

    def load(self, close, timing=False):
        """Keeps close on this connection for sweep_loaded (opcode 2)."""
        return self._call(OP_LOAD, close, None, timing)

    def sweep_loaded(self, params, timing=False):
        """(pnl, trades) of every parameter set over the loaded series (opcode 3)."""
        return self._call(OP_SWEEP_LOADED, None, params, timing)

    def request(self, opcode, close=None, params=None, timing=False):
        """Any opcode, its reply decoded as decode_reply says."""
        return self._call(opcode, close, params, timing)

    def round_trip(self, frame):
        """Sends frame exactly as given; returns the reply body, unchecked."""
        self._send(frame)
        return self._receive()

    def _call(self, opcode, close, params, timing):
        self.last_call = None
        t0 = time.perf_counter_ns()
        close, params = as_series(close), as_params(params)
        frame = request_frame(opcode, close, params, timing)
        t1 = time.perf_counter_ns()
        self._send(frame)
        t2 = time.perf_counter_ns()
        body = self._receive()
        t3 = time.perf_counter_ns()
        result, engine = decode_reply(opcode, body, len(close), len(params), timing)
        t4 = time.perf_counter_ns()
        self.last_call = Call(t4 - t0, t1 - t0, t2 - t1, t3 - t2, t4 - t3, engine=engine)
        return result

    def _send(self, frame):
        if self._sock is None:
            raise ProtocolError("this connection is closed")
        self._sock.sendall(frame)

    def _receive(self):
        (word,) = LENGTH_WORD.unpack(self._read_exactly(LENGTH_WORD.size))
        if word & ERROR_FRAME_FLAG:
            message = self._read_exactly(word & FRAME_LENGTH_MASK).decode("utf-8", "replace")
            self.close()
            raise EngineError(message)
        return self._read_exactly(word)

    def _read_exactly(self, n):
        buf = bytearray(n)
        view, got = memoryview(buf), 0
        while got < n:
            k = self._sock.recv_into(view[got:])
            if k == 0:
                self.close()
                raise ProtocolError(f"the engine closed the connection after {got} of {n} bytes")
            got += k
        return buf

    def close(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SpawnedEngine:
    """One engine process per call: ipctax-engine --stdin, the original's spawn_stdin.

    The same echo, sweep and request as Engine (a process that exits after
    one request keeps no state, so there is no load); last_call adds spawn_ns.
    """

    def __init__(self, engine_path, args=()):
        self.command = [str(engine_path), "--stdin", *args]
        self.last_call = None

    def echo(self, values, timing=False):
        return self._call(OP_ECHO, values, None, timing)

    def sweep(self, close, params, timing=False):
        return self._call(OP_SWEEP, close, params, timing)

    def request(self, opcode, close=None, params=None, timing=False):
        return self._call(opcode, close, params, timing)

    def _call(self, opcode, close, params, timing):
        self.last_call = None
        t0 = time.perf_counter_ns()
        close, params = as_series(close), as_params(params)
        frame = request_frame(opcode, close, params, timing)
        t1 = time.perf_counter_ns()
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
            t2 = time.perf_counter_ns()
            reply = proc.stdout.read()
            status = proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        t3 = time.perf_counter_ns()
        body = self._unframe(reply, status)
        result, engine = decode_reply(opcode, body, len(close), len(params), timing)
        t4 = time.perf_counter_ns()
        self.last_call = Call(t4 - t0, t1 - t0, t2 - t1, t3 - t2, t4 - t3,
                              spawn_ns=t3 - t1, engine=engine)
        return result

    @staticmethod
    def _unframe(reply, status):
        if len(reply) < LENGTH_WORD.size:
            raise ProtocolError(f"the engine exited with status {status} after writing "
                                f"{len(reply)} bytes")
        (word,) = LENGTH_WORD.unpack_from(reply)
        if word & ERROR_FRAME_FLAG:
            n = word & FRAME_LENGTH_MASK
            raise EngineError(reply[4:4 + n].decode("utf-8", "replace"))
        if len(reply) != LENGTH_WORD.size + word or status != 0:
            raise ProtocolError(f"the engine wrote {len(reply)} bytes for a {word}-byte reply "
                                f"and exited with status {status}")
        return memoryview(reply)[LENGTH_WORD.size:]


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
