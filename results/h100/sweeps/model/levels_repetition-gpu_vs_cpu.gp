# Rendered by mlfma2d; re-run with: gnuplot levels_repetition-gpu_vs_cpu.gp (in this folder)
set terminal pngcairo size 1150,650 font 'Sans,11'
set termoption noenhanced
set output 'levels_repetition-gpu_vs_cpu.png'
set title "Near-field speedup of repetition-gpu over cpu (median of 3), CT = 15"
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
set cblabel "speedup (log scale; blue > 1: repetition-gpu faster)"
set logscale cb
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb '#d0d0d0' fillstyle solid noborder
set label 1 'grey: not run' right at graph 1, graph -0.08
set cbrange [0.0169948:58.8414]
set cbtics ('0.02' 0.02, '0.05' 0.05, '0.1' 0.1, '0.2' 0.2, '0.5' 0.5, '1' 1, '2' 2, '5' 5, '10' 10, '20' 20, '50' 50)
set palette defined (0 '#b2182b', 0.5 '#f7f7f7', 1 '#2166ac')
plot 'levels_repetition-gpu_vs_cpu.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder lc palette, '' using 1:2:(sprintf('%.3g', $3)) with labels
