"""The Python client of paper/58-python-client.md: framing, a fake engine that
times its calls, fake engines whose replies do not fit, and the real engine on
a temporary socket, started by the client, and spawned."""
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import unittest
from pathlib import Path

import numpy as np

import support
from support import ipc

CLIENT_FIELDS = {"rtt_ns", "encode_ns", "send_ns", "wait_ns", "decode_ns", "request_bytes",
                 "reply_bytes", "client_minor_faults"}
ENGINE_FIELDS = {"engine_ns", "engine_decode_ns", "compute_ns", "engine_encode_ns",
                 "engine_cpu_ns", "engine_minor_faults", "request_ns", "reply_ns"}


def calls_csv_columns():
    """The columns of data/calls.csv, from the schema (build/datapackage.json)."""
    path = Path(os.environ.get("IPCTAX_ROOT", ".")) / "build" / "datapackage.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    calls = next(r for r in package["resources"] if r["path"] == "calls.csv")
    return {f["name"] for f in calls["schema"]["fields"]}


class FieldNames(unittest.TestCase):
    """A call's fields are named as data/calls.csv names its columns: nothing is
    renamed between the client and the file."""

    def test_every_field_is_a_column_of_calls_csv(self):
        columns = calls_csv_columns()
        call = ipc.Call(1, 2, 3, 4, 5, process_ns=6,
                        engine=ipc.EngineTiming(*support.FAKE_TRAILER))
        self.assertLessEqual(set(call.as_dict()), columns)
        self.assertLessEqual(CLIENT_FIELDS | ENGINE_FIELDS | {"process_ns"}, columns)


class Framing(unittest.TestCase):
    """The bytes of a request are the protocol's, whatever the caller's dtypes."""

    def test_a_sweep_request_is_header_series_params(self):
        close = [1.0, 2.5, -0.0]
        params = [[1, 2, 3, 4, 5, 6]]
        frame = ipc.request_frame(ipc.OP_SWEEP, close, params)
        expected_body = (struct.pack("<BII", 0, 3, 1) + struct.pack("<3d", *close)
                         + struct.pack("<6q", 1, 2, 3, 4, 5, 6))
        self.assertEqual(frame, struct.pack("<I", len(expected_body)) + expected_body)
        self.assertEqual(ipc.request_body(ipc.OP_SWEEP, close, params), expected_body)

    def test_the_timing_bit_is_the_opcodes_top_bit(self):
        body = ipc.request_body(ipc.OP_SWEEP_LOADED, None, [[1] * 6], timing=True)
        self.assertEqual(body[0], 0x83)
        self.assertEqual(ipc.request_body(ipc.OP_ECHO, [1.0])[0], 0x01)

    def test_other_dtypes_are_converted(self):
        a = ipc.request_body(ipc.OP_SWEEP, np.array([1, 2], dtype=np.float32),
                             np.array([1, 1, 1, 1, 1, 2], dtype=np.int32))
        b = ipc.request_body(ipc.OP_SWEEP, [1.0, 2.0], [[1, 1, 1, 1, 1, 2]])
        self.assertEqual(a, b)
        big_endian = np.array([1.0, 2.0], dtype=">f8")
        self.assertEqual(ipc.request_body(ipc.OP_ECHO, big_endian),
                         ipc.request_body(ipc.OP_ECHO, [1.0, 2.0]))

    def test_bad_shapes_are_refused(self):
        with self.assertRaises(ValueError):
            ipc.request_frame(ipc.OP_SWEEP, np.ones((2, 2)), None)
        with self.assertRaises(ValueError):
            ipc.request_frame(ipc.OP_SWEEP, [1.0], [[1, 2, 3]])

    def test_decode_request_inverts_encoding(self):
        close, params = support.random_walk(100, 1), support.grid(4, 50)
        opcode, c, p = ipc.decode_request(ipc.request_body(ipc.OP_SWEEP, close, params))
        self.assertEqual(opcode, 0)
        self.assertTrue(support.same_bits(c, close))
        self.assertEqual(p.tolist(), params.tolist())
        with self.assertRaises(ipc.ProtocolError):
            ipc.decode_request(ipc.request_body(ipc.OP_SWEEP, close, params)[:-1])
        with self.assertRaises(ipc.ProtocolError):
            ipc.decode_request(b"\x00\x01")

    def test_replies_of_the_wrong_size_are_protocol_errors(self):
        body = bytes(16 * 3)
        (pnl, trades), engine = ipc.decode_reply(ipc.OP_SWEEP, body, 10, 3)
        self.assertEqual((len(pnl), len(trades), engine), (3, 3, None))
        with self.assertRaises(ipc.ProtocolError):
            ipc.decode_reply(ipc.OP_SWEEP, body[:-8], 10, 3)
        with self.assertRaises(ipc.ProtocolError):
            ipc.decode_reply(ipc.OP_SWEEP, body, 10, 3, timing=True)    # trailer missing
        trailer = struct.pack("<7Q", 1, 2, 3, 4, 5, 6, 7)
        _, engine = ipc.decode_reply(ipc.OP_SWEEP, body + trailer, 10, 3, timing=True)
        self.assertEqual(engine, ipc.EngineTiming(1, 2, 3, 4, 5, 6, 7))


class TimingAgainstAFakeEngine(unittest.TestCase):
    """The trailer, parsed from a server that answers timed requests with one."""

    def setUp(self):
        self.fake = support.FakeEngine()

    def tearDown(self):
        self.fake.stop()

    def test_a_timed_echo_returns_the_engines_timing(self):
        values = support.random_walk(1000, 2)
        with ipc.Engine(self.fake.path) as engine:
            back = engine.echo(values, timing=True)
            call = engine.last_call
        self.assertTrue(support.same_bits(back, values))
        self.assertEqual(self.fake.opcodes, [0x81])
        self.assertEqual(call.engine, ipc.EngineTiming(*support.FAKE_TRAILER))
        d = call.as_dict()
        self.assertEqual(set(d), CLIENT_FIELDS | ENGINE_FIELDS)
        self.assertEqual([d[k] for k in ("engine_ns", "engine_decode_ns", "compute_ns",
                                         "engine_encode_ns", "engine_cpu_ns")],
                         list(support.FAKE_TRAILER[:5]))
        self.assertEqual(d["engine_minor_faults"], support.FAKE_TRAILER[6])

    def test_every_opcode_can_be_timed(self):
        params = support.grid(5, 30)
        with ipc.Engine(self.fake.path) as engine:
            pnl, trades = engine.sweep(np.ones(50), params, timing=True)
            self.assertEqual(pnl.tolist(), [k + 0.25 for k in range(5)])
            self.assertEqual(trades.tolist(), [10 * k for k in range(5)])
            self.assertEqual(engine.last_call.engine.compute_ns, support.FAKE_TRAILER[2])
            self.assertIsNone(engine.load(np.ones(50), timing=True))
            self.assertEqual(engine.last_call.engine.cpu_ns, support.FAKE_TRAILER[4])
            pnl, trades = engine.sweep_loaded(params[:2], timing=True)
            self.assertEqual(trades.tolist(), [0, 10])
            self.assertEqual(engine.last_call.engine.engine_ns, support.FAKE_TRAILER[0])
        self.assertEqual(self.fake.opcodes, [0x80, 0x82, 0x83])

    def test_an_untimed_call_has_no_engine_timing_and_sends_no_bit(self):
        with ipc.Engine(self.fake.path) as engine:
            engine.sweep(np.ones(10), support.grid(2, 8))
            call = engine.last_call
        self.assertEqual(self.fake.opcodes, [0x00])
        self.assertIsNone(call.engine)
        self.assertEqual(set(call.as_dict()), CLIENT_FIELDS)

    def test_the_client_phases_add_up_to_at_most_the_round_trip(self):
        with ipc.Engine(self.fake.path) as engine:
            engine.echo(np.ones(10000))
            c = engine.last_call
        phases = [c.encode_ns, c.send_ns, c.wait_ns, c.decode_ns]
        self.assertTrue(all(p >= 0 for p in phases), phases)
        self.assertLessEqual(sum(phases), c.rtt_ns)
        self.assertGreater(c.rtt_ns, 0)

    def test_the_probe_says_yes(self):
        self.assertIs(ipc.engine_times_calls(self.fake.path), True)


class TimingMisbehaviours(unittest.TestCase):
    """Engines that refuse, ignore, or botch the timing bit."""

    def probe(self, mode):
        fake = support.FakeEngine(mode)
        try:
            return fake, ipc.engine_times_calls(fake.path)
        finally:
            fake.stop()

    def test_an_engine_without_the_bit_is_told_apart(self):
        self.assertIs(self.probe("refuse")[1], False)
        self.assertIs(self.probe("ignore")[1], False)

    def test_a_short_trailer_is_a_protocol_error(self):
        fake = support.FakeEngine("short")
        try:
            with ipc.Engine(fake.path) as engine:
                with self.assertRaises(ipc.ProtocolError):
                    engine.sweep(np.ones(10), support.grid(2, 8), timing=True)
            with self.assertRaises(ipc.ProtocolError):
                ipc.engine_times_calls(fake.path)
        finally:
            fake.stop()

    def test_a_refused_timed_call_raises_the_engines_message(self):
        fake = support.FakeEngine("refuse")
        try:
            with ipc.Engine(fake.path) as engine:
                with self.assertRaisesRegex(ipc.EngineError, "unknown opcode 128"):
                    engine.sweep(np.ones(10), support.grid(2, 8), timing=True)
        finally:
            fake.stop()


class AgainstTheRealEngine(unittest.TestCase):
    """build/ipctax-engine --unix on a temporary socket."""

    @classmethod
    def setUpClass(cls):
        support.require_engine()
        cls.server = support.EngineProcess()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def connect(self):
        return ipc.Engine(self.server.path, timeout=60)

    def test_echo_is_verbatim(self):
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1.7976931348623157e308])
        with self.connect() as engine:
            for values in (np.empty(0), np.array([3.25]), special,
                           support.random_walk(1000, 4), support.random_walk(150000, 5)):
                with self.subTest(n=len(values)):
                    back = engine.echo(values)
                    self.assertTrue(support.same_bits(back, values))
                    self.assertGreater(engine.last_call.rtt_ns, 0)

    def test_sweep_equals_the_c_kernels_result_in_data(self):
        close = support.study_series()
        params, pnl, trades = support.sweep_csv()
        first = slice(0, 3)
        with self.connect() as engine:
            got_pnl, got_trades = engine.sweep(close, params[first])
        self.assertEqual(support.bit_mismatches(got_pnl, pnl[first]), [])
        self.assertEqual(got_trades.tolist(), trades[first].tolist())

    def test_a_loaded_series_sweeps_like_a_sent_one(self):
        close, params = support.crafted_cases()["random walk"]
        with self.connect() as engine:
            pnl, trades = engine.sweep(close, params)
            self.assertIsNone(engine.load(close))
            for k in range(len(params)):
                p, t = engine.sweep_loaded(params[k])
                self.assertTrue(support.same_bits(p, pnl[k:k + 1]), f"combination {k}")
                self.assertEqual(t.tolist(), trades[k:k + 1].tolist())
            p, t = engine.sweep_loaded(params)
            self.assertTrue(support.same_bits(p, pnl))

    def assertEngineError(self, pattern, call):
        with self.connect() as engine:
            with self.assertRaises(ipc.EngineError) as caught:
                call(engine)
            self.assertRegex(caught.exception.message, pattern)
            # str() names the engine (issue 22: errors name the socket path)
            self.assertEqual(str(caught.exception),
                             f"engine at {self.server.path}: {caught.exception.message}")
            # the engine closed the connection after its error frame
            with self.assertRaisesRegex(ipc.ProtocolError, "closed"):
                engine.echo([1.0])

    def test_an_unknown_opcode_is_an_engine_error(self):
        # 7 is the first opcode past the protocol's (9 would be a tab, and a
        # body that starts with white space is JSON)
        self.assertEngineError(r"^unknown opcode 7 \(opcodes are 0 to \d+, or 128 to \d+ "
                               r"with the timing bit\)$",
                               lambda e: e.request(7, [1.0]))

    def test_a_sweep_with_nothing_loaded_is_an_engine_error(self):
        self.assertEngineError("no series is loaded",
                               lambda e: e.sweep_loaded([[1, 1, 1, 1, 1, 1]]))

    # The client refuses these itself (RefusedBeforeSending); sent as raw
    # frames, they show that the engine refuses them too.
    def test_a_window_outside_the_series_is_an_engine_error(self):
        frame = ipc.request_frame(ipc.OP_SWEEP, np.ones(10), [[1, 1, 1, 1, 1, 1],
                                                              [1, 1, 1, 1, 1, 11]])
        self.assertEngineError(r"combo 1, parameter 5: window 11 is outside 1\.\.n_bars \(10\)",
                               lambda e: e.round_trip(frame))
        frame = ipc.request_frame(ipc.OP_SWEEP, np.ones(10), [[0, 1, 1, 1, 1, 1]])
        self.assertEngineError(r"window 0 is outside", lambda e: e.round_trip(frame))

    def test_a_loaded_sweep_checks_the_loaded_series(self):
        def call(engine):
            engine.load(np.ones(20))
            engine.round_trip(ipc.request_frame(ipc.OP_SWEEP_LOADED, None, [[1, 1, 1, 1, 1, 21]]))
        self.assertEngineError(r"window 21 is outside 1\.\.the loaded n_bars \(20\)", call)

    def test_a_sweep_with_no_bars_is_an_engine_error(self):
        frame = ipc.request_frame(ipc.OP_SWEEP, [], [[1] * 6])
        self.assertEngineError(r"needs n_bars >= 1", lambda e: e.round_trip(frame))

    def test_a_malformed_frame_is_an_engine_error(self):
        body = ipc.request_body(ipc.OP_ECHO, [1.0, 2.0])[:-3]
        frame = struct.pack("<I", len(body)) + body
        self.assertEngineError(r"require \d+", lambda e: e.round_trip(frame))

    def test_the_engine_serves_on_after_an_error(self):
        with self.connect() as engine:
            with self.assertRaises(ipc.EngineError):
                engine.request(42)
        with self.connect() as engine:
            self.assertEqual(engine.echo([7.0]).tolist(), [7.0])

    def test_the_engine_honours_the_timing_bit(self):
        # Issue 20: this test skipped (and passed) when the engine lost the bit.
        self.assertIs(ipc.engine_times_calls(self.server.path), True,
                      "the engine does not honour the timing bit (paper/50-protocol.md)")
        close, params = support.crafted_cases()["random walk"]
        with self.connect() as engine:
            pnl, trades = engine.sweep(close, params)
            t_pnl, t_trades = engine.sweep(close, params, timing=True)
            call = engine.last_call
            self.assertTrue(support.same_bits(t_pnl, pnl))
            self.assertEqual(t_trades.tolist(), trades.tolist())
            e = call.engine
            self.assertGreater(e.compute_ns, 0)
            self.assertLessEqual(e.decode_ns + e.compute_ns + e.encode_ns, e.engine_ns)
            self.assertLessEqual(e.engine_ns, call.rtt_ns)
            self.assertIsNone(engine.load(close, timing=True))
            self.assertIsNotNone(engine.last_call.engine)
            p, _ = engine.sweep_loaded(params[:2], timing=True)
            self.assertTrue(support.same_bits(p, pnl[:2]))
            back = engine.echo(close[:100], timing=True)
            self.assertTrue(support.same_bits(back, close[:100]))
        # an error reply carries no trailer: the message is the whole frame
        frame = ipc.request_frame(ipc.OP_SWEEP, np.ones(5), [[1, 1, 1, 1, 1, 6]], timing=True)
        with self.connect() as engine:
            with self.assertRaisesRegex(ipc.EngineError, "outside 1..n_bars \\(5\\)$"):
                engine.round_trip(frame)


class CarefulAndCopying(unittest.TestCase):
    """Issue 34: the careful way (the default) sends the caller's arrays as they
    are and keeps its reply buffer, so that after its first call a call
    allocates nothing in proportion to its payload; the original's way copies.
    Both give the same bits, through the real engine and spawned."""

    BUDGET = 64 * 1024          # bytes a careful call may allocate, after the first

    @classmethod
    def setUpClass(cls):
        support.require_engine()
        cls.server = support.EngineProcess()
        cls.close = ipc.study_series()                 # 1.2 MB
        cls.params = support.grid(2, 30)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def allocated(self, call, times=3):
        """The most tracemalloc saw allocated by one of `times` calls, over what was held."""
        call()                                        # the first: buffers grow
        tracemalloc.start()
        try:
            most = 0
            for _ in range(times):
                tracemalloc.reset_peak()
                held = tracemalloc.get_traced_memory()[0]
                call()
                most = max(most, tracemalloc.get_traced_memory()[1] - held)
        finally:
            tracemalloc.stop()
        return most

    def test_a_careful_sweep_of_the_series_allocates_under_64_kib(self):
        with ipc.Engine(self.server.path) as engine:
            self.assertFalse(engine.copying)
            most = self.allocated(lambda: engine.sweep(self.close, self.params))
        self.assertLess(most, self.BUDGET)

    def test_a_careful_echo_into_out_allocates_under_64_kib(self):
        back = np.empty_like(self.close)
        with ipc.Engine(self.server.path) as engine:
            most = self.allocated(lambda: engine.echo(self.close, out=back))
        self.assertLess(most, self.BUDGET)
        self.assertTrue(support.same_bits(back, self.close))

    def test_the_original_way_copies_the_series(self):
        # the measure above can fail: the original's way allocates the series twice over
        with ipc.Engine(self.server.path, copying=True) as engine:
            most = self.allocated(lambda: engine.sweep(self.close, self.params))
        self.assertGreater(most, 2 * self.close.nbytes)

    def test_both_ways_give_the_same_bits(self):
        results = {}
        for copying in (False, True):
            with ipc.Engine(self.server.path, copying=copying) as engine:
                results[copying] = (engine.sweep(self.close, self.params, timing=True),
                                    engine.echo(self.close))
            spawned = ipc.SpawnedEngine(support.ENGINE, copying=copying)
            (pnl, trades), back = results[copying]
            s_pnl, s_trades = spawned.sweep(self.close, self.params)
            self.assertTrue(support.same_bits(s_pnl, pnl))
            self.assertEqual(s_trades.tolist(), trades.tolist())
            self.assertTrue(support.same_bits(back, self.close))
        (careful, _), (copied, _) = results[False], results[True]
        self.assertTrue(support.same_bits(careful[0], copied[0]))
        self.assertEqual(careful[1].tolist(), copied[1].tolist())

    def test_a_careful_result_is_the_callers_own(self):
        # the reply buffer is reused: an earlier call's arrays must not change
        with ipc.Engine(self.server.path) as engine:
            first = engine.echo(self.close[:1000])
            kept = first.copy()
            engine.echo(self.close[1000:2000])
            pnl, trades = engine.sweep(self.close, self.params)
            kept_pnl = pnl.copy()
            engine.sweep(self.close[:5000], self.params)
            reply = np.frombuffer(engine._reply, dtype=np.uint8)
            self.assertFalse(np.shares_memory(first, reply))
            self.assertFalse(np.shares_memory(pnl, reply) or np.shares_memory(trades, reply))
        self.assertTrue(support.same_bits(first, kept))
        self.assertTrue(support.same_bits(pnl, kept_pnl))

    def test_arrays_of_any_layout_go_the_careful_way(self):
        with ipc.Engine(self.server.path) as engine:
            strided = self.close[:2000:2]                  # not contiguous: copied first
            self.assertTrue(support.same_bits(engine.echo(strided), strided))
            big_endian = self.close[:100].astype(">f8")
            self.assertTrue(support.same_bits(engine.echo(big_endian), self.close[:100]))
            fortran = np.asfortranarray(self.params.astype(np.int32))
            pnl, _ = engine.sweep(self.close, fortran)
            self.assertEqual(len(pnl), 2)


class ThroughASpawnedEngine(unittest.TestCase):
    """ipctax-engine --stdin, one process per call."""

    def setUp(self):
        support.require_engine()
        self.spawned = ipc.SpawnedEngine(support.ENGINE)

    def test_a_spawned_sweep_equals_the_socket_one(self):
        close, params = support.crafted_cases()["flat stretches"]
        server = support.EngineProcess()
        try:
            with ipc.Engine(server.path) as engine:
                pnl, trades = engine.sweep(close, params)
        finally:
            server.stop()
        s_pnl, s_trades = self.spawned.sweep(close, params)
        self.assertTrue(support.same_bits(s_pnl, pnl))
        self.assertEqual(s_trades.tolist(), trades.tolist())
        call = self.spawned.last_call
        self.assertGreater(call.process_ns, 0)
        self.assertLessEqual(call.process_ns, call.rtt_ns)
        self.assertEqual(set(call.as_dict()), CLIENT_FIELDS | {"process_ns"})

    def test_a_spawned_echo_is_verbatim(self):
        values = support.random_walk(150000, 8)
        self.assertTrue(support.same_bits(self.spawned.echo(values), values))

    def test_a_spawned_engines_error_frame_is_an_engine_error(self):
        frame = ipc.request_frame(ipc.OP_SWEEP, np.ones(5), [[1, 1, 1, 1, 1, 6]])
        with self.assertRaisesRegex(ipc.EngineError, "window 6 is outside") as caught:
            self.spawned.round_trip(frame)
        self.assertIn(str(support.ENGINE), str(caught.exception))
        with self.assertRaisesRegex(ipc.EngineError, "unknown opcode 77"):
            self.spawned.request(77, np.ones(150000))     # refused before it is all read

    def test_a_binary_that_is_not_an_engine_is_a_protocol_error(self):
        with self.assertRaises(ipc.ProtocolError):
            ipc.SpawnedEngine("/bin/true").sweep(np.ones(5), [[1] * 6])


class RefusedBeforeSending(unittest.TestCase):
    """Issue 22: what the client refuses itself, naming what was wrong; nothing
    reaches the engine, and the connection goes on."""

    def setUp(self):
        self.fake = support.FakeEngine()
        self.engine = ipc.Engine(self.fake.path)

    def tearDown(self):
        self.engine.close()
        self.fake.stop()

    def assertRefused(self, error, pattern, call):
        sent = len(self.fake.opcodes)
        with self.assertRaisesRegex(error, pattern):
            call()
        self.assertEqual(len(self.fake.opcodes), sent, "the refused request was sent")
        self.assertEqual(self.engine.echo([2.5]).tolist(), [2.5])    # still in step

    def test_a_series_that_is_not_finite_is_refused_at_its_first_bad_index(self):
        # A NaN once swept into a plausible PnL (0.673 where the series gave 7.53).
        close = support.random_walk(800, 3)
        close[400] = np.nan
        close[600] = np.inf
        self.assertRefused(ValueError, r"^close\[400\] is nan: a series to sweep must be finite",
                           lambda: self.engine.sweep(close, support.grid(5, 80)))

    def test_a_series_to_load_must_be_finite_too(self):
        close = np.ones(20)
        close[3] = -np.inf
        self.assertRefused(ValueError, r"close\[3\] is -inf", lambda: self.engine.load(close))

    def test_a_fractional_window_is_refused_not_truncated(self):
        # 10.7 was truncated to 10, and a set the caller never asked for was swept.
        self.assertRefused(TypeError, r"windows must be integers: float64 does not cast "
                                      r"safely to int64 \(10\.7 would be truncated\)",
                           lambda: self.engine.sweep(np.ones(20), [[1, 2, 1, 1, 1, 10.7]]))
        self.assertRefused(TypeError, "uint64 does not cast safely",
                           lambda: self.engine.sweep(np.ones(20),
                                                     np.ones((1, 6), dtype=np.uint64)))

    def test_whole_windows_of_any_integer_type_are_taken(self):
        pnl, _ = self.engine.sweep(np.ones(20), np.ones((2, 6), dtype=np.int32))
        self.assertEqual(len(pnl), 2)

    def test_a_window_outside_the_series_is_refused(self):
        self.assertRefused(ValueError, r"^combo 1, t_len: window 21 is outside 1\.\.n_bars \(20\)$",
                           lambda: self.engine.sweep(np.ones(20), [[1] * 6, [1, 1, 1, 1, 1, 21]]))
        self.assertRefused(ValueError, r"^combo 0, h_half: window 0 is outside",
                           lambda: self.engine.sweep(np.ones(20), [[0, 1, 1, 1, 1, 1]]))
        self.assertRefused(ValueError, r"^combo 0, h_len: window -3 is below 1$",
                           lambda: self.engine.sweep_loaded([[1, -3, 1, 1, 1, 1]]))

    def test_a_loaded_sweep_is_checked_against_the_loaded_series(self):
        self.engine.load(np.ones(20))
        self.assertRefused(ValueError, r"window 21 is outside 1\.\.the loaded n_bars \(20\)",
                           lambda: self.engine.sweep_loaded([[1, 1, 1, 1, 1, 21]]))

    def test_a_request_larger_than_max_frame_is_refused_before_it_is_sent(self):
        too_many = (ipc.DEFAULT_MAX_FRAME - ipc.REQUEST_HEADER.size) // 8 + 1
        self.assertRefused(ValueError, r"larger than max_frame \(16777216\)",
                           lambda: self.engine.echo(np.ones(too_many)))


def silent_until_hung_up(conn):
    conn.recv(1)


class RepliesThatDoNotFit(unittest.TestCase):
    """Issue 22: fake engines whose replies no request can produce. Each failure
    names the socket and closes the connection, so nothing left in it is ever
    read as the next call's answer."""

    def test_a_2_gib_length_word_is_refused_before_anything_is_allocated(self):
        def script(conn):
            support.read_frame(conn)
            conn.sendall(struct.pack("<I", 0x7FFFFFFF))
            silent_until_hung_up(conn)
        with support.ScriptedEngine(script) as fake:
            tracemalloc.start()
            try:
                with ipc.Engine(fake.path, timeout=5) as engine:
                    with self.assertRaisesRegex(ipc.ProtocolError, "a reply of 2147483647 bytes "
                                                "to a request whose reply is 8$") as caught:
                        engine.echo([1.0])
                    self.assertIn(fake.path, str(caught.exception))
                    self.assertTrue(engine.closed)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
        self.assertLess(peak, 1 << 20)

    def test_a_partial_reply_then_silence_times_out_and_closes(self):
        rest = threading.Event()
        def script(conn):
            support.read_frame(conn)
            conn.sendall(struct.pack("<I", 8) + b"\0" * 4)        # half an echo's reply
            rest.wait(10)
            conn.sendall(b"\0" * 4 + support.frame(struct.pack("<d", 99.0)))
            silent_until_hung_up(conn)
        with support.ScriptedEngine(script) as fake:
            with ipc.Engine(fake.path, timeout=0.2) as engine:
                with self.assertRaises(ipc.EngineTimeout) as caught:
                    engine.echo([1.0])
                self.assertIsInstance(caught.exception, TimeoutError)
                self.assertIn(fake.path, str(caught.exception))
                rest.set()                      # the leftovers arrive; nobody may read them
                with self.assertRaisesRegex(ipc.ProtocolError, "this connection is closed"):
                    engine.echo([1.0])

    def test_the_default_timeout_is_finite_and_the_kernels(self):
        with support.FakeEngine() as fake, ipc.Engine(fake.path) as engine:
            self.assertEqual(engine.timeout, ipc.DEFAULT_TIMEOUT)
            received = engine._sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, 16)
            self.assertEqual(struct.unpack("@ll", received), (int(ipc.DEFAULT_TIMEOUT), 0))

    def test_an_extra_frame_is_never_the_next_answer(self):
        sent = threading.Event()
        def script(conn):
            body = support.read_frame(conn)
            conn.sendall(support.frame(body[9:]) + support.frame(struct.pack("<d", 99.0)))
            sent.set()
            while support.read_frame(conn) is not None:
                conn.sendall(support.frame(struct.pack("<d", 99.0)))
        with support.ScriptedEngine(script) as fake:
            with ipc.Engine(fake.path, timeout=5) as engine:
                self.assertEqual(engine.echo([1.0]).tolist(), [1.0])
                self.assertTrue(sent.wait(10))
                with self.assertRaisesRegex(ipc.ProtocolError,
                                            "sent a frame that no request asked for"):
                    engine.echo([2.0])
                self.assertTrue(engine.closed)

    def test_the_engines_refusal_is_read_after_a_broken_pipe(self):
        refusal = "frame of 8000009 bytes exceeds the engine's maximum of 4096"
        def script(conn):
            support.read_exactly(conn, 4 + 9)
            conn.sendall(support.error_frame(refusal))      # and closes, the rest unread
        with support.ScriptedEngine(script) as fake:
            with ipc.Engine(fake.path, timeout=10) as engine:
                with self.assertRaises(ipc.EngineError) as caught:
                    engine.echo(np.ones(1_000_000))         # 8 MB: far more than a socket holds
                self.assertEqual(caught.exception.message, refusal)
                self.assertEqual(str(caught.exception), f"engine at {fake.path}: {refusal}")

    def test_an_engine_that_hung_up_is_named_before_the_next_request(self):
        def script(conn):
            body = support.read_frame(conn)
            conn.sendall(support.frame(body[9:]))           # then hangs up
        with support.ScriptedEngine(script) as fake:
            with ipc.Engine(fake.path, timeout=5) as engine:
                engine.echo([1.0])
                time.sleep(0.05)                            # let the hang-up arrive
                with self.assertRaisesRegex(ipc.ProtocolError, "has closed this connection"):
                    engine.echo([1.0])

    def test_a_missing_socket_is_named(self):
        missing = os.path.join(tempfile.gettempdir(), f"ipctax-no-engine-{os.getpid()}.sock")
        with self.assertRaises(FileNotFoundError) as caught:
            ipc.Engine(missing)
        self.assertIn(f"cannot connect to an engine at {missing}", str(caught.exception))


class AnEngineOfItsOwn(unittest.TestCase):
    """Engine.start: an engine started, waited for, and stopped by the client."""

    def setUp(self):
        support.require_engine()

    def test_start_connects_at_once_and_close_stops_it(self):
        with ipc.Engine.start(support.ENGINE, args=("--kernel", "tuned")) as engine:
            self.assertEqual(engine.echo([1.5]).tolist(), [1.5])       # no retry needed
            pid, path = engine.process.popen.pid, engine.path
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read().split(b"\0")
            self.assertIn(b"--die-with-parent", command)
            self.assertIn(b"tuned", command)
            with ipc.Engine(engine.path) as second:                   # the same engine
                self.assertEqual(second.echo([2.5]).tolist(), [2.5])
        self.assertIsNone(engine.process)
        self.assertFalse(os.path.exists(path))
        self.assertFalse(os.path.exists(f"/proc/{pid}") and process_state(pid) != "Z")

    def test_the_engine_dies_with_its_parent(self):
        script = (f"import sys; sys.path.insert(0, {str(support.CODE)!r}); "
                  "import ipctax_client as ipc, time; "
                  f"e = ipc.Engine.start({str(support.ENGINE)!r}); "
                  "print(e.process.popen.pid, e.process.folder.name, flush=True); time.sleep(60)")
        parent = subprocess.Popen([sys.executable, "-B", "-c", script], stdout=subprocess.PIPE)
        pid, folder = parent.stdout.readline().decode().split()
        parent.kill()
        parent.wait()
        parent.stdout.close()
        try:
            deadline = time.monotonic() + 30                # a hang guard, not a timing
            while os.path.exists(f"/proc/{pid}") and process_state(pid) != "Z":
                self.assertLess(time.monotonic(), deadline, "the engine outlived its parent")
                time.sleep(0.05)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def test_a_failed_start_says_why(self):
        with self.assertRaisesRegex(RuntimeError, r"did not start: it exited with status 2: "
                                                  r".*--no-such-option"):
            ipc.Engine.start(support.ENGINE, args=("--no-such-option",))
        with self.assertRaisesRegex(RuntimeError, "/bin/true .*did not start: it exited "
                                                  "with status 0$"):
            ipc.Engine.start("/bin/true")

    def test_max_frame_is_the_engines_and_the_clients(self):
        with ipc.Engine.start(support.ENGINE, max_frame=4096) as engine:
            self.assertEqual(engine.max_frame, 4096)
            with self.assertRaisesRegex(ValueError, r"larger than max_frame \(4096\)"):
                engine.echo(np.ones(600))
            # a client that believes in a larger frame meets the engine's refusal,
            # read after the broken pipe of a request the engine stopped reading
            with ipc.Engine(engine.path, max_frame=64 << 20) as trusting:
                with self.assertRaisesRegex(ipc.EngineError, "maximum of 4096"):
                    trusting.echo(np.ones(1_000_000))


def process_state(pid):
    """The state letter of /proc/PID/stat ("Z" for a zombie), or "" once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


class TheStudysGridAndUnits(unittest.TestCase):
    """The module carries the study's parameter grid and says what a PnL is."""

    def test_the_default_grid_is_the_studys(self):
        params, _, _ = support.sweep_csv()
        self.assertEqual(ipc.study_grid().tolist(), params.tolist())
        self.assertEqual(ipc.study_grid().shape, (ipc.STUDY_COMBOS, 6))
        self.assertEqual(ipc.study_grid(1).tolist(), [[3, 6, 2, 1, 1, 3]])
        self.assertEqual(ipc.study_grid(3, 8)[:, 1].tolist(), [6, 7, 8])

    def test_the_pnl_unit_is_documented(self):
        self.assertEqual(ipc.PNL_UNIT, "percentage points")
        for doc in (ipc.__doc__, ipc.Engine.sweep.__doc__):
            self.assertIn("percentage points", doc)


class InstalledOutsideTheTree(unittest.TestCase):
    """make install-python, then the module used from a folder outside the tree."""

    def install_and_use(self, env, make_args, site):
        subprocess.run(["make", "-s", "-C", str(support.ROOT), "install-python", *make_args],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        self.assertTrue(os.path.isfile(os.path.join(site, "ipctax_client.py")))
        use = ("import ipctax_client as ipc, sys; "
               f"e = ipc.Engine.start({str(support.ENGINE)!r}); "
               "print(ipc.__file__, e.echo([4.25]).tolist()); e.close()")
        out = subprocess.run(["/usr/bin/python3", "-B", "-c", use], env=env, check=True,
                             cwd=env["HOME"], capture_output=True, text=True).stdout
        self.assertEqual(out.split(), [os.path.join(site, "ipctax_client.py"), "[4.25]"])

    def test_the_users_site_directory_by_default(self):
        support.require_engine()
        with tempfile.TemporaryDirectory(prefix="ipctax-home-") as home:
            env = {"HOME": home, "PATH": os.environ["PATH"]}
            site = subprocess.run(["/usr/bin/python3", "-m", "site", "--user-site"], env=env,
                                  check=True, capture_output=True, text=True).stdout.strip()
            self.assertTrue(site.startswith(home))
            self.install_and_use(env, [], site)

    def test_a_prefix(self):
        support.require_engine()
        with tempfile.TemporaryDirectory(prefix="ipctax-prefix-") as home:
            version = "%d.%d" % sys.version_info[:2]
            site = os.path.join(home, "lib", f"python{version}", "dist-packages")
            env = {"HOME": home, "PATH": os.environ["PATH"], "PYTHONPATH": site}
            self.install_and_use(env, [f"PREFIX={home}"], site)


class ReadmeExample(unittest.TestCase):
    """The example of README.md's "Using the engine from Python" runs as written,
    from the top of the tree, and sweeps the study's grid."""

    def test_the_readme_example_runs(self):
        root = Path(os.environ.get("IPCTAX_ROOT", "."))
        text = (root / "README.md").read_text(encoding="utf-8")
        section = text.split("### Using the engine from Python", 1)[1]
        code = section.split("```python\n", 1)[1].split("```", 1)[0]
        env = dict(os.environ, PYTHONPATH=str(root / "code" / "python"))
        out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env,
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r"^\[.*\] \[.*\] \d+\n$")


if __name__ == "__main__":
    unittest.main()
