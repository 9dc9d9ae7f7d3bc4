#include "placement/strided_encoding.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/strings.h"
#include "placement/owned_indices.h"
#include "support/placement_specs.h"

namespace dtplan::placement {
namespace {

using core::DType;
using Sizes = std::vector<std::int64_t>;
using testing::spec_of;

std::vector<Placement> list_of(const std::string& text) {
  return parse_placement_list(text, "x").value().placements;
}

TEST_CASE("encode: the [4,3,2] example of redistribute.md 1.4") {
  const Sizes mesh = {4, 3, 2};
  std::vector<Placement> ps = list_of("S(0),S(0),S(0)");
  ShardOrder order = ShardOrder::from_steps({{0, 2}, {0, 0}, {0, 1}}).value();
  CHECK(encode_shard_order(ps, order, mesh).value() == list_of("_S(0,2),_S(0,2),S(0)"));
  DecodedPlacements decoded = decode_strided_shards(list_of("_S(0,2),_S(0,2),S(0)"), mesh).value();
  CHECK(decoded.placements == ps);
  CHECK(decoded.shard_order == order);
  // Default order encodes to itself.
  CHECK(encode_shard_order(ps, default_shard_order(ps), mesh).value() == ps);
}

TEST_CASE("the (4,2) equivalence: _S(0,2),S(0) holds what S(0),S(0) with order (1,0) holds") {
  const Sizes mesh = {4, 2};
  TensorSpec strided = spec_of({8, 4}, "_S(0,2),S(0)", mesh);
  TensorSpec ordered = spec_of({8, 4}, "S(0)[1],S(0)[0]", mesh);
  CHECK(same_local_data(strided, ordered, mesh).value());
  CHECK_FALSE(same_local_data(strided, spec_of({8, 4}, "S(0),S(0)", mesh), mesh).value());
  CHECK(decode_spec(strided, mesh).value() == ordered);
  CHECK(encode_spec(ordered, mesh).value() == strided);
  DecodedPlacements d = decode_strided_shards(strided.placements(), mesh).value();
  CHECK(d.shard_order.mesh_dims_of(0) == std::vector<std::int32_t>{1, 0});
}

TEST_CASE("undecodable split factors and misuse are reported") {
  const Sizes mesh = {2, 2};
  auto bad = decode_strided_shards(list_of("_S(0,3),S(0)"), mesh);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == core::ErrorKind::kUnsupported);
  CHECK(bad.error().message ==
        "placements _S(0,3),S(0) on mesh [2,2]: mesh dim 0 (_S(0,3)) is not decodable into a "
        "shard order: its split factor 3 is not a product of the sizes of the mesh dims after it "
        "that split tensor dim 0 first");
  // A strided shard with nothing after it to split first (view/flatten placements).
  CHECK_FALSE(decode_strided_shards(list_of("R,_S(1,4)"), mesh).ok());
  CHECK(decode_spec(spec_of({8, 8}, "_S(1,4),R", mesh), mesh).error().kind ==
        core::ErrorKind::kUnsupported);
  CHECK(encode_shard_order(list_of("_S(0,2),S(0)"),
                           ShardOrder::from_steps({{0, 0}, {0, 1}}).value(), mesh)
            .error()
            .kind == core::ErrorKind::kUnsupported);
  CHECK(encode_shard_order(list_of("S(0),R"), ShardOrder{}, mesh).error().kind ==
        core::ErrorKind::kBadInput);
  CHECK_FALSE(encode_shard_order(list_of("S(0)"), default_shard_order(list_of("S(0)")), mesh).ok());
  // Specs that have nothing to convert come back unchanged.
  TensorSpec plain = spec_of({8}, "S(0),S(0)", mesh);
  CHECK(encode_spec(plain, mesh).value() == plain);
  CHECK(decode_spec(plain, mesh).value() == plain);
  // A StridedShard with a non-default order has no decoded form.
  CHECK(decode_spec(spec_of({8}, "_S(0,2)[1],S(0)[0]", mesh), mesh).error().kind ==
        core::ErrorKind::kUnsupported);
}

TEST_CASE("uneven shapes: convert only when every rank keeps its elements (fixed defect)") {
  const Sizes mesh = {4, 2};
  TensorSpec ordered = spec_of({9}, "S(0)[1],S(0)[0]", mesh);
  TensorSpec strided = spec_of({9}, "_S(0,2),S(0)", mesh);
  // Index 8 lives on (3,1) in the ordered form and on (3,0) in the strided one.
  CHECK(owner_of_index(ordered, mesh, 0, 8).value().coord == Sizes{3, 1});
  CHECK(owner_of_index(strided, mesh, 0, 8).value().coord == Sizes{3, 0});
  CHECK_FALSE(same_local_data(ordered, strided, mesh).value());
  auto enc = encode_spec(ordered, mesh);
  REQUIRE_FALSE(enc.ok());
  CHECK(enc.error().kind == core::ErrorKind::kUnsupported);
  CHECK(enc.error().message.find("would move elements between ranks") != std::string::npos);
  CHECK(decode_spec(strided, mesh).error().kind == core::ErrorKind::kUnsupported);
  // Uneven but coinciding: [9] on (2,2) (5|4, then 3,2 and 2,2 in both forms).
  const Sizes square = {2, 2};
  TensorSpec ordered9 = spec_of({9}, "S(0)[1],S(0)[0]", square);
  CHECK(encode_spec(ordered9, square).value() == spec_of({9}, "_S(0,2),S(0)", square));
}

// A copy of `spec` with another shape (same placements and order).
TensorSpec reshaped(const TensorSpec& spec, Sizes shape, const Sizes& mesh) {
  return TensorSpec::make(std::move(shape), spec.dtype(), spec.placements(), mesh,
                          spec.shard_order())
      .value();
}

// Every mesh dim shards tensor dim 0 of a 1-D tensor, in a random order: the case where the
// order matters most.
testing::MeshAndSpec stacked_shards(std::mt19937_64& rng, std::int64_t min_mesh_size) {
  Sizes mesh = testing::random_mesh_sizes(rng, 64, min_mesh_size);
  std::vector<Placement> ps(mesh.size(), Placement::shard(0));
  std::vector<ShardStep> steps;
  for (std::size_t m = 0; m < mesh.size(); ++m) steps.push_back({0, static_cast<std::int32_t>(m)});
  std::shuffle(steps.begin(), steps.end(), rng);
  TensorSpec spec = TensorSpec::make({testing::uniform(rng, 0, 40)}, DType::kF32, ps, mesh,
                                     ShardOrder::from_steps(steps).value())
                        .value();
  return {mesh, spec};
}

TEST_CASE("property: encode/decode round trips and preserve data on random orders") {
  std::mt19937_64 rng(0x5eed0007);
  testing::RandomSpecOptions options;
  options.strided = false;
  int refused = 0;
  int kept = 0;
  for (int iter = 0; iter < 400; ++iter) {
    options.min_mesh_size = iter % 2 == 0 ? 2 : 1;
    testing::MeshAndSpec r = iter % 4 < 2 ? testing::random_spec(rng, options)
                                          : stacked_shards(rng, options.min_mesh_size);
    const Sizes& mesh = r.mesh_sizes;
    const std::int64_t world = r.world();
    const std::string text = r.describe();
    auto encoded = encode_shard_order(r.spec.placements(), r.spec.shard_order(), mesh);
    REQUIRE_MESSAGE(encoded.ok(), text);
    DecodedPlacements decoded = decode_strided_shards(*encoded, mesh).value();
    // encode(decode(x)) == x always; decode(encode(x)) == x when no mesh dim has size 1.
    CHECK_MESSAGE(
        encode_shard_order(decoded.placements, decoded.shard_order, mesh).value() == *encoded,
        text);
    if (options.min_mesh_size == 2) {
      CHECK_MESSAGE(decoded.placements == r.spec.placements(), text);
      CHECK_MESSAGE(decoded.shard_order == r.spec.shard_order(), text);
    }
    // Divisible shapes: the encoded spec holds the same data, in both directions.
    Sizes even_shape;
    for (std::size_t t = 0; t < r.spec.tensor_rank(); ++t) {
      even_shape.push_back(world * testing::uniform(rng, 0, 3));
    }
    TensorSpec even = reshaped(r.spec, even_shape, mesh);
    auto even_encoded = encode_spec(even, mesh);
    REQUIRE_MESSAGE(even_encoded.ok(), text);
    CHECK_MESSAGE(same_local_data(even, *even_encoded, mesh).value(), text);
    TensorSpec back = decode_spec(*even_encoded, mesh).value();
    CHECK_MESSAGE(same_local_data(even, back, mesh).value(), text);
    if (options.min_mesh_size == 2) CHECK_MESSAGE(back == even, text);
    // Uneven shapes: either refused, or the data really stays put.
    auto uneven = encode_spec(r.spec, mesh);
    if (uneven.ok()) {
      kept += r.spec.shard_order().is_default() ? 0 : 1;
      CHECK_MESSAGE(same_local_data(r.spec, *uneven, mesh).value(), text);
    } else {
      ++refused;
      CHECK(uneven.error().kind == core::ErrorKind::kUnsupported);
      const TensorSpec naive =
          TensorSpec::make(r.spec.shape(), r.spec.dtype(), *encoded, mesh).value();
      CHECK_FALSE_MESSAGE(same_local_data(r.spec, naive, mesh).value(), text);
    }
  }
  // Both outcomes occur: some uneven orders coincide with their encoding, some do not.
  CHECK(refused > 10);
  CHECK(kept > 10);
}

TEST_CASE("property: decodable StridedShard lists re-encode to themselves") {
  std::mt19937_64 rng(0x5eed0008);
  int decodable = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    const Sizes mesh = testing::random_mesh_sizes(rng, 64);
    std::vector<Placement> ps;
    for (std::size_t m = 0; m < mesh.size(); ++m) {
      const auto dim = static_cast<std::int32_t>(testing::uniform(rng, 0, 1));
      const std::int64_t kind = testing::uniform(rng, 0, 2);
      ps.push_back(kind == 0   ? Placement::replicate()
                   : kind == 1 ? Placement::shard(dim)
                               : Placement::strided_shard(dim, testing::uniform(rng, 2, 8)));
    }
    auto decoded = decode_strided_shards(ps, mesh);
    if (!decoded.ok()) continue;
    ++decodable;
    CHECK(encode_shard_order(decoded->placements, decoded->shard_order, mesh).value() == ps);
  }
  CHECK(decodable > 500);
}

}  // namespace
}  // namespace dtplan::placement
