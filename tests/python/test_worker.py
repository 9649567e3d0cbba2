"""The worker of paper/58-python-client.md, driven as the harness drives it:
a child process, JSON lines on its stdin and stdout, a job's raw bytes."""
import json
import os
import select
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import support
from support import ipc

REPLY_TIMEOUT = 120          # seconds: a hung worker fails the test, never the build
ROWS = ("numba_in_process", "python_batch_unix", "python_batch_unix_copying",
        "python_chatty_unix", "python_stateful_unix", "python_spawn_stdin")
CLIENT_FIELDS = {"rtt_ns", "encode_ns", "send_ns", "wait_ns", "decode_ns", "request_bytes",
                 "reply_bytes", "client_minor_faults"}
ENGINE_FIELDS = {"engine_ns", "engine_decode_ns", "compute_ns", "engine_encode_ns",
                 "engine_cpu_ns", "engine_minor_faults", "request_ns", "reply_ns"}


class Worker:
    """A worker process and the two halves of its protocol."""

    def __init__(self):
        self.log = tempfile.TemporaryFile("w+")
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        self.proc = subprocess.Popen([sys.executable, "-B", str(support.CODE / "worker.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env=env)

    def send(self, message, payload=b""):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n" + payload)
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], REPLY_TIMEOUT)
        if not ready:
            self.proc.kill()
            raise AssertionError(f"no reply within {REPLY_TIMEOUT} s to {message}; "
                                 f"the worker's stderr:\n{self.stderr()}")
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"the worker said nothing; its stderr:\n{self.stderr()}")
        reply = json.loads(line)
        if not isinstance(reply, dict) or "ok" not in reply:
            raise AssertionError(f"not a reply: {line!r}")
        return reply

    def job(self, close, params):
        body = ipc.request_body(ipc.OP_SWEEP, close, params)
        return self.send({"cmd": "job", "n_bars": len(close), "n_combos": len(params),
                          "bytes": len(body)}, body)

    def stderr(self):
        self.log.seek(0)
        return self.log.read()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except BrokenPipeError:
                pass
        self.log.close()


def prepare_message(row, socket_path):
    message = {"cmd": "prepare", "row": row}
    if row == "python_spawn_stdin":
        message["engine"] = str(support.ENGINE)
    elif row != "numba_in_process":
        message["socket"] = socket_path
    return message


class TheWorkerEndToEnd(unittest.TestCase):
    """Every row on a small job, one worker for the whole class (numba compiles once)."""

    @classmethod
    def setUpClass(cls):
        support.require_engine()
        cls.server = support.EngineProcess()
        cls.worker = Worker()
        cls.close, cls.params = support.random_walk(4000, 21), support.grid(6, 120)
        reply = cls.worker.job(cls.close, cls.params)
        assert reply == {"ok": True}, reply
        for row in ROWS:
            reply = cls.worker.send(prepare_message(row, cls.server.path))
            assert reply == {"ok": True}, (row, reply)
        with ipc.Engine(cls.server.path) as engine:
            cls.c_pnl, cls.c_trades = engine.sweep(cls.close, cls.params)

    @classmethod
    def tearDownClass(cls):
        cls.worker.close()
        cls.server.stop()

    def run_row(self, row, timing=False):
        reply = self.worker.send({"cmd": "run", "row": row, "timing": timing})
        self.assertTrue(reply["ok"], reply)
        return reply

    def test_every_row_gives_the_c_kernels_bits(self):
        expected = [float(x).hex() for x in self.c_pnl]
        for row in ROWS:
            with self.subTest(row=row):
                reply = self.run_row(row)
                self.assertEqual(reply["pnl"], expected)
                self.assertEqual(reply["trades"], self.c_trades.tolist())
                self.assertGreater(reply["seconds"] * 1e9, 0)
                self.assertGreaterEqual(reply["client_cpu_s"], 0)
                pnl = np.array([float.fromhex(h) for h in reply["pnl"]])
                self.assertTrue(support.same_bits(pnl, self.c_pnl))

    def test_a_row_prepared_on_a_part_runs_that_part(self):
        bars, step = 3000, 2
        with ipc.Engine(self.server.path) as engine:
            pnl, trades = engine.sweep(self.close[:bars], self.params[::step])
        for row in ("python_stateful_unix", "numba_in_process"):
            with self.subTest(row=row):
                message = dict(prepare_message(row, self.server.path), bars=bars, step=step)
                self.assertTrue(self.worker.send(message)["ok"])
                reply = self.run_row(row)
                self.assertEqual(reply["pnl"], [float(x).hex() for x in pnl])
                self.assertEqual(reply["trades"], trades.tolist())
                # prepared again on the whole job, for the other tests
                self.assertTrue(self.worker.send(prepare_message(row, self.server.path))["ok"])

    def test_a_part_outside_the_job_is_refused(self):
        message = dict(prepare_message("numba_in_process", self.server.path), bars=10 ** 9)
        reply = self.worker.send(message)
        self.assertFalse(reply["ok"])
        self.assertIn("no part of", reply["error"])
        self.assertTrue(self.worker.send(prepare_message("numba_in_process", self.server.path))["ok"])

    def test_each_row_makes_the_calls_its_architecture_makes(self):
        n = len(self.params)
        expected = {"numba_in_process": (0, set()),
                    "python_batch_unix": (1, CLIENT_FIELDS),
                    "python_batch_unix_copying": (1, CLIENT_FIELDS),
                    "python_chatty_unix": (n, CLIENT_FIELDS),
                    "python_stateful_unix": (n, CLIENT_FIELDS),
                    "python_spawn_stdin": (1, CLIENT_FIELDS | {"process_ns"})}
        for row, (count, fields) in expected.items():
            with self.subTest(row=row):
                reply = self.run_row(row)
                self.assertEqual(len(reply["calls"]), count)
                for call in reply["calls"]:
                    self.assertEqual(set(call), fields)
                    self.assertTrue(all(isinstance(v, int) and v >= 0 for v in call.values()))
                    self.assertLessEqual(call["rtt_ns"], reply["seconds"] * 1e9)
                self.assertLessEqual(sum(c["rtt_ns"] for c in reply["calls"]), reply["seconds"] * 1e9)

    def test_a_timed_run_reports_the_engines_timing(self):
        # Issue 20: this test passed, in part skipped, when the engine lost the bit.
        self.assertIs(ipc.engine_times_calls(self.server.path), True,
                      "the engine does not honour the timing bit (paper/50-protocol.md)")
        reply = self.run_row("python_batch_unix", timing=True)
        self.assertEqual(set(reply["calls"][0]), CLIENT_FIELDS | ENGINE_FIELDS)

    def test_a_timed_run_reports_an_engines_refusal_of_the_bit(self):
        fake = support.FakeEngine("refuse")
        worker = Worker()
        try:
            worker.job(self.close, self.params)
            self.assertTrue(worker.send(prepare_message("python_batch_unix", fake.path))["ok"])
            reply = worker.send({"cmd": "run", "row": "python_batch_unix", "timing": True})
            self.assertFalse(reply["ok"])
            self.assertRegex(reply["error"], r"^engine error: unknown opcode 128")
        finally:
            worker.close()
            fake.stop()

    def test_echo_times_round_trips(self):
        reply = self.worker.send({"cmd": "echo", "socket": self.server.path, "floats": 1000,
                                  "reps": 7, "warmup": 2, "timing": False})
        self.assertTrue(reply["ok"], reply)
        self.assertEqual(len(reply["rtt_ns"]), 7)
        self.assertTrue(all(isinstance(v, int) and v > 0 for v in reply["rtt_ns"]))
        # longer than the job: the series repeats
        reply = self.worker.send({"cmd": "echo", "socket": self.server.path, "floats": 10000,
                                  "reps": 1, "warmup": 0, "timing": False})
        self.assertTrue(reply["ok"], reply)
        # the original's way, asked for by the lane that measures it
        reply = self.worker.send({"cmd": "echo", "socket": self.server.path, "floats": 5000,
                                  "reps": 3, "warmup": 1, "timing": False, "copying": True})
        self.assertTrue(reply["ok"], reply)
        self.assertEqual(len(reply["rtt_ns"]), 3)

    def test_an_engine_state_probe_chains_the_stretch_calls_it_is_asked_for(self):
        message = {"cmd": "state", "socket": self.server.path, "state": "engine", "floats": 1,
                   "stretch_ns": 0}
        for chain in (0, 3):
            with self.subTest(chain=chain):
                reply = self.worker.send(dict(message, chain=chain))
                self.assertTrue(reply["ok"], reply)
                self.assertEqual(len(reply["chain_calls"]), chain)
                for call in [reply["kernel_call"]] + reply["chain_calls"]:
                    self.assertGreater(call["compute_ns"], 0)
                    self.assertGreater(call["rtt_ns"], call["compute_ns"])
                self.assertEqual(reply["stretch_ns"], (reply["chain_calls"] or
                                                       [reply["kernel_call"]])[-1]["compute_ns"])
        for chain in (-1, 1000):
            with self.subTest(chain=chain):
                reply = self.worker.send(dict(message, chain=chain))
                self.assertFalse(reply["ok"])
                self.assertIn("a chain is 0 to", reply["error"])

    def test_serialization_gives_the_series_back_and_shuffles(self):
        reply = self.worker.send({"cmd": "serialize", "reps": 6})
        self.assertTrue(reply["ok"], reply)
        names = ["tobytes", "tobytes_fresh", "pickle", "json"]
        self.assertEqual(reply["encodings"], names)
        self.assertEqual(reply["buffers"], {"tobytes": "reused", "tobytes_fresh": "fresh",
                                            "pickle": "codec", "json": "codec"})
        for op in ("encode", "decode", "release"):
            for key in (f"{op}_ns", f"{op}_faults"):
                self.assertEqual(set(reply[key]), set(names))
                self.assertTrue(all(len(v) == 6 for v in reply[key].values()))
                self.assertTrue(all(isinstance(x, int) and x >= 0
                                    for v in reply[key].values() for x in v))
        self.assertEqual(reply["bytes"]["tobytes"], 8 * len(self.close))
        self.assertGreater(reply["bytes"]["json"], reply["bytes"]["tobytes"])
        self.assertTrue(all(sorted(o) == sorted(names) for o in reply["order"]))
        self.assertGreater(len({tuple(o) for o in reply["order"]}), 1, "never shuffled")
        again = self.worker.send({"cmd": "serialize", "reps": 6})
        self.assertEqual(again["order"], reply["order"], "the shuffle is not seeded")

    def test_failures_are_replies(self):
        cases = [({"cmd": "dance"}, "unknown command"),
                 ({"cmd": "run", "row": "rust_batch_unix"}, "not prepared"),
                 ({"cmd": "prepare", "row": "rust_batch_unix"}, "unknown row"),
                 ({"cmd": "prepare", "row": "python_batch_unix",
                   "socket": "/nonexistent/engine.sock"}, "FileNotFoundError"),
                 ({"cmd": "prepare", "row": "python_batch_unix"}, "lacks the field"),
                 ({"cmd": "prepare", "row": "python_spawn_stdin", "engine": "/nonexistent"},
                  "not an executable"),
                 ({"cmd": "echo", "socket": self.server.path, "floats": 0, "reps": 1,
                   "timing": False, "warmup": "x"}, "ValueError")]
        for message, pattern in cases:
            with self.subTest(message=message):
                reply = self.worker.send(message)
                self.assertFalse(reply["ok"])
                self.assertIn(pattern, reply["error"])
        # still in step after all of them; the failed prepares left their rows
        # unprepared, so they are prepared again for the other tests
        self.assertTrue(self.run_row("numba_in_process")["ok"])
        for row in ("python_batch_unix", "python_spawn_stdin"):
            reply = self.worker.send({"cmd": "run", "row": row})
            self.assertIn("not prepared", reply["error"])
            self.assertTrue(self.worker.send(prepare_message(row, self.server.path))["ok"])


class SerializationOfTheStudysSeries(unittest.TestCase):
    """Issue 34: the record says where each encode wrote and how many pages it
    touched first. The series (1.2 MB) is far above the allocator's mmap
    threshold, which the worker fixes: a fresh encode touches every page of its
    output at least once, a reused one none."""

    @classmethod
    def setUpClass(cls):
        cls.worker = Worker()
        cls.close = ipc.study_series()
        assert cls.worker.job(cls.close, support.grid(2, 30)) == {"ok": True}
        cls.reply = cls.worker.send({"cmd": "serialize", "reps": 4})

    @classmethod
    def tearDownClass(cls):
        cls.worker.close()

    def test_the_threshold_is_fixed(self):
        self.assertTrue(self.reply["ok"], self.reply)
        self.assertEqual(self.reply["mmap_threshold"], 128 * 1024)
        self.assertGreater(self.close.nbytes, self.reply["mmap_threshold"])

    def test_a_fresh_encode_faults_every_page_and_a_reused_one_none(self):
        pages = -(-self.close.nbytes // os.sysconf("SC_PAGE_SIZE"))
        faults = self.reply["encode_faults"]
        self.assertTrue(all(f >= pages for f in faults["tobytes_fresh"]), (pages, faults))
        self.assertEqual(faults["tobytes"], [0] * 4)
        self.assertEqual(self.reply["bytes"]["tobytes"], self.close.nbytes)
        self.assertEqual(self.reply["bytes"]["tobytes_fresh"], self.close.nbytes)

    def test_the_order_of_every_repetition_is_recorded(self):
        orders = self.reply["order"]
        self.assertEqual(len(orders), 4)
        self.assertTrue(all(sorted(o) == sorted(self.reply["encodings"]) for o in orders))


class TheWorkerAlone(unittest.TestCase):
    """Job checks, engine errors, quitting, and the end of the input."""

    def setUp(self):
        support.require_engine()
        self.worker = Worker()

    def tearDown(self):
        self.worker.close()

    def test_quit_exits_with_status_0(self):
        self.assertEqual(self.worker.send({"cmd": "quit"}), {"ok": True})
        self.assertEqual(self.worker.proc.wait(30), 0)

    def test_the_end_of_the_input_exits_with_status_0(self):
        self.worker.proc.stdin.close()
        self.assertEqual(self.worker.proc.wait(30), 0)
        self.assertEqual(self.worker.proc.stdout.read(), b"")

    def test_a_job_whose_counts_disagree_is_refused_in_step(self):
        body = ipc.request_body(ipc.OP_SWEEP, np.ones(10), [[1] * 6])
        reply = self.worker.send({"cmd": "job", "n_bars": 11, "n_combos": 1,
                                  "bytes": len(body)}, body)
        self.assertFalse(reply["ok"])
        self.assertIn("11 bars", reply["error"])
        reply = self.worker.send({"cmd": "job", "n_bars": 10, "n_combos": 1,
                                  "bytes": len(body) - 1}, body[:-1])
        self.assertFalse(reply["ok"])
        self.assertIn("need", reply["error"])
        echo = ipc.request_body(ipc.OP_ECHO, np.ones(10))
        reply = self.worker.send({"cmd": "job", "n_bars": 10, "n_combos": 0,
                                  "bytes": len(echo)}, echo)
        self.assertFalse(reply["ok"])
        self.assertIn("opcode 1", reply["error"])
        self.assertTrue(self.worker.job(np.ones(10), [[1] * 6])["ok"])

    def test_bad_json_is_a_failure_not_a_crash(self):
        self.worker.proc.stdin.write(b"{not json\n")
        self.worker.proc.stdin.flush()
        reply = json.loads(self.worker.proc.stdout.readline())
        self.assertFalse(reply["ok"])
        self.assertTrue(self.worker.send({"cmd": "serialize", "reps": 1}) ==
                        {"ok": False, "error": "serialize needs a job"})

    def test_an_engine_error_carries_the_engines_message(self):
        server = support.EngineProcess("--max-work", "1000")
        try:
            self.assertTrue(self.worker.job(support.random_walk(50, 1), [[9] * 6])["ok"])
            reply = self.worker.send(prepare_message("python_batch_unix", server.path))
            self.assertFalse(reply["ok"])
            self.assertRegex(reply["error"], r"^engine error: .*--max-work of 1000$")
        finally:
            server.stop()

    def test_a_request_the_client_refuses_is_reported_as_its_refusal(self):
        close = support.random_walk(50, 1)
        self.assertTrue(self.worker.job(close, [[1, 1, 1, 1, 1, 51]])["ok"])
        with support.FakeEngine() as fake:
            for row in ("python_batch_unix", "python_spawn_stdin"):
                with self.subTest(row=row):
                    reply = self.worker.send(prepare_message(row, fake.path))
                    self.assertEqual(reply["error"], "ValueError: combo 0, t_len: "
                                                     "window 51 is outside 1..n_bars (50)")
            self.assertEqual(fake.opcodes, [])

    def test_timing_through_a_fake_engine_names_the_engines_fields(self):
        fake = support.FakeEngine()
        try:
            close, params = np.ones(30), support.grid(3, 20)
            self.assertTrue(self.worker.job(close, params)["ok"])
            for row, count in (("python_batch_unix", 1), ("python_chatty_unix", 3),
                               ("python_stateful_unix", 3)):
                with self.subTest(row=row):
                    self.assertTrue(self.worker.send(prepare_message(row, fake.path))["ok"])
                    reply = self.worker.send({"cmd": "run", "row": row, "timing": True})
                    self.assertTrue(reply["ok"], reply)
                    self.assertEqual(len(reply["calls"]), count)
                    call = reply["calls"][0]
                    self.assertEqual(set(call), CLIENT_FIELDS | ENGINE_FIELDS)
                    self.assertEqual([call[k] for k in ("engine_ns", "engine_decode_ns",
                                                        "compute_ns", "engine_encode_ns",
                                                        "engine_cpu_ns",
                                                        "engine_minor_faults")],
                                     list(support.FAKE_TRAILER[:5] + support.FAKE_TRAILER[6:]))
            reply = self.worker.send({"cmd": "echo", "socket": fake.path, "floats": 5,
                                      "reps": 2, "warmup": 1, "timing": True})
            self.assertEqual(len(reply["calls"]), 2)
            self.assertEqual(reply["calls"][0]["compute_ns"], support.FAKE_TRAILER[2])
        finally:
            fake.stop()

    def test_nothing_but_replies_on_stdout(self):
        # numba's import and compilation happen here; anything they print must
        # not reach the protocol's stdout
        self.assertTrue(self.worker.job(support.random_walk(100, 2), support.grid(2, 30))["ok"])
        self.assertTrue(self.worker.send({"cmd": "prepare", "row": "numba_in_process"})["ok"])
        self.worker.proc.stdin.write(b'{"cmd":"run","row":"numba_in_process"}\n'
                                     b'{"cmd":"quit"}\n')
        self.worker.proc.stdin.flush()
        out = self.worker.proc.stdout.read().decode().splitlines()
        self.assertEqual(len(out), 2, out)
        self.assertTrue(json.loads(out[0])["ok"])
        self.assertEqual(json.loads(out[1]), {"ok": True})


class TheWorkersTableOfRows(unittest.TestCase):
    """The worker's ROWS against the C architecture table, read from the
    harness's own listing: a Python row added to one and not the other fails
    here rather than in a run."""

    def test_the_worker_serves_exactly_the_tables_python_rows(self):
        import worker
        clients = support.architecture_clients()
        self.assertIn("python_batch_unix", clients)             # the listing was read
        self.assertLessEqual(set(clients.values()), {"none", "c", "python"}, clients)
        python = {name for name, client in clients.items() if client == "python"}
        self.assertEqual(set(worker.ROWS), python)


if __name__ == "__main__":
    unittest.main()
