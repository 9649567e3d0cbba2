# breakeven_measured.gp - predicted and measured boundary shares against G.
# Tangled from paper/85-derived.md; the Makefile sets the terminal and WOVEN.
set datafile separator comma
set logscale xy
@LOG_X
@LOG_Y
set xlabel "G = compute per call / crossing floor"
set ylabel "share of the call spent crossing"
set xrange [1e-2:1e8]
set yrange [1e-8:2]
set key bottom left
set grid xtics ytics lc rgb "#eeeeee"
set samples 400
M = WOVEN."/breakeven_marks.csv"
P = WOVEN."/breakeven_measured.csv"
plot 1 / (1 + x) with lines lw 2 lc rgb "#08519c" title "1/(1+G)", \
     M skip 1 using 2:3 with points pt 7 ps 1.2 lc rgb "#08519c" title "predicted", \
     P skip 1 using 2:3 with points pt 6 ps 1.8 lw 2 lc rgb "#a63603" title "measured", \
     P skip 1 using 2:3:1 with labels offset char 1,-1 left notitle
