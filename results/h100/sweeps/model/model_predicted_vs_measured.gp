# Rendered by mlfma2d; re-run with: gnuplot model_predicted_vs_measured.gp (in this folder)
set terminal pngcairo size 1150,650 font 'Sans,11'
set termoption noenhanced
set output 'model_predicted_vs_measured.png'
set title "Repetition over indexing, whole near field: predicted vs measured (52 runs; eq. 27 r = -0.06)"
set xlabel "measured speedup (indexing time / repetition time)"
set ylabel "predicted speedup"
set datafile missing 'NaN'
set grid
set key outside right top box
set logscale xy
plot 'model_predicted_vs_measured.dat' using 1:2 with points pt 7 lc rgb '#d95f02' title 'eq. 27 (modelled phases)', '' using 1:3 with points pt 5 lc rgb '#1b9e77' title 'eq. 8 (measured phases)', '' using 1:4 with points pt 9 lc rgb '#7570b3' title 'paper 2 (shares)', x with lines dt 2 lc rgb 'grey' title 'predicted = measured'
