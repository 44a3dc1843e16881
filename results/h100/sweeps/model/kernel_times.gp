# Rendered by mlfma2d; re-run with: gnuplot kernel_times.gp (in this folder)
set terminal pngcairo size 1150,650 font 'Sans,11'
set termoption noenhanced
set output 'kernel_times.png'
set title "Near-field (P2P) time per evaluation, kernel sweep, CT = 15"
set xlabel "N (uniform points on the unit square; targets = sources)"
set ylabel "time per evaluation (ms, median of 3 evaluations)"
set datafile missing 'NaN'
set grid
set key outside right top box
set logscale xy
plot 'kernel_cpu.dat' using 1:5 with linespoints lw 2 pt 5 lc rgb '#000000' title 'cpu', 'kernel_indexing.dat' using 1:5 with linespoints lw 2 pt 7 lc rgb '#1b9e77' title 'indexing', 'kernel_repetition.dat' using 1:5 with linespoints lw 2 pt 9 lc rgb '#d95f02' title 'repetition', 'kernel_repetition-gpu.dat' using 1:5 with linespoints lw 2 pt 11 lc rgb '#7570b3' title 'repetition-gpu', 'kernel_shared.dat' using 1:5 with linespoints lw 2 pt 13 lc rgb '#e7298a' title 'shared'
