# Rendered by mlfma2d; re-run with: gnuplot kernel_phase_speedups.gp (in this folder)
set terminal pngcairo size 1150,650 font 'Sans,11'
set termoption noenhanced
set output 'kernel_phase_speedups.png'
set title "Repetition over indexing, phase by phase, kernel sweep, CT = 15"
set xlabel "N (uniform points on the unit square; targets = sources)"
set ylabel "speedup = indexing time / repetition time (>1: repetition faster)"
set datafile missing 'NaN'
set grid
set key outside right top box
set logscale xy
plot 'kernel_speedup.dat' using 1:5 with linespoints lw 2 pt 5 lc rgb '#000000' title 'collect', 'kernel_speedup.dat' using 1:6 with linespoints lw 2 pt 7 lc rgb '#1b9e77' title 'transfer', 'kernel_speedup.dat' using 1:7 with linespoints lw 2 pt 9 lc rgb '#d95f02' title 'kernel', 'kernel_speedup.dat' using 1:8 with linespoints lw 2 pt 11 lc rgb '#7570b3' title 'return', 'kernel_speedup.dat' using 1:9 with linespoints lw 2 pt 13 lc rgb '#e7298a' title 'whole near field', 1 with lines dt 2 lc rgb 'grey' title 'equal'
