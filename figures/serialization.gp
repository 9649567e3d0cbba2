# serialization.gp - median encode and decode time per format, log scale.
# Tangled from paper/70-serialization.md; the Makefile sets the terminal and WOVEN.
set datafile separator comma
set datafile missing "-"
S = WOVEN."/serialization_stats.csv"
stats S skip 1 using 3 nooutput
lo = STATS_min
hi = STATS_max
stats S skip 1 using 4 nooutput
lo = STATS_min < lo ? STATS_min : lo
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
@LOG_Y
set yrange [10 ** floor(log10(lo)) : 10 ** ceil(log10(hi) + 1)]
set ylabel "median time (µs), log scale"
set key top left
set grid ytics mytics lc rgb "#eeeeee"
us(v) = v < 100 ? sprintf("%.1f", v) : sprintf("%.0f", v)
# Two bars per cluster, a third of a unit wide each: centres at -1/6 and +1/6.
plot S skip 1 using 3:xtic(2) lc rgb "#08519c" title "encode (memcpy: the copy)", \
     S skip 1 using 4 lc rgb "#a63603" title "decode", \
     S skip 1 using ($0 - 1.0/6):3:(us($3)) with labels offset 0,0.7 font ",9" notitle, \
     S skip 1 using ($0 + 1.0/6):4:(us($4)) with labels offset 0,0.7 font ",9" notitle
