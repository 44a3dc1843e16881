# Rendered by mlfma2d; re-run with: gnuplot kernel_model_total.gp (in this folder)
set terminal pngcairo size 1150,650 font 'Sans,11'
set termoption noenhanced
set output 'kernel_model_total.png'
set title "Whole near-field speedup: measured vs the models (cf. paper 1 Fig. 3), kernel sweep"
set xlabel "N (uniform points on the unit square; targets = sources)"
set ylabel "speedup = indexing time / repetition time"
set datafile missing 'NaN'
set grid
set key outside right top box
set logscale x
plot 'kernel_speedup.dat' using 1:9 with linespoints lw 2 pt 5 lc rgb '#000000' title 'measured', 'kernel_speedup.dat' using 1:12 with linespoints dt 2 lw 2 pt 7 lc rgb '#1b9e77' title 'eq. 27 (alpha -0.073, beta 0.0011, gamma 3.7)', 'kernel_speedup.dat' using 1:13 with linespoints dt 3 lw 2 pt 9 lc rgb '#d95f02' title 'eq. 8 on measured phase speedups', 'kernel_speedup.dat' using 1:14 with linespoints dt 4 lw 2 pt 11 lc rgb '#7570b3' title 'paper 2 (shares x modelled phases)'
