#!/usr/bin/env python3
"""Runs scripts/export_fx_graph.py on a stand-in joint FX graph, without PyTorch.

A minimal fake `torch` module (dtypes, Tensor, SymInt, fx.Node) and the AOTAutograd descriptor
classes are enough for graph_module_to_document(); the joint graph is the one
aot_export_joint_with_descriptors produces for a two-block gated MLP (mm path, no einsum rewrite):

    class Block(nn.Module):           # layers.i
        fc = nn.Linear(8, 16, bias=False)
        def forward(self, x):
            a, b = self.fc(x).split(8, -1)
            return x + a * torch.relu(b)

traced on x: f32[4, 8] with the parameters' gradients and the output's tangent.

Usage: export_fx_graph_selftest.py SAMPLE_JSON [--write]
Compares the exporter's text with SAMPLE_JSON (exit 1 on a difference) or, with --write,
writes it.
"""

import dataclasses
import importlib.util
import operator
import os
import sys
import types


def install_fake_torch():
    torch = types.ModuleType("torch")
    torch.__version__ = "0.0-selftest"

    class dtype:
        def __init__(self, name):
            self.name = name

        def __repr__(self):
            return "torch." + self.name

    torch.dtype = dtype
    for name in ["float32", "bfloat16", "float16", "float64", "int32", "int64", "int8", "uint8",
                 "bool", "complex64", "float8_e4m3fn", "int16"]:
        setattr(torch, name, dtype(name))

    class Tensor:
        def __init__(self, shape, dt):
            self.shape = tuple(shape)
            self.dtype = dt

    class SymInt:
        pass

    torch.Tensor = Tensor
    torch.SymInt = SymInt

    fx = types.ModuleType("torch.fx")

    class Node:
        def __init__(self, name, op, target=None, args=(), kwargs=None, meta=None):
            self.name, self.op, self.target = name, op, target
            self.args, self.kwargs, self.meta = tuple(args), dict(kwargs or {}), dict(meta or {})

        @property
        def all_input_nodes(self):
            found = []

            def visit(v):
                if isinstance(v, Node):
                    found.append(v)
                elif isinstance(v, (list, tuple)):
                    for x in v:
                        visit(x)
            visit(self.args)
            visit(list(self.kwargs.values()))
            return found

    fx.Node = Node
    torch.fx = fx
    sys.modules["torch"] = torch
    sys.modules["torch.fx"] = fx
    return torch


# AOTAutograd descriptor stand-ins: the exporter reads their class names and reprs.
@dataclasses.dataclass(frozen=True)
class ParamAOTInput:
    target: str


@dataclasses.dataclass(frozen=True)
class PlainAOTInput:
    idx: int


@dataclasses.dataclass(frozen=True)
class PlainAOTOutput:
    idx: int


@dataclasses.dataclass(frozen=True)
class TangentAOTInput:
    output: PlainAOTOutput


@dataclasses.dataclass(frozen=True)
class GradAOTOutput:
    grad_of: ParamAOTInput


class Schema:
    def __init__(self, names):
        self.arguments = [types.SimpleNamespace(name=n) for n in names]


class OpOverload:
    def __init__(self, full, arg_names):
        self.full = full
        self._schema = Schema(arg_names)

    def __str__(self):
        return self.full


def build_joint_graph(torch):
    Node = torch.fx.Node
    f32 = torch.float32
    T = torch.Tensor
    ops = {
        "t": OpOverload("aten.t.default", ["self"]),
        "mm": OpOverload("aten.mm.default", ["self", "mat2"]),
        "split": OpOverload("aten.split.Tensor", ["self", "split_size", "dim"]),
        "relu": OpOverload("aten.relu.default", ["self"]),
        "mul": OpOverload("aten.mul.Tensor", ["self", "other"]),
        "add": OpOverload("aten.add.Tensor", ["self", "other", "alpha"]),
        "threshold_backward": OpOverload("aten.threshold_backward.default",
                                         ["grad_output", "self", "threshold"]),
        "cat": OpOverload("aten.cat.default", ["tensors", "dim"]),
    }
    nodes = []

    def stack(layer, leaf=None):
        path = f"L['self'].layers['{layer}']"
        s = {path: (path, "Block")}
        if leaf:
            s[path + "." + leaf] = (path + "." + leaf, "Linear")
        return s

    def node(name, op, args, shape, layer=None, leaf=None, backward=False, val=None):
        meta = {"val": val if val is not None else T(shape, f32)}
        if layer is not None:
            meta["fwd_nn_module_stack" if backward else "nn_module_stack"] = stack(layer, leaf)
        if backward:
            meta["partitioner_tag"] = "is_backward"
        target = operator.getitem if op == "getitem" else ops[op]
        n = Node(name, "call_function", target, args, meta=meta)
        nodes.append(n)
        return n

    def placeholder(name, shape, desc):
        n = Node(name, "placeholder", name, meta={"val": T(shape, f32), "desc": desc})
        nodes.append(n)
        return n

    p1 = placeholder("primals_1", [16, 8], ParamAOTInput("layers.0.fc.weight"))
    p2 = placeholder("primals_2", [16, 8], ParamAOTInput("layers.1.fc.weight"))
    x = placeholder("primals_3", [4, 8], PlainAOTInput(0))
    out0 = PlainAOTOutput(0)
    tangent = placeholder("tangents_1", [4, 8], TangentAOTInput(out0))

    # forward
    fwd = {}
    h_in = x
    for layer, (w, sfx) in enumerate([(p1, ""), (p2, "_1")]):
        t = node("t" + sfx, "t", [w], [8, 16], layer, "fc")
        mm = node("mm" + sfx, "mm", [h_in, t], [4, 16], layer, "fc")
        parts = (T([4, 8], f32), T([4, 8], f32))
        split = node("split" + sfx, "split", [mm, 8, -1], None, layer, val=parts)
        a = node("getitem" + ("" if layer == 0 else "_2"), "getitem", [split, 0], [4, 8], layer)
        b = node("getitem_" + ("1" if layer == 0 else "3"), "getitem", [split, 1], [4, 8], layer)
        r = node("relu" + sfx, "relu", [b], [4, 8], layer)
        m = node("mul" + sfx, "mul", [a, r], [4, 8], layer)
        out = node("add" + sfx, "add", [h_in, m], [4, 8], layer)
        fwd[layer] = dict(t=t, a=a, r=r, x=h_in)
        h_in = out
    logits = h_in

    # backward, layer 1 then layer 0
    g = tangent
    grads = {}
    names = iter([("mul_2", "mul_3", "threshold_backward", "cat", "t_2", "mm_2", "t_3", "mm_3",
                   "t_4", "add_2"),
                  ("mul_4", "mul_5", "threshold_backward_1", "cat_1", None, None, "t_5", "mm_4",
                   "t_6", None)])
    for layer in (1, 0):
        (n_ga, n_gr, n_thr, n_cat, n_wt, n_gx, n_xt, n_gw, n_gwt, n_acc) = next(names)
        f = fwd[layer]
        ga = node(n_ga, "mul", [g, f["r"]], [4, 8], layer, backward=True)
        gr = node(n_gr, "mul", [g, f["a"]], [4, 8], layer, backward=True)
        gb = node(n_thr, "threshold_backward", [gr, f["r"], 0], [4, 8], layer, backward=True)
        gh = node(n_cat, "cat", [[ga, gb], -1], [4, 16], layer, backward=True)
        if n_wt:
            wt = node(n_wt, "t", [f["t"]], [16, 8], layer, "fc", backward=True)
            gx = node(n_gx, "mm", [gh, wt], [4, 8], layer, "fc", backward=True)
        xt = node(n_xt, "t", [f["x"]], [8, 4], layer, "fc", backward=True)
        gw = node(n_gw, "mm", [xt, gh], [8, 16], layer, "fc", backward=True)
        grads[layer] = node(n_gwt, "t", [gw], [16, 8], layer, "fc", backward=True)
        if n_acc:
            g = node(n_acc, "add", [g, gx], [4, 8], None, backward=True)  # gradient accumulation

    output = torch.fx.Node("output", "output", "output", [[logits, grads[0], grads[1], None]],
                           meta={"desc": [out0, GradAOTOutput(ParamAOTInput("layers.0.fc.weight")),
                                          GradAOTOutput(ParamAOTInput("layers.1.fc.weight")),
                                          None]})
    nodes.append(output)
    return types.SimpleNamespace(graph=types.SimpleNamespace(nodes=nodes))


def main(argv):
    sys.dont_write_bytecode = True  # keep the source tree clean
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    torch = install_fake_torch()
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "..", "..", "scripts", "export_fx_graph.py")
    spec = importlib.util.spec_from_file_location("export_fx_graph", script)
    exporter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exporter)
    doc = exporter.graph_module_to_document(build_joint_graph(torch), name="GatedMLP")
    text = exporter.document_text(doc)
    if "--write" in argv[2:]:
        with open(argv[1], "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    with open(argv[1], encoding="utf-8") as f:
        want = f.read()
    if text != want:
        sys.stderr.write("exporter output differs from " + argv[1] + ":\n" + text)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
