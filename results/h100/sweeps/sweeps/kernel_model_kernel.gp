# Rendered by mlfma2d; re-run with: gnuplot kernel_model_kernel.gp (in this folder)
set terminal pngcairo size 1150,650 font 'Sans,11'
set termoption noenhanced
set output 'kernel_model_kernel.png'
set title "Kernel speedup: measured vs paper 1 eq. 26 (cf. its Fig. 2), kernel sweep, CT = 15"
set xlabel "N (uniform points on the unit square; targets = sources)"
set ylabel "speedup = indexing time / repetition time (log)"
set datafile missing 'NaN'
set grid
set key outside right top box
set logscale xy
plot 'kernel_speedup.dat' using 1:7 with linespoints lw 2 pt 5 lc rgb '#000000' title 'measured', 'kernel_speedup.dat' using 1:11 with linespoints dt 2 lw 2 pt 9 lc rgb '#d95f02' title 'eq. 26, fitted lambda_GPU = 595'
