# serialization.gp - encode and decode time of the whole series per format,
# medians with their intervals on a log axis, from WOVEN/serialization.csv;
# the original's encode times as diamonds on the row of the format it used.
# Tangled from paper/70-serialization.md; the Makefile sets the terminal,
# DATA and WOVEN.
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
S = WOVEN."/serialization.csv"

# Whole decades around every median, interval and original figure (columns
# 2 to 8: encode, decode, the original's, then the intervals' ends).
stats S skip 1 using 2 nooutput
N = STATS_records
XLO = 1e300
XHI = 0
do for [c = 2:8] {
    stats S skip 1 using c nooutput
    XLO = exists("STATS_min") && STATS_min < XLO ? STATS_min : XLO
    XHI = exists("STATS_max") && STATS_max > XHI ? STATS_max : XHI
}
UP = 0.18                 # encode above the row's line, decode below it
tip(what, v, lo, hi) = strcol(1).", ".what.": ".estimate("%.1f µs", v, lo, hi)

set tmargin at screen 0.97
set bmargin at screen 0.19
set lmargin at screen 0.16
set rmargin at screen 0.97
set yrange [N - 0.5 : -0.5]
set ytics scale 0 font SMALL
set logscale x
set xrange [10 ** floor(log10(XLO)) * 0.999 : 10 ** ceil(log10(XHI)) * 1.001]
@LOG_X
set mxtics 10
set grid xtics ytics lc rgb "#e4e4e4"
set xlabel "time for the whole series (µs, log scale)" offset 0, 0.4
# <<key-below>>, paper/94-appendix-figures.md
set key at screen 0.5, screen 0.045 center center horizontal maxcols 3 samplen 1.5 \
    width -4 font SMALL
plot S skip 1 using 2:0:ytic(1) with points ps 0 notitle, \
     S skip 1 using 2:($0 - UP):5:6 with xerrorbars pt 7 ps 0.8 lw 1.5 lc rgb BLUE \
         title "encode (or copy)", \
     S skip 1 using 2:($0 - UP):(tip("encode", $2, $5, $6)) with labels hypertext \
         point pt 7 ps 0.8 lc rgb BLUE notitle, \
     S skip 1 using 3:($0 + UP):7:8 with xerrorbars pt 5 ps 0.7 lw 1.5 lc rgb ORANGE \
         title "decode", \
     S skip 1 using 3:($0 + UP):(tip("decode", $3, $7, $8)) with labels hypertext \
         point pt 5 ps 0.7 lc rgb ORANGE notitle, \
     S skip 1 using 4:($0 - UP) with points pt ORIGINAL_PT ps ORIGINAL_PS lw 1.5 \
         lc rgb "black" title ORIGINAL_TITLE
