#!/usr/bin/env bash
# check_table_pages.sh AUX: every data table of a PDF starts and ends on
# the same page. values.lua marks each table's start and end with a label
# (\IpctaxTableStart, \IpctaxTableEnd, paper/latex/preamble.tex); pdflatex
# writes each label's page into the .aux. A table of Part I that breaks
# across a page stops the weave, naming the table and its pages.
set -eu
aux=$1
sed -n 's/^\\newlabel{ipctax-table-\(start\|end\):\([^}]*\)}{{[^}]*}{\([0-9]*\)}.*/\2 \1 \3/p' "$aux" |
awk '
  { page[$1 " " $2] = $3; seen[$1] = 1; n++ }
  END {
    if (n == 0) { print "check_table_pages: no table marks in '"$aux"'"; exit 1 }
    bad = 0
    for (t in seen)
      if (page[t " start"] != page[t " end"]) {
        printf "paper.pdf: table %s breaks across pages %s to %s\n", t, page[t " start"], page[t " end"]
        bad = 1
      }
    exit bad
  }'
