# Rendered by mlfma2d; re-run with: gnuplot levels_time_shared.gp (in this folder)
set terminal pngcairo size 1150,650 font 'Sans,11'
set termoption noenhanced
set output 'levels_time_shared.png'
set title "Near-field time per evaluation (ms, median of 3), shared back end, CT = 15"
set xlabel "L (N = 4^(L-1) uniform points; L = the grid's size, not the tree's)"
set ylabel "level offset i (tree height = L fixed by CT, plus i)"
set datafile missing 'NaN'
set grid
set key outside right top box
set xrange [3.5:9.5]
set yrange [-3.5:3.5]
set xtics 1
set ytics 1
unset grid
unset key
set cblabel "ms (log scale)"
set logscale cb
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb '#d0d0d0' fillstyle solid noborder
set label 1 'grey: not run' right at graph 1, graph -0.08
set palette defined (0 '#ffffcc', 0.5 '#fd8d3c', 1 '#800026')
plot 'levels_time_shared.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder lc palette, '' using 1:2:(sprintf('%.3g', $3)) with labels
