#!/usr/bin/python3
"""An independent implementation of kernel-spec.md in numpy, used as an oracle.

It shares no code with the C kernel: the series comes from numpy's own
RandomState(42), the WMA is vectorised across bars (each bar's sum keeps the
specification's order, so the result is bit-identical), and the event loop
is plain Python. It reads a sweep.csv written by ipctax-bench and fails
unless every combination's PnL has the same bits and the same trade count.

usage: spec_numpy.py SWEEP_CSV BARS [RESULT_CSV]

With RESULT_CSV it also records its verdict there (key,value rows), for the
paper to quote.
"""
import csv
import hashlib
import math
import sys

import numpy as np

FEE = 0.09
SIGMA = 0.001


def series(n_bars):
    # numpy's own exp is a vectorised approximation that differs from the C
    # library's in the last bit for some inputs; the specification names glibc's.
    z = np.random.RandomState(42).standard_normal(n_bars)
    close = np.empty(n_bars)
    lp = 0.0
    for t in range(n_bars):           # sequential sum, the specification's order
        lp = lp + (-0.5 * SIGMA * SIGMA + SIGMA * z[t])
        close[t] = 100.0 * math.exp(lp)   # the C library's exp, as the spec says
    return close


def wma(x, n):
    out = np.full(len(x), np.nan)
    if n > len(x):
        return out
    m = len(x) - n + 1                # number of full windows
    s = np.zeros(m)
    for j in range(n):                # oldest first, as the specification sums
        s = s + x[j:j + m] * float(j + 1)
    out[n - 1:] = s / (n * (n + 1) / 2.0)
    return out


def combo(close, p):
    h_half, h_len, h_sqrt, t_third, t_half, t_len = p
    hma = wma(2.0 * wma(close, h_half) - wma(close, h_len), h_sqrt)
    hma3 = wma((3.0 * wma(close, t_third) - wma(close, t_half)) - wma(close, t_len), t_len)
    pos, entry, pnl, trades = 0, 0.0, 0.0, 0
    h, h3, c = hma.tolist(), hma3.tolist(), close.tolist()
    for t in range(1, len(c)):
        a, b, a1, b1 = h[t - 1], h3[t - 1], h[t], h3[t]
        if a != a or b != b or a1 != a1 or b1 != b1:
            continue
        px = c[t]
        if a <= b and a1 > b1:
            if pos == -1:
                pnl += (1.0 - px / entry) * 100.0 - FEE
                trades += 1
            pos, entry = 1, px
        elif a >= b and a1 < b1:
            if pos == 1:
                pnl += (px / entry - 1.0) * 100.0 - FEE
                trades += 1
            pos, entry = -1, px
    if pos == 1:
        pnl += (c[-1] / entry - 1.0) * 100.0 - FEE
        trades += 1
    elif pos == -1:
        pnl += (1.0 - c[-1] / entry) * 100.0 - FEE
        trades += 1
    return pnl, trades


SPEC_SHA256 = "b009ebcaa7b72ba6778188046260512bf781587a7abe6445a076dd07a1fb8576"


def main():
    path, n_bars = sys.argv[1], int(sys.argv[2])
    close = series(n_bars)
    if n_bars == 150000:
        digest = hashlib.sha256(close.astype("<f8").tobytes()).hexdigest()
        if digest != SPEC_SHA256:
            print(f"spec_numpy: this numpy's series hashes to {digest}, not the spec's")
            return 1
    bad = 0
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        p = [int(row[k]) for k in ("h_half", "h_len", "h_sqrt", "t_third", "t_half", "t_len")]
        pnl, trades = combo(close, p)
        theirs = float(row["pnl"])
        if pnl.hex() != theirs.hex() or trades != int(row["trades"]):
            bad += 1
            print(f"combo {row['combo']}: numpy {pnl!r} / {trades}, C {theirs!r} / {row['trades']}")
    print(f"spec_numpy: {len(rows) - bad} of {len(rows)} combos bit-identical ({n_bars} bars)")
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["key", "value"])
            w.writerow(["bars", n_bars])
            w.writerow(["combos", len(rows)])
            w.writerow(["identical", len(rows) - bad])
            w.writerow(["numpy", np.__version__])
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
