#include "plan/parameter_family.h"

#include <doctest/doctest.h>

namespace dtplan::plan {

TEST_CASE("parameter family: layer indices become '*', other components stay") {
  CHECK(parameter_family("layers.3.attention.wq.weight") == "layers.*.attention.wq.weight");
  CHECK(parameter_family("layers.31.feed_forward.w1.weight") == "layers.*.feed_forward.w1.weight");
  CHECK(parameter_family("blocks.0.experts.12.w") == "blocks.*.experts.*.w");
  CHECK(parameter_family("norm.weight") == "norm.weight");
  // Only whole components that are all digits: "w1", "3d" and empty components stay.
  CHECK(parameter_family("w1.3d..7") == "w1.3d..*");
  CHECK(parameter_family("0") == "*");
  CHECK(parameter_family("") == "");
}

}  // namespace dtplan::plan
