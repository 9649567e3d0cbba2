# roofline.gp - each kernel's GFLOP/s with its interval (WOVEN/roofline.csv)
# against the peak loops of its thread count (WOVEN/roofline_peaks.csv), on a
# log axis. Tangled from paper/94-appendix-figures.md; the Makefile sets the
# terminal and WOVEN.
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

# The kernels are rows; a peak spans the rows of its thread count: one
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
# A peak's name goes above its rows for one thread, below them for all.
name_y(t) = t == 1 ? first(t) - 0.75 : last(t) + 0.75
# A row's label: the kernel, its threads if more than one, its share of the peak.
share(rate, peak) = sprintf("%.0f%% of the peak", 100 * rate / peak)
kernel(k, t, rate, peak) = (t > 1 ? sprintf("%s, %d threads", k, t) : k)."\n".share(rate, peak)
tip(dummy) = strcol(1).": ".estimate("%.2f GFLOP/s", $2, $3, $4)
peak_tip(dummy) = sprintf("%s, %d thread%s: ", strcol(1), $2, $2 > 1 ? "s" : "") \
                  .estimate("%.2f GFLOP/s", $3, $4, $5)

stats R skip 1 using 3 nooutput
XLO = STATS_min
stats PEAKS skip 1 using 5 nooutput
XHI = STATS_max
stats R skip 1 using 4 nooutput
XHI = STATS_max > XHI ? STATS_max : XHI

set tmargin at screen 0.97
set bmargin at screen 0.19
set lmargin at screen 0.30
set rmargin at screen 0.97
set ytics scale 0 font SMALL
set yrange [N - 0.5 + 0.9 : -0.5 - 0.9]
set logscale x
set xrange [10 ** floor(log10(XLO)) * 0.999 : 10 ** ceil(log10(XHI)) * 1.001]
set format x "%g"
set mxtics 10
set grid xtics mxtics lc rgb "#eeeeee"
set xlabel "GFLOP/s (log scale)" offset 0, 0.4
set key at screen 0.5, screen 0.045 center center horizontal maxcols 3 samplen 1.5 \
    width -4 font SMALL
plot R skip 1 using 2:0:ytic(kernel(strcol(1), $6, $2, $5)) with points ps 0 notitle, \
     PEAKS skip 1 using 3:(first($2) - 0.45):(0):(last($2) - first($2) + 0.9) with vectors \
         nohead dt 2 lw 1.5 lc rgb GREY title "peak loop: median, 95% band", \
     PEAKS skip 1 using 3:(first($2) - 0.45):4:5:(first($2) - 0.45):(last($2) + 0.45) \
         with boxxyerror fs solid 0.12 noborder fc rgb GREY notitle, \
     PEAKS skip 1 using 3:(name_y($2)):1 with labels font SMALL tc rgb GREY notitle, \
     PEAKS skip 1 using 3:(first($2) + (last($2) - first($2)) / 2):(peak_tip(0)) \
         with labels hypertext point pt 7 ps 0 lc rgb GREY notitle, \
     R skip 1 using 2:0:3:4 with xerrorbars pt 7 ps 0.9 lw 1.5 lc rgb BLUE \
         title "kernel: median, 95% interval", \
     R skip 1 using 2:0:(tip(0)) with labels hypertext point pt 7 ps 0.9 lc rgb BLUE notitle
