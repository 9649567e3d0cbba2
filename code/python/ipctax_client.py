"""ipctax_client - call ipctax-engine, the engine of "The IPC Tax" re-run in C, from Python.

Tangled from paper/58-python-client.md; edit the chapter, not this file.
The protocol is that of paper/50-protocol.md and paper/80-stateful.md. By
default a call copies nothing it need not: the request goes out in one
sendmsg of the header and of the caller's arrays, and the reply is read
into a buffer the connection keeps. copying=True makes every call as the
original study's script made it: the request joined into one bytes object
(ndarray.tobytes(), b"".join), each reply read into a new buffer.

    import ipctax_client as ipc
    with ipc.Engine.start("build/ipctax-engine") as engine:   # or ipc.Engine(SOCKET_PATH)
        pnl, trades = engine.sweep(ipc.study_series(), ipc.study_grid())
        print(engine.last_call)                                 # what the call cost, phase by phase

PnL are in percentage points. Install it with pip, or copy this one file
with `make install-python` (README.md, "Using the engine from Python").
"""
import dataclasses
import math
import os
import resource
import select
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
from typing import Optional

import numpy as np

# <<client-release-and-public-names>>, paper/58-python-client.md
__version__ = "1.19.0"         # the release of CITATION.cff (tests/python checks it)

__all__ = [
    "Engine", "EngineProcess", "SpawnedEngine", "engine_times_calls",
    "EngineError", "ProtocolError", "EngineTimeout", "Call", "EngineTiming",
    "study_grid", "study_series", "PARAM_NAMES", "STUDY_COMBOS", "STUDY_BARS", "STUDY_SEED",
    "PNL_UNIT", "ROUND_TRIP_FEE", "DEFAULT_TIMEOUT", "DEFAULT_MAX_FRAME",
]


# <<client-the-frames-pieces>>, paper/58-python-client.md
# <<client-protocol-constants>>, paper/58-python-client.md
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
FRAME_HEAD = struct.Struct("<IBII")        # the two above, one after the other
TIMING_TRAILER = struct.Struct("<7Q")      # engine, decode, compute, encode, cpu: ns;
                                           # the engine's clock on receipt; its page faults


# <<client-limits>>, paper/58-python-client.md
DEFAULT_MAX_FRAME = 16 * 1024 * 1024   # the engine's default --max-frame: largest request body
MAX_ERROR_MESSAGE = 4096               # an error frame's longest text; the engine's fit in 512
DEFAULT_TIMEOUT = 120.0                # seconds a call may take, all its waits together
READY_TIMEOUT = 10.0                   # seconds Engine.start waits for the "listening" line
STOP_TIMEOUT = 10.0                    # seconds an engine of our own gets to stop on SIGTERM


# <<client-the-studys-grid>>, paper/58-python-client.md
PARAM_NAMES = ("h_half", "h_len", "h_sqrt", "t_third", "t_half", "t_len")
STUDY_COMBOS = 80                      # the study's parameter sets
GRID_MIN_LENGTH, GRID_MAX_LENGTH = 6, 200
PNL_UNIT = "percentage points"         # of each trade's entry price, summed, fees paid
ROUND_TRIP_FEE = 0.09                  # percentage points charged per closed trade


def study_grid(n_combos=STUDY_COMBOS, max_length=GRID_MAX_LENGTH):
    """The study's parameter sets (paper/30-kernel.md).

    Combination k has the length L = 6 + round(k (max_length - 6) / (n_combos - 1)),
    halves rounded up in integer arithmetic, and the windows of PARAM_NAMES in
    wire order: L // 2, L, isqrt(L), P // 3, P // 2 and P, for the period
    P = L // 2, each at least 1.

    Parameters
    ----------
    n_combos : int, optional
        How many parameter sets; the study's 80 by default.
    max_length : int, optional
        The longest length L; fewer sets, or a smaller max_length for a short
        series, spread the same way.

    Returns
    -------
    numpy.ndarray
        An (n_combos, 6) array of int64 windows, one parameter set per row.

    Examples
    --------
    >>> grid = study_grid()
    >>> grid.shape
    (80, 6)
    >>> grid[0].tolist(), grid[-1].tolist()
    ([3, 6, 2, 1, 1, 3], [100, 200, 14, 33, 50, 100])
    """
    steps, span = max(n_combos - 1, 1), max_length - GRID_MIN_LENGTH
    rows = []
    for k in range(n_combos):
        length = GRID_MIN_LENGTH + (span * k + steps // 2) // steps
        period = length // 2
        rows.append([max(1, length // 2), length, max(1, math.isqrt(length)),
                     max(1, period // 3), max(1, period // 2), period])
    return np.array(rows, dtype=np.int64).reshape(n_combos, PARAMS_PER_COMBO)


# <<client-the-studys-series>>, paper/58-python-client.md
STUDY_BARS = 150_000                   # the study's bars
STUDY_SEED = 42                        # numpy.random.RandomState's seed
SERIES_SIGMA = 0.001                   # volatility per bar
SERIES_START = 100.0                   # the first price's base, P0


def study_series(n_bars=STUDY_BARS, seed=STUDY_SEED):
    """The study's close series, bit for bit the one the C harness sweeps.

    Geometric Brownian motion (paper/20-data.md): with z the standard normals
    of numpy.random.RandomState(seed), lp = lp + (-0.5 sigma^2 + sigma z[t])
    in order from lp = 0, and close[t] = 100 exp(lp), sigma = 0.001.

    Parameters
    ----------
    n_bars : int, optional
        How many bars; the study's 150,000 by default. A shorter series is the
        first n_bars of the longer one.
    seed : int, optional
        The generator's seed; the study's 42 by default.

    Returns
    -------
    numpy.ndarray
        n_bars float64 prices, all finite and above 0.

    Examples
    --------
    >>> import hashlib
    >>> close = study_series()
    >>> close[:3].tolist()
    [100.04963372876203, 100.0357513744651, 100.1005143208127]
    >>> hashlib.sha256(close.astype("<f8").tobytes()).hexdigest()
    'b009ebcaa7b72ba6778188046260512bf781587a7abe6445a076dd07a1fb8576'
    """
    if isinstance(n_bars, bool) or not isinstance(n_bars, (int, np.integer)):
        raise TypeError(f"n_bars must be an integer, not {type(n_bars).__name__}")
    if n_bars < 1:
        raise ValueError(f"n_bars must be at least 1, not {n_bars}")
    drift, log_price, close = -0.5 * SERIES_SIGMA * SERIES_SIGMA, 0.0, []
    for z in np.random.RandomState(seed).standard_normal(int(n_bars)).tolist():
        log_price = log_price + (drift + SERIES_SIGMA * z)
        close.append(SERIES_START * math.exp(log_price))
    return np.array(close, dtype=np.float64)


# <<client-errors>>, paper/58-python-client.md
class EngineError(Exception):
    """The engine refused a request with an error frame.

    Attributes
    ----------
    message : str
        The engine's text, verbatim.
    where : str
        The engine: its socket path, or the command of a spawned one. str()
        gives both.

    Notes
    -----
    The engine closes the connection after an error frame, so the Engine that
    raised this is closed too; open a new one to go on.
    """

    def __init__(self, message, where):
        super().__init__(f"{where}: {message}")
        self.message, self.where = message, where


class ProtocolError(Exception):
    """A reply that does not fit its request, a connection that ended early, or
    bytes nobody asked for. The Engine that raised it is closed, so that it can
    never take what is left for the answer to its next call."""


class EngineTimeout(ProtocolError, TimeoutError):
    """No whole reply by the call's deadline (the Engine's timeout); closed too."""


def _naming(error, what):
    """An OSError of error's kind, its text led by what it concerned."""
    if error.errno is None:
        return type(error)(f"{what}: {error}")
    return type(error)(error.errno, f"{what}: {error.strerror}")


# <<client-call-record>>, paper/58-python-client.md
def _minor_faults():
    """The pages this process has touched for the first time so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _nbytes(views):
    """The bytes a request's pieces hold: what it puts on the wire."""
    return sum(memoryview(v).nbytes for v in views)


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
    """What one call cost as the client saw it, in ns of time.perf_counter_ns.

    Attributes
    ----------
    rtt_ns : int
        The whole call, from before the encode to after the decode.
    encode_ns, send_ns, wait_ns, decode_ns : int
        Its four phases (paper/58-python-client.md). A spawned engine's send_ns
        includes starting it.
    process_ns : int or None
        A spawned engine's life, from its start to its exit.
    engine : EngineTiming or None
        The engine's own account, when the call asked for timing.
    """
    rtt_ns: int          # the whole call, encode to decode
    encode_ns: int       # the request made ready to send
    send_ns: int         # handed to the kernel (a spawned engine: starting it too)
    wait_ns: int         # until the whole reply frame is read
    decode_ns: int       # the reply as arrays, and the trailer
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


# <<client-encode-a-request>>, paper/58-python-client.md
def _not_an_array(values, what, expected):
    """TypeError for values that no array of numbers can come from."""
    if values is None or isinstance(values, (str, bytes, bytearray, dict, set)):
        raise TypeError(f"{what} must be {expected}, not {type(values).__name__}")


def as_series(values, what="close"):
    """values as a contiguous 1-d array of little-endian doubles (copied only if it must be).

    TypeError for None, text, or values that are not real numbers (booleans
    included); ValueError for another shape.
    """
    _not_an_array(values, what, "a series of numbers")
    raw = np.asarray(values)
    if raw.dtype.kind not in "fiu":
        raise TypeError(f"{what} must hold real numbers, not {raw.dtype}"
                        + (" (booleans are not prices)" if raw.dtype.kind == "b" else ""))
    series = np.ascontiguousarray(raw, dtype="<f8")
    if series.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, not of shape {series.shape}")
    return series


def _holds_a_bool(values):
    """Whether a list (of lists) holds a bool, which numpy would turn into 1 or 0."""
    return any(isinstance(x, (bool, np.bool_)) for x in np.asarray(values, dtype=object).ravel())


def as_params(params):
    """params as a contiguous (n, 6) array of little-endian int64; one set may be given flat.

    None is no parameter sets. An array that numpy cannot cast to int64 by its
    'safe' rule (floats, uint64), or booleans, are refused, never truncated.
    """
    if params is None:
        return np.empty((0, PARAMS_PER_COMBO), "<i8")
    _not_an_array(params, "params", "an (n, 6) array of integer windows")
    p = np.asarray(params)
    if p.dtype.kind == "b" or (not isinstance(params, np.ndarray) and p.dtype.kind in "iu"
                               and _holds_a_bool(params)):
        raise TypeError("windows must be integers, not booleans")
    if p.size > 0 and not np.can_cast(p.dtype, "<i8", casting="safe"):
        values = p.reshape(-1)
        fractional = values[~(values == np.trunc(values))] if p.dtype.kind == "f" else ()
        raise TypeError(f"windows must be integers: {p.dtype} does not cast safely to int64"
                        + (f" ({fractional[0]} would be truncated)" if len(fractional) else ""))
    p = np.ascontiguousarray(p, dtype="<i8")
    if p.ndim == 1 and p.size == PARAMS_PER_COMBO:
        p = p.reshape(1, PARAMS_PER_COMBO)
    if p.ndim != 2 or p.shape[1] != PARAMS_PER_COMBO:
        raise ValueError(f"parameter sets must have shape (n, 6), not {p.shape}")
    return p


def _series_or_none(values):
    """A request's series: as_series, or no series at all for None."""
    return np.empty(0, "<f8") if values is None else as_series(values)
def _request_parts(opcode, close, params, timing):
    close, params = _series_or_none(close), as_params(params)
    opcode |= TIMING_FLAG if timing else 0
    return [REQUEST_HEADER.pack(opcode, len(close), len(params)),
            close.tobytes(), params.tobytes()]


def request_body(opcode, close=None, params=None, timing=False):
    """The body of a request: [u8 opcode][u32 n_bars][u32 n_combos][close][params]."""
    return b"".join(_request_parts(opcode, close, params, timing))


def request_frame(opcode, close=None, params=None, timing=False):
    """A whole request frame, the original's way: the body with its length word in front."""
    parts = _request_parts(opcode, close, params, timing)
    return b"".join([LENGTH_WORD.pack(sum(len(p) for p in parts))] + parts)


def pack_head(into, opcode, n_bars, n_combos, timing):
    """The length word and the request header, packed into the buffer `into` (FRAME_HEAD.size)."""
    body = REQUEST_HEADER.size + 8 * n_bars + 8 * PARAMS_PER_COMBO * n_combos
    FRAME_HEAD.pack_into(into, 0, body, opcode | (TIMING_FLAG if timing else 0), n_bars, n_combos)


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


# <<client-check-a-request>>, paper/58-python-client.md
def check_prices(series, what="close"):
    """series (an array from as_series) if it is a series of prices; ValueError otherwise.

    A series of prices is not empty, and every value is finite and above 0.
    """
    if len(series) == 0:
        raise ValueError(f"{what} is empty: a series to sweep needs at least one bar")
    if series.min() > 0 and series.max() < math.inf:     # NaN fails both; nothing allocated
        return series
    bad = ~(np.isfinite(series) & (series > 0))
    i = int(np.argmax(bad))
    why = "a series to sweep must be finite" if not np.isfinite(series[i]) else \
        "a price must be above 0"
    raise ValueError(f"{what}[{i}] is {series[i]}: {why}")


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
    if close is None and opcode in (OP_SWEEP, OP_ECHO, OP_LOAD):
        raise TypeError("close must be a series of numbers, not None")
    if params is None and opcode in (OP_SWEEP, OP_SWEEP_LOADED):
        raise TypeError("params must be an (n, 6) array of integer windows, not None")
    close, params = _series_or_none(close), as_params(params)
    check_size(len(close), len(params), max_frame)
    if opcode in (OP_SWEEP, OP_LOAD):
        check_prices(close)
    if opcode in (OP_SWEEP, OP_SWEEP_LOADED) and len(params) == 0:
        raise ValueError("params holds no parameter set: a sweep needs at least one")
    if opcode == OP_SWEEP:
        check_windows(params, len(close), "n_bars")
    elif opcode == OP_SWEEP_LOADED:
        check_windows(params, loaded_bars, "the loaded n_bars")
    return close, params


# <<client-decode-a-reply>>, paper/58-python-client.md
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
    a load, and the body itself for an opcode this module does not know. The
    arrays are views of body.
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


# <<client-the-engines>>, paper/58-python-client.md
# <<client-deadlines>>, paper/58-python-client.md
DEADLINE_SLACK = 0.01          # the kernel's timeouts are reset when 1% of the timeout off


def _socket_timeouts(sock, seconds):
    """SO_RCVTIMEO and SO_SNDTIMEO: the kernel ends any one wait after seconds."""
    whole = int(seconds)
    timeval = struct.pack("@ll", whole, max(int((seconds - whole) * 1e6), 0 if whole else 1))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)


def _deadline(timeout):
    """The time.monotonic() by which a call that starts now must end; None for no timeout."""
    return None if timeout is None else time.monotonic() + timeout


def _time_left(deadline, where, timeout):
    """Seconds to the deadline (None for none); EngineTimeout once it has passed."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise EngineTimeout(f"{where}: no whole reply within {timeout} s")
    return left


def _check_timeout(timeout):
    if timeout is not None and not timeout > 0:
        raise ValueError("timeout must be a number of seconds above 0, or None")


# <<client-what-the-engines-share>>, paper/58-python-client.md
def _advance(views, sent):
    """The byte views still to send after `sent` bytes of them went."""
    while views and sent >= views[0].nbytes:
        sent -= views[0].nbytes
        views = views[1:]
    if views and sent:
        views = [views[0][sent:]] + views[1:]
    return views


def _checked_out(out, n):
    """out, if an echo of n doubles can be written into it."""
    if out is not None and not (isinstance(out, np.ndarray) and out.dtype == np.float64
                                and out.shape == (n,) and out.flags.c_contiguous
                                and out.flags.writeable):
        raise TypeError(f"out must be a writeable, contiguous float64 array of shape ({n},)")
    return out


class _Framing:
    """How a call frames its request and holds its reply: careful, or copying as the original."""

    def _init_framing(self, copying):
        self.copying = bool(copying)
        self._head = bytearray(FRAME_HEAD.size)
        self._reply = bytearray(0)

    def _encode(self, opcode, close, params, timing):
        """The request as byte views to send, in order."""
        if self.copying:
            return [memoryview(request_frame(opcode, close, params, timing))]
        pack_head(self._head, opcode, len(close), len(params), timing)
        return [memoryview(piece).cast("B") for piece in (self._head, close, params)
                if len(piece)]

    def _reply_buffer(self, size):
        """A buffer of at least size bytes for a reply: the kept one, or a new one when copying."""
        if self.copying:
            return memoryview(bytearray(size))
        if len(self._reply) < size:
            self._reply = bytearray(size)
        return memoryview(self._reply)

    def _owned(self, result, out):
        """result, its arrays the caller's: copied out of the kept buffer (or into out)."""
        if isinstance(result, np.ndarray) and out is not None:
            np.copyto(out, result)
            return out
        if self.copying or result is None or isinstance(result, bytes):
            return result
        if isinstance(result, tuple):
            return tuple(a.copy() for a in result)
        return result.copy()


# <<client-engine-over-a-unix-socket>>, paper/58-python-client.md
class Engine(_Framing):
    """A connection to an engine on a Unix socket (ipctax-engine --unix PATH).

    Parameters
    ----------
    path : str or os.PathLike
        The engine's socket.
    timeout : float or None, optional
        Each call's deadline in seconds, for its whole exchange
        (DEFAULT_TIMEOUT); None waits for ever.
    max_frame : int, optional
        The engine's --max-frame, which no request may pass.
    copying : bool, optional
        False (the default): send the caller's arrays as they are and read
        replies into a kept buffer. True: the original study's way, a new
        bytes frame (tobytes, b"".join) and a new reply buffer per call.

    Notes
    -----
    Every call takes timing=True to ask the engine for its own account of the
    call, and leaves a Call record in last_call. A failed exchange closes the
    connection. Use it as a context manager, or call close().
    Engine.start(...) connects to an engine of its own.

    Examples
    --------
    >>> with Engine.start() as engine:
    ...     pnl, trades = engine.sweep(study_series(), study_grid())
    >>> len(pnl), pnl.dtype.name, trades.dtype.name
    (80, 'float64', 'int64')
    """

    def __init__(self, path, timeout=DEFAULT_TIMEOUT, max_frame=DEFAULT_MAX_FRAME, copying=False):
        if not REQUEST_HEADER.size <= max_frame <= FRAME_LENGTH_MASK:
            raise ValueError(f"max_frame must be in {REQUEST_HEADER.size}..{FRAME_LENGTH_MASK}")
        _check_timeout(timeout)
        self.path, self.where = os.fspath(path), f"engine at {path}"
        self.timeout, self.max_frame = timeout, max_frame
        self._init_framing(copying)
        self.last_call = self.loaded_bars = self.process = None
        self._deadline, self._armed = None, timeout
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

    # <<client-start-an-engine-of-its-own>>, paper/58-python-client.md
    @classmethod
    def start(cls, engine=None, args=(), timeout=DEFAULT_TIMEOUT, max_frame=None, copying=False):
        """An Engine connected to an engine of its own (EngineProcess), which close() stops.

        Parameters
        ----------
        engine, args
            EngineProcess's: the binary ($IPCTAX_ENGINE, else ipctax-engine on
            the PATH) and more options.
        timeout, copying
            The Engine's.
        max_frame : int, optional
            Passed as --max-frame, and this client's limit too.

        Returns
        -------
        Engine
            Connected; its process is in .process.

        Examples
        --------
        >>> with Engine.start(args=("--kernel", "tuned")) as engine:
        ...     engine.echo([2.5]).tolist()
        [2.5]
        """
        limit = ("--max-frame", str(max_frame)) if max_frame is not None else ()
        process = EngineProcess(engine, (*limit, *args))
        try:
            connection = cls(process.path, timeout, max_frame or DEFAULT_MAX_FRAME, copying)
        except BaseException:
            process.stop()
            raise
        connection.process = process
        return connection

    # <<client-calls-named-after-the-opcodes>>, paper/58-python-client.md
    def echo(self, values, timing=False, out=None):
        """values back from the engine, verbatim (opcode 1); any doubles, NaN too.

        Parameters
        ----------
        values : array_like
            A 1-d series of real numbers.
        timing : bool, optional
            Ask the engine to time the call (last_call.engine).
        out : numpy.ndarray, optional
            A float64 array of len(values) to receive the echo, so that the call
            allocates nothing for it.

        Returns
        -------
        numpy.ndarray
            The echoed doubles (out, when given).

        Examples
        --------
        >>> with Engine.start() as engine:
        ...     engine.echo([1.5, -0.0, float("nan")]).tolist()
        [1.5, -0.0, nan]
        """
        return self._call(OP_ECHO, values, None, timing, out)

    def sweep(self, close, params, timing=False):
        """Every parameter set over a series of prices (opcode 0).

        Parameters
        ----------
        close : array_like
            A 1-d series of prices: at least one, all finite and above 0.
        params : array_like
            An (n, 6) array of integer windows in 1..len(close), in the order of
            PARAM_NAMES, such as study_grid(); one set may be given flat.
        timing : bool, optional
            Ask the engine to time the call (last_call.engine).

        Returns
        -------
        pnl : numpy.ndarray
            float64; pnl[k] is set k's PnL in percentage points (PNL_UNIT).
        trades : numpy.ndarray
            int64; the trades set k closed.

        Raises
        ------
        TypeError
            close or params is None, text, booleans, or (params) not integers.
        ValueError
            An empty series, a price that is not finite or not above 0, a window
            outside 1..len(close), or a request larger than max_frame.
        EngineError
            The engine refused the request; its message says why.

        Examples
        --------
        >>> close = study_series()
        >>> with Engine.start() as engine:
        ...     pnl, trades = engine.sweep(close, study_grid())
        >>> float(pnl[0]), int(trades[0])                    # doctest: +ELLIPSIS
        (..., ...)
        """
        return self._call(OP_SWEEP, close, params, timing)

    def load(self, close, timing=False):
        """Keeps a series of prices on this connection for sweep_loaded (opcode 2).

        Examples
        --------
        >>> with Engine.start() as engine:
        ...     engine.load(study_series(1000))
        ...     pnl, trades = engine.sweep_loaded(study_grid(3, 100))
        >>> pnl.shape
        (3,)
        """
        return self._call(OP_LOAD, close, None, timing)

    def sweep_loaded(self, params, timing=False):
        """(pnl, trades) of every parameter set over the loaded series (opcode 3); see sweep."""
        return self._call(OP_SWEEP_LOADED, None, params, timing)

    def request(self, opcode, close=None, params=None, timing=False):
        """Any opcode, checked and decoded as the named calls are when it is theirs."""
        return self._call(opcode, close, params, timing)

    # <<time-the-four-phases-of-a-call>>, paper/58-python-client.md
    def _call(self, opcode, close, params, timing, out=None):
        self.last_call = None
        close, params = checked_request(opcode, close, params, self.loaded_bars, self.max_frame)
        out = _checked_out(out, len(close))
        size, exact = expected_reply(opcode, len(close), len(params), timing, self.max_frame)
        try:
            self._begin()
            faults = _minor_faults()
            t0 = time.perf_counter_ns()
            views = self._encode(opcode, close, params, timing)
            t1 = time.perf_counter_ns()
            self._send(views)
            t2 = time.perf_counter_ns()
            body = self._receive(size, exact)
            t3 = time.perf_counter_ns()
        except BaseException as error:
            self._raise_broken(error)
        result, engine = decode_reply(opcode, body, len(close), len(params), timing)
        result = self._owned(result, out)
        t4 = time.perf_counter_ns()
        faults = _minor_faults() - faults
        if opcode == OP_LOAD:
            self.loaded_bars = len(close)
        self.last_call = Call(t4 - t0, t1 - t0, t2 - t1, t3 - t2, t4 - t3, engine=engine,
                              sent_at_ns=t1, arrived_at_ns=t3, client_faults=faults,
                              request_bytes=_nbytes(views),
                              reply_bytes=LENGTH_WORD.size + memoryview(body).nbytes)
        return result

    def round_trip(self, frame):
        """Sends frame exactly as given, unchecked; returns the reply body."""
        self.loaded_bars = None
        try:
            self._begin()
            self._send([memoryview(frame).cast("B")])
            return self._receive(self.max_frame + TIMING_TRAILER.size, exact=False)
        except BaseException as error:
            self._raise_broken(error)

    # <<keep-to-the-calls-deadline>>, paper/58-python-client.md
    def _begin(self):
        self._deadline = _deadline(self.timeout)
        self._check_in_step()

    def _arm(self):
        """Before each wait: the kernel's timeouts set to what is left of the deadline."""
        left = _time_left(self._deadline, self.where, self.timeout)
        if left is not None and abs(self._armed - left) > DEADLINE_SLACK * self.timeout:
            _socket_timeouts(self._sock, left)
            self._armed = left

    # <<send-a-request-and-read-a-reply>>, paper/58-python-client.md
    def _send(self, views):
        try:
            while views:
                self._arm()
                try:
                    views = _advance(views, self._sock.sendmsg(views))
                except (BlockingIOError, socket.timeout):
                    pass                         # the kernel's timeout; the deadline decides
        except (BrokenPipeError, ConnectionResetError) as broken:
            try:
                self._receive(0, exact=False)    # raises the engine's EngineError, if it said why
            except (ProtocolError, OSError):
                pass
            raise ProtocolError(f"{self.where}: the engine closed the connection before it had "
                                f"the whole request ({broken.strerror}) and said nothing") from None

    def _receive(self, size, exact=True):
        """The reply's body: a view of the reply buffer."""
        if self.copying or not exact:
            (word,) = LENGTH_WORD.unpack(self._read_exactly(LENGTH_WORD.size))
            n = checked_length(word, size, exact, self.where)
            if word & ERROR_FRAME_FLAG:
                self._raise_error_frame(n)
            return self._read_exactly(n)
        whole = LENGTH_WORD.size + size
        buf = self._reply_buffer(whole)
        got = self._read_into(buf, 0, LENGTH_WORD.size, whole)
        (word,) = LENGTH_WORD.unpack_from(buf)
        n = checked_length(word, size, exact, self.where)
        if word & ERROR_FRAME_FLAG:
            self._raise_error_frame(n, bytes(buf[LENGTH_WORD.size:min(got, LENGTH_WORD.size + n)]))
        self._read_into(buf, got, whole, whole)
        return buf[LENGTH_WORD.size:whole]

    def _read_into(self, buf, got, least, most):
        """Reads into buf[got:most] until at least `least` bytes are there; how many are."""
        while got < least:
            self._arm()
            try:
                k = self._sock.recv_into(buf[got:most])
            except (BlockingIOError, socket.timeout):
                continue                         # the kernel's timeout; the deadline decides
            if k == 0:
                raise ProtocolError(f"{self.where}: the engine closed the connection after "
                                    f"{got} of {least} bytes")
            got += k
        return got

    def _read_exactly(self, n):
        buf = self._reply_buffer(n) if self.copying else memoryview(bytearray(n))
        self._read_into(buf, 0, n, n)
        return buf[:n]

    def _raise_error_frame(self, n, already=b""):
        message = (already + bytes(self._read_exactly(n - len(already)))).decode("utf-8", "replace")
        self._disconnect()
        raise EngineError(message, self.where)

    # <<keep-the-connection-in-step>>, paper/58-python-client.md
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
        timed_out = isinstance(error, (socket.timeout, BlockingIOError))
        fate = "" if self.process is None or isinstance(error, EngineError) else \
            "; " + self.process.fate(wait=0 if timed_out else 1.0)
        if timed_out:
            raise EngineTimeout(f"{self.where}: no whole reply within {self.timeout} s; "
                                f"the connection is closed{fate}") from None
        if isinstance(error, ProtocolError) and fate:
            raise type(error)(f"{error}{fate}") from None
        if isinstance(error, OSError):
            raise ProtocolError(f"{self.where}: {error}; the connection is closed{fate}") from error
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


# <<client-an-engine-of-its-own>>, paper/58-python-client.md
LOG_TAIL = 600                         # characters of an engine's log quoted when it dies


class EngineProcess:
    """An ipctax-engine of this process's own, on a socket in a new temporary folder.

    Parameters
    ----------
    engine : str or os.PathLike, optional
        The binary; $IPCTAX_ENGINE by default, else ipctax-engine on the PATH.
    args : sequence of str, optional
        More options, e.g. ("--kernel", "tuned").

    Notes
    -----
    The engine runs with --die-with-parent, and the constructor returns once
    it has said it is listening, so that a connection made right after cannot
    fail. Its stderr goes to log_path; fate() says what became of it; stop()
    ends it and removes the folder.
    """

    def __init__(self, engine=None, args=()):
        binary = engine or os.environ.get("IPCTAX_ENGINE") or shutil.which("ipctax-engine")
        if not binary:
            raise FileNotFoundError("no engine to start: give the path of ipctax-engine, "
                                    "or set IPCTAX_ENGINE")
        self.folder = tempfile.TemporaryDirectory(prefix="ipctax-engine-")
        self.path = os.path.join(self.folder.name, "engine.sock")
        self.log_path = os.path.join(self.folder.name, "engine.log")
        self.command = [os.fspath(binary), "--unix", self.path, "--die-with-parent",
                        *map(str, args)]
        self.popen = None
        try:
            with open(self.log_path, "wb") as log:
                self.popen = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                              stdout=subprocess.PIPE, stderr=log)
            self._wait_until_listening()
        except BaseException:
            self.stop()
            raise

    # <<wait-for-the-listening-line>>, paper/58-python-client.md
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

    # <<what-became-of-an-engine-of-its-own>>, paper/58-python-client.md
    def fate(self, wait=0.0):
        """What became of the engine, in words: its exit status and the end of its log."""
        if self.popen is None:
            return "the engine was stopped"
        try:
            status = self.popen.wait(wait) if wait > 0 else self.popen.poll()
        except subprocess.TimeoutExpired:
            status = None
        if status is None:
            state = f"the engine (pid {self.popen.pid}) is still running"
        elif status < 0:
            state = f"the engine exited with status {status} ({signal.Signals(-status).name})"
        else:
            state = f"the engine exited with status {status}"
        tail = self.log()[-LOG_TAIL:].strip()
        return state + (f"; its log ends: {tail}" if tail else "; its log is empty")

    # <<stop-an-engine-of-its-own>>, paper/58-python-client.md
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


# <<client-engine-spawned-per-call>>, paper/58-python-client.md
class SpawnedEngine(_Framing):
    """One engine process per call: ipctax-engine --stdin, the original's spawn_stdin.

    Parameters
    ----------
    engine_path : str or os.PathLike
        The engine binary.
    args : sequence of str, optional
        More options.
    max_frame, timeout, copying
        As Engine's; the timeout bounds each call from the start of its
        process to its exit.

    Notes
    -----
    The same echo, sweep, request and round_trip as Engine, with the same
    checks (a process that exits after one request keeps no state, so there
    is no load); last_call adds process_ns.

    Examples
    --------
    >>> import os
    >>> spawned = SpawnedEngine(os.environ["IPCTAX_ENGINE"])
    >>> spawned.echo([0.5]).tolist()
    [0.5]
    """

    def __init__(self, engine_path, args=(), max_frame=DEFAULT_MAX_FRAME,
                 timeout=DEFAULT_TIMEOUT, copying=False):
        _check_timeout(timeout)
        self.command = [os.fspath(engine_path), "--stdin", *args]
        self.where = f"engine {engine_path} --stdin"
        self.max_frame, self.timeout, self.last_call = max_frame, timeout, None
        self._init_framing(copying)

    def echo(self, values, timing=False, out=None):
        return self._call(OP_ECHO, values, None, timing, out)

    def sweep(self, close, params, timing=False):
        return self._call(OP_SWEEP, close, params, timing)

    def request(self, opcode, close=None, params=None, timing=False):
        return self._call(opcode, close, params, timing)

    def round_trip(self, frame):
        """Sends frame exactly as given to a new process; returns the reply body."""
        size = self.max_frame + TIMING_TRAILER.size
        reply, status, _ = self._run([memoryview(frame).cast("B")], size, False)
        return self._unframe(reply, status, size, False)

    def _call(self, opcode, close, params, timing, out=None):
        self.last_call = None
        close, params = checked_request(opcode, close, params, None, self.max_frame)
        out = _checked_out(out, len(close))
        size, exact = expected_reply(opcode, len(close), len(params), timing, self.max_frame)
        faults = _minor_faults()
        t0 = time.perf_counter_ns()
        views = self._encode(opcode, close, params, timing)
        t1 = time.perf_counter_ns()
        reply, status, t2 = self._run(views, size, exact)
        t3 = time.perf_counter_ns()
        body = self._unframe(reply, status, size, exact)
        result, engine = decode_reply(opcode, body, len(close), len(params), timing)
        result = self._owned(result, out)
        t4 = time.perf_counter_ns()
        faults = _minor_faults() - faults
        self.last_call = Call(t4 - t0, t1 - t0, t2 - t1, t3 - t2, t4 - t3,
                              process_ns=t3 - t1, engine=engine, sent_at_ns=t1,
                              arrived_at_ns=t3, client_faults=faults,
                              request_bytes=_nbytes(views),
                              reply_bytes=LENGTH_WORD.size + memoryview(body).nbytes)
        return result

    # <<run-one-engine-process>>, paper/58-python-client.md
    def _run(self, views, size, exact):
        """(what the process wrote, its exit status, when its stdin was written)."""
        deadline = _deadline(self.timeout)
        most = LENGTH_WORD.size + max(size, MAX_ERROR_MESSAGE)
        buf = self._reply_buffer(most)
        proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                bufsize=0)
        try:
            written, got = self._talk(proc, views, buf[:most], size, exact, deadline)
            try:
                status = proc.wait(_time_left(deadline, self.where, self.timeout))
            except subprocess.TimeoutExpired:
                raise EngineTimeout(f"{self.where}: wrote {got} bytes but did not exit within "
                                    f"{self.timeout} s") from None
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdin.close()
            proc.stdout.close()
        return buf[:got], status, written

    # <<talk-to-one-engine-process>>, paper/58-python-client.md
    def _talk(self, proc, views, buf, size, exact, deadline):
        """(when the request was all written, bytes of reply read) once the reply is whole."""
        stdin, stdout = proc.stdin.fileno(), proc.stdout.fileno()
        os.set_blocking(stdin, False)
        os.set_blocking(stdout, False)
        poller = select.poll()
        poller.register(stdout, select.POLLIN)
        poller.register(stdin, select.POLLOUT)
        got, end, framed, written = 0, LENGTH_WORD.size, False, None
        while got < end:
            if views is not None and not views:
                poller.unregister(stdin)
                proc.stdin.close()               # the whole request is in: end of input
                views, written = None, time.perf_counter_ns()
            left = _time_left(deadline, self.where, self.timeout)
            events = poller.poll(None if left is None else math.ceil(left * 1000))
            for fd, _ in events:
                if fd == stdin and views:
                    views = self._write_some(stdin, views)
                elif fd == stdout:
                    k = self._read_some(stdout, buf[got:end])
                    if k == 0:                   # the output ended before a whole reply
                        return written or time.perf_counter_ns(), got
                    got += k or 0
                    if not framed and got == LENGTH_WORD.size:
                        word = LENGTH_WORD.unpack_from(buf)[0]
                        end = LENGTH_WORD.size + checked_length(word, size, exact, self.where)
                        framed = True
        return written if written is not None else time.perf_counter_ns(), got

    @staticmethod
    def _write_some(fd, views):
        """Writes what the pipe takes now; the views still to write ([] if it stopped reading)."""
        try:
            return _advance(views, os.writev(fd, views))
        except BlockingIOError:
            return views
        except BrokenPipeError:
            return []                          # it refused early and exited; its error frame says why

    @staticmethod
    def _read_some(fd, view):
        """Bytes read into view now: 0 at the end of the output, None when none are there yet."""
        try:
            return os.readv(fd, [view])
        except BlockingIOError:
            return None

    # <<unframe-what-the-process-wrote>>, paper/58-python-client.md
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


# <<client-ask-whether-the-engine-times-its-calls>>, paper/58-python-client.md
def engine_times_calls(path):
    """True if the engine on path honours the timing bit, False if it refuses or ignores it.

    Examples
    --------
    >>> with Engine.start() as engine:
    ...     engine_times_calls(engine.path)
    True
    """
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
