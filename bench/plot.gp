# SPDX-License-Identifier: LGPL-2.1-or-later
# Launch overhead per sandbox: median wall time minus bare's median, per
# workload, log scale. Input: bench/out/launch.dat, which bench/compare
# writes from the same numbers as bench/out/results.json (one row per
# sandbox: name, then median and overhead in ms for each workload; the first
# row is bare).
#   gnuplot -e "datafile='bench/out/launch.dat'; outfile='docs/bench-launch.svg'" bench/plot.gp
if (!exists("datafile")) datafile = 'bench/out/launch.dat'
if (!exists("outfile")) outfile = 'docs/bench-launch.svg'

stats datafile every ::0::0 using 2 name "BT" nooutput
stats datafile every ::0::0 using 4 name "BS" nooutput
stats datafile every ::0::0 using 6 name "BP" nooutput

set terminal svg size 1000,560 dynamic enhanced font "sans,12" background rgb "white"
set output outfile
set title sprintf("Launch overhead per sandbox: median wall time minus bare, log scale\n{/*0.85 bare itself: true %.2f ms, sh -c : %.2f ms, python3 -c pass %.1f ms}", BT_min, BS_min, BP_min) font "sans,13"
set ylabel "overhead over bare, ms (log scale)"
set logscale y
set yrange [0.5:2000]
set grid ytics mytics lc rgb "#dddddd"
set key top left
set style fill solid 0.85 border -1
set boxwidth 0.26
set xtics rotate by -20 nomirror font "sans,11"
set xrange [0.4:*]
set lmargin 10
set bmargin 6

# Row 0 is bare (no overhead by definition): plotted from row 1 on. An
# overhead below the axis (within noise of bare, or negative) is drawn at the
# floor; its label keeps the measured value.
floor = 0.6
h(x) = x > floor ? x : floor
plot datafile every ::1 using ($0+0.72):(h($3)):xtic(1) with boxes lc rgb "#2b6cb0" title "true", \
     ''       every ::1 using ($0+1.0):(h($5)) with boxes lc rgb "#dd6b20" title "sh -c :", \
     ''       every ::1 using ($0+1.28):(h($7)) with boxes lc rgb "#38a169" title "python3 -c pass", \
     ''       every ::1 using ($0+0.72):(h($3)):(sprintf("%.3g", $3)) with labels offset 0,0.6 font "sans,9" notitle, \
     ''       every ::1 using ($0+1.0):(h($5)):(sprintf("%.3g", $5)) with labels offset 0,0.6 font "sans,9" notitle, \
     ''       every ::1 using ($0+1.28):(h($7)):(sprintf("%.3g", $7)) with labels offset 0,0.6 font "sans,9" notitle
