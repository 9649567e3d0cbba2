# roofline.gp - each kernel's GFLOP/s with its interval (WOVEN/roofline.csv)
# against the peak and the loops of its thread count (WOVEN/roofline_peaks.csv),
# on a log axis. Tangled from paper/77-roofline.md; the Makefile sets
# the terminal and WOVEN.
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
R = WOVEN."/roofline.csv"
PEAKS = WOVEN."/roofline_peaks.csv"

# <<roofline-rows-and-their-peaks>>, paper/77-roofline.md
# The kernels are rows; a line spans the rows of its thread count: one
# thread, or the most threads any kernel used.
stats R skip 1 using 2 nooutput
N = STATS_records
stats R skip 1 using 6 nooutput
ALL = STATS_max
stats R skip 1 using ($6 == 1 ? $0 : NaN) nooutput
ONE_FIRST = STATS_min
ONE_LAST = STATS_max
stats R skip 1 using ($6 == ALL ? $0 : NaN) nooutput
ALL_FIRST = STATS_min
ALL_LAST = STATS_max
first(t) = t == 1 ? ONE_FIRST : t == ALL ? ALL_FIRST : NaN
last(t) = t == 1 ? ONE_LAST : t == ALL ? ALL_LAST : NaN
# A row's label: the kernel, and below it its threads if more than one and its
# share of the peak, short enough for the PDF's margin.
share(p) = p == p ? sprintf("%.0f%% of peak", p) : "peak n/a"
kernel(k, t, p) = k."\n".(t > 1 ? sprintf("%d threads: ", t) : "").share(p)
tip(dummy) = strcol(1).": ".estimate("%.2f GFLOP/s", $2, $3, $4)
line_tip(dummy) = sprintf("%s (%s), %d thread%s: ", strcol(1), strcol(2), $3, $3 > 1 ? "s" : "") \
                  .estimate("%.2f GFLOP/s", $4, $5, $6)
# A line of the file, where its name is `name`; NaN elsewhere.
is(name) = strcol(1) eq name

# <<roofline-frame-and-axes>>, paper/77-roofline.md
stats R skip 1 using 3 nooutput
XLO = STATS_min
stats PEAKS skip 1 using 6 nooutput
XHI = STATS_max
stats R skip 1 using 4 nooutput
XHI = STATS_max > XHI ? STATS_max : XHI

set tmargin at screen 0.97
set bmargin at screen 0.31
set lmargin at screen 0.36
set rmargin at screen 0.95
set ytics scale 0 font SMALL
set yrange [N - 0.5 + 0.6 : -0.5 - 0.6]
set logscale x
set xrange [10 ** floor(log10(XLO)) * 0.999 : 10 ** ceil(log10(XHI)) * 1.001]
set format x "%g"
set mxtics 10
set grid xtics mxtics lc rgb "#eeeeee"
set xlabel "GFLOP/s (log scale)" offset 0, 0.4
# The key's five entries in two rows below the axis's label.
set key at screen 0.5, screen 0.075 center center horizontal maxcols 3 samplen 1.5 \
    width -4 font SMALL
# <<roofline-draw>>, paper/77-roofline.md
span(t) = last(t) - first(t) + 0.9
plot R skip 1 using 2:0:ytic(kernel(strcol(1), $6, $5)) with points ps 0 notitle, \
     PEAKS skip 1 using (is("peak") ? $4 : NaN):(first($3) - 0.45):5:6:(first($3) - 0.45):(last($3) + 0.45) \
         with boxxyerror fs solid 0.15 noborder fc rgb GREY notitle, \
     PEAKS skip 1 using (is("peak") ? $4 : NaN):(first($3) - 0.45):(0):(span($3)) with vectors \
         nohead lw 2 lc rgb "#333333" title "peak", \
     PEAKS skip 1 using (is("registers") ? $4 : NaN):(first($3) - 0.45):(0):(span($3)) \
         with vectors nohead dt 2 lw 1.5 lc rgb GREY title "registers", \
     PEAKS skip 1 using (is("loads") ? $4 : NaN):(first($3) - 0.45):(0):(span($3)) \
         with vectors nohead dt 3 lw 1.5 lc rgb GREY title "a load a term", \
     PEAKS skip 1 using (is("one double") ? $4 : NaN):(first($3) - 0.45):(0):(span($3)) \
         with vectors nohead dt 4 lw 1.5 lc rgb ORANGE title "one double", \
     PEAKS skip 1 using 4:(first($3) + (last($3) - first($3)) / 2):(line_tip(0)) \
         with labels hypertext point pt 7 ps 0 lc rgb GREY notitle, \
     R skip 1 using 2:0:3:4 with xerrorbars pt 7 ps 0.9 lw 1.5 lc rgb BLUE \
         title "kernel", \
     R skip 1 using 2:0:(tip(0)) with labels hypertext point pt 7 ps 0.9 lc rgb BLUE notitle
