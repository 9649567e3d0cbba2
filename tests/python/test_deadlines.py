"""One deadline per call (issue 33): engines that drip, stall, or never let go of
their output, on a socket and spawned. Every test bounds its own wait, so that
a client that hangs fails the test rather than the build; the bounds are
generous multiples of the timeout, never timings being measured."""
import os
import socket
import stat
import struct
import tempfile
import textwrap
import threading
import time
import unittest

import numpy as np

import support
from support import ipc

TIMEOUT = 1.0                   # the deadline the tests give each call, seconds
HANG_GUARD = 10 * TIMEOUT       # a call that took longer than this did not keep its deadline


def dripping(gap, reply_of):
    """A socket script that reads a request and drips its reply one byte every gap s."""
    def script(conn):
        body = support.read_frame(conn)
        for byte in support.frame(reply_of(body)):
            conn.sendall(bytes([byte]))
            time.sleep(gap)
        conn.recv(1)
    return script


class OnASocket(unittest.TestCase):

    def timed_out(self, script, call, timeout=TIMEOUT):
        """Runs call(engine) against a scripted engine; it must end in EngineTimeout."""
        with support.ScriptedEngine(script) as fake:
            with ipc.Engine(fake.path, timeout=timeout) as engine:
                start = time.monotonic()
                with self.assertRaises(ipc.EngineTimeout) as caught:
                    call(engine)
                took = time.monotonic() - start
                self.assertTrue(engine.closed)
        self.assertLess(took, HANG_GUARD, "the call did not keep its deadline")
        self.assertIn(fake.path, str(caught.exception))
        return took

    def test_a_reply_dripped_a_byte_at_a_time_times_out(self):
        # 12 bytes at 0.3 s each take 3.6 s: every single wait is short, the call is not
        took = self.timed_out(dripping(0.3, lambda body: body[9:]),
                              lambda e: e.echo([1.0]))
        self.assertGreaterEqual(took, TIMEOUT)

    def test_a_dripped_reply_within_the_deadline_is_read(self):
        with support.ScriptedEngine(dripping(0.02, lambda body: body[9:])) as fake:
            with ipc.Engine(fake.path, timeout=5) as engine:
                self.assertEqual(engine.echo([3.0]).tolist(), [3.0])

    def test_an_engine_that_never_answers_times_out(self):
        def script(conn):
            support.read_frame(conn)
            conn.recv(1)
        self.timed_out(script, lambda e: e.sweep(np.ones(20), support.grid(2, 10)))

    def test_an_engine_that_never_reads_times_out_while_sending(self):
        def script(conn):
            conn.recv(1)                    # reads nothing more: the socket fills
            time.sleep(3 * HANG_GUARD)
        # 8 MB: far more than a Unix socket's buffers hold
        self.timed_out(script, lambda e: e.echo(np.ones(1_000_000)))

    def test_the_original_way_keeps_the_deadline_too(self):
        took_script = dripping(0.3, lambda body: body[9:])
        with support.ScriptedEngine(took_script) as fake:
            with ipc.Engine(fake.path, timeout=TIMEOUT, copying=True) as engine:
                with self.assertRaises(ipc.EngineTimeout):
                    engine.echo([1.0])

    def test_a_call_within_its_deadline_sets_no_timeout(self):
        # the kernel's timeouts are the Engine's own after calls that end in time
        with support.FakeEngine() as fake, ipc.Engine(fake.path, timeout=30) as engine:
            for _ in range(3):
                engine.echo(np.ones(1000))
            received = engine._sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, 16)
            self.assertEqual(struct.unpack("@ll", received), (30, 0))


def fake_engine(folder, name, body):
    """An executable Python script in folder that plays an engine --stdin."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/usr/bin/python3\nimport os, struct, subprocess, sys, time\n")
        f.write(body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


READ_REQUEST = """
def request():
    head = sys.stdin.buffer.read(4)
    return sys.stdin.buffer.read(struct.unpack("<I", head)[0])
def echo_reply(body):
    return struct.pack("<I", len(body) - 9) + body[9:]
"""


class SpawnedEngines(unittest.TestCase):
    """SpawnedEngine had no deadline, and read until the output ended."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory(prefix="ipctax-fakes-")

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def spawned(self, name, body, **options):
        return ipc.SpawnedEngine(fake_engine(self.folder.name, name,
                                             READ_REQUEST + textwrap.dedent(body)),
                                 timeout=TIMEOUT, **options)

    def call_ends(self, engine, call):
        start = time.monotonic()
        try:
            return call(engine)
        finally:
            self.assertLess(time.monotonic() - start, HANG_GUARD, "the call did not end")

    def test_a_reply_followed_by_an_open_stdout_is_read(self):
        # the engine exits, but a child it left behind holds its stdout open
        engine = self.spawned("leaves_a_child", """
            body = request()
            sys.stdout.buffer.write(echo_reply(body)); sys.stdout.flush()
            subprocess.Popen(["sleep", "%d"])
            """ % (3 * HANG_GUARD))
        for copying in (False, True):
            engine.copying = copying
            back = self.call_ends(engine, lambda e: e.echo([2.5, 3.5]))
            self.assertEqual(back.tolist(), [2.5, 3.5])

    def test_a_reply_dripped_a_byte_at_a_time_times_out(self):
        engine = self.spawned("drips", """
            body = request()
            for b in echo_reply(body):
                sys.stdout.buffer.write(bytes([b])); sys.stdout.flush(); time.sleep(0.3)
            """)
        with self.assertRaisesRegex(ipc.EngineTimeout, "no whole reply within 1.0 s"):
            self.call_ends(engine, lambda e: e.echo([1.0]))

    def test_an_engine_that_never_reads_its_input_times_out(self):
        engine = self.spawned("never_reads", "time.sleep(%d)\n" % (3 * HANG_GUARD))
        with self.assertRaises(ipc.EngineTimeout):
            self.call_ends(engine, lambda e: e.echo(np.ones(150_000)))   # more than a pipe holds

    def test_an_engine_that_replies_but_never_exits_times_out(self):
        engine = self.spawned("stays", """
            body = request()
            sys.stdout.buffer.write(echo_reply(body)); sys.stdout.flush()
            time.sleep(%d)
            """ % (3 * HANG_GUARD))
        with self.assertRaisesRegex(ipc.EngineTimeout, "did not exit"):
            self.call_ends(engine, lambda e: e.echo([1.0]))

    def test_an_engine_that_closes_its_output_and_stalls_times_out(self):
        engine = self.spawned("closes_and_stalls", """
            request()
            os.close(1)
            time.sleep(%d)
            """ % (3 * HANG_GUARD))
        with self.assertRaises(ipc.EngineTimeout):
            self.call_ends(engine, lambda e: e.echo([1.0]))

    def test_more_than_a_frame_is_not_read_past_the_frame(self):
        engine = self.spawned("says_more", """
            body = request()
            sys.stdout.buffer.write(echo_reply(body) + b"trailing bytes"); sys.stdout.flush()
            """)
        self.assertEqual(self.call_ends(engine, lambda e: e.echo([7.0])).tolist(), [7.0])

    def test_the_real_engine_within_its_deadline(self):
        support.require_engine()
        engine = ipc.SpawnedEngine(support.ENGINE, timeout=60)
        values = support.random_walk(150_000, 3)
        self.assertTrue(support.same_bits(engine.echo(values), values))


if __name__ == "__main__":
    unittest.main()
