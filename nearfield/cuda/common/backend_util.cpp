// Host-side helpers of the CUDA back ends (backend_util.hpp).
#include "nearfield/cuda/common/backend_util.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "runtime/threads.hpp"

namespace mlfma2d::cuda {

std::size_t device_budget(const NearFieldProblem& p) {
  std::size_t free_bytes = 0;
  device_memory(&free_bytes, nullptr);
  auto budget = static_cast<std::size_t>(kFreeFraction * double(free_bytes));
  if (p.gpu_memory > 0) budget = std::min(budget, p.gpu_memory);
  return budget;
}

std::string mb(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

void throw_too_small(const std::string& head, std::size_t need, std::size_t budget,
                     const std::string& tail) {
  throw RuntimeFailure(head + " " + mb(need) + " MB of device memory but only " + mb(budget) +
                       " MB are available" + tail);
}

void check_int32_points(const NearFieldProblem& p, const std::string& who) {
  constexpr std::size_t kMax = std::numeric_limits<std::int32_t>::max();
  if (p.n_sources > kMax || p.n_targets > kMax) {
    throw InvalidInput(who + "stores point indices as int32: at most " + std::to_string(kMax) +
                       " sources and targets, got " + std::to_string(p.n_sources) + " and " +
                       std::to_string(p.n_targets));
  }
}

Array<std::int32_t> as_int32(const std::int64_t* v, std::size_t n, int threads) {
  Array<std::int32_t> out(n);
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) num_threads(team_size(threads))
  for (std::int64_t i = 0; i < count; ++i) out[i] = static_cast<std::int32_t>(v[i]);
  return out;
}

ChunkPlan plan_chunks(const NearField& near, const ChunkCost& cost, std::size_t budget,
                      std::size_t max_targets, const std::string& who) {
  const auto n_leaves = static_cast<std::int64_t>(near.leaves());
  if (cost.fixed > budget) {
    throw_too_small(who + "the arrays kept on the device for the whole evaluation need", cost.fixed,
                    budget);
  }
  ChunkPlan plan;
  auto close = [&](const Chunk& c) {
    plan.max_targets = std::max(plan.max_targets, c.targets());
    plan.chunk_bytes = std::max(plan.chunk_bytes, cost.bytes(c) - cost.fixed);
    plan.chunks.push_back(c);
  };
  if (max_targets == 0) max_targets = 1;
  Chunk cur;
  for (std::int64_t b = 0; b < n_leaves; ++b) {
    const Chunk alone{b, b + 1, near.leaf_tgt[b], near.leaf_tgt[b + 1], near.sources[b]};
    Chunk grown = alone;
    if (cur.leaves() > 0) {
      grown = cur;
      grown.leaf_end = b + 1;
      grown.tgt_end = near.leaf_tgt[b + 1];
      grown.neighbors += near.sources[b];
    }
    const bool fits = cost.bytes(grown) <= budget && std::size_t(grown.targets()) <= max_targets;
    if (!fits && cur.leaves() > 0) {
      close(cur);
      grown = alone;
    }
    if (cost.bytes(grown) > budget) {
      throw_too_small(who + "one chunk of " + std::to_string(grown.targets()) + " targets needs",
                      cost.bytes(grown), budget, " (a chunk holds at least one whole leaf box)");
    }
    cur = grown;
  }
  if (cur.leaves() > 0) close(cur);
  plan.bytes = cost.fixed + plan.chunk_bytes;
  return plan;
}

void gather_tree_order(const NearFieldProblem& p, const double* q, double* q_tree) {
  const auto n = static_cast<std::int64_t>(p.n_sources);
  const std::int64_t* idx = p.src_index;
#pragma omp parallel for schedule(static) num_threads(team_size(p.threads))
  for (std::int64_t i = 0; i < n; ++i) q_tree[i] = q[idx[i]];
}

void scatter_to_caller(const NearFieldProblem& p, const Chunk& c, const double* in, double* out) {
  const std::int64_t n = c.targets();
  const std::int64_t* idx = p.tgt_index + c.tgt_begin;
#pragma omp parallel for schedule(static) num_threads(team_size(p.threads))
  for (std::int64_t i = 0; i < n; ++i) out[idx[i]] = in[i];
}

}  // namespace mlfma2d::cuda
