#!/usr/bin/env python3
"""Times a LLaMA3 forward and backward on one GPU, to check dtplan's compute model.

The model is built as torchtitan's llama3 model is (RMSNorm in fp32, RoPE as a complex multiply,
GQA by repeat_kv, causal SDPA with cuDNN preferred, SwiGLU feed-forward, fp32 cross-entropy on the
upcast logits) with fp32 parameters cast to bf16 where they are used, as FSDP2's bf16 parameter
policy computes. No optimizer step. Prints one JSON document: the step's median time over the timed
iterations, peak memory, and the CUDA kernels of one profiled step summed by name.

    python3 scripts/gpu/llama3_step.py --layers 4 --batch 2 --seq-len 8192 [--compile]

Compare with `dtplan plan --model llama3-8b --layers 4 --mesh dp_shard=1 --batch 2 --checkpoint none
--hardware h200-dgx --out p.json && dtplan simulate --plan p.json` (docs/model.md, GPU check).
"""
import argparse
import json
import statistics

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel


def bf16(w):
    return w.to(torch.bfloat16)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        normed = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.type_as(x) * bf16(self.weight)


class Linear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in) * 0.02)

    def forward(self, x):
        return F.linear(x, bf16(self.weight))


def rope(x, freqs):
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * freqs).flatten(3).type_as(x)


def repeat_kv(x, n_rep):
    b, s, h, d = x.shape
    return x[:, :, :, None, :].expand(b, s, h, n_rep, d).reshape(b, s, h * n_rep, d)


class Block(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.a = a
        hd = a.dim // a.heads
        self.attention_norm = RMSNorm(a.dim, 1e-5)
        self.ffn_norm = RMSNorm(a.dim, 1e-5)
        self.wq = Linear(a.dim, a.heads * hd)
        self.wk = Linear(a.dim, a.kv_heads * hd)
        self.wv = Linear(a.dim, a.kv_heads * hd)
        self.wo = Linear(a.heads * hd, a.dim)
        self.w1 = Linear(a.dim, a.ffn)
        self.w2 = Linear(a.ffn, a.dim)
        self.w3 = Linear(a.dim, a.ffn)

    def forward(self, x, freqs):
        a = self.a
        b, s, _ = x.shape
        hd = a.dim // a.heads
        h = self.attention_norm(x)
        q = self.wq(h).view(b, s, a.heads, hd)
        k = self.wk(h).view(b, s, a.kv_heads, hd)
        v = self.wv(h).view(b, s, a.kv_heads, hd)
        q, k = rope(q, freqs), rope(k, freqs)
        k, v = repeat_kv(k, a.heads // a.kv_heads), repeat_kv(v, a.heads // a.kv_heads)
        o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                           v.transpose(1, 2), is_causal=True)
        x = x + self.wo(o.transpose(1, 2).contiguous().view(b, s, -1))
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Model(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.a = a
        self.tok_embeddings = nn.Parameter(torch.randn(a.vocab, a.dim) * 0.02)
        self.layers = nn.ModuleList(Block(a) for _ in range(a.layers))
        self.norm = RMSNorm(a.dim, 1e-5)
        self.output = Linear(a.dim, a.vocab)
        hd = a.dim // a.heads
        inv = 1.0 / (a.rope_theta ** (torch.arange(0, hd, 2).float() / hd))
        angles = torch.outer(torch.arange(a.seq_len).float(), inv)
        self.register_buffer("freqs", torch.polar(torch.ones_like(angles), angles)[None, :, None, :])

    def forward(self, tokens):
        x = F.embedding(tokens, bf16(self.tok_embeddings))
        for layer in self.layers:
            x = layer(x, self.freqs)
        return self.output(self.norm(x))


def kernel_table(prof):
    table = {}
    for e in prof.events():
        if str(e.device_type) != "DeviceType.CUDA":
            continue
        us = getattr(e, "device_time", None)
        if us is None:
            us = getattr(e, "cuda_time", 0)
        row = table.setdefault(e.name, [0, 0.0])
        row[0] += 1
        row[1] += us
    rows = sorted(table.items(), key=lambda kv: -kv[1][1])
    return [{"kernel": k[:160], "count": c, "total_us": round(t, 1)} for k, (c, t) in rows]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--seq-len", type=int, default=8192)
    p.add_argument("--dim", type=int, default=4096)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--ffn", type=int, default=14336)
    p.add_argument("--vocab", type=int, default=128256)
    p.add_argument("--rope-theta", type=float, default=500000.0)
    p.add_argument("--compile", action="store_true")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--iters", type=int, default=10)
    a = p.parse_args()

    torch.manual_seed(0)
    model = Model(a).cuda()
    if a.compile:
        for i, layer in enumerate(model.layers):
            model.layers[i] = torch.compile(layer, fullgraph=True)
    tokens = torch.randint(0, a.vocab, (a.batch, a.seq_len), device="cuda")
    labels = torch.randint(0, a.vocab, (a.batch, a.seq_len), device="cuda")

    def step():
        for param in model.parameters():
            param.grad = None
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION]):
            logits = model(tokens)
            loss = F.cross_entropy(logits.flatten(0, 1).float(), labels.flatten(0, 1))
            loss.backward()

    for _ in range(a.warmup):
        step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(a.iters):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    peak = torch.cuda.max_memory_allocated()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    print(json.dumps({
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "config": vars(a),
        "tokens": a.batch * a.seq_len,
        "step_ms_median": round(statistics.median(times), 3),
        "step_ms_min": round(min(times), 3),
        "step_ms_all": [round(t, 3) for t in times],
        "peak_allocated_bytes": peak,
        "parameter_bytes": sum(q.numel() * q.element_size() for q in model.parameters()),
        "kernels": kernel_table(prof)[:60],
    }, indent=1))


if __name__ == "__main__":
    main()
