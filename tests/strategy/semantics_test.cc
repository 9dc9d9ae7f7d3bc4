// Every strategy of every family computes the right thing: each rank runs the op on its pieces
// (Partial inputs split into random contributions), and the outputs reassembled under the
// strategy's output placements equal the op on the whole tensors. Shapes are small and uneven,
// meshes 1-D and 2-D; this checks the rules of ops/*.cc (including every Partial row of
// docs/reference/strategy_selection.md §2.6, the masked vocab-parallel embedding and the
// _StridedShard flatten) by simulation.

#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "strategy/einsum_labels.h"
#include "strategy/enumerate.h"
#include "support/dense_sim.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy {
namespace {

using core::DType;
using graph::OpKind;
using graph::Shape;
using graph::TensorMeta;
namespace sim = dtplan::testing;
using sim::Dense;
using sim::Piece;
using testing::pls;
using Ints = std::vector<std::int64_t>;

// A local op: the rank's input pieces and its output shapes -> its outputs.
using LocalOp =
    std::function<std::vector<Dense>(const std::vector<Piece>&, const std::vector<Shape>&)>;

const std::vector<std::vector<std::int64_t>> kMeshes = {{2}, {3}, {2, 2}, {3, 2}};

// Runs every strategy of `op` on the simulator and compares with the whole-tensor result.
void check_semantics(const OpStrategy& op, const std::vector<Dense>& globals,
                     const std::vector<Shape>& out_shapes, const LocalOp& f,
                     const std::vector<std::int64_t>& mesh, std::mt19937_64& rng) {
  std::vector<Piece> whole;
  for (const Dense& g : globals) {
    Piece p{g, {}};
    for (std::int64_t d : g.shape) p.owned.push_back(placement::IndexSet::full(d));
    whole.push_back(std::move(p));
  }
  const std::vector<Dense> reference = f(whole, out_shapes);
  std::size_t ranks = 1;
  for (std::int64_t m : mesh) ranks *= static_cast<std::size_t>(m);
  for (const Strategy& s : op.strategies) {
    CAPTURE(format_strategy(s));
    CAPTURE(graph::format_shape(mesh));
    std::vector<std::vector<Piece>> pieces;  // [slot][rank]
    for (std::size_t i = 0; i < globals.size(); ++i) {
      pieces.push_back(sim::distribute(globals[i], s.inputs[i], mesh, rng));
    }
    std::vector<std::vector<Shape>> out_local;  // [output][rank]
    for (std::size_t o = 0; o < out_shapes.size(); ++o) {
      out_local.push_back(sim::rank_shapes(out_shapes[o], s.outputs[o], mesh));
    }
    std::vector<std::vector<Dense>> results(out_shapes.size());  // [output][rank]
    for (std::size_t r = 0; r < ranks; ++r) {
      std::vector<Piece> in;
      for (auto& slot : pieces) in.push_back(slot[r]);
      std::vector<Shape> shapes;
      for (auto& o : out_local) shapes.push_back(o[r]);
      std::vector<Dense> out = f(in, shapes);
      for (std::size_t o = 0; o < out.size(); ++o) results[o].push_back(std::move(out[o]));
    }
    for (std::size_t o = 0; o < out_shapes.size(); ++o) {
      std::string why;
      auto got = sim::assemble(results[o], out_shapes[o], s.outputs[o], mesh, why);
      CAPTURE(o);
      CAPTURE(why);
      REQUIRE(got.has_value());
      CHECK(sim::close(*got, reference[o]));
    }
  }
}

// ---- local ops ----------------------------------------------------------------------------------

// einsum over letters; label sizes from the operands (size-1 dims broadcast).
Dense einsum_local(const EinsumLabels& l, const std::vector<Dense>& in) {
  std::array<std::int64_t, 128> size{};
  std::string letters;
  for (std::size_t i = 0; i < in.size(); ++i) {
    for (std::size_t q = 0; q < l.operands[i].size(); ++q) {
      const char c = l.operands[i][q];
      auto& s = size[static_cast<unsigned char>(c)];
      // A label sized 1 in one operand broadcasts; an empty piece (size 0) wins.
      const std::int64_t n = in[i].shape[q];
      const bool first = letters.find(c) == std::string::npos;
      s = first ? n : (n == 0 || s == 0) ? 0 : std::max(s, n);
      if (first) letters += c;
    }
  }
  Shape out_shape;
  for (char c : l.output) out_shape.push_back(size[static_cast<unsigned char>(c)]);
  Dense out = sim::zeros(out_shape);
  Shape all;
  for (char c : letters) all.push_back(size[static_cast<unsigned char>(c)]);
  std::int64_t total = 1;
  for (std::int64_t s : all) total *= s;
  for (std::int64_t flat = 0; flat < total; ++flat) {
    const auto idx = sim::unravel(flat, all);
    auto at = [&](const std::string& term, const Shape& shape) {
      std::int64_t f = 0;
      for (std::size_t q = 0; q < term.size(); ++q) {
        const std::int64_t v = idx[letters.find(term[q])];
        f = f * shape[q] + (shape[q] == 1 ? 0 : v);
      }
      return f;
    };
    double prod = 1;
    for (std::size_t i = 0; i < in.size(); ++i) {
      prod *= in[i].v[static_cast<std::size_t>(at(l.operands[i], in[i].shape))];
    }
    out.v[static_cast<std::size_t>(at(l.output, out_shape))] += prod;
  }
  return out;
}

LocalOp einsum_op(const std::string& equation, std::size_t operands) {
  return [=](const std::vector<Piece>& in, const std::vector<Shape>&) {
    std::vector<Dense> dense;
    std::vector<const Shape*> shapes;
    for (std::size_t i = 0; i < operands; ++i) dense.push_back(in[i].local);
    for (const Dense& d : dense) shapes.push_back(&d.shape);
    const EinsumLabels l = *expand_einsum(equation, shapes, "eq");
    return std::vector<Dense>{einsum_local(l, dense)};
  };
}

Shape broadcast(const std::vector<Piece>& in) {
  Shape out;
  for (const Piece& p : in) {
    const Shape& s = p.local.shape;
    if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
    for (std::size_t i = 0; i < s.size(); ++i) {
      std::int64_t& o = out[out.size() - s.size() + i];
      o = o == 1 ? s[i] : o;
    }
  }
  return out;
}

LocalOp elementwise(std::function<double(const std::vector<double>&)> fn) {
  return [fn](const std::vector<Piece>& in, const std::vector<Shape>&) {
    Dense out = sim::zeros(broadcast(in));
    std::vector<double> args(in.size());
    for (std::int64_t f = 0; f < out.numel(); ++f) {
      const auto idx = sim::unravel(f, out.shape);
      for (std::size_t i = 0; i < in.size(); ++i) {
        args[i] =
            in[i].local.v[static_cast<std::size_t>(sim::ravel_broadcast(idx, in[i].local.shape))];
      }
      out.v[static_cast<std::size_t>(f)] = fn(args);
    }
    return std::vector<Dense>{out};
  };
}

// Reduction over `dims` (keepdim as given): op "sum", "mean", "max", "min".
Dense reduce(const Dense& x, const std::vector<bool>& reduced, bool keepdim,
             const std::string& op) {
  Shape kept;
  for (std::size_t d = 0; d < x.shape.size(); ++d) kept.push_back(reduced[d] ? 1 : x.shape[d]);
  Dense acc = sim::zeros(kept);
  std::vector<std::int64_t> count(acc.v.size(), 0);
  for (std::int64_t f = 0; f < x.numel(); ++f) {
    auto idx = sim::unravel(f, x.shape);
    for (std::size_t d = 0; d < idx.size(); ++d) idx[d] = reduced[d] ? 0 : idx[d];
    const auto o = static_cast<std::size_t>(sim::ravel_broadcast(idx, kept));
    const double v = x.v[static_cast<std::size_t>(f)];
    acc.v[o] = count[o] == 0 ? v
               : op == "max" ? std::max(acc.v[o], v)
               : op == "min" ? std::min(acc.v[o], v)
                             : acc.v[o] + v;
    ++count[o];
  }
  if (op == "mean") {
    for (std::size_t o = 0; o < acc.v.size(); ++o)
      acc.v[o] /= static_cast<double>(std::max<std::int64_t>(count[o], 1));
  }
  if (!keepdim) {
    Shape s;
    for (std::size_t d = 0; d < kept.size(); ++d) {
      if (!reduced[d]) s.push_back(kept[d]);
    }
    acc.shape = s;
  }
  return acc;
}

LocalOp reduction_op(std::vector<bool> reduced, bool keepdim, std::string op) {
  return [=](const std::vector<Piece>& in, const std::vector<Shape>&) {
    return std::vector<Dense>{reduce(in[0].local, reduced, keepdim, op)};
  };
}

Dense softmax(const Dense& x, std::size_t dim) {
  std::vector<bool> r(x.shape.size(), false);
  r[dim] = true;
  const Dense m = reduce(x, r, true, "max");
  Dense e = x;
  for (std::int64_t f = 0; f < x.numel(); ++f) {
    const auto idx = sim::unravel(f, x.shape);
    e.v[static_cast<std::size_t>(f)] =
        std::exp(x.v[static_cast<std::size_t>(f)] -
                 m.v[static_cast<std::size_t>(sim::ravel_broadcast(idx, m.shape))]);
  }
  const Dense s = reduce(e, r, true, "sum");
  for (std::int64_t f = 0; f < x.numel(); ++f) {
    const auto idx = sim::unravel(f, x.shape);
    e.v[static_cast<std::size_t>(f)] /=
        s.v[static_cast<std::size_t>(sim::ravel_broadcast(idx, s.shape))];
  }
  return e;
}

// ---- the checks ---------------------------------------------------------------------------------

OpStrategy enumerate(OpKind kind, const std::vector<Dense>& in, graph::Attributes attrs,
                     const std::vector<std::int64_t>& mesh,
                     std::vector<std::vector<Placements>> producers = {},
                     std::vector<TensorMeta> outputs = {}, DType dtype = DType::kF32,
                     const EnumerateOptions& options = {}) {
  std::vector<TensorMeta> metas;
  for (const Dense& d : in) metas.push_back({d.shape, dtype});
  return testing::run_op(kind, metas, std::move(attrs), mesh, std::move(producers), options,
                         std::move(outputs));
}

// Leaf options of a shape plus every uniform Partial list: producers that exercise the rules'
// Partial handling.
std::vector<Placements> with_partials(const Shape& shape, const std::vector<std::int64_t>& mesh) {
  std::vector<Placements> out = testing::leaf_options_of(shape, mesh);
  for (const char* op : {"P(sum)", "P(avg)", "P(max)", "P(min)"}) {
    std::string text;
    for (std::size_t k = 0; k < mesh.size(); ++k) text += (k ? "," : "") + std::string(op);
    out.push_back(testing::pl(text));
    if (mesh.size() > 1) out.push_back(testing::pl(std::string(op) + ",S(0)"));
  }
  return out;
}

TEST_CASE("semantics: matmul family and einsum") {
  std::mt19937_64 rng(1);
  for (const auto& mesh : kMeshes) {
    const Dense a = sim::random_dense({5, 6}, rng), b = sim::random_dense({6, 4}, rng);
    check_semantics(enumerate(OpKind::kMm, {a, b}, {}, mesh), {a, b}, {{5, 4}},
                    einsum_op("ij,jk->ik", 2), mesh, rng);
    const Dense x = sim::random_dense({4, 3, 5}, rng), y = sim::random_dense({4, 5, 2}, rng);
    check_semantics(enumerate(OpKind::kBmm, {x, y}, {}, mesh), {x, y}, {{4, 3, 2}},
                    einsum_op("bij,bjk->bik", 2), mesh, rng);
    const Dense bias = sim::random_dense({4}, rng);
    const LocalOp mm = einsum_op("ij,jk->ik", 2);
    LocalOp addmm = [&](const std::vector<Piece>& in, const std::vector<Shape>& s) {
      Dense out = mm({in[1], in[2]}, s)[0];
      return elementwise([](const std::vector<double>& v) { return v[0] + v[1]; })(
          {Piece{out, {}}, in[0]}, s);
    };
    check_semantics(enumerate(OpKind::kAddmm, {bias, a, b}, {}, mesh), {bias, a, b}, {{5, 4}},
                    addmm, mesh, rng);
    const Dense act = sim::random_dense({2, 5, 4}, rng), w = sim::random_dense({4, 3}, rng);
    const Dense g = sim::random_dense({2, 5, 3}, rng);
    for (auto [eq, in, out] :
         {std::tuple{std::string("abk,kn->abn"), std::vector<Dense>{act, w}, Shape{2, 5, 3}},
          std::tuple{std::string("abn,abk->kn"), std::vector<Dense>{g, act}, Shape{4, 3}},
          std::tuple{std::string("...n,kn->...k"), std::vector<Dense>{g, w}, Shape{2, 5, 4}}}) {
      CAPTURE(eq);
      check_semantics(enumerate(OpKind::kEinsum, in, {{"equation", eq}}, mesh), in, {out},
                      einsum_op(eq, 2), mesh, rng);
    }
  }
}

TEST_CASE("semantics: pointwise ops with every Partial row") {
  std::mt19937_64 rng(2);
  using F = std::function<double(const std::vector<double>&)>;
  struct Case {
    OpKind op;
    std::size_t tensors;
    graph::Attributes attrs;
    F fn;
    double lo = -1;
  };
  const std::vector<Case> cases = {
      {OpKind::kAdd, 2, {}, [](auto& v) { return v[0] + v[1]; }},
      {OpKind::kSub, 2, {}, [](auto& v) { return v[0] - v[1]; }},
      {OpKind::kRsub, 2, {}, [](auto& v) { return v[1] - v[0]; }},
      {OpKind::kMul, 2, {}, [](auto& v) { return v[0] * v[1]; }},
      {OpKind::kDiv, 2, {}, [](auto& v) { return v[0] / v[1]; }, 0.5},
      {OpKind::kAdd, 1, {{"other", 0.25}}, [](auto& v) { return v[0] + 0.25; }},
      {OpKind::kSub, 1, {{"other", 0.25}}, [](auto& v) { return v[0] - 0.25; }},
      {OpKind::kRsub, 1, {{"other", 0.25}}, [](auto& v) { return 0.25 - v[0]; }},
      {OpKind::kMul, 1, {{"other", 3.0}}, [](auto& v) { return 3 * v[0]; }},
      {OpKind::kDiv, 1, {{"other", 4.0}}, [](auto& v) { return v[0] / 4; }},
      {OpKind::kNeg, 1, {}, [](auto& v) { return -v[0]; }},
      {OpKind::kExp, 1, {}, [](auto& v) { return std::exp(v[0]); }},
      {OpKind::kLog, 1, {}, [](auto& v) { return std::log(v[0]); }, 0.5},
      {OpKind::kSqrt, 1, {}, [](auto& v) { return std::sqrt(v[0]); }, 0.5},
      {OpKind::kSigmoid, 1, {}, [](auto& v) { return 1 / (1 + std::exp(-v[0])); }},
      {OpKind::kTanh, 1, {}, [](auto& v) { return std::tanh(v[0]); }},
      {OpKind::kRelu, 1, {}, [](auto& v) { return std::max(v[0], 0.0); }},
      {OpKind::kRsqrt, 1, {}, [](auto& v) { return 1 / std::sqrt(v[0]); }, 0.5},
      {OpKind::kPow, 1, {{"exponent", std::int64_t{2}}}, [](auto& v) { return v[0] * v[0]; }},
  };
  for (const auto& mesh : kMeshes) {
    for (const Case& c : cases) {
      CAPTURE(graph::op_name(c.op));
      CAPTURE(c.tensors);
      const Dense x = sim::random_dense({5, 4}, rng, c.lo, c.lo + 2);
      const Dense y = sim::random_dense({4}, rng, c.lo, c.lo + 2);  // broadcast operand
      std::vector<Dense> in = c.tensors == 2 ? std::vector<Dense>{x, y} : std::vector<Dense>{x};
      OpStrategy op = enumerate(c.op, in, c.attrs, mesh);
      check_semantics(op, in, {{5, 4}}, elementwise(c.fn), mesh, rng);
    }
  }
}

TEST_CASE("semantics: reductions, softmax and casts, with Partial producers") {
  std::mt19937_64 rng(3);
  for (const auto& mesh : kMeshes) {
    const Dense x = sim::random_dense({5, 4, 3}, rng);
    const auto producers = with_partials(x.shape, mesh);
    for (const auto& [op, name] :
         {std::pair{OpKind::kSum, "sum"}, std::pair{OpKind::kMean, "mean"},
          std::pair{OpKind::kAmax, "max"}, std::pair{OpKind::kAmin, "min"}}) {
      for (const Ints& dims : {Ints{1}, Ints{0, 2}, Ints{-1}}) {
        for (bool keepdim : {false, true}) {
          CAPTURE(name);
          CAPTURE(graph::format_shape(dims));
          std::vector<bool> reduced(3, false);
          for (std::int64_t d : dims) reduced[static_cast<std::size_t>((d + 3) % 3)] = true;
          OpStrategy s =
              enumerate(op, {x}, {{"dim", dims}, {"keepdim", keepdim}}, mesh, {producers});
          Dense expect = reduce(x, reduced, keepdim, name);
          check_semantics(s, {x}, {expect.shape}, reduction_op(reduced, keepdim, name), mesh, rng);
        }
      }
    }
    OpStrategy sm = enumerate(OpKind::kSoftmax, {x}, {{"dim", std::int64_t{1}}}, mesh, {producers});
    check_semantics(
        sm, {x}, {x.shape},
        [](const std::vector<Piece>& in, const std::vector<Shape>&) {
          return std::vector<Dense>{softmax(in[0].local, 1)};
        },
        mesh, rng);
    OpStrategy cast = enumerate(OpKind::kToCopy, {x}, {{"dtype", DType::kBF16}}, mesh, {producers});
    check_semantics(cast, {x}, {x.shape}, elementwise([](auto& v) { return v[0]; }), mesh, rng);
  }
}

TEST_CASE("semantics: view-likes, including _StridedShard flattens") {
  std::mt19937_64 rng(4);
  LocalOp reshape = [](const std::vector<Piece>& in, const std::vector<Shape>& out) {
    Dense d = in[0].local;
    REQUIRE(d.numel() == sim::zeros(out[0]).numel());
    d.shape = out[0];
    return std::vector<Dense>{d};
  };
  for (const auto& mesh : kMeshes) {
    for (const auto& [from, to] :
         {std::pair{Shape{4, 6}, Shape{24}}, std::pair{Shape{24}, Shape{4, 6}},
          std::pair{Shape{2, 3, 4}, Shape{6, 4}}, std::pair{Shape{6, 4}, Shape{2, 3, 4}},
          std::pair{Shape{4, 6}, Shape{3, 8}}, std::pair{Shape{5, 4}, Shape{20}}}) {
      CAPTURE(graph::format_shape(from));
      CAPTURE(graph::format_shape(to));
      const Dense x = sim::random_dense(from, rng);
      // Producers: the leaf options, Partials, and the _StridedShard options of a first view.
      auto producers = with_partials(from, mesh);
      if (from.size() == 1) {
        OpStrategy first = enumerate(OpKind::kView, {sim::zeros({from[0] / 2, 2})},
                                     {{"size", Ints{from[0]}}}, mesh);
        for (const Strategy& s : first.strategies) producers.push_back(s.outputs[0]);
      }
      OpStrategy op =
          enumerate(OpKind::kView, {x}, {{"size", Ints(to.begin(), to.end())}}, mesh, {producers});
      check_semantics(op, {x}, {to}, reshape, mesh, rng);
    }
    const Dense x = sim::random_dense({3, 4, 5}, rng);
    const auto producers = with_partials(x.shape, mesh);
    LocalOp permute = [](const std::vector<Piece>& in, const std::vector<Shape>& out) {
      Dense d = sim::zeros(out[0]);
      const Dense& s = in[0].local;  // dims (0,2,1)
      for (std::int64_t f = 0; f < d.numel(); ++f) {
        const auto i = sim::unravel(f, d.shape);
        d.v[static_cast<std::size_t>(f)] =
            s.v[static_cast<std::size_t>((i[0] * s.shape[1] + i[2]) * s.shape[2] + i[1])];
      }
      return std::vector<Dense>{d};
    };
    check_semantics(enumerate(OpKind::kPermute, {x}, {{"dims", Ints{0, 2, 1}}}, mesh, {producers}),
                    {x}, {{3, 5, 4}}, permute, mesh, rng);
    const Dense col = sim::random_dense({4, 1}, rng);
    LocalOp expand = [](const std::vector<Piece>& in, const std::vector<Shape>& out) {
      Dense d = sim::zeros(out[0]);
      for (std::int64_t f = 0; f < d.numel(); ++f) {
        const auto i = sim::unravel(f, d.shape);
        d.v[static_cast<std::size_t>(f)] =
            in[0].local.v[static_cast<std::size_t>(sim::ravel_broadcast(i, in[0].local.shape))];
      }
      return std::vector<Dense>{d};
    };
    check_semantics(enumerate(OpKind::kExpand, {col}, {{"size", Ints{3, 4, 6}}}, mesh,
                              {with_partials(col.shape, mesh)}),
                    {col}, {{3, 4, 6}}, expand, mesh, rng);
    check_semantics(
        enumerate(OpKind::kUnsqueeze, {x}, {{"dim", std::int64_t{1}}}, mesh, {producers}), {x},
        {{3, 1, 4, 5}}, reshape, mesh, rng);
  }
}

TEST_CASE("semantics: embedding (masked vocab-parallel partial) and its backward") {
  std::mt19937_64 rng(5);
  for (const auto& mesh : kMeshes) {
    const Dense w = sim::random_dense({7, 4}, rng);
    Dense idx = sim::zeros({2, 3});
    for (double& v : idx.v) v = static_cast<double>(rng() % 7);
    // The local kernel: rows outside the rank's vocab shard read as zeros.
    LocalOp embedding = [](const std::vector<Piece>& in, const std::vector<Shape>&) {
      const Dense& wl = in[0].local;
      const auto rows = in[0].owned[0].to_vector();
      Shape s = in[1].local.shape;
      s.push_back(wl.shape[1]);
      Dense out = sim::zeros(s);
      for (std::int64_t i = 0; i < in[1].local.numel(); ++i) {
        const auto g = static_cast<std::int64_t>(in[1].local.v[static_cast<std::size_t>(i)]);
        const auto it = std::find(rows.begin(), rows.end(), g);
        if (it == rows.end()) continue;
        const auto r = it - rows.begin();
        for (std::int64_t c = 0; c < wl.shape[1]; ++c) {
          out.v[static_cast<std::size_t>(i * wl.shape[1] + c)] =
              wl.v[static_cast<std::size_t>(r * wl.shape[1] + c)];
        }
      }
      return std::vector<Dense>{out};
    };
    // The index tensor is integer-typed.
    OpStrategy fwd = testing::run_op(
        OpKind::kEmbedding, {TensorMeta{{7, 4}, DType::kF32}, TensorMeta{{2, 3}, DType::kI64}}, {},
        mesh);
    check_semantics(fwd, {w, idx}, {{2, 3, 4}}, embedding, mesh, rng);
    const Dense g = sim::random_dense({2, 3, 4}, rng);
    LocalOp backward = [](const std::vector<Piece>& in, const std::vector<Shape>& out_shapes) {
      Dense out = sim::zeros(out_shapes[0]);
      const Dense& gl = in[0].local;
      const std::int64_t d = gl.shape.back();
      for (std::int64_t i = 0; i < in[1].local.numel(); ++i) {
        const auto row = static_cast<std::int64_t>(in[1].local.v[static_cast<std::size_t>(i)]);
        for (std::int64_t c = 0; c < d; ++c) {
          out.v[static_cast<std::size_t>(row * d + c)] += gl.v[static_cast<std::size_t>(i * d + c)];
        }
      }
      return std::vector<Dense>{out};
    };
    OpStrategy bwd =
        testing::run_op(OpKind::kEmbeddingDenseBackward,
                        {TensorMeta{{2, 3, 4}, DType::kF32}, TensorMeta{{2, 3}, DType::kI64}},
                        {{"num_weights", std::int64_t{7}}}, mesh);
    check_semantics(bwd, {g, idx}, {{7, 4}}, backward, mesh, rng);
  }
}

TEST_CASE("semantics: attention forward and the fused RMS norm") {
  std::mt19937_64 rng(6);
  LocalOp sdpa = [](const std::vector<Piece>& in, const std::vector<Shape>&) {
    const Dense &q = in[0].local, &k = in[1].local, &v = in[2].local;
    const std::int64_t b = q.shape[0], h = q.shape[1], s = q.shape[2], d = q.shape[3];
    Dense out = sim::zeros({b, h, s, v.shape[3]}), lse = sim::zeros({b, h, s});
    for (std::int64_t i = 0; i < b * h; ++i) {
      for (std::int64_t r = 0; r < s; ++r) {
        std::vector<double> score(static_cast<std::size_t>(k.shape[2]));
        double mx = -1e300;
        for (std::int64_t c = 0; c < k.shape[2]; ++c) {
          double dot = 0;
          for (std::int64_t e = 0; e < d; ++e) {
            dot += q.v[static_cast<std::size_t>((i * s + r) * d + e)] *
                   k.v[static_cast<std::size_t>((i * k.shape[2] + c) * d + e)];
          }
          score[static_cast<std::size_t>(c)] = dot / std::sqrt(static_cast<double>(d));
          mx = std::max(mx, score[static_cast<std::size_t>(c)]);
        }
        double sum = 0;
        for (double& x : score) sum += (x = std::exp(x - mx));
        lse.v[static_cast<std::size_t>(i * s + r)] = mx + std::log(sum);
        for (std::int64_t c = 0; c < k.shape[2]; ++c) {
          for (std::int64_t e = 0; e < v.shape[3]; ++e) {
            out.v[static_cast<std::size_t>((i * s + r) * v.shape[3] + e)] +=
                score[static_cast<std::size_t>(c)] / sum *
                v.v[static_cast<std::size_t>((i * k.shape[2] + c) * v.shape[3] + e)];
          }
        }
      }
    }
    return std::vector<Dense>{out, lse, sim::zeros({}), sim::zeros({})};
  };
  LocalOp rms = [](const std::vector<Piece>& in, const std::vector<Shape>&) {
    const Dense &x = in[0].local, &w = in[1].local;
    const std::vector<bool> last = {false, false, true};
    Dense sq = x;
    for (double& v : sq.v) v *= v;
    Dense r = reduce(sq, last, true, "mean");
    for (double& v : r.v) v = 1 / std::sqrt(v + 1e-5);
    Dense y = x;
    for (std::int64_t f = 0; f < y.numel(); ++f) {
      const auto i = sim::unravel(f, y.shape);
      y.v[static_cast<std::size_t>(f)] *=
          r.v[static_cast<std::size_t>(sim::ravel_broadcast(i, r.shape))] *
          w.v[static_cast<std::size_t>(i[2])];
    }
    return std::vector<Dense>{y, r};
  };
  for (const auto& mesh : kMeshes) {
    const Dense q = sim::random_dense({2, 6, 3, 2}, rng), k = sim::random_dense({2, 6, 4, 2}, rng),
                v = sim::random_dense({2, 6, 4, 3}, rng);
    const std::vector<TensorMeta> outs = {{{2, 6, 3, 3}, DType::kF32},
                                          {{2, 6, 3}, DType::kF32},
                                          {{}, DType::kI64},
                                          {{}, DType::kI64}};
    OpStrategy op = enumerate(OpKind::kSdpaFlash, {q, k, v}, {}, mesh, {}, outs);
    check_semantics(op, {q, k, v}, {{2, 6, 3, 3}, {2, 6, 3}, {}, {}}, sdpa, mesh, rng);
    const Dense x = sim::random_dense({3, 5, 4}, rng), w = sim::random_dense({4}, rng);
    OpStrategy norm = enumerate(OpKind::kFusedRmsNorm, {x, w}, {{"normalized_shape", Ints{4}}},
                                mesh, {with_partials(x.shape, mesh)});
    check_semantics(norm, {x, w}, {{3, 5, 4}, {3, 5, 1}}, rms, mesh, rng);
  }
}

}  // namespace
}  // namespace dtplan::strategy
