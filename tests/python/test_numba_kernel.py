"""The numba kernel of paper/37-numba.md against the C kernel, bit for bit.

The C results come from the engine (crafted series, through the Python
client; a series with a NaN, which the client refuses, is held to the
specification's numpy oracle instead) and from data/sweep.csv (the study's series: the C in-process result
of the measured run, PnL printed with %.17g).
"""
import re
import sys
import unittest

import numpy as np

import support
from support import ROOT, ipc

import kernel_numba


def oracle_sweep(close, params):
    """The specification's numpy oracle, for a series the engine is not sent:
    the client refuses a series that is not finite (paper/58-python-client.md),
    and the numba kernel's NaN path is held to the specification instead."""
    import spec_numpy
    results = [spec_numpy.combo(close, p) for p in params]
    return np.array([r[0] for r in results]), np.array([r[1] for r in results])


class NumbaAgainstTheEngine(unittest.TestCase):
    """Crafted series: the numba sweep and the C engine's, combination by combination."""

    @classmethod
    def setUpClass(cls):
        support.require_engine()
        cls.engine = support.EngineProcess()

    @classmethod
    def tearDownClass(cls):
        cls.engine.stop()

    def test_crafted_series_agree_bit_for_bit(self):
        with ipc.Engine(self.engine.path) as engine:
            for name, (close, params) in support.crafted_cases().items():
                if not np.all(np.isfinite(close)):
                    continue            # the engine refuses it: see the next test
                with self.subTest(series=name):
                    c_pnl, c_trades = (engine.sweep(close, params) if np.isfinite(close).all()
                                       else oracle_sweep(close, params))
                    pnl, trades = kernel_numba.sweep(close, params)
                    self.assertEqual(support.bit_mismatches(pnl, c_pnl), [],
                                     f"{name}: PnL bits differ")
                    self.assertEqual(trades.tolist(), c_trades.tolist())

    def test_the_engine_refuses_a_series_with_a_nan(self):
        # The C engine refuses a NaN close (paper/50-protocol.md), naming the
        # first; only the kernels themselves still define what a NaN does.
        close, params = support.crafted_cases()["a NaN in the series"]
        with ipc.Engine(self.engine.path) as engine:
            with self.assertRaises(Exception) as refused:
                engine.sweep(close, params)
        self.assertIn("400", str(refused.exception))

    def test_the_crafted_series_reach_the_branches(self):
        # A test that compares zeros with zeros proves nothing: every case
        # must trade, and the flat one must hold exact ties between the lines.
        for name, (close, params) in support.crafted_cases().items():
            with self.subTest(series=name):
                pnl, trades = kernel_numba.sweep(close, params)
                self.assertGreater(trades.max(), 0, f"{name}: no combination traded")
        close, params = support.crafted_cases()["flat stretches"]
        ws = kernel_numba.Workspace()
        fast, middle, slow, mix, hma, hma3 = ws.reserve(len(close))
        kernel_numba.hma_line(close, params[0], fast, slow, mix, hma)
        kernel_numba.hma3_line(close, params[0], fast, middle, slow, mix, hma3)
        self.assertTrue(np.any(hma == hma3), "the flat series never makes the lines touch")


class NumbaOnTheStudysSeries(unittest.TestCase):
    """All the combinations of data/sweep.csv on the series it was computed on."""

    def test_every_combination_of_the_study_agrees_bit_for_bit(self):
        close = support.study_series()
        params, c_pnl, c_trades = support.sweep_csv()
        pnl, trades = kernel_numba.sweep(close, params)
        bad = support.bit_mismatches(pnl, c_pnl)
        self.assertEqual(bad, [], f"PnL bits differ at combinations {bad}")
        self.assertEqual(trades.tolist(), c_trades.tolist())
        print(f"\n    numba and C agree bit for bit on all {len(params)} combinations "
              f"of the study's {len(close)}-bar series", file=sys.stderr)


class NumbaCompiledCode(unittest.TestCase):
    """What the chapter says about the compiled code and about itself."""

    FMA = re.compile(r"\bv?f(n)?m(add|sub)\w*\b", re.IGNORECASE)

    def test_no_fused_multiply_add_in_the_machine_code(self):
        kernel_numba.sweep(support.random_walk(50, 1), support.grid(2, 20))
        checked = 0
        for name in ("wma_window", "wma", "hma_line", "hma3_line", "close_position",
                     "position_step", "stop_and_reverse", "sweep_into"):
            function = getattr(kernel_numba, name)
            for signature in function.signatures:
                asm = function.inspect_asm(signature)
                self.assertEqual(self.FMA.findall(asm), [], f"{name} contains FMA")
                checked += 1
        self.assertGreaterEqual(checked, 8)
        # the sweep's code holds the whole kernel (numba links what it calls):
        # its multiplications and divisions are there, and none of them fused
        asm = kernel_numba.sweep_into.inspect_asm(kernel_numba.sweep_into.signatures[0])
        self.assertTrue("vmulsd" in asm and "vdivsd" in asm and "vaddsd" in asm,
                        "the sweep's machine code has no scalar arithmetic: not the kernel?")

    def test_the_pattern_would_see_an_fma(self):
        self.assertTrue(self.FMA.search("\tvfmadd231sd %xmm2, %xmm1, %xmm0"))
        self.assertTrue(self.FMA.search("\tvfnmsub213pd %ymm2, %ymm1, %ymm0"))
        self.assertFalse(self.FMA.search("\tvmulsd %xmm2, %xmm1, %xmm0"))

    def test_no_fastmath_anywhere(self):
        for name in ("wma_window", "sweep_into", "position_step"):
            options = getattr(kernel_numba, name).targetoptions
            self.assertFalse(options.get("fastmath", False), f"{name} has fastmath")

    def test_windows_below_one_are_refused(self):
        with self.assertRaises(ValueError):
            kernel_numba.sweep(np.ones(10), [[0, 2, 1, 1, 1, 2]])


def chunk_lines(chapter, name):
    """Every line of the chunk #name in a chapter, its pieces in order."""
    lines, inside = [], False
    for line in chapter.splitlines():
        if not inside and re.match(r"^```\{\.\w+ #" + re.escape(name) + r"[ }]", line):
            inside = True
        elif inside and line.startswith("```"):
            inside = False
        elif inside:
            lines.append(line)
    return lines


class TheChaptersQuotations(unittest.TestCase):
    """Every C quotation in paper/37-numba.md is a verbatim run of its chunk."""

    def test_quotations_are_verbatim(self):
        numba_chapter = (ROOT / "paper" / "37-numba.md").read_text()
        kernel_chapter = (ROOT / "paper" / "30-kernel.md").read_text()
        quotes = re.findall(r"^```\{\.c quotes=([\w-]+)\}\n(.*?)^```$", numba_chapter,
                            re.MULTILINE | re.DOTALL)
        self.assertGreaterEqual(len(quotes), 8)
        for name, text in quotes:
            with self.subTest(chunk=name):
                quoted = text.rstrip("\n").split("\n")
                source = chunk_lines(kernel_chapter, name)
                self.assertTrue(source, f"no chunk #{name} in paper/30-kernel.md")
                found = any(source[i:i + len(quoted)] == quoted
                            for i in range(len(source) - len(quoted) + 1))
                self.assertTrue(found, f"the quotation of #{name} is not in the chunk")


if __name__ == "__main__":
    unittest.main()
