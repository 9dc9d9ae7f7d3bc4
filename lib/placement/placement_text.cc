#include "placement/placement_text.h"

#include <array>
#include <limits>
#include <optional>

#include "core/strings.h"

namespace dtplan::placement {

namespace {

constexpr std::string_view kExpected = "expected S(d), _S(d,sf), R or P(op)";

// Where an item sits, for messages: "'S(x)' at position 2" (or just "'S(x)'" for one item).
struct ItemRef {
  std::string_view what;
  std::string_view item;
  int position = 0;  // 1-based; 0 when parsing a single placement

  [[nodiscard]] std::string prefix() const {
    std::string out = std::string(what) + ": '" + std::string(item) + "'";
    if (position > 0) out += " at position " + std::to_string(position);
    return out;
  }
  [[nodiscard]] core::Error not_a_placement() const {
    return core::Error::bad_input(prefix() + " is not a placement; " + std::string(kExpected));
  }
  [[nodiscard]] core::Error bad(const std::string& reason) const {
    return core::Error::bad_input(prefix() + ": " + reason);
  }
};

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// One argument "value" or "key=value"; `key` is empty for a positional argument.
struct Arg {
  std::string_view key;
  std::string_view value;
};

// Reads an integer argument named `name` (e.g. "tensor dim") within [lo, hi].
core::Result<std::int64_t> int_arg(const ItemRef& ref, std::string_view text, std::string_view name,
                                   std::int64_t lo, std::int64_t hi) {
  auto v = core::parse_int(text, name);
  if (!v.ok()) {
    return ref.bad(std::string(name) + " '" + std::string(core::trim(text)) +
                   "' is not an integer");
  }
  if (*v < lo || *v > hi) {
    return ref.bad(std::string(name) + " " + std::to_string(*v) + " is out of range [" +
                   std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return *v;
}

// Binds positional arguments to slots in order and keyword arguments to the slot whose `keys`
// list the keyword (e.g. {"dim"}, {"sf", "split_factor"}); returns the value text per slot.
// @pre args.size() == keys.size() (the caller checked the count).
core::Result<std::vector<std::string_view>> bind_args(
    const ItemRef& ref, const std::vector<Arg>& args,
    std::span<const std::vector<std::string_view>> keys) {
  std::vector<std::optional<std::string_view>> slots(keys.size());
  std::size_t next_positional = 0;
  for (const Arg& a : args) {
    std::size_t slot = keys.size();
    if (a.key.empty()) {
      slot = next_positional++;
    } else {
      for (std::size_t s = 0; s < keys.size(); ++s) {
        for (std::string_view k : keys[s]) slot = (k == a.key && slot == keys.size()) ? s : slot;
      }
      if (slot == keys.size()) return ref.bad("unknown keyword '" + std::string(a.key) + "'");
    }
    if (slot >= keys.size() || slots[slot].has_value()) {
      return ref.bad("argument '" + std::string(core::trim(a.value)) + "' is given twice");
    }
    slots[slot] = a.value;
  }
  std::vector<std::string_view> out;
  for (const auto& v : slots) out.push_back(v.value_or(std::string_view{}));
  return out;
}

// The reduce op, or an error whose message is only the reason (callers add the context).
core::Result<ReduceOp> reduce_op_or_reason(std::string_view text) {
  std::string_view t = core::trim(text);
  if (t == "sum") return ReduceOp::kSum;
  if (t == "avg") return ReduceOp::kAvg;
  if (t == "max") return ReduceOp::kMax;
  if (t == "min") return ReduceOp::kMin;
  for (std::string_view torch_only : {"prod", "product", "band", "bor", "bxor", "premul_sum"}) {
    if (t == torch_only) {
      return core::Error::unsupported("reduce op '" + std::string(t) +
                                      "' is not supported; expected sum, avg, max or min");
    }
  }
  return core::Error::bad_input("'" + std::string(t) +
                                "' is not a reduce op; expected sum, avg, max or min");
}

const std::vector<std::string_view> kDimKeys = {"dim"};
const std::vector<std::string_view> kSplitKeys = {"sf", "split_factor"};
const std::vector<std::string_view> kOpKeys = {"reduce_op"};

core::Result<Placement> build(const ItemRef& ref, std::string_view name,
                              const std::optional<std::vector<Arg>>& args) {
  constexpr std::int64_t kDimMin = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t kDimMax = std::numeric_limits<std::int32_t>::max();
  const std::size_t n = args ? args->size() : 0;
  if (name == "R" || name == "Replicate") {
    if (n != 0) return ref.bad("Replicate takes no arguments: R or Replicate()");
    return Placement::replicate();
  }
  if (name == "S" || name == "Shard") {
    if (!args || n != 1) return ref.bad("Shard takes one argument, the tensor dim: S(d)");
    std::array<std::vector<std::string_view>, 1> keys = {kDimKeys};
    DTPLAN_TRY(auto values, bind_args(ref, *args, keys));
    DTPLAN_TRY(std::int64_t dim, int_arg(ref, values[0], "tensor dim", kDimMin, kDimMax));
    return Placement::shard(static_cast<std::int32_t>(dim));
  }
  if (name == "_S" || name == "_StridedShard" || name == "StridedShard") {
    if (!args || n != 2) {
      return ref.bad(
          "_StridedShard takes two arguments, the tensor dim and the split factor: _S(d,sf)");
    }
    std::array<std::vector<std::string_view>, 2> keys = {kDimKeys, kSplitKeys};
    DTPLAN_TRY(auto values, bind_args(ref, *args, keys));
    DTPLAN_TRY(std::int64_t dim, int_arg(ref, values[0], "tensor dim", kDimMin, kDimMax));
    DTPLAN_TRY(std::int64_t sf, int_arg(ref, values[1], "split factor", 1,
                                        std::numeric_limits<std::int64_t>::max()));
    return Placement::strided_shard(static_cast<std::int32_t>(dim), sf);
  }
  if (name == "P" || name == "Partial") {
    if (!args || n > 1) return ref.bad("Partial takes at most one argument, the reduce op: P(sum)");
    if (n == 0) return Placement::partial(ReduceOp::kSum);
    std::array<std::vector<std::string_view>, 1> keys = {kOpKeys};
    DTPLAN_TRY(auto values, bind_args(ref, *args, keys));
    auto op = reduce_op_or_reason(values[0]);
    if (!op.ok()) return std::move(op).error().with_context(ref.prefix());
    return Placement::partial(*op);
  }
  return ref.not_a_placement();
}

// Parses "Name", "Name(args)", optionally followed by "[k]" (returned in *suffix, else -1).
core::Result<Placement> parse_item(const ItemRef& ref, std::int32_t* suffix) {
  std::string_view t = core::trim(ref.item);
  std::size_t i = 0;
  while (i < t.size() && is_name_char(t[i])) ++i;
  std::string_view name = t.substr(0, i);
  if (name.empty()) return ref.not_a_placement();
  std::string_view rest = core::trim(t.substr(i));
  std::optional<std::vector<Arg>> args;
  if (!rest.empty() && rest.front() == '(') {
    std::size_t close = rest.find(')');
    if (close == std::string_view::npos) return ref.not_a_placement();
    std::string_view inner = core::trim(rest.substr(1, close - 1));
    args.emplace();
    if (!inner.empty()) {
      for (std::string_view piece : core::split(inner, ',')) {
        Arg a;
        std::size_t eq = piece.find('=');
        if (eq == std::string_view::npos) {
          a.value = piece;
        } else {
          a.key = core::trim(piece.substr(0, eq));
          a.value = piece.substr(eq + 1);
        }
        args->push_back(a);
      }
    }
    rest = core::trim(rest.substr(close + 1));
  }
  std::int32_t position = -1;
  if (!rest.empty() && rest.front() == '[') {
    std::size_t close = rest.find(']');
    if (close == std::string_view::npos || !core::trim(rest.substr(close + 1)).empty()) {
      return ref.not_a_placement();
    }
    if (suffix == nullptr) {
      return ref.bad("a shard-order suffix [k] belongs in a placement list");
    }
    DTPLAN_TRY(std::int64_t k, int_arg(ref, rest.substr(1, close - 1), "shard-order suffix", 0,
                                       std::numeric_limits<std::int32_t>::max()));
    position = static_cast<std::int32_t>(k);
    rest = {};
  }
  if (!rest.empty()) return ref.not_a_placement();
  DTPLAN_TRY(Placement p, build(ref, name, args));
  if (position >= 0 && !p.is_shard_like()) {
    return ref.bad("a shard-order suffix [k] only follows S(d) or _S(d,sf)");
  }
  if (suffix != nullptr) *suffix = position;
  return p;
}

// Splits on commas outside parentheses and brackets.
std::vector<std::string_view> split_items(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  return out;
}

// Suffix of mesh dim m as format_placement_list prints it, or -1.
std::int32_t printed_position(std::span<const Placement> placements, const ShardOrder& order,
                              std::size_t m) {
  const Placement& p = placements[m];
  if (!p.is_shard_like() || order.steps_of(p.dim()).size() < 2) return -1;
  return order.position_of(static_cast<std::int32_t>(m)).value_or(-1);
}

std::string join_items(std::span<const Placement> placements, const ShardOrder& order,
                       std::string_view sep) {
  std::string out;
  for (std::size_t m = 0; m < placements.size(); ++m) {
    if (m > 0) out += sep;
    out += to_string(placements[m]);
    std::int32_t k = printed_position(placements, order, m);
    if (k >= 0) out += "[" + std::to_string(k) + "]";
  }
  return out;
}

}  // namespace

core::Result<ReduceOp> parse_reduce_op(std::string_view text, std::string_view what) {
  auto op = reduce_op_or_reason(text);
  if (!op.ok()) return std::move(op).error().with_context(what);
  return *op;
}

core::Result<Placement> parse_placement(std::string_view text, std::string_view what) {
  return parse_item(ItemRef{what, core::trim(text), 0}, nullptr);
}

core::Result<PlacementList> parse_placement_list(std::string_view text, std::string_view what) {
  if (core::trim(text).empty()) {
    return core::Error::bad_input(std::string(what) + ": empty placement list; " +
                                  std::string(kExpected) + " per mesh dim, comma-separated");
  }
  PlacementList out;
  std::vector<std::string_view> items = split_items(text);
  for (std::size_t i = 0; i < items.size(); ++i) {
    ItemRef ref{what, core::trim(items[i]), static_cast<int>(i + 1)};
    if (ref.item.empty()) {
      return core::Error::bad_input(std::string(what) + ": empty placement at position " +
                                    std::to_string(i + 1) + " of '" + std::string(text) + "'");
    }
    std::int32_t suffix = -1;
    DTPLAN_TRY(Placement p, parse_item(ref, &suffix));
    out.placements.push_back(p);
    out.order_positions.push_back(suffix);
  }
  return out;
}

std::string format_placements(std::span<const Placement> placements) {
  return join_items(placements, ShardOrder{}, ",");
}

std::string format_placement_list(std::span<const Placement> placements, const ShardOrder& order) {
  return join_items(placements, order, ",");
}

std::string format_placement_list(const PlacementList& list) {
  std::string out;
  for (std::size_t m = 0; m < list.placements.size(); ++m) {
    if (m > 0) out += ",";
    out += to_string(list.placements[m]);
    if (m < list.order_positions.size() && list.order_positions[m] >= 0) {
      out += "[" + std::to_string(list.order_positions[m]) + "]";
    }
  }
  return out;
}

PlacementList to_placement_list(std::span<const Placement> placements, const ShardOrder& order) {
  PlacementList out;
  out.placements.assign(placements.begin(), placements.end());
  for (std::size_t m = 0; m < placements.size(); ++m) {
    out.order_positions.push_back(printed_position(placements, order, m));
  }
  return out;
}

std::string format_trace_state(std::span<const Placement> placements, const ShardOrder& order) {
  return join_items(placements, order, "");
}

}  // namespace dtplan::placement
