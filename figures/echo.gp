# echo.gp - the echo round trip against payload size, log-log: each lane's
# medians with their intervals (WOVEN/echo_points.csv) and its fitted model
# (WOVEN/echo_fits.csv), the points each fit left out ringed; the original's
# points (WOVEN/echo_original.csv) and model (DATA/original.csv). Tangled
# from paper/94-appendix-figures.md; the Makefile sets the terminal, DATA and
# WOVEN.
# <<figure-conventions>>, paper/94-appendix-figures.md
set datafile separator comma
# Text sizes are fractions of the terminal's own font, read from its options
# (they hold, say, `font 'DejaVu Sans,13'`); 12 if a terminal names none.
AT = strstrt(GPVAL_TERMOPTIONS, "font ")
SPEC = AT > 0 ? GPVAL_TERMOPTIONS[AT + 6 :] : ""
SPEC = AT > 0 ? SPEC[1 : strstrt(SPEC, GPVAL_TERMOPTIONS[AT + 5 : AT + 5]) - 1] : ""
BASE = strstrt(SPEC, ",") > 0 ? real(SPEC[strstrt(SPEC, ",") + 1 :]) : 12
fontsize(f) = sprintf(",%.3g", BASE * f)
SMALL = fontsize(0.92)           # row labels, keys, and labels beside marks
# This run in blue (a second series in orange); references in grey; the
# original's figures as open black diamonds.
BLUE = "#1f5fa6"
ORANGE = "#d95f02"
GREY = "#666666"
ORIGINAL_PT = 12
ORIGINAL_PS = 1.3
set border 3 lc rgb "#444444"
set tics nomirror
# An estimate as the pointer shows it: the median and its interval.
estimate(f, v, lo, hi) = sprintf(f." [".f.", ".f."]", v, lo, hi)
# <<the-original-machine>>, paper/94-appendix-figures.md
ORIGINAL = DATA."/original.csv"
# The original's figure of a key, for stats: NaN on every other row.
original(key) = strcol(1) eq key ? column(2) : NaN
stats ORIGINAL skip 1 using (strcol(1) eq "machine" ? (MACHINE = strcol(2), 0) : NaN) nooutput
MACHINE = strstrt(MACHINE, ";") > 0 ? MACHINE[1 : strstrt(MACHINE, ";") - 1] : MACHINE
ORIGINAL_TITLE = "original (".MACHINE.")"
P = WOVEN."/echo_points.csv"
FITS = WOVEN."/echo_fits.csv"

# <<echo-the-lanes-drawn>>, paper/65-echo.md
# The lanes drawn: the protocol's echo on one CPU on every transport that
# has one (the pipe has only its raw ping-pong), the Unix socket's also across
# two CPUs, the spinning ring (across two only), and the Python client's,
# careful and the original's way (a copy per call).
N = 8
array CLIENT[N] = ["c", "c", "c", "c", "c", "c", "python", "python_copying"]
array TRANSPORT[N] = ["unix", "unix", "tcp", "pipe", "shm_futex", "shm_spin", "unix", "unix"]
array PLACE[N] = ["same", "cross", "same", "same", "same", "cross", "same", "same"]
array MODE[N] = ["protocol", "protocol", "protocol", "raw", "protocol", "protocol", "protocol", \
                 "protocol"]
array NAME[N] = ["C, unix", "C, unix, two CPUs", "C, tcp", "C, pipe (raw)", "C, shm_futex", \
                 "C, shm_spin, two CPUs", "Python, unix", "Python, the original’s way"]
array COLOR[N] = ["#0072b2", "#56b4e9", "#e69f00", "#009e73", "#cc79a7", "#882255", "#d55e00", \
                  "#999933"]
array POINT[N] = [7, 6, 5, 9, 13, 11, 15, 4]
lane(i) = strcol(1) eq CLIENT[i] && strcol(2) eq TRANSPORT[i] && strcol(3) eq PLACE[i] \
          && strcol(4) eq MODE[i]
drawn(dummy) = sum [i = 1:N] (lane(i) ? 1 : 0) > 0
tip(i) = sprintf("%s, %d B: ", NAME[i], $6).estimate("%.1f µs", $9, $10, $11)

# <<echo-each-lanes-fit>>, paper/65-echo.md
# Each lane's fit: T(b) = T0 + 2b/B, b bytes each way, T in µs, B in GB/s.
array FLOOR[N]
array GBPS[N]
do for [i = 1:N] {
    stats FITS skip 1 using (lane(i) ? $5 : NaN) nooutput
    FLOOR[i] = exists("STATS_max") ? STATS_max : NaN
    stats FITS skip 1 using (lane(i) ? $6 : NaN) nooutput
    GBPS[i] = exists("STATS_max") ? STATS_max : NaN
}
model(b, floor, gbps) = floor + 2 * b / (gbps * 1e3)
stats ORIGINAL skip 1 using (original("model.floor_us")) nooutput
ORIGINAL_FLOOR = STATS_max
stats ORIGINAL skip 1 using (original("model.bandwidth_gbps")) nooutput
ORIGINAL_GBPS = STATS_max

# <<echo-the-axes-span>>, paper/65-echo.md
# The sizes measured, for the model lines; the time axis spans whole decades
# around every interval and the original's points.
stats P skip 1 using 6 nooutput
BMIN = STATS_min
BMAX = STATS_max
stats P skip 1 using (drawn(0) ? $10 : NaN) nooutput
YLO = STATS_min
stats P skip 1 using (drawn(0) ? $11 : NaN) nooutput
YHI = STATS_max
stats WOVEN."/echo_original.csv" skip 1 using 3 nooutput
YLO = STATS_min < YLO ? STATS_min : YLO
YHI = STATS_max > YHI ? STATS_max : YHI

# <<echo-frame-and-axes>>, paper/65-echo.md
set tmargin at screen 0.97
set bmargin at screen 0.13
set lmargin at screen 0.11
set rmargin at screen 0.70
set logscale xy
set xrange [BMIN / 2 : BMAX * 2.5]
set yrange [10 ** floor(log10(YLO)) * 0.999 : 10 ** ceil(log10(YHI)) * 1.001]
@LOG_X
@LOG_Y
set mxtics 10
set mytics 10
set grid xtics ytics lc rgb "#e4e4e4"
set xlabel "payload, bytes each way" offset 0, 0.4
set ylabel "round trip, median (µs)"
set samples 60
set key at screen 0.72, screen 0.97 left top Left reverse samplen 2 spacing 1.1 font SMALL
set label 1 "lines: each lane’s fit,\nT(b) = T₀ + 2b/B" at screen 0.72, screen 0.30 left \
    tc rgb "#444444" font SMALL
# <<echo-draw-every-lane>>, paper/65-echo.md
# Each lane is its medians, their pointer marks, its fitted line and the
# rings on the points its fit left out, in that order, so that one key entry
# toggles all four: the command is written lane by lane. The rings' own key
# entry is a legend (keyentry draws no data), not a series of its own.
LANES = ""
do for [i = 1:N] {
    LANES = LANES.sprintf("P skip 1 using (lane(%d) ? $6 : NaN):9:10:11 with yerrorbars pt POINT[%d] ps 0.7 lw 1 lc rgb COLOR[%d] title NAME[%d], ", i, i, i, i)
    LANES = LANES.sprintf("P skip 1 using (lane(%d) ? $6 : NaN):9:(tip(%d)) with labels hypertext point pt POINT[%d] ps 0.7 lc rgb COLOR[%d] notitle, ", i, i, i, i)
    LANES = LANES.sprintf("[BMIN:BMAX] '+' using 1:(model($1, FLOOR[%d], GBPS[%d])) with lines lw 1.2 lc rgb COLOR[%d] notitle, ", i, i, i)
    LANES = LANES.sprintf("P skip 1 using (lane(%d) && strcol(16) eq '0' ? $6 : NaN):9 with points pt 6 ps 1.4 lw 1 lc rgb GREY notitle, ", i)
}
eval "plot ".LANES."\
     keyentry with points pt 6 ps 1.4 lw 1 lc rgb GREY title 'left out of its fit', \
     WOVEN.'/echo_original.csv' skip 1 using 2:3 with points pt ORIGINAL_PT ps ORIGINAL_PS \
         lw 1.5 lc rgb 'black' title ORIGINAL_TITLE, \
     [BMIN:BMAX] '+' using 1:(model($1, ORIGINAL_FLOOR, ORIGINAL_GBPS)) with lines dt 2 \
         lw 1.5 lc rgb 'black' title \"original’s model\""
