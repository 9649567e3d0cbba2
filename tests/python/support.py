"""support.py - what the Python tests share: paths, an engine on a temporary
socket, fake engines (one that times its calls, one that plays a test's
crafted replies), crafted series, the study's data.

Not a test module itself (unittest discovers test_*.py only).
"""
import csv
import hashlib
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np

ROOT = Path(os.environ.get("IPCTAX_ROOT", Path(__file__).resolve().parents[2]))
CODE = ROOT / "code" / "python"
for p in (CODE, ROOT / "tests" / "reference"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import ipctax_client as ipc  # noqa: E402

ENGINE = Path(os.environ.get("IPCTAX_ENGINE", ROOT / "build" / "ipctax-engine"))
BENCH = Path(os.environ.get("IPCTAX_BENCH", ROOT / "build" / "ipctax-bench"))
PARAM_NAMES = ipc.PARAM_NAMES


def require_engine():
    """Fails (it does not skip) when the engine has not been built."""
    if not os.access(ENGINE, os.X_OK):
        raise RuntimeError(f"{ENGINE} is missing: run `make build/ipctax-engine` first")


def architecture_clients():
    """{architecture: its client} as `ipctax-bench --list` prints the C table:
    "none", "c" or "python". Fails (it does not skip) when the harness has not
    been built."""
    if not os.access(BENCH, os.X_OK):
        raise RuntimeError(f"{BENCH} is missing: run `make build/ipctax-bench` first")
    listing = subprocess.run([str(BENCH), "--list"], capture_output=True, text=True,
                             timeout=60, check=True).stdout.splitlines()
    start = next(i for i, line in enumerate(listing) if line.startswith("architectures"))
    clients = {}
    for line in listing[start + 1:]:
        if not line.startswith("  "):
            break                       # the next section
        name, client = line.split()[:2]
        clients[name] = client
    return clients


class EngineProcess(ipc.EngineProcess):
    """The engine under test on a socket in a fresh temporary folder, started by
    the client's own launcher (ready once it has said it is listening)."""

    def __init__(self, *args):
        require_engine()
        super().__init__(ENGINE, args)


# --- fake engines ---------------------------------------------------------------

def read_exactly(conn, n):
    """n bytes from conn, or None if it ends first."""
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def read_frame(conn):
    """The body of the next frame on conn, or None at its end."""
    header = read_exactly(conn, 4)
    return None if header is None else read_exactly(conn, struct.unpack("<I", header)[0])


def frame(body):
    return struct.pack("<I", len(body)) + body


def error_frame(text):
    message = text.encode()
    return struct.pack("<I", 0x80000000 | len(message)) + message


class FakeServer:
    """A Unix socket served by a thread; converse(conn) plays each connection."""

    def __init__(self):
        self.dir = tempfile.TemporaryDirectory(prefix="ipctax-fake-")
        self.path = os.path.join(self.dir.name, "fake.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._converse, args=(conn,), daemon=True).start()

    def _converse(self, conn):
        with conn:
            try:
                self.converse(conn)
            except (OSError, struct.error):
                pass

    def stop(self):
        self.listener.close()
        self.dir.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class ScriptedEngine(FakeServer):
    """A fake engine that plays script(conn) on each connection: the replies a
    real engine never sends (a 2 GiB length word, a frame cut short, a frame
    nobody asked for), crafted by a test."""

    def __init__(self, script):
        self.converse = script
        super().__init__()


FAKE_TRAILER = (1_000_001, 2_002, 3_000_003, 4_004, 5_000_005, 6_000_000_006, 7)


class FakeEngine(FakeServer):
    """A thread serving the wire protocol on a Unix socket, computing nothing.

    Sweeps answer pnl = k + 0.25 and trades = 10 k for combination k; echo
    answers the series; load answers nothing. A request with the timing bit
    gets FAKE_TRAILER after the body, unless `mode` says otherwise:
    "short" sends a trailer one byte short, "refuse" answers a timed request
    with an error frame (an engine without the bit), "ignore" leaves the
    trailer out (an engine that ignores the bit).
    """

    def __init__(self, mode="honour"):
        self.mode = mode
        self.opcodes = []
        super().__init__()

    def converse(self, conn):
        while self._answer(conn):
            pass

    def _answer(self, conn):
        body = read_frame(conn)
        if body is None:
            return False
        opcode, n_bars, n_combos = struct.unpack_from("<BII", body)
        self.opcodes.append(opcode)
        timed, op = opcode & 0x80, opcode & 0x7F
        if timed and self.mode == "refuse":
            conn.sendall(error_frame(f"unknown opcode {opcode} (opcodes are 0 to 6)"))
            return False
        if op == ipc.OP_ECHO:
            reply = body[9:9 + 8 * n_bars]
        elif op in (ipc.OP_SWEEP, ipc.OP_SWEEP_LOADED):
            k = np.arange(n_combos)
            reply = (k + 0.25).astype("<f8").tobytes() + (10 * k).astype("<i8").tobytes()
        else:
            reply = b""
        if timed and self.mode == "honour":
            reply += struct.pack("<7Q", *FAKE_TRAILER)
        elif timed and self.mode == "short":
            reply += struct.pack("<7Q", *FAKE_TRAILER)[:-1]
        conn.sendall(frame(reply))
        return True


# --- series -------------------------------------------------------------------

def random_walk(n, seed, sigma=0.002):
    rng = np.random.RandomState(seed)
    return 100.0 * np.exp(np.cumsum(rng.standard_normal(n) * sigma))


def grid(n_combos, max_length=ipc.GRID_MAX_LENGTH):
    """The specification's grid (paper/30-kernel.md), for lengths up to max_length."""
    return ipc.study_grid(n_combos, max_length)


def crafted_cases():
    """Small series that reach every branch of the kernel, with parameter sets."""
    walk = random_walk(3000, 7)
    # flat stretches: the lines meet exactly, and a cross up can come while long
    steps = np.repeat(random_walk(60, 11, sigma=0.01), 25)
    flat = np.concatenate([steps, np.full(200, steps[-1]), steps[::-1]])
    nan = random_walk(800, 3)
    nan[400] = np.nan
    short = random_walk(12, 5)
    full_windows = np.array([[6, 12, 3, 2, 3, 6], [12, 12, 12, 12, 12, 12],
                             [1, 1, 1, 1, 1, 1], [2, 5, 1, 1, 1, 2]], dtype=np.int64)
    return {
        "random walk": (walk, grid(12)),
        "flat stretches": (flat, np.vstack([grid(8, 60), [[1, 2, 1, 1, 1, 2]]])),
        "a NaN in the series": (nan, grid(5, 80)),
        "windows as long as the series": (short, full_windows),
        "a sawtooth": (100.0 + np.tile(np.r_[np.arange(20.0), np.arange(20.0, 0, -1)], 30),
                       grid(6, 40)),
    }


# --- the study's data -----------------------------------------------------------

def run():
    """data/run.csv: the job (bars, combinations, seed, the series' SHA-256)."""
    with open(ROOT / "data" / "run.csv", newline="") as f:
        return {row["key"]: row["value"] for row in csv.DictReader(f)}


def sweep_csv():
    """(params, pnl, trades) of data/sweep.csv: the C kernel's in-process result."""
    with open(ROOT / "data" / "sweep.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    params = np.array([[int(r[c]) for c in PARAM_NAMES] for r in rows], dtype=np.int64)
    pnl = np.array([float(r["pnl"]) for r in rows])       # %.17g: the exact double
    trades = np.array([int(r["trades"]) for r in rows], dtype=np.int64)
    return params, pnl, trades


_series_cache = {}


def study_series():
    """The series data/sweep.csv was computed on, regenerated from the
    specification with numpy's RandomState(42), checked against its SHA-256."""
    m = run()
    n_bars = int(m["bars"])
    if n_bars not in _series_cache:
        import spec_numpy
        close = spec_numpy.series(n_bars)
        digest = hashlib.sha256(close.astype("<f8").tobytes()).hexdigest()
        if digest != m["series_sha256"]:
            raise AssertionError(f"the regenerated series has SHA-256 {digest}, "
                                 f"data/machine.csv says {m['series_sha256']}")
        _series_cache[n_bars] = close
    return _series_cache[n_bars]


def same_bits(a, b):
    a, b = np.asarray(a, dtype="<f8"), np.asarray(b, dtype="<f8")
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def bit_mismatches(a, b):
    a, b = np.asarray(a, dtype="<f8"), np.asarray(b, dtype="<f8")
    return [i for i in range(len(a)) if a[i:i + 1].tobytes() != b[i:i + 1].tobytes()]
