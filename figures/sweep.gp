# sweep.gp - PnL and trades per combination against L, from DATA/sweep.csv.
# Tangled from paper/30-kernel.md; the Makefile sets the terminal and DATA.
set datafile separator comma
set key top center horizontal
set grid ytics lc rgb "#dddddd"
set xlabel "HMA length L"
set ylabel "PnL (percentage points)"
set y2label "trades closed"
set ytics nomirror
set y2tics
set xrange [0:205]
plot DATA."/sweep.csv" skip 1 using 2:9 axes x1y1 with linespoints pt 7 ps 0.5 \
         lc rgb "#1f77b4" title "PnL", \
     "" skip 1 using 2:10 axes x1y2 with linespoints pt 5 ps 0.5 \
         lc rgb "#d62728" title "trades"
