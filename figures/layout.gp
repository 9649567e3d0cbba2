# layout.gp - the kernel's time per layout of its data and code, in the engine
# and in the process, from WOVEN/layout.csv: the tuned kernel's sides at the
# top on an axis of their own above them, the naive kernel's layouts below
# on the axis at the foot. Tangled from paper/76-layout.md; the
# Makefile sets the terminal and WOVEN.
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
L = WOVEN."/layout.csv"

# <<layout-the-rows>>, paper/76-layout.md
# The tuned kernel's sides, one row each, in the file's order, at the top.
naive(side) = side eq "engine" || side eq "in_process"
TUNED = ""
stats L skip 1 using (!naive(strcol(1)) ? (TUNED = TUNED.strcol(1)." ", 0) : NaN) nooutput
NT = words(TUNED)
GAP = NT > 0 ? 0.8 : 0           # between the two blocks
index_of(list, k, i) = i > words(list) ? NaN : (word(list, i) eq k ? i - 1 : index_of(list, k, i + 1))

# Below them, a row per layout: "d" and the data offsets for the aligned
# build, "c" and the shift for a shifted one. The engine's cells give the
# rows, in the file's order; the process's cells land on the row of the
# same layout.
CELL = "strcol(2), strcol(3), strcol(4), strcol(5)"      # shift, series, arrays
layout(c, s, a, g) = c eq "" ? sprintf("d%s/%s/%s", s, a, g) : sprintf("c%s", c)
ROWS = ""
stats L skip 1 using (strcol(1) eq "engine" ? (ROWS = ROWS.layout(@CELL)." ", 0) : NaN) nooutput
N = words(ROWS)
row(side, c, s, a, g) = naive(side) ? NT + GAP + index_of(ROWS, layout(c, s, a, g), 1) \
                                    : index_of(TUNED, side, 1)
ROW = "strcol(1), ".CELL
label(side, c, s, a, g) = !naive(side) ? side : c eq "" ? sprintf("series %s, arrays %s/%s", s, a, g) \
                                                         : sprintf("code +%s B, unaligned", c)
tip(dummy) = sprintf("%s, %s: ", strcol(1), label(@ROW)).estimate("%.4f s", $6, $7, $8)
# The default data layout is the one the shifted engines ran with.
DEFAULT = ""
stats L skip 1 using (strcol(2) ne "" ? (DEFAULT = layout("", strcol(3), strcol(4), \
                      strcol(5)), 0) : NaN) nooutput
DEFAULT_ROW = DEFAULT ne "" ? NT + GAP + index_of(ROWS, DEFAULT, 1) : NaN
# Each side's marks: the engine above the row's line, the process below.
OFF = 0.17
in_engine(side) = strstrt(side, "engine") == 1
y(side, c, s, a, g) = row(side, c, s, a, g) + (in_engine(side) ? -OFF : OFF)

# <<layout-frame-and-axes>>, paper/76-layout.md
stats L skip 1 using (naive(strcol(1)) ? $7 : NaN) nooutput
XLO = STATS_min
stats L skip 1 using (naive(strcol(1)) ? $8 : NaN) nooutput
XHI = STATS_max
stats L skip 1 using (naive(strcol(1)) ? NaN : $7) nooutput
TLO = exists("STATS_min") ? STATS_min : XLO
stats L skip 1 using (naive(strcol(1)) ? NaN : $8) nooutput
THI = exists("STATS_max") ? STATS_max : XHI

set tmargin at screen 0.88
set bmargin at screen 0.19
set lmargin at screen 0.33
set rmargin at screen 0.97
set yrange [NT + GAP + N - 0.5 : -0.5]
set ytics scale 0 font SMALL
set grid xtics ytics lc rgb "#e4e4e4"
set border 7 lc rgb "#444444"
set xrange [XLO - (XHI - XLO) * 0.05 : XHI + (XHI - XLO) * 0.05]
set xtics nomirror
set xlabel "kernel’s time, every tenth combination (s): median, 95% interval" offset 0, 0.4
set x2range [TLO - (THI - TLO) * 0.05 : THI + (THI - TLO) * 0.05]
set x2tics nomirror
set x2label "the tuned kernel’s time (s)" offset 0, -0.5
set arrow 1 from graph 0, first NT - 0.5 + GAP / 2 to graph 1, first NT - 0.5 + GAP / 2 \
    nohead lc rgb "#999999" back
set key at screen 0.65, screen 0.045 center center horizontal maxcols 3 samplen 1.5 \
    width -4 font SMALL
# <<layout-draw-the-rows>>, paper/76-layout.md
plot L skip 1 using 6:(row(@ROW)):ytic(label(@ROW)) with points ps 0 notitle, \
     '+' using (XLO):(DEFAULT_ROW):(-1e9):(1e9):(DEFAULT_ROW - 0.5):(DEFAULT_ROW + 0.5) \
         every ::0::0 with boxxyerror fs solid 1.0 noborder fc rgb "#eeeeee" \
         title "default layout", \
     L skip 1 using (strcol(1) eq "engine" ? $6 : NaN):(y(@ROW)):7:8 with xerrorbars \
         pt 7 ps 0.8 lw 1.5 lc rgb BLUE title "engine", \
     L skip 1 using (strcol(1) eq "engine" ? $6 : NaN):(y(@ROW)):(tip(0)) \
         with labels hypertext point pt 7 ps 0.8 lc rgb BLUE notitle, \
     L skip 1 using (!naive(strcol(1)) && in_engine(strcol(1)) ? $6 : NaN):(y(@ROW)):7:8 \
         axes x2y1 with xerrorbars pt 7 ps 0.8 lw 1.5 lc rgb BLUE notitle, \
     L skip 1 using (!naive(strcol(1)) && in_engine(strcol(1)) ? $6 : NaN):(y(@ROW)):(tip(0)) \
         axes x2y1 with labels hypertext point pt 7 ps 0.8 lc rgb BLUE notitle, \
     L skip 1 using (strcol(1) eq "in_process" ? $6 : NaN):(y(@ROW)):7:8 with xerrorbars \
         pt 5 ps 0.7 lw 1.5 lc rgb ORANGE title "in_process", \
     L skip 1 using (strcol(1) eq "in_process" ? $6 : NaN):(y(@ROW)):(tip(0)) \
         with labels hypertext point pt 5 ps 0.7 lc rgb ORANGE notitle, \
     L skip 1 using (!naive(strcol(1)) && !in_engine(strcol(1)) ? $6 : NaN):(y(@ROW)):7:8 \
         axes x2y1 with xerrorbars pt 5 ps 0.7 lw 1.5 lc rgb ORANGE notitle, \
     L skip 1 using (!naive(strcol(1)) && !in_engine(strcol(1)) ? $6 : NaN):(y(@ROW)):(tip(0)) \
         axes x2y1 with labels hypertext point pt 5 ps 0.7 lc rgb ORANGE notitle
