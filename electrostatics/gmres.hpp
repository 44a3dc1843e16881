#pragma once
// Restarted GMRES with right preconditioning (Saad, Iterative Methods for Sparse Linear Systems,
// 2nd ed., Alg. 9.5): solves A M y = b, x = M y, so the residual it minimises and reports is the
// true one, ||b - A x||. Modified Gram-Schmidt Arnoldi, Givens rotations.
//
// Several right-hand sides run in lockstep (gmres_block): each column has its own Krylov space,
// restarts and convergence test, exactly as if solved alone; what they share is the product,
// one call of the block map per step for every column that still needs one.
#include <cstddef>
#include <functional>
#include <vector>

namespace mlfma2d::es {

/// y = op(x), both of the system's size.
using LinearMap = std::function<void(const double* x, double* y)>;
/// The same map on k vectors at once: x and y hold k vectors of the system's size one after the
/// other (vector c at c * size).
using BlockMap = std::function<void(int k, const double* x, double* y)>;

struct GmresOptions {
  double tol = 1e-10;  ///< stop when ||b - A x|| <= tol ||b||
  int restart = 50;
  int max_iterations = 5000;  ///< per right-hand side
  int threads = 1;            ///< OpenMP team of the vector operations (long vectors only)
  /// Called after every iteration of right-hand side `column` (0 in gmres()) with its count and
  /// residual estimate; may be empty.
  std::function<void(int column, int iteration, double residual)> on_iteration;
  /// Over ranks (the vectors are each rank's entries): sums v[0..n) over the ranks in place,
  /// for every dot product and norm of every column; empty: one process.
  std::function<void(double* v, std::size_t n)> sum;
};

struct GmresResult {
  int iterations = 0;
  double residual = 0;  ///< true relative residual of the returned x
  bool converged = false;
  std::vector<double> history;  ///< relative residual estimate after each iteration
};

/// Solves A x = b from x = 0; `precondition` may be empty (M = I). Each iteration costs one
/// product with A; each restart cycle one more, for the true residual. Over ranks every rank
/// calls it with its entries of b (and gets its entries of x), a and precondition collective.
GmresResult gmres(const LinearMap& a, const LinearMap& precondition, const std::vector<double>& b,
                  std::vector<double>* x, const GmresOptions& options);

/// Solves A x_c = b_c for every column c in lockstep: each column does what gmres() does alone
/// (the same iterations and products, the same arithmetic), and every step multiplies the
/// columns that need a product in one call of `a` (k = their number, in column order). A column
/// that has converged (or reached max_iterations) is no longer in the products. Over ranks, as
/// gmres(): every column's decisions follow from summed norms, so every rank calls `a` with the
/// same columns.
std::vector<GmresResult> gmres_block(const BlockMap& a, const LinearMap& precondition,
                                     const std::vector<std::vector<double>>& b,
                                     std::vector<std::vector<double>>* x,
                                     const GmresOptions& options);

}  // namespace mlfma2d::es
