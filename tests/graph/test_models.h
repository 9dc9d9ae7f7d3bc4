#pragma once
// LLaMA3 configurations shared by the graph tests.

#include <cstdint>

#include "graph/llama3_config.h"

namespace dtplan::graph::test_models {

// configs/models/llama3-tiny.json: D 64, H 4, Hkv 2, F 128, vocab 256, B 4, S 16.
inline Llama3Config tiny_llama3(std::int64_t layers = 2) {
  Llama3Config c;
  c.name = "tiny";
  c.dim = 64;
  c.n_layers = layers;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.vocab_size = 256;
  c.ffn_dim = 128;
  c.batch = 4;
  c.seq_len = 16;
  return c;
}

// LLaMA3-70B (docs/reference/strategy_selection.md §5.2): D 8192, 80 layers, H 64, Hkv 8, x1.3
// rounded to 4096.
inline Llama3Config llama3_70b() {
  Llama3Config c;
  c.name = "llama3-70b";
  c.dim = 8192;
  c.n_layers = 80;
  c.n_heads = 64;
  c.n_kv_heads = 8;
  c.multiple_of = 4096;
  return c;
}

// LLaMA3-405B: D 16384, 126 layers, H 128, Hkv 8, x1.2 rounded to 4096.
inline Llama3Config llama3_405b() {
  Llama3Config c = llama3_70b();
  c.name = "llama3-405b";
  c.dim = 16384;
  c.n_layers = 126;
  c.n_heads = 128;
  c.ffn_dim_multiplier = 1.2;
  return c;
}

}  // namespace dtplan::graph::test_models
