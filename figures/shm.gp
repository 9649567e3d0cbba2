# shm.gp - median round trip against payload: shared memory and Unix socket.
# Tangled from paper/84-shm.md; the Makefile sets the terminal, DATA and WOVEN.
set datafile separator comma
set logscale xy
@LOG_X
@LOG_Y
set xlabel "payload (bytes each way)"
set ylabel "median round-trip time (µs)"
set key bottom right
set grid xtics ytics mxtics mytics lc rgb "#eeeeee"
S = WOVEN."/echo_stats.csv"
pick(t) = strcol(1) eq t ? column(5) : NaN
plot S skip 1 using 3:(pick("unix")) with linespoints pt 7 ps 0.6 lc rgb "#08519c" \
         title "Unix socket, protocol echo", \
     S skip 1 using 3:(pick("unix_raw")) with linespoints pt 6 ps 0.6 lc rgb "#6baed6" \
         title "Unix socket, raw", \
     S skip 1 using 3:(pick("shm_futex")) with linespoints pt 5 ps 0.6 lc rgb "#a63603" \
         title "shared memory, futex", \
     S skip 1 using 3:(pick("shm_spin")) with linespoints pt 9 ps 0.6 lc rgb "#238b45" \
         title "shared memory, spin", \
     S skip 1 using 3:(pick("shm_spin_raw")) with linespoints pt 8 ps 0.6 lc rgb "#74c476" \
         title "shared memory, spin, raw"
