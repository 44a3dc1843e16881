# Rendered by mlfma2d; re-run with: gnuplot kernel_phases_repetition-gpu.gp (in this folder)
set terminal pngcairo size 1150,650 font 'Sans,11'
set termoption noenhanced
set output 'kernel_phases_repetition-gpu.png'
set title "Near-field phases of the repetition-gpu back end, kernel sweep, CT = 15"
set xlabel "N (uniform points on the unit square; targets = sources)"
set ylabel "time per evaluation (ms, median of 3 evaluations)"
set datafile missing 'NaN'
set grid
set key outside right top box
set logscale xy
plot 'kernel_repetition-gpu.dat' using 1:5 with linespoints lw 2 pt 5 lc rgb '#000000' title 'total', 'kernel_repetition-gpu.dat' using 1:6 with linespoints lw 2 pt 7 lc rgb '#1b9e77' title 'collect (host)', 'kernel_repetition-gpu.dat' using 1:7 with linespoints lw 2 pt 9 lc rgb '#d95f02' title 'transfer (host to device)', 'kernel_repetition-gpu.dat' using 1:8 with linespoints lw 2 pt 11 lc rgb '#7570b3' title 'kernel', 'kernel_repetition-gpu.dat' using 1:9 with linespoints lw 2 pt 13 lc rgb '#e7298a' title 'return (device to host, scatter)'
