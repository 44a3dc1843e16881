# Rendered by mlfma2d; re-run with: gnuplot collection_model_collect.gp (in this folder)
set terminal pngcairo size 1150,650 font 'Sans,11'
set termoption noenhanced
set output 'collection_model_collect.png'
set title "Collection speedup: measured vs paper 1 eq. 14 (cf. its Fig. 1), collection sweep, CT = 15"
set xlabel "N (uniform points on the unit square; targets = sources)"
set ylabel "speedup = indexing time / repetition time"
set datafile missing 'NaN'
set grid
set key outside right top box
set logscale x
plot 'collection_speedup.dat' using 1:5 with linespoints lw 2 pt 5 lc rgb '#000000' title 'measured', 'collection_speedup.dat' using 1:10 with linespoints dt 2 lw 2 pt 9 lc rgb '#d95f02' title 'eq. 14, fitted lambda_RAM = 146'
