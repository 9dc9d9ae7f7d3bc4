#include "placement/placement_text.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "support/placement_specs.h"

namespace dtplan::placement {
namespace {

Placement parse_one(const std::string& text) { return parse_placement(text, "--to").value(); }

core::Error list_error(const std::string& text) {
  auto r = parse_placement_list(text, "--from");
  REQUIRE_FALSE(r.ok());
  return r.error();
}

TEST_CASE("short and long forms parse to the same values") {
  CHECK(parse_one("S(0)") == Placement::shard(0));
  CHECK(parse_one("Shard(0)") == Placement::shard(0));
  CHECK(parse_one(" Shard( dim = 2 ) ") == Placement::shard(2));
  CHECK(parse_one("S(-1)") == Placement::shard(-1));
  CHECK(parse_one("_S(0,2)") == Placement::strided_shard(0, 2));
  CHECK(parse_one("_StridedShard(0, sf=2)") == Placement::strided_shard(0, 2));
  CHECK(parse_one("_StridedShard(dim=1, sf=3)") == Placement::strided_shard(1, 3));
  CHECK(parse_one("_S(sf=3, dim=1)") == Placement::strided_shard(1, 3));
  CHECK(parse_one("_S(0, split_factor=4)") == Placement::strided_shard(0, 4));
  CHECK(parse_one("_S(0,1)") == Placement::shard(0));
  CHECK(parse_one("R") == Placement::replicate());
  CHECK(parse_one("Replicate()") == Placement::replicate());
  CHECK(parse_one("P(sum)") == Placement::partial(ReduceOp::kSum));
  CHECK(parse_one("P(avg)") == Placement::partial(ReduceOp::kAvg));
  CHECK(parse_one("P(max)") == Placement::partial(ReduceOp::kMax));
  CHECK(parse_one("P(min)") == Placement::partial(ReduceOp::kMin));
  CHECK(parse_one("Partial(sum)") == Placement::partial());
  CHECK(parse_one("Partial()") == Placement::partial());
  CHECK(parse_one("Partial(reduce_op=max)") == Placement::partial(ReduceOp::kMax));
}

TEST_CASE("placement lists with shard-order suffixes") {
  PlacementList list = parse_placement_list("S(0),R,P(sum)", "--from").value();
  CHECK(list.placements ==
        std::vector<Placement>{Placement::shard(0), Placement::replicate(), Placement::partial()});
  CHECK(list.order_positions == std::vector<std::int32_t>{-1, -1, -1});
  list = parse_placement_list("S(0)[1], S(0)[0]", "--from").value();
  CHECK(list.placements == std::vector<Placement>{Placement::shard(0), Placement::shard(0)});
  CHECK(list.order_positions == std::vector<std::int32_t>{1, 0});
  list = parse_placement_list("_StridedShard(0, sf=2),Shard(0)", "--from").value();
  CHECK(list.placements ==
        std::vector<Placement>{Placement::strided_shard(0, 2), Placement::shard(0)});
  CHECK(format_placement_list(list) == "_S(0,2),S(0)");
  CHECK(format_placements(list.placements) == "_S(0,2),S(0)");
}

TEST_CASE("errors name the input, the item and its position") {
  core::Error e = list_error("Shrad(0)");
  CHECK(e.kind == core::ErrorKind::kBadInput);
  CHECK(e.message ==
        "--from: 'Shrad(0)' at position 1 is not a placement; expected S(d), _S(d,sf), R or P(op)");
  CHECK(list_error("R,S(x)").message ==
        "--from: 'S(x)' at position 2: tensor dim 'x' is not an integer");
  CHECK(list_error("S(0,1)").message ==
        "--from: 'S(0,1)' at position 1: Shard takes one argument, the tensor dim: S(d)");
  CHECK(list_error("R,_S(0)").message.find("two arguments") != std::string::npos);
  CHECK(list_error("_S(0,0)").message ==
        "--from: '_S(0,0)' at position 1: split factor 0 is out of range [1, "
        "9223372036854775807]");
  CHECK(list_error("R(1)").message.find("Replicate takes no arguments") != std::string::npos);
  CHECK(list_error("P").message.find("Partial takes") != std::string::npos);
  CHECK(list_error("P(foo)").message ==
        "--from: 'P(foo)' at position 1: 'foo' is not a reduce op; expected sum, avg, max or min");
  core::Error prod = list_error("R,P(prod)");
  CHECK(prod.kind == core::ErrorKind::kUnsupported);
  CHECK(prod.message ==
        "--from: 'P(prod)' at position 2: reduce op 'prod' is not supported; "
        "expected sum, avg, max or min");
  CHECK(list_error("S(0),").message == "--from: empty placement at position 2 of 'S(0),'");
  CHECK(list_error("  ").message.find("empty placement list") != std::string::npos);
  CHECK(list_error("R[0]").message ==
        "--from: 'R[0]' at position 1: a shard-order suffix [k] only follows S(d) or _S(d,sf)");
  CHECK(list_error("S(0)[x]").message.find("shard-order suffix 'x' is not an integer") !=
        std::string::npos);
  CHECK(list_error("S(0)[-1]").message.find("out of range") != std::string::npos);
  CHECK(list_error("S(0)x").message.find("is not a placement") != std::string::npos);
  CHECK(list_error("S(0").message.find("is not a placement") != std::string::npos);
  CHECK(list_error("S(99999999999)").message.find("out of range") != std::string::npos);
  CHECK(list_error("Shard(dimm=0)").message.find("unknown keyword 'dimm'") != std::string::npos);
  CHECK(list_error("_S(dim=0, dim=1)").message.find("given twice") != std::string::npos);
  auto single = parse_placement("S(0)[1]", "--to");
  REQUIRE_FALSE(single.ok());
  CHECK(single.error().message.find("belongs in a placement list") != std::string::npos);
  CHECK(parse_placement("Q", "--to").error().message ==
        "--to: 'Q' is not a placement; expected S(d), _S(d,sf), R or P(op)");
  CHECK(parse_reduce_op("band", "--op").error().kind == core::ErrorKind::kUnsupported);
  CHECK(parse_reduce_op("avg", "--op").value() == ReduceOp::kAvg);
}

TEST_CASE("parse(print(x)) == x over random lists, short and long forms") {
  std::mt19937_64 rng(0x5eed0001);
  for (int iter = 0; iter < 2000; ++iter) {
    PlacementList list;
    const std::int64_t n = testing::uniform(rng, 1, 5);
    for (std::int64_t m = 0; m < n; ++m) {
      const auto dim = static_cast<std::int32_t>(testing::uniform(rng, -3, 3));
      Placement p;
      switch (testing::uniform(rng, 0, 3)) {
        case 0:
          p = Placement::shard(dim);
          break;
        case 1:
          p = Placement::strided_shard(dim, testing::uniform(rng, 2, 1000));
          break;
        case 2:
          p = Placement::partial(static_cast<ReduceOp>(testing::uniform(rng, 0, 3)));
          break;
        default:
          p = Placement::replicate();
          break;
      }
      list.placements.push_back(p);
      const bool suffix = p.is_shard_like() && testing::uniform(rng, 0, 1) == 1;
      list.order_positions.push_back(suffix ? static_cast<std::int32_t>(testing::uniform(rng, 0, 3))
                                            : -1);
    }
    const std::string text = format_placement_list(list);
    CHECK_MESSAGE(parse_placement_list(text, "x").value() == list, text);
    for (const Placement& p : list.placements) {
      CHECK(parse_placement(to_string(p), "x").value() == p);
      CHECK(parse_placement(to_long_string(p), "x").value() == p);
    }
  }
}

TEST_CASE("canonical printing with a shard order and the trace form") {
  std::vector<Placement> ps = {Placement::shard(0), Placement::shard(0), Placement::replicate()};
  ShardOrder swapped = ShardOrder::from_steps({{0, 1}, {0, 0}}).value();
  CHECK(format_placement_list(ps, swapped) == "S(0)[1],S(0)[0],R");
  CHECK(format_trace_state(ps, swapped) == "S(0)[1]S(0)[0]R");
  CHECK(format_trace_state(ps, default_shard_order(ps)) == "S(0)[0]S(0)[1]R");
  // A tensor dim split once carries no suffix.
  std::vector<Placement> single = {Placement::shard(1), Placement::partial(ReduceOp::kAvg)};
  CHECK(format_placement_list(single, default_shard_order(single)) == "S(1),P(avg)");
  std::vector<Placement> rr = {Placement::replicate(), Placement::replicate()};
  CHECK(format_trace_state(rr, ShardOrder{}) == "RR");
  PlacementList printed = to_placement_list(ps, swapped);
  CHECK(printed.order_positions == std::vector<std::int32_t>{1, 0, -1});
  CHECK(parse_placement_list(format_placement_list(ps, swapped), "x").value() == printed);
}

TEST_CASE("random and mutated text never crashes the parser, and what parses prints back") {
  // Tokens of the syntax and a few wrong ones; valid texts get one of them inserted, or lose a
  // character.
  const std::vector<std::string> tokens = {
      "S", "R", "P",  "_S", "Shard", "Partial", "(",   ")",   ")",  ",", ",", "[", "]",
      "0", "1", "-1", "2",  "sum",   "avg",     "max", "min", "sf", "=", " ", "x", "99999999999"};
  const std::vector<std::string> valid = {"S(0),R,P(sum)", "S(0)[1],S(0)[0]", "_S(0,2),S(0)",
                                          "Shard(dim=1), Partial(avg)", "_StridedShard(0, sf=2)"};
  auto pick = [&](std::mt19937_64& rng, std::size_t n) {
    return static_cast<std::size_t>(testing::uniform(rng, 0, static_cast<std::int64_t>(n) - 1));
  };
  std::mt19937_64 rng(0x5eed0009);
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text;
    if (iter % 2 == 0) {
      const std::int64_t n = testing::uniform(rng, 0, 12);
      for (std::int64_t i = 0; i < n; ++i) text += tokens[pick(rng, tokens.size())];
    } else {
      text = valid[pick(rng, valid.size())];
      const std::size_t at = pick(rng, text.size());
      if (testing::uniform(rng, 0, 1) == 0) {
        text.erase(at, 1);
      } else {
        text.insert(at, tokens[pick(rng, tokens.size())]);
      }
    }
    auto list = parse_placement_list(text, "--fuzz");
    if (!list.ok()) {
      CHECK(list.error().message.rfind("--fuzz: ", 0) == 0);
      continue;
    }
    ++parsed;
    CHECK(parse_placement_list(format_placement_list(*list), "x").value() == *list);
  }
  CHECK(parsed > 300);
}

}  // namespace
}  // namespace dtplan::placement
