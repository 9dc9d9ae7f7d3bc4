#include "report/nccl_format.h"

#include <cmath>
#include <cstdio>

namespace dtplan::report {

std::string nccl_float(double value, int width) {
  if (!std::isfinite(value)) return value > 0 ? "inf" : "nan";
  int power = 0;
  for (double v = 1; value >= v && power < 40; v *= 10) ++power;
  char buf[64];
  if (power < width - 2) {
    std::snprintf(buf, sizeof buf, "%.2f", value);
  } else if (power < width - 1) {
    std::snprintf(buf, sizeof buf, "%.1f", value);
  } else if (power < width + 1) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.1e", value);
  }
  return buf;
}

}  // namespace dtplan::report
