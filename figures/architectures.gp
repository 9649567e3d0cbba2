# architectures.gp - median and min-max of each architecture, log scale.
# Tangled from paper/60-architectures.md; the Makefile sets the terminal and WOVEN.
set datafile separator comma
A = WOVEN."/architecture_stats.csv"
stats A skip 1 using 1 nooutput
n = STATS_records
stats A skip 1 using (strcol(2) eq "in_process" ? $3 : NaN) nooutput
base = STATS_max
set logscale x
set xlabel "seconds per sweep (log scale)"
set yrange [n:-1]
set ytics scale 0 font ",10" noenhanced
set grid xtics mxtics lc rgb "#eeeeee"
# The top right corner is empty (the slow rows are at the bottom). The key
# is not opaque: that makes the SVG terminal draw every series twice.
set key top right box
set arrow from base, graph 0 to base, graph 1 nohead dt 2 lc rgb "#777777"
set lmargin 25
plot A skip 1 using 3:1:4:5:ytic(2) with xerrorbars pt 7 ps 0.9 lc rgb "#08519c" \
         title "median (fastest to slowest run)", \
     A skip 1 using 5:1:(sprintf("  %.2fx", $6)) with labels left font ",9" tc rgb "#333333" \
         notitle
