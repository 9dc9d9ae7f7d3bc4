#pragma once
// Number formatting the way nccl-tests prints its time and bandwidth columns (getFloatStr): two
// decimals while they fit the column width, then one, then none, then exponent notation.

#include <string>

namespace dtplan::report {

// Example: nccl_float(25.2295, 7) == "25.23"; nccl_float(123456.7, 7) == "123457".
std::string nccl_float(double value, int width);

}  // namespace dtplan::report
