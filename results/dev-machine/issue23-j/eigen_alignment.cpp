#include <Eigen/Dense>
#include <complex>
#include <cstdio>
#include <cstdint>
#include <vector>
int main(){ for (int n : {100, 10000, 1000000}) { Eigen::Matrix<std::complex<double>, Eigen::Dynamic, Eigen::Dynamic> m(31, n); std::vector<double, Eigen::aligned_allocator<double>> v(n); std::printf("%d: mod64 %d vec %d (EIGEN_MAX_ALIGN_BYTES %d EIGEN_DEFAULT_ALIGN_BYTES %d)\n", n, int(reinterpret_cast<std::uintptr_t>(m.data()) % 64), int(reinterpret_cast<std::uintptr_t>(v.data()) % 64), EIGEN_MAX_ALIGN_BYTES, EIGEN_DEFAULT_ALIGN_BYTES);} }
