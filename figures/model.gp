# model.gp - every crossing architecture's predicted boundary per call
# against its measured one (WOVEN/model.csv), log-log, with the diagonal and
# the lines of the model's band either side of it.
# Tangled from paper/68-model.md; the Makefile sets the terminal,
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
M = WOVEN."/model.csv"
stats M skip 1 using 3 nooutput
LO = STATS_min
HI = STATS_max
stats M skip 1 using 2 nooutput
LO = STATS_min < LO ? STATS_min : LO
HI = STATS_max > HI ? STATS_max : HI
stats M skip 1 using 6 nooutput
BAND = STATS_max
tip(dummy) = sprintf("%s: predicted %.3g µs, measured ", strcol(1), $2).estimate("%.3g", $3, $4, $5)

TOP = 0.97
BOTTOM = 0.19
RIGHT = 0.72
set tmargin at screen TOP
set bmargin at screen BOTTOM
set lmargin at screen 0.12
set rmargin at screen RIGHT
LABELS = M
LABEL_X = 3
LABEL_Y = 2
# <<labels-in-a-column>>, paper/94-appendix-figures.md
# Every row with a mark to draw, into arrays: a row whose position is not a
# number has no mark and takes no place in the column.
stats LABELS skip 1 using (1) nooutput
array NAME[STATS_records]
array AT_X[STATS_records]
array AT_Y[STATS_records]
N_LABELS = 0
stats LABELS skip 1 using (valid(LABEL_X) && valid(LABEL_Y) ? \
    (N_LABELS = N_LABELS + 1, NAME[N_LABELS] = strcol(1), \
     AT_X[N_LABELS] = column(LABEL_X), AT_Y[N_LABELS] = column(LABEL_Y), 0) : 0) nooutput
COLUMN_X = RIGHT + 0.015
do for [i = 1:N_LABELS] {
    rank = 0
    do for [j = 1:N_LABELS] {
        rank = rank + (AT_Y[j] < AT_Y[i] || (AT_Y[j] == AT_Y[i] && j < i))
    }
    height = BOTTOM + (rank + 0.5) / N_LABELS * (TOP - BOTTOM)
    set label i NAME[i] at screen COLUMN_X, screen height left front \
        tc rgb BLUE font SMALL
    set arrow i from first AT_X[i], first AT_Y[i] to screen COLUMN_X - 0.005, \
        screen height nohead back lw 0.5 lc rgb "#b0b0b0"
}
set logscale xy
set xrange [10 ** floor(log10(LO / 1.3)) : 10 ** ceil(log10(HI * 1.3))]
set yrange [10 ** floor(log10(LO / 1.3)) : 10 ** ceil(log10(HI * 1.3))]
@LOG_X
@LOG_Y
set mxtics 10
set mytics 10
set grid xtics ytics lc rgb "#e4e4e4"
set xlabel "measured boundary per call (µs)" offset 0, 0.4
set ylabel "predicted (µs)"
set samples 60
# <<key-below>>, paper/94-appendix-figures.md
set key at screen 0.5, screen 0.045 center center horizontal maxcols 3 samplen 1.5 \
    width -4 font SMALL
plot x with lines lw 2 lc rgb GREY title "exact", \
     BAND * x with lines dt 2 lw 1 lc rgb GREY title sprintf("%.3g× off", BAND), \
     x / BAND with lines dt 2 lw 1 lc rgb GREY notitle, \
     M skip 1 using 3:2:4:5 with xerrorbars pt 7 ps 0.8 lw 1.5 lc rgb BLUE \
         title "architecture, measured with its 95% interval", \
     M skip 1 using 3:2:(tip(0)) with labels hypertext point pt 7 ps 0.8 lc rgb BLUE notitle
