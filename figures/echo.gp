# echo.gp - the echo curve, log-log, with the fitted model.
# Tangled from paper/65-echo.md; the Makefile sets the terminal, DATA and WOVEN.
set datafile separator comma
set logscale xy
@LOG_X
@LOG_Y
set xlabel "payload (bytes each way)"
set ylabel "round-trip time (µs)"
set key top left
set grid xtics ytics mxtics mytics lc rgb "#eeeeee"
stats WOVEN."/echo_fit.csv" skip 1 using (strcol(1) eq "unix" ? $2 : NaN) nooutput
floor = STATS_max
stats WOVEN."/echo_fit.csv" skip 1 using (strcol(1) eq "unix" ? $3 : NaN) nooutput
bw = STATS_max
model(b) = floor + 2 * b / (bw * 1e3)
S = WOVEN."/echo_stats.csv"
pick(t, col) = strcol(1) eq t ? column(col) : NaN
plot S skip 1 using 3:(pick("unix", 4)):(pick("unix", 7)) with filledcurves \
         fc rgb "#9ecae1" fs transparent solid 0.5 title "echo, min to p99", \
     S skip 1 using 3:(pick("unix", 5)) with linespoints pt 7 ps 0.6 lc rgb "#08519c" \
         title "echo, median", \
     S skip 1 using 3:(pick("unix_raw", 5)) with linespoints pt 6 ps 0.6 lc rgb "#a63603" \
         title "raw transport, median", \
     [8:1.3e6] model(x) with lines dt 2 lw 1.5 lc rgb "#333333" title "fitted model"
