#pragma once
// The pin-rule file of `dtplan plan --parallelize FILE` (docs/parallelize.md):
//
//   {"rules": [
//     {"name": "wq", "match": "layers\\.\\d+\\.attention\\.wq\\.weight", "placements": "S(0),R"},
//     {"name": "wo", "match": "layers\\.\\d+\\.attention\\.wo\\.weight",
//      "placements": {"dp": "S(0)", "tp": "S(1)"}},
//     {"name": "emb", "match": "tok_embeddings\\.embedding", "strategy": 3}
//   ]}
//
// A rule has a unique `name`, a `match` regex (whole node names) and exactly one of
// `placements` (a list with one placement per mesh dim in the CLI's notation, or an object from
// mesh dim name to placement, unnamed dims Replicate) or `strategy` (an index >= 0).
// Errors (kBadInput) name the source, and the rule where there is one:
//   "--parallelize p.json: rule 'wo': unknown mesh dim 'cp' (the mesh has dp, tp)"

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "strategy/pin_rules.h"

namespace dtplan::strategy {

// Parses a pin-rule document for a mesh whose dims are named `mesh_names` (one per dim; an
// unnamed mesh passes "0", "1", ...). `source` names the document in errors.
core::Result<PinSet> parse_pin_rules(std::string_view text, std::string_view source,
                                     const std::vector<std::string>& mesh_names);

}  // namespace dtplan::strategy
