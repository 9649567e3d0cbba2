# breakeven.gp - the boundary's share of a call against G, the compute per
# call in units of the socket's floor, log-log: the model 1/(1+G), every
# measured call pattern with its interval (WOVEN/breakeven.csv), and the
# original's G per combination (DATA/original.csv), set on the model.
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
# <<the-original-machine>>, paper/94-appendix-figures.md
ORIGINAL = DATA."/original.csv"
# The original's figure of a key, for stats: NaN on every other row.
original(key) = strcol(1) eq key ? column(2) : NaN
stats ORIGINAL skip 1 using (strcol(1) eq "machine" ? (MACHINE = strcol(2), 0) : NaN) nooutput
MACHINE = strstrt(MACHINE, ";") > 0 ? MACHINE[1 : strstrt(MACHINE, ";") - 1] : MACHINE
ORIGINAL_TITLE = "original (".MACHINE.")"
B = WOVEN."/breakeven.csv"
share(g) = 100 / (1 + g)
stats ORIGINAL skip 1 using (original("breakeven.g_per_combo")) nooutput
ORIGINAL_G = STATS_max

# Whole decades around the patterns and the original's G, and the model
# down to the largest G.
stats B skip 1 using 2 nooutput
GLO = STATS_min < ORIGINAL_G ? STATS_min : ORIGINAL_G
GHI = STATS_max > ORIGINAL_G ? STATS_max : ORIGINAL_G
stats B skip 1 using 4 nooutput
SLO = STATS_min < share(ORIGINAL_G) ? STATS_min : share(ORIGINAL_G)
SLO = share(GHI) < SLO ? share(GHI) : SLO
tip(dummy) = sprintf("%s, G = %.3g: ", strcol(1), $2).estimate("%.3g%%", $3, $4, $5)

TOP = 0.97
BOTTOM = 0.19
RIGHT = 0.74
set tmargin at screen TOP
set bmargin at screen BOTTOM
set lmargin at screen 0.11
set rmargin at screen RIGHT
LABELS = B
LABEL_X = 2
LABEL_Y = 3
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
set xrange [10 ** floor(log10(GLO)) * 0.999 : 10 ** ceil(log10(GHI)) * 1.001]
set yrange [10 ** floor(log10(SLO)) * 0.999 : 200]
@LOG_X
set format y ""
set for [k = -9:2] ytics add (sprintf("%g", 10.0 ** k) 10.0 ** k)
set mxtics 10
set mytics 10
set grid xtics ytics lc rgb "#e4e4e4"
set xlabel "G = compute per call / the model’s price of a crossing after it" offset 0, 0.4
set ylabel "boundary’s share of a call (%)"
set samples 120
# <<key-below>>, paper/94-appendix-figures.md
set key at screen 0.5, screen 0.045 center center horizontal maxcols 3 samplen 1.5 \
    width -4 font SMALL
plot share(x) with lines lw 2 lc rgb GREY title "model: 1/(1+G)", \
     B skip 1 using 2:3:4:5 with yerrorbars pt 7 ps 0.8 lw 1.5 lc rgb BLUE \
         title "median, 95% interval", \
     B skip 1 using 2:3:(tip(0)) with labels hypertext point pt 7 ps 0.8 lc rgb BLUE notitle, \
     '+' using (ORIGINAL_G):(share(ORIGINAL_G)) every ::0::0 with points \
         pt ORIGINAL_PT ps ORIGINAL_PS lw 1.5 lc rgb "black" title ORIGINAL_TITLE.", per combination"
