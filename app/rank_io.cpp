// The files of a run over MPI ranks (app/rank_io.hpp): each rank's part of the inputs, and the
// result gathered to rank 0 a chunk at a time and written once.
#include "app/rank_io.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "mlfma2d/distributed.hpp"

namespace mlfma2d::app {

namespace {

const MPI_Comm kWorld = MPI_COMM_WORLD;
// The result's parts travel to rank 0 in chunks of at most this many bytes.
constexpr std::size_t kChunkBytes = std::size_t(64) << 20;
constexpr int kResultTag = 2401;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(kWorld, &r);
  return r;
}

int world_size() {
  int n = 1;
  MPI_Comm_size(kWorld, &n);
  return n;
}

// Rank 0's rows x n values (row-major), scattered by columns: this rank's rows x part.count.
std::vector<double> scatter_columns(const std::vector<double>& all, std::size_t rows,
                                    std::size_t n) {
  const int p = world_size(), me = world_rank();
  const std::size_t ranks = static_cast<std::size_t>(p);
  std::vector<int> counts(ranks), at(ranks);
  for (int r = 0; r < p; ++r) {
    const PointRange s = rank_part(n, r, p);
    if (s.first + s.count > std::size_t(INT_MAX)) {
      throw InvalidInput("a CSV input of " + std::to_string(n) +
                         " points is too large to scatter (MPI counts are int): use HDF5");
    }
    counts[std::size_t(r)] = int(s.count);
    at[std::size_t(r)] = int(s.first);
  }
  const std::size_t mine = std::size_t(counts[std::size_t(me)]);
  std::vector<double> out(rows * mine);
  for (std::size_t k = 0; k < rows; ++k) {
    MPI_Scatterv(me == 0 ? all.data() + k * n : nullptr, counts.data(), at.data(), MPI_DOUBLE,
                 out.data() + k * mine, int(mine), MPI_DOUBLE, 0, kWorld);
  }
  return out;
}

// Rank 0's whole point set (CSV), scattered: each rank its part of the sources; the shape to all.
PointSet scatter_points(const PointSet& all, RankInput* in) {
  std::int64_t head[5] = {std::int64_t(all.x.size()), all.densities, all.has_charges(),
                          all.has_dipoles(), all.vectors_per_density};
  MPI_Bcast(head, 5, MPI_INT64_T, 0, kWorld);
  in->sources = std::size_t(head[0]);
  in->densities = int(head[1]);
  in->charges = head[2] != 0;
  in->dipoles = head[3] != 0;
  in->vectors_per_density = head[4] != 0;
  const std::size_t n = in->sources, nd = std::size_t(in->densities);
  PointSet p;
  p.densities = in->densities;
  p.x = scatter_columns(all.x, 1, n);
  p.y = scatter_columns(all.y, 1, n);
  if (in->charges) p.q = scatter_columns(all.q, nd, n);
  if (in->dipoles) {
    p.dipole_strengths = scatter_columns(all.dipole_strengths, nd, n);
    p.dipole_vectors = scatter_columns(all.dipole_vectors, in->vectors_per_density ? 2 * nd : 2, n);
    p.vectors_per_density = in->vectors_per_density;
  }
  return p;
}

// The separate targets of --targets FILE: this rank's part (HDF5 read as a part; CSV by rank 0,
// scattered).
void read_target_file(const std::string& path, RankInput* in) {
  const int p = world_size(), me = world_rank();
  PointSet& pts = in->in.points;
  if (format_of(path) == FileFormat::Hdf5) {
    collectively(kWorld, [&] { in->targets = read_target_count(path); });
    in->target_part = rank_part(in->targets, me, p);
    collectively(kWorld, [&] { read_targets(path, in->target_part, &pts.tx, &pts.ty); });
    return;
  }
  std::vector<double> tx, ty;
  collectively(kWorld, [&] {
    if (me == 0) read_targets(path, &tx, &ty);
  });
  std::uint64_t m = tx.size();
  MPI_Bcast(&m, 1, MPI_UINT64_T, 0, kWorld);
  in->targets = std::size_t(m);
  in->target_part = rank_part(in->targets, me, p);
  pts.tx = scatter_columns(tx, 1, in->targets);
  pts.ty = scatter_columns(ty, 1, in->targets);
}

}  // namespace

RankInput read_rank_input(const LoadedInput& names, const Progress& progress) {
  const int p = world_size(), me = world_rank();
  RankInput in;
  in.in = names;
  const auto step = progress.step("reading " + names.input + " (each rank its part)");
  bool hdf5 = false;
  collectively(kWorld, [&] { hdf5 = format_of(names.input) == FileFormat::Hdf5; });
  if (hdf5) {
    PointFileShape shape;
    collectively(kWorld, [&] { shape = read_point_file_shape(names.input); });
    in.sources = shape.sources;
    in.densities = shape.densities;
    in.charges = shape.charges;
    in.dipoles = shape.dipoles;
    in.vectors_per_density = shape.vectors_per_density;
    in.source_part = rank_part(in.sources, me, p);
    // The file's /targets, unless a --targets file replaces them.
    const std::size_t m = names.targets_input.empty() ? shape.targets : 0;
    in.targets = m;
    in.target_part = rank_part(m, me, p);
    collectively(kWorld,
                 [&] { in.in.points = read_points(names.input, in.source_part, in.target_part); });
    if (m > 0) in.in.targets_input = names.input + " (/targets)";
  } else {
    PointSet all;
    collectively(kWorld, [&] {
      if (me == 0) all = read_points(names.input);
    });
    in.in.points = scatter_points(all, &in);
    in.source_part = rank_part(in.sources, me, p);
  }
  if (!names.targets_input.empty()) read_target_file(names.targets_input, &in);
  if (in.self()) in.target_part = in.source_part;
  return in;
}

namespace {

// The output arrays of a result present (the potential first), nd x m each.
std::vector<const std::vector<double>*> outputs_of(const Result& r) {
  std::vector<const std::vector<double>*> out = {&r.potential};
  for (const auto* v : {&r.field_x, &r.field_y, &r.hessian_xx, &r.hessian_xy, &r.hessian_yy}) {
    if (!v->empty()) out.push_back(v);
  }
  return out;
}

// Targets [a, a + c) of this rank's m: their coordinates and nd rows of each output, in one
// buffer.
std::vector<double> pack(const RankInput& in, const Result& r, int nd, std::size_t m, std::size_t a,
                         std::size_t c) {
  const std::vector<double>& tx = in.self() ? in.in.points.x : in.in.points.tx;
  const std::vector<double>& ty = in.self() ? in.in.points.y : in.in.points.ty;
  std::vector<double> b(tx.begin() + std::ptrdiff_t(a), tx.begin() + std::ptrdiff_t(a + c));
  b.insert(b.end(), ty.begin() + std::ptrdiff_t(a), ty.begin() + std::ptrdiff_t(a + c));
  for (const std::vector<double>* v : outputs_of(r)) {
    for (int d = 0; d < nd; ++d) {
      const auto at = v->begin() + std::ptrdiff_t(std::size_t(d) * m + a);
      b.insert(b.end(), at, at + std::ptrdiff_t(c));
    }
  }
  return b;
}

// A packed chunk of c targets as a result part, its outputs those of `shape`.
void unpack(const std::vector<double>& b, const ResultShape& shape, std::size_t c,
            ResultFile* part) {
  const std::size_t nd = std::size_t(shape.densities);
  auto take = [&](std::size_t at, std::size_t n) {
    return std::vector<double>(b.begin() + std::ptrdiff_t(at), b.begin() + std::ptrdiff_t(at + n));
  };
  std::size_t at = 0;
  *part = ResultFile{};
  part->tx = take(at, c);
  part->ty = take(at += c, c);
  at += c;
  std::vector<std::vector<double>*> outputs = {&part->potential};
  if (shape.field) outputs.insert(outputs.end(), {&part->field_x, &part->field_y});
  if (shape.hessian) {
    outputs.insert(outputs.end(), {&part->hessian_xx, &part->hessian_xy, &part->hessian_yy});
  }
  for (std::vector<double>* v : outputs) {
    *v = take(at, nd * c);
    at += nd * c;
  }
}

}  // namespace

void write_rank_result(const std::string& path, const ResultShape& shape, const RankInput& in,
                       const Result& result) {
  const int p = world_size(), me = world_rank();
  const int nd = shape.densities;
  const std::size_t width = 2 + std::size_t(nd) * outputs_of(result).size();
  const std::size_t chunk = std::max<std::size_t>(1, kChunkBytes / (8 * width));
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(p));
  const std::uint64_t mine = in.target_part.count;
  MPI_Allgather(&mine, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, kWorld);
  if (me != 0) {
    for (std::size_t a = 0; a < mine; a += chunk) {
      const std::size_t c = std::min<std::size_t>(chunk, mine - a);
      const std::vector<double> b = pack(in, result, nd, mine, a, c);
      MPI_Send(b.data(), int(b.size()), MPI_DOUBLE, 0, kResultTag, kWorld);
    }
    agree_on_errors(kWorld, nullptr);
    return;
  }
  // Rank 0: the parts in rank order, its own first; every chunk is received even when the
  // writing failed (the senders must not be left waiting), then the error is every rank's.
  int from = 0;
  std::size_t a = 0;
  ResultFile part;
  std::vector<double> b;
  auto next = [&]() -> const ResultFile* {
    for (; from < p; ++from, a = 0) {
      if (a >= counts[std::size_t(from)]) continue;
      const std::size_t c = std::min<std::size_t>(chunk, counts[std::size_t(from)] - a);
      if (from == 0) {
        b = pack(in, result, nd, mine, a, c);
      } else {
        b.resize(c * width);
        MPI_Recv(b.data(), int(b.size()), MPI_DOUBLE, from, kResultTag, kWorld, MPI_STATUS_IGNORE);
      }
      a += c;
      unpack(b, shape, c, &part);
      return &part;
    }
    return nullptr;
  };
  std::exception_ptr error;
  try {
    write_result(path, shape, next);
  } catch (...) {
    error = std::current_exception();
    while (next()) {
    }
  }
  agree_on_errors(kWorld, error);
}

}  // namespace mlfma2d::app
