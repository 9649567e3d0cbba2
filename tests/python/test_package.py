"""The client as a package a numpy user recognizes (issue 32): installed with pip
into a fresh virtual environment, its release, its public names, its
docstrings' examples, the errors a wrong argument gets, a dead engine
reported, the study's series, and the protocol's constants held to
code/wire/frame.h."""
import doctest
import hashlib
import inspect
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

import support
from support import ipc


def citation_version():
    text = (support.ROOT / "CITATION.cff").read_text(encoding="utf-8")
    return re.search(r'^version: "([^"]+)"$', text, re.M).group(1)


class InstalledIntoAVirtualEnvironment(unittest.TestCase):
    """make install-python VENV=DIR: pip, offline, with Debian's packages; used from
    outside the tree, it is the installed module that answers."""

    def test_pip_installs_it_into_a_fresh_virtual_environment(self):
        support.require_engine()
        with tempfile.TemporaryDirectory(prefix="ipctax-venv-") as home:
            venv = os.path.join(home, "venv")
            env = {"HOME": home, "PATH": os.environ["PATH"]}
            subprocess.run(["make", "-s", "-C", str(support.ROOT), "install-python",
                            f"VENV={venv}"], env=env, check=True, stdout=subprocess.DEVNULL)
            use = ("import ipctax_client as ipc; "
                   f"e = ipc.Engine.start({str(support.ENGINE)!r}); "
                   "print(ipc.__version__, ipc.__file__, e.echo([4.25]).tolist()); e.close()")
            out = subprocess.run([os.path.join(venv, "bin", "python"), "-B", "-c", use],
                                 env=env, cwd=home, check=True, capture_output=True,
                                 text=True).stdout.split()
            self.assertEqual(out[0], citation_version())
            self.assertTrue(out[1].startswith(os.path.join(venv, "lib")), out[1])
            self.assertEqual(out[2], "[4.25]")
            pip = subprocess.run([os.path.join(venv, "bin", "pip"), "show", "ipctax-client"],
                                 env=env, check=True, capture_output=True, text=True).stdout
            self.assertIn(f"Version: {citation_version()}", pip)
        # pip built a copy: the tree has no build files of it
        self.assertFalse((support.CODE / "build").exists())
        self.assertEqual(list(support.CODE.glob("*.egg-info")), [])


class ThePublicInterface(unittest.TestCase):

    def test_the_version_is_the_citations_release(self):
        self.assertEqual(ipc.__version__, citation_version())

    def test_all_names_the_public_interface_only(self):
        self.assertEqual(len(set(ipc.__all__)), len(ipc.__all__))
        for name in ipc.__all__:
            self.assertTrue(hasattr(ipc, name), name)
            self.assertFalse(name.startswith("_"), name)
        for internal in ("OP_SWEEP", "request_frame", "decode_request", "LENGTH_WORD",
                         "checked_request", "ERROR_FRAME_FLAG"):
            self.assertNotIn(internal, ipc.__all__)
        for name in ("Engine", "SpawnedEngine", "study_grid", "study_series", "EngineError",
                     "ProtocolError", "EngineTimeout", "PNL_UNIT"):
            self.assertIn(name, ipc.__all__)

    def test_every_public_callable_has_a_numpydoc_docstring(self):
        for name in ipc.__all__:
            thing = getattr(ipc, name)
            if callable(thing):
                self.assertTrue(inspect.getdoc(thing), f"{name} has no docstring")
        for thing in (ipc.Engine, ipc.Engine.start, ipc.Engine.sweep, ipc.Engine.echo,
                      ipc.SpawnedEngine, ipc.study_grid, ipc.study_series):
            doc = inspect.getdoc(thing)
            self.assertIn("Examples\n--------", doc, thing.__qualname__)
        for thing in (ipc.Engine, ipc.Engine.sweep, ipc.study_series, ipc.EngineProcess):
            self.assertRegex(inspect.getdoc(thing), r"(Parameters|Attributes)\n----------",
                             thing.__qualname__)

    def test_the_docstrings_examples_run(self):
        # They start engines of their own ($IPCTAX_ENGINE) and sweep the study's series.
        support.require_engine()
        os.environ.setdefault("IPCTAX_ENGINE", str(support.ENGINE))
        result = doctest.testmod(ipc, optionflags=doctest.ELLIPSIS, verbose=False)
        self.assertGreater(result.attempted, 10)
        self.assertEqual(result.failed, 0)


class WrongArguments(unittest.TestCase):
    """A wrong type is a TypeError, a wrong value a ValueError; each says what it
    was, and nothing reaches the engine (issue 32)."""

    def setUp(self):
        self.fake = support.FakeEngine()
        self.engine = ipc.Engine(self.fake.path)
        self.grid = support.grid(2, 8)

    def tearDown(self):
        self.engine.close()
        self.fake.stop()

    def refused(self, error, pattern, call):
        with self.assertRaisesRegex(error, pattern):
            call()
        self.assertEqual(self.fake.opcodes, [], "the refused request was sent")

    def test_none_and_text_are_type_errors(self):
        self.refused(TypeError, r"^close must be a series of numbers, not None$",
                     lambda: self.engine.sweep(None, self.grid))
        self.refused(TypeError, r"^params must be an \(n, 6\) array of integer windows, not None",
                     lambda: self.engine.sweep(np.ones(10), None))
        self.refused(TypeError, "not str", lambda: self.engine.sweep("1,2,3", self.grid))
        self.refused(TypeError, "not str", lambda: self.engine.sweep(np.ones(10), "3,6,2"))
        self.refused(TypeError, "real numbers, not <U", lambda: self.engine.echo(["a", "b"]))
        self.refused(TypeError, "not None", lambda: self.engine.echo(None))
        self.refused(TypeError, "not None", lambda: self.engine.load(None))

    def test_booleans_are_refused_as_prices_and_as_windows(self):
        self.refused(TypeError, "booleans are not prices",
                     lambda: self.engine.sweep(np.ones(10, dtype=bool), self.grid))
        self.refused(TypeError, "windows must be integers, not booleans",
                     lambda: self.engine.sweep(np.ones(10), np.ones((1, 6), dtype=bool)))
        self.refused(TypeError, "windows must be integers, not booleans",
                     lambda: self.engine.sweep(np.ones(10), [[True, 2, 1, 1, 1, 2]]))

    def test_an_empty_series_or_grid_is_refused_by_name(self):
        # it was "combo 0, h_half: window 3 is outside 1..n_bars (0)"
        self.refused(ValueError, r"^close is empty: a series to sweep needs at least one bar$",
                     lambda: self.engine.sweep([], ipc.study_grid()))
        self.refused(ValueError, r"^close is empty", lambda: self.engine.load(np.empty(0)))
        self.refused(ValueError, "params holds no parameter set",
                     lambda: self.engine.sweep(np.ones(10), np.empty((0, 6), dtype=np.int64)))

    def test_prices_at_or_below_zero_are_refused(self):
        close = np.ones(10)
        close[2] = 0.0
        self.refused(ValueError, r"^close\[2\] is 0\.0: a price must be above 0$",
                     lambda: self.engine.sweep(close, self.grid))
        close[2], close[5] = 1.0, -3.5
        self.refused(ValueError, r"^close\[5\] is -3\.5: a price must be above 0$",
                     lambda: self.engine.load(close))

    def test_an_echo_still_takes_any_doubles(self):
        back = self.engine.echo([-1.0, 0.0, np.nan])
        self.assertTrue(support.same_bits(back, [-1.0, 0.0, np.nan]))

    def test_a_wrong_out_is_a_type_error(self):
        with self.assertRaisesRegex(TypeError, r"out must be a writeable, contiguous float64 "
                                               r"array of shape \(3,\)"):
            self.engine.echo(np.ones(3), out=np.empty(4))
        with self.assertRaises(TypeError):
            self.engine.echo(np.ones(3), out=np.empty(3, dtype=np.float32))


class ADeadEngine(unittest.TestCase):
    """An engine the client started and that died is reported with its exit
    status and the end of its log, not as a closed connection alone."""

    def test_a_killed_engine_is_reported_with_its_status_and_log(self):
        support.require_engine()
        with ipc.Engine.start(support.ENGINE, timeout=10) as engine:
            self.assertEqual(engine.echo([1.0]).tolist(), [1.0])
            with open(engine.process.log_path, "a") as log:
                log.write("the last line the engine wrote\n")
            os.kill(engine.process.popen.pid, signal.SIGKILL)
            time.sleep(0.1)                 # let the hang-up reach the socket
            with self.assertRaises(ipc.ProtocolError) as caught:
                engine.echo([1.0])
            message = str(caught.exception)
            self.assertIn("the engine exited with status -9 (SIGKILL)", message)
            self.assertIn("its log ends: the last line the engine wrote", message)
            self.assertIn(engine.process.path, message)

    def test_a_stopped_engine_says_so(self):
        support.require_engine()
        process = ipc.EngineProcess(support.ENGINE)
        process.popen.terminate()
        process.popen.wait(10)
        self.assertRegex(process.fate(), r"^the engine exited with status 0; its log")
        process.stop()
        self.assertEqual(process.fate(), "the engine was stopped")


class TheStudysSeries(unittest.TestCase):
    """study_series is the C harness's series bit for bit."""

    def test_it_is_the_series_data_was_computed_on(self):
        run = support.run()
        close = ipc.study_series(int(run["bars"]))
        self.assertEqual(hashlib.sha256(close.astype("<f8").tobytes()).hexdigest(),
                         run["series_sha256"])

    def test_it_is_the_specifications_series(self):
        header = (support.ROOT / "code" / "kernel" / "series.h").read_text()
        spec = re.search(r'SPEC_SERIES_SHA256 "([0-9a-f]{64})"', header).group(1)
        close = ipc.study_series()
        self.assertEqual(len(close), ipc.STUDY_BARS)
        self.assertEqual(hashlib.sha256(close.astype("<f8").tobytes()).hexdigest(), spec)
        self.assertTrue(support.same_bits(close[:1000], ipc.study_series(1000)))

    def test_its_arguments_are_checked(self):
        with self.assertRaises(TypeError):
            ipc.study_series(True)
        with self.assertRaises(TypeError):
            ipc.study_series(10.0)
        with self.assertRaises(ValueError):
            ipc.study_series(0)


def constants_of(text):
    """The integer constants a C header defines (#define NAME number, enum NAME = value)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    found = {}
    for name, value in re.findall(r"^#define\s+([A-Z_]+)\s+\(?([0-9a-fA-Fx* u]+)\)?\s*$",
                                  text, re.M):
        found[name] = eval(value.replace("u", ""), {})
    for body in re.findall(r"enum\s*\w*\s*\{(.*?)\}", text, re.S):
        for name, value in re.findall(r"([A-Z_]+)\s*=\s*([^,\n]+)", body):
            found[name] = eval(value.strip().replace("u", ""), {}, dict(found))
    return found


def frame_h_constants():
    """The constants of code/wire/frame.h and of code/kernel/grid.h, which it includes."""
    return constants_of("\n".join((support.ROOT / h).read_text()
                                  for h in ("code/kernel/grid.h", "code/wire/frame.h")))


# The one description of the protocol's constants: the client's name, and how
# frame.h (or kernel.h) says it.
PROTOCOL_CONSTANTS = {
    "OP_SWEEP": "OP_SWEEP", "OP_ECHO": "OP_ECHO", "OP_LOAD": "OP_LOAD",
    "OP_SWEEP_LOADED": "OP_SWEEP_LOADED", "TIMING_FLAG": "OP_TIMED",
    "ERROR_FRAME_FLAG": "ERROR_FRAME_FLAG", "FRAME_LENGTH_MASK": "FRAME_LENGTH_MASK",
    "DEFAULT_MAX_FRAME": "DEFAULT_MAX_FRAME", "PARAMS_PER_COMBO": "PARAMS_PER_COMBO",
    "LENGTH_WORD.size": "FRAME_HEADER_BYTES", "REQUEST_HEADER.size": "REQUEST_HEADER_BYTES",
    "TIMING_TRAILER.size": "TIMING_TRAILER_BYTES",
}


class TheProtocolsConstants(unittest.TestCase):
    """The client's copy of the protocol's constants is frame.h's."""

    def test_they_are_frame_hs(self):
        c = frame_h_constants()
        for mine, theirs in PROTOCOL_CONSTANTS.items():
            with self.subTest(constant=mine):
                self.assertIn(theirs, c, f"frame.h no longer defines {theirs}")
                value = eval(mine, {}, vars(ipc))
                self.assertEqual(value, c[theirs], f"{mine} is {value}, frame.h says {c[theirs]}")
        self.assertEqual(ipc.FRAME_HEAD.size, c["FRAME_HEADER_BYTES"] + c["REQUEST_HEADER_BYTES"])
        self.assertEqual(ipc.reply_size(ipc.OP_SWEEP, 0, 1), c["RESULT_BYTES"])

    def test_a_drift_is_seen(self):
        # the reader on a header that says otherwise: the test above can fail
        drifted = constants_of("enum { FRAME_HEADER_BYTES = 8, /* was 4 */ };\n"
                               "#define OP_TIMED 0x40u\n")
        self.assertEqual(drifted, {"FRAME_HEADER_BYTES": 8, "OP_TIMED": 0x40})
        self.assertNotEqual(drifted["OP_TIMED"], ipc.TIMING_FLAG)


if __name__ == "__main__":
    unittest.main()
