"""kernel_numba.py - the kernel of kernel-spec.md in numba, the original's baseline.

Tangled from paper/37-numba.md; edit the chapter, not this file. Each
function is written line for line beside the C kernel of paper/30-kernel.md
and gives the same results, bit for bit.

    from kernel_numba import sweep
    pnl, trades = sweep(close, params)     # float64 (n_bars,), int64 (n, 6)
"""
import numpy as np
from numba import njit

# <<numba-compile-without-fastmath>>, paper/37-numba.md
# One set of options for every function of the kernel. fastmath stays off,
# said out loud: with it LLVM could reassociate sums and fuse a*b + c into one
# rounding, and the results would no longer be the C kernel's bit for bit.
kernel = njit(fastmath=False, error_model="numpy", boundscheck=False, cache=False)

# The six window lengths of one combination, in wire order (struct combo_params).
H_HALF, H_LEN, H_SQRT, T_THIRD, T_HALF, T_LEN = range(6)

# Round-trip fee per closed trade, in percentage points (0.09%).
ROUND_TRIP_FEE = 0.09


# <<numba-weighted-moving-average>>, paper/37-numba.md
@kernel
def wma_window(x, start, n):
    """The weighted sum of x[start .. start+n), oldest value first, over the weights' sum."""
    weight_sum = float(n) * float(n + 1) / 2.0
    s = 0.0
    for j in range(n):
        s = s + x[start + j] * float(j + 1)
    return s / weight_sum
@kernel
def wma(x, n, out):
    """out[t] = wma_window(x, t - n + 1, n), NaN for t < n-1."""
    n_bars = len(x)
    first = n - 1
    for t in range(min(first, n_bars)):
        out[t] = np.nan
    for t in range(first, n_bars):
        out[t] = wma_window(x, t - first, n)


# <<numba-build-the-hma-and-hma3-lines>>, paper/37-numba.md
@kernel
def hma_line(close, p, fast, slow, mix, hma):
    """hma = wma(2*wma(close, h_half) - wma(close, h_len), h_sqrt)"""
    wma(close, p[H_HALF], fast)
    wma(close, p[H_LEN], slow)
    for t in range(len(close)):
        mix[t] = 2.0 * fast[t] - slow[t]
    wma(mix, p[H_SQRT], hma)
@kernel
def hma3_line(close, p, fast, middle, slow, mix, hma3):
    """hma3 = wma((3*wma(close, t_third) - wma(close, t_half)) - wma(close, t_len), t_len)"""
    wma(close, p[T_THIRD], fast)
    wma(close, p[T_HALF], middle)
    wma(close, p[T_LEN], slow)
    for t in range(len(close)):
        mix[t] = (3.0 * fast[t] - middle[t]) - slow[t]
    wma(mix, p[T_LEN], hma3)


# <<numba-close-a-position>>, paper/37-numba.md
@kernel
def close_position(side, entry, pnl, trades, price):
    """Closes the position at price: adds its return less the fee, counts a trade."""
    if side == +1:
        pnl += (price / entry - 1.0) * 100.0 - ROUND_TRIP_FEE
    else:
        pnl += (1.0 - price / entry) * 100.0 - ROUND_TRIP_FEE
    trades += 1
    return pnl, trades


# <<numba-step-the-stop-and-reverse-rule>>, paper/37-numba.md
@kernel
def position_step(side, entry, pnl, trades, hma_prev, hma3_prev, hma, hma3, price):
    """One pair of bars of the rule; returns the new (side, entry, pnl, trades)."""
    if np.isnan(hma_prev) or np.isnan(hma3_prev) or np.isnan(hma) or np.isnan(hma3):
        return side, entry, pnl, trades          # the warm-up of the longest window
    if hma_prev <= hma3_prev and hma > hma3:
        if side == -1:
            pnl, trades = close_position(side, entry, pnl, trades, price)
        side = +1
        entry = price
    elif hma_prev >= hma3_prev and hma < hma3:
        if side == +1:
            pnl, trades = close_position(side, entry, pnl, trades, price)
        side = -1
        entry = price
    return side, entry, pnl, trades


# <<numba-walk-the-bars>>, paper/37-numba.md
@kernel
def stop_and_reverse(close, hma, hma3):
    """The rule over every pair of bars; returns (pnl, trades) of one combination."""
    n_bars = len(close)
    side, entry, pnl, trades = 0, 0.0, 0.0, 0
    for t in range(1, n_bars):
        side, entry, pnl, trades = position_step(side, entry, pnl, trades, hma[t - 1],
                                                 hma3[t - 1], hma[t], hma3[t], close[t])
    if n_bars > 0 and side != 0:
        pnl, trades = close_position(side, entry, pnl, trades, close[n_bars - 1])
    return pnl, trades


# <<numba-sweep-every-combination>>, paper/37-numba.md
@kernel
def sweep_into(close, params, fast, middle, slow, mix, hma, hma3, pnl, trades):
    """Every combination (a row of params) over close; results into pnl and trades."""
    for k in range(params.shape[0]):
        hma_line(close, params[k], fast, slow, mix, hma)
        hma3_line(close, params[k], fast, middle, slow, mix, hma3)
        pnl[k], trades[k] = stop_and_reverse(close, hma, hma3)


# <<numba-sweep-from-python-with-a-kept-workspace>>, paper/37-numba.md
class Workspace:
    """Scratch arrays of a sweep, kept between sweeps (struct sweep_workspace)."""

    def __init__(self):
        self.capacity = 0
        self.arrays = ()

    def reserve(self, n_bars):
        """Six arrays of at least n_bars doubles, as views of exactly n_bars."""
        if n_bars > self.capacity or not self.arrays:
            self.arrays = tuple(np.empty(max(n_bars, 1)) for _ in range(6))
            self.capacity = n_bars
        return tuple(a[:n_bars] for a in self.arrays)


def sweep(close, params, workspace=None):
    """Runs every combination of params over close with the kernel of kernel-spec.md.

    close: 1-d float64 array; params: (n, 6) int64 array in wire order
    [h_half, h_len, h_sqrt, t_third, t_half, t_len]. Returns (pnl, trades),
    a float64 and an int64 array of n values.
    """
    close = np.require(close, dtype=np.float64, requirements="C")
    params = np.require(params, dtype=np.int64, requirements="C")
    if close.ndim != 1:
        raise ValueError(f"close must be one-dimensional, not of shape {close.shape}")
    if params.ndim != 2 or params.shape[1] != 6:
        raise ValueError(f"params must have shape (n, 6), not {params.shape}")
    if params.size and params.min() < 1:
        raise ValueError("every window must be at least 1")
    ws = workspace if workspace is not None else Workspace()
    pnl = np.empty(params.shape[0], dtype=np.float64)
    trades = np.empty(params.shape[0], dtype=np.int64)
    sweep_into(close, params, *ws.reserve(len(close)), pnl, trades)
    return pnl, trades
