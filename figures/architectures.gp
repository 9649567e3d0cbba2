# architectures.gp - each architecture's sweep time over in_process's, from
# WOVEN/architectures.csv: the rows far from 1 on a logarithmic axis (above),
# the rows within a factor of two of 1 on a linear one (below), the
# original's ratios as diamonds. Tangled from paper/94-appendix-figures.md;
# the Makefile sets the terminal, DATA and WOVEN.
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
A = WOVEN."/architectures.csv"
P = WOVEN."/architectures_published.csv"

# <<architectures-rows-in-two-blocks>>, paper/94-appendix-figures.md
# Two blocks of rows, each in the file's order: the rows far from 1 at the
# top, read on the logarithmic axis above them, and the rows within a factor
# of two of 1 below them, read on the linear axis at the foot.
NEAR = 2.0
near(r) = r >= 1 / NEAR && r <= NEAR
FAR_ROWS = ""
NEAR_ROWS = ""
stats A skip 1 using (near($2) ? (NEAR_ROWS = NEAR_ROWS.strcol(1)." ", 0) \
                               : (FAR_ROWS = FAR_ROWS.strcol(1)." ", 0)) nooutput
NF = words(FAR_ROWS)
NN = words(NEAR_ROWS)
GAP = NF > 0 ? 0.8 : 0           # between the blocks
index_of(list, k, i) = i > words(list) ? NaN : (word(list, i) eq k ? i - 1 : index_of(list, k, i + 1))
row(name, r) = near(r) ? NF + GAP + index_of(NEAR_ROWS, name, 1) : index_of(FAR_ROWS, name, 1)
ROW = "strcol(1), $2"
tip(name, r, lo, hi) = name.": ".estimate("%.3f", r, lo, hi)
# The original's ratio, where it ran the row's architecture.
orig(dummy) = $6
# The duet A/A control's interval: the smallest difference a duet resolves,
# shaded behind the linear block.
stats A skip 1 using (strcol(1) eq "in_process_control_1" ? $3 : NaN) nooutput
AA_LO = exists("STATS_min") ? STATS_min : NaN
stats A skip 1 using (strcol(1) eq "in_process_control_1" ? $4 : NaN) nooutput
AA_HI = exists("STATS_max") ? STATS_max : NaN

# <<architectures-the-published-run>>, paper/94-appendix-figures.md
stats P skip 1 using 5 nooutput
PUBLISHED = exists("STATS_max") && STATS_max > 0
found(list, name) = index_of(list, name, 1) == index_of(list, name, 1)
pnear(name) = found(NEAR_ROWS, name)
prow(name) = (pnear(name) ? NF + GAP + index_of(NEAR_ROWS, name, 1) : index_of(FAR_ROWS, name, 1)) \
             + 0.33
ptip(name, r, lo, hi) = name.", published run: ".estimate("%.3f", r, lo, hi)

# <<architectures-axes-span-the-intervals>>, paper/94-appendix-figures.md
# The linear axis spans the near rows' intervals, 1 and the original's
# ratios on those rows; the log axis the far rows' and 1, in whole decades.
stats A skip 1 using (near($2) ? $3 : NaN) nooutput
ZLO = STATS_min < 1 ? STATS_min : 1
stats A skip 1 using (near($2) ? $4 : NaN) nooutput
ZHI = STATS_max > 1 ? STATS_max : 1
stats A skip 1 using (near($2) ? orig(0) : NaN) nooutput
ZLO = exists("STATS_min") && STATS_min < ZLO ? STATS_min : ZLO
ZHI = exists("STATS_max") && STATS_max > ZHI ? STATS_max : ZHI
LLO = 1
LHI = 1
do for [c in "3 4 6"] {           # the interval's ends, the original's ratio
    stats A skip 1 using (near($2) ? NaN : c eq "6" ? (orig(0) == orig(0) ? orig(0) : 1) \
                                    : column(int(c))) nooutput
    LLO = exists("STATS_min") && STATS_min < LLO ? STATS_min : LLO
    LHI = exists("STATS_max") && STATS_max > LHI ? STATS_max : LHI
}
if (PUBLISHED) {                  # and the published run's intervals, on either axis
    do for [c in "3 4"] {
        stats P skip 1 using (pnear(strcol(1)) ? column(int(c)) : NaN) nooutput
        ZLO = exists("STATS_min") && STATS_min < ZLO ? STATS_min : ZLO
        ZHI = exists("STATS_max") && STATS_max > ZHI ? STATS_max : ZHI
        stats P skip 1 using (found(FAR_ROWS, strcol(1)) ? column(int(c)) : NaN) nooutput
        LLO = exists("STATS_min") && STATS_min < LLO ? STATS_min : LLO
        LHI = exists("STATS_max") && STATS_max > LHI ? STATS_max : LHI
    }
}
PAD = (ZHI - ZLO) * 0.04

# <<architectures-frame-and-axes>>, paper/94-appendix-figures.md
set tmargin at screen 0.93
BOTTOM = PUBLISHED ? 0.19 : 0.155    # the key below the row labels: one entry more
set bmargin at screen BOTTOM
set lmargin at screen 0.31
set rmargin at screen 0.97
set yrange [NF + GAP + NN - 0.5 : -0.5]
ROWFONT = fontsize(0.85)        # 24 rows: smaller than elsewhere
set ytics scale 0 font ROWFONT
set grid ytics lc rgb "#e4e4e4"
set border 7 lc rgb "#444444"
set xrange [ZLO - PAD : ZHI + PAD]
set xtics ZHI - ZLO > 1.2 ? 0.2 : 0.1 nomirror
set mxtics 2
set xlabel "ratio to in_process: linear below, log above" offset 0, 0.4
if (NF > 0) {
    set logscale x2
    set x2range [10 ** floor(log10(LLO / 1.2)) : 10 ** ceil(log10(LHI * 1.2))]
    set format x2 ""
    set for [k = -6:6] x2tics add (sprintf("%g", 10.0 ** k) 10.0 ** k)
    set x2tics nomirror
    set mx2tics 10
    # The line between the blocks.
    set arrow 1 from graph 0, first NF - 0.5 + GAP / 2 to graph 1, first NF - 0.5 + GAP / 2 \
        nohead lc rgb "#999999" back
}
set clip two
if (AA_LO == AA_LO) {
    set object 3 rect from first AA_LO, first NF - 0.5 + GAP / 2 \
        to first AA_HI, first NF + GAP + NN - 0.5 fc rgb "#e9e9e9" fs solid noborder behind
}
set samples 100
# <<architectures-draw-the-rows>>, paper/94-appendix-figures.md
# The key: in the corner below the row labels, which the layout leaves empty.
set key at screen 0.035, screen BOTTOM - 0.005 left top Left reverse samplen 1.5 spacing 0.95 \
    font ROWFONT
THIS_TITLE = PUBLISHED ? "this run: median, 95% interval" : "median, 95% interval"
PUBLISHED_TITLE = PUBLISHED ? "published run" : ""
plot A skip 1 using (1):(row(@ROW)):ytic(1) with points ps 0 notitle, \
     A skip 1 using (near($2) ? $2 : NaN):(row(@ROW)):3:4 with xerrorbars pt 7 ps 0.8 \
         lw 1.5 lc rgb BLUE title THIS_TITLE, \
     A skip 1 using (near($2) ? $2 : NaN):(row(@ROW)):(tip(strcol(1), $2, $3, $4)) \
         with labels hypertext point pt 7 ps 0.8 lc rgb BLUE notitle, \
     A skip 1 using (near($2) ? NaN : $2):(row(@ROW)):3:4 axes x2y1 with xerrorbars \
         pt 7 ps 0.8 lw 1.5 lc rgb BLUE notitle, \
     A skip 1 using (near($2) ? NaN : $2):(row(@ROW)):(tip(strcol(1), $2, $3, $4)) \
         axes x2y1 with labels hypertext point pt 7 ps 0.8 lc rgb BLUE notitle, \
     A skip 1 using (near($2) ? orig(0) : NaN):(row(@ROW)) with points pt ORIGINAL_PT \
         ps ORIGINAL_PS lw 1.5 lc rgb "black" title ORIGINAL_TITLE, \
     A skip 1 using (near($2) ? NaN : orig(0)):(row(@ROW)) axes x2y1 with points pt ORIGINAL_PT \
         ps ORIGINAL_PS lw 1.5 lc rgb "black" notitle, \
     P skip 1 using ($5 > 0 && pnear(strcol(1)) ? $2 : NaN):(prow(strcol(1))):3:4 \
         with xerrorbars pt 6 ps 0.8 lw 1.2 lc rgb ORANGE title PUBLISHED_TITLE, \
     P skip 1 using ($5 > 0 && pnear(strcol(1)) ? $2 : NaN):(prow(strcol(1))): \
         (ptip(strcol(1), $2, $3, $4)) with labels hypertext point pt 6 ps 0.8 lc rgb ORANGE \
         notitle, \
     P skip 1 using ($5 > 0 && found(FAR_ROWS, strcol(1)) ? $2 : NaN):(prow(strcol(1))):3:4 \
         axes x2y1 with xerrorbars pt 6 ps 0.8 lw 1.2 lc rgb ORANGE notitle, \
     P skip 1 using ($5 > 0 && found(FAR_ROWS, strcol(1)) ? $2 : NaN):(prow(strcol(1))): \
         (ptip(strcol(1), $2, $3, $4)) axes x2y1 with labels hypertext point pt 6 ps 0.8 \
         lc rgb ORANGE notitle, \
     [NF - 0.5 + GAP:1000] '+' using (1):1 with lines dt 2 lw 1.5 lc rgb GREY \
         title "in_process = 1", \
     keyentry with boxes fs solid noborder fc rgb "#e9e9e9" title "duet A/A control, 95%", \
     [-1000:NF - 0.5] '+' using (1):1 axes x2y1 with lines dt 2 lw 1.5 lc rgb GREY notitle
