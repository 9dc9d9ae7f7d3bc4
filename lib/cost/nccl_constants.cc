#include "cost/nccl_constants.h"

#include <array>

namespace dtplan::cost {

namespace {

// Values from docs/reference/collectives.md §2.1 (latencies) and §2.2 (caps, factors). Where the
// reference gives only HEAD values (NVLS/NVLSTree hop latencies), releases before 2.23 use the
// values read from NCCL's v2.19-era tuning.cc (NVLink 23/23, NET 18/14 us).

// Algorithm rows: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT.
constexpr PerAlgo kBase218 = {{{6.8, 14.0, 0},
                               {6.6, 14.0, 8.4},
                               {6.8, 14.0, 0},
                               {6.8, 14.0, 0},
                               {0, 0, 23},
                               {0, 0, 23},
                               {0, 0, 0}}};
constexpr PerAlgo kBase221 = {
    {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
constexpr PerAlgo kBase223 = {{{6.8, 14.0, 8.4},
                               {6.6, 14.0, 8.4},
                               {0, 0, 0},
                               {0, 0, 0},
                               {0, 0, 0},
                               {0, 0, 0},
                               {8.0, 8.0, 8.0}}};

// hwLat at 2.23 and later (HEAD).
constexpr std::array<PerAlgo, 3> kHw223 = {{
    // NVLink
    {{{0.6, 1.25, 4.0},
      {0.6, 1.9, 3.4},
      {0, 0, 3.7},
      {0, 0, 2.8},
      {0, 0, 25},
      {0, 0, 25},
      {0, 0, 4.0}}},
    // PCI
    {{{1.0, 1.9, 4.0},
      {1.0, 2.5, 5.7},
      {0, 0, 3.7},
      {0, 0, 2.8},
      {0, 0, 0},
      {0, 0, 0},
      {0, 0, 4.0}}},
    // NET
    {{{5.0, 8.5, 14},
      {2.7, 4.0, 14.0},
      {0, 0, 31},
      {0, 0, 30},
      {0, 0, 18},
      {0, 0, 20.9},
      {0, 0, 14}}},
}};

constexpr int kNvLinkRow = 0;
constexpr int kPciRow = 1;
constexpr int kNetRow = 2;
constexpr int kTreeCol = 0;
constexpr int kNvlsCol = 4;
constexpr int kNvlsTreeCol = 5;
constexpr int kPatCol = 6;
constexpr int kSimpleCol = 2;

// Before 2.23: no PAT, and the NVLS hop latencies of that era (NVLink 23/23, NET 18/14 us).
constexpr std::array<PerAlgo, 3> before_223(std::array<PerAlgo, 3> hw) {
  for (auto& link : hw) link[kPatCol] = {0, 0, 0};
  hw[kNvLinkRow][kNvlsCol][kSimpleCol] = 23;
  hw[kNvLinkRow][kNvlsTreeCol][kSimpleCol] = 23;
  hw[kNetRow][kNvlsTreeCol][kSimpleCol] = 14;
  return hw;
}

// Tree/Simple hop latency on every link (28 us in 2.19-2.22; 4/4/14 in 2.18.3 and from 2.23).
constexpr std::array<PerAlgo, 3> with_tree_simple(std::array<PerAlgo, 3> hw, double us) {
  for (int link : {kNvLinkRow, kPciRow, kNetRow}) hw[link][kTreeCol][kSimpleCol] = us;
  return hw;
}

constexpr std::array<PerAlgo, 3> kHw218 = before_223(kHw223);
constexpr std::array<PerAlgo, 3> kHw221 = with_tree_simple(kHw218, 28);

// Rows Volta, Ampere, Hopper, Blackwell; columns N1, N2, N4.
constexpr PerArch kLlMax220 = {
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}}};
constexpr PerArch kLlMax = {
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
constexpr PerArch kRingLl128 = {{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}}};
constexpr PerArch kRingLl128V228 = {
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {73.4, 34.6, 73.4}}};
constexpr PerArch kTreeLl128 = {
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
constexpr PerArch kTree = {
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
constexpr PerArch kNvlsTree = {
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96.0, 80.0}}};
constexpr PerArch kNvlsTreeV228 = {
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96.0, 43.8}}};
constexpr std::array<double, 4> kNvlsEfficiency = {0.0, 0.0, 0.85, 0.74};

constexpr std::array<std::array<double, 24>, kNumProtocols> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};

const std::array<NcclConstants, 4> kConstants = {{
    {kBase218, kHw218, kLlMax220, kRingLl128, kTreeLl128, kTree, kNvlsTree, kNvlsEfficiency,
     kTreeCorrection, GpuArch::kHopper, false},
    {kBase221, kHw221, kLlMax, kRingLl128, kTreeLl128, kTree, kNvlsTree, kNvlsEfficiency,
     kTreeCorrection, GpuArch::kHopper, false},
    {kBase223, kHw223, kLlMax, kRingLl128, kTreeLl128, kTree, kNvlsTree, kNvlsEfficiency,
     kTreeCorrection, GpuArch::kBlackwell, true},
    {kBase223, kHw223, kLlMax, kRingLl128V228, kTreeLl128, kTree, kNvlsTreeV228, kNvlsEfficiency,
     kTreeCorrection, GpuArch::kBlackwell, true},
}};

// Speed ladders of src/graph/search.cc (docs/reference/collectives.md §2.3). The inter ladder lists
// the published values; below 10 GB/s it continues with the pre-SM90 intra values and the
// slow-network steps.
constexpr double kIntraSm80[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr double kIntraSm90[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr double kIntraSm100[] = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
constexpr double kInterSm80[] = {48, 30, 28, 24, 20, 18,  15,  12,   10,  9,
                                 7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12};
constexpr double kInterSm90[] = {48, 45, 42, 40, 30, 28, 24, 22, 20,  18,  17.5, 15,
                                 12, 10, 9,  7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12};
constexpr double kInterSm100[] = {96, 86, 80, 48, 45, 42, 40, 30, 28, 24,  22,  20,   18,  17.5,
                                  15, 12, 10, 9,  7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12};

}  // namespace

std::string_view algorithm_name(Algorithm algorithm) {
  static constexpr std::array<std::string_view, 10> kNames = {
      "Tree",     "Ring", "CollNetDirect", "CollNetChain", "NVLS",
      "NVLSTree", "PAT",  "P2P",           "measured",     "none"};
  return kNames[static_cast<std::size_t>(algorithm)];
}

std::string_view protocol_name(Protocol protocol) {
  static constexpr std::array<std::string_view, 4> kNames = {"LL", "LL128", "Simple", "-"};
  return kNames[static_cast<std::size_t>(protocol)];
}

const NcclConstants& nccl_constants(NcclVersion version) {
  return kConstants[static_cast<std::size_t>(version)];
}

std::span<const double> intra_speeds(GpuArch arch) {
  switch (arch) {
    case GpuArch::kVolta:
    case GpuArch::kAmpere:
      return kIntraSm80;
    case GpuArch::kHopper:
      return kIntraSm90;
    case GpuArch::kBlackwell:
      return kIntraSm100;
  }
  return kIntraSm90;
}

std::span<const double> inter_speeds(GpuArch arch) {
  switch (arch) {
    case GpuArch::kVolta:
    case GpuArch::kAmpere:
      return kInterSm80;
    case GpuArch::kHopper:
      return kInterSm90;
    case GpuArch::kBlackwell:
      return kInterSm100;
  }
  return kInterSm90;
}

double net_overhead_us(CpuVendor vendor) { return vendor == CpuVendor::kAmd ? 2.0 : 1.0; }

}  // namespace dtplan::cost
