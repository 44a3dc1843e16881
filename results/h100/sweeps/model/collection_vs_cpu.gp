# Rendered by mlfma2d; re-run with: gnuplot collection_vs_cpu.gp (in this folder)
set terminal pngcairo size 1150,650 font 'Sans,11'
set termoption noenhanced
set output 'collection_vs_cpu.png'
set title "Near-field speedup over the cpu back end, collection sweep, CT = 15"
set xlabel "N (uniform points on the unit square; targets = sources)"
set ylabel "cpu time / back-end time (median of 3 evaluations)"
set datafile missing 'NaN'
set grid
set key outside right top box
set logscale x
plot 'collection_indexing_vs_cpu.dat' using 1:2 with linespoints lw 2 pt 7 lc rgb '#1b9e77' title 'indexing over cpu', 'collection_repetition_vs_cpu.dat' using 1:2 with linespoints lw 2 pt 9 lc rgb '#d95f02' title 'repetition over cpu', 'collection_repetition-gpu_vs_cpu.dat' using 1:2 with linespoints lw 2 pt 11 lc rgb '#7570b3' title 'repetition-gpu over cpu', 'collection_shared_vs_cpu.dat' using 1:2 with linespoints lw 2 pt 13 lc rgb '#e7298a' title 'shared over cpu', 1 with lines dt 2 lc rgb 'grey' title 'equal'
