#pragma once
// The kernels that run at the widest vectors the CPU has, chosen at run time (issue 23): the
// portable build is x86-64-v3 (AVX2, 256-bit vectors); where the CPU has AVX-512 the same code,
// compiled a second time for 512-bit vectors (kernel/wide_avx512.cpp), runs instead. Each kernel
// is written once (kernel/wide_impl.hpp) over a vector type; the two units instantiate it with a
// type of their own (internal linkage), and neither includes Eigen or instantiates a standard
// library template, so no code compiled for AVX-512 can be shared with the rest of the library
// (docs/math.md section 3.12).
#include <cstdint>

namespace mlfma2d {

/// \brief The kernels of one vector width.
struct WideKernels {
  int bits = 256;  ///< 512 (AVX-512), 256 (AVX2) or 64 (scalar: a build without AVX2)
  /// V = R S: R is rows x n, column-major with leading dimension `rows` (a multiple of
  /// kWideRows, its extra rows zero); S is n x cols, column-major with leading dimension n, cols
  /// a multiple of kWideCols; V is rows x cols, leading dimension `rows`. Each element is the
  /// sum over k in increasing order, one fused multiply-add each: the same at every width.
  void (*gemm)(int n, int rows, int cols, const double* R, const double* S, double* V);
};

/// Rows of R are padded to a multiple of this; columns of S and V to a multiple of kWideCols.
constexpr int kWideRows = 32;
constexpr int kWideCols = 6;

/// The widest kernels this CPU and this build have (512-bit where both have AVX-512), or the
/// 256-bit ones where MLFMA2D_VECTOR_BITS=256 asks for them.
const WideKernels& wide_kernels();
/// The kernels of `bits` (256 or 512), nullptr where this CPU or build lacks them (for tests
/// that compare the widths).
const WideKernels* wide_kernels_of(int bits);

}  // namespace mlfma2d
