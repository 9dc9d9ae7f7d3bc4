#!/usr/bin/env python3
"""Export a PyTorch model's joint forward+backward FX graph to dtplan's graph JSON.

Run it in your own PyTorch environment (torch >= 2.9 for aot_export_joint_with_descriptors, the
API AutoParallel traces with); dtplan itself does not need PyTorch.

Command line:
    python3 scripts/export_fx_graph.py mypkg.mymodel:make --out model.json [--name NAME]
        [--decompositions inductor|core|none] [--layer-regex REGEX]

where ``make()`` (any module-level callable) returns ``(model, args)`` or ``(model, args, kwargs)``:
the model to trace (build it on the "meta" device to avoid allocating weights; it is traced in
train mode) and example inputs with the global shapes to plan for.

From Python:
    from export_fx_graph import export_model, graph_module_to_document, write_document
    doc = export_model(model, (tokens,))          # traces the joint graph, returns a dict
    doc = graph_module_to_document(joint_gm)      # any joint graph with fake-tensor metadata
    write_document(doc, "model.json")

Format (read by `dtplan plan --model model.json`; see lib/graph/graph_io.h):
    {"name": ..., "exporter": {...},
     "graph": {"name": ..., "nodes": [
        {"name", "op", ["target"], ["inputs"], "outputs": [{"shape", "dtype"}], ["attrs"],
         "phase", "layer", ["role"], ["pair"]}, ...]}}
  - op: the aten op name without namespace and overload ("mm", "_to_copy", "getitem") when dtplan
    models it, else "other" with "target" set to the full op name ("aten.index_put.default");
  - inputs: the names of the tensor arguments, in schema order, repeats kept; scalar and list
    arguments become attrs named after the schema argument ("dim", "keepdim", "size", ...);
    device, layout, memory_format and None arguments are dropped; non-finite floats are written
    as "inf", "-inf", "nan";
  - outputs: the tensor results (for a tuple, its tensor elements in order; getitem's "index"
    counts among them); symbolic sizes are written as their hints;
  - role/pair from AOTAutograd's descriptors: parameters (renamed to their qualified name),
    buffers, plain inputs, tangents; the gradient of a parameter or input and the model outputs,
    paired both ways;
  - phase: "backward" for nodes tagged is_backward by the partitioner or depending on a tangent;
  - layer: the first integer captured by --layer-regex in the node's module path
    (nn_module_stack, or fwd_nn_module_stack for backward nodes) or a parameter's name; else -1.
"""

import argparse
import importlib
import json
import math
import re
import sys

FORMAT_VERSION = 1

# The ops dtplan models (lib/graph/op_kind.cc); anything else is exported as "other".
KNOWN_OPS = frozenset("""
    zeros ones full empty arange mm bmm addmm einsum neg abs exp log sqrt rsqrt reciprocal
    sigmoid tanh relu gelu silu clone _to_copy dtype_cast add sub mul div pow rsub where eq ne lt
    le gt ge sum mean amax amin _softmax _softmax_backward_data _fused_rms_norm
    _fused_rms_norm_backward embedding embedding_dense_backward alias view reshape _unsafe_view
    permute transpose t expand squeeze unsqueeze slice select view_as_complex view_as_real _conj
    split split_with_sizes getitem cat
    _scaled_dot_product_flash_attention _scaled_dot_product_efficient_attention
    _scaled_dot_product_cudnn_attention _scaled_dot_product_flash_attention_backward
    _scaled_dot_product_efficient_attention_backward
    _scaled_dot_product_cudnn_attention_backward
""".split())

# Ops spelled differently in other namespaces.
RENAMED_OPS = {
    "prims.convert_element_type": "_to_copy",
    "autoparallel.dtype_cast": "dtype_cast",
}

# Schema argument names whose dtplan attribute name differs.
RENAMED_ATTRS = {("reshape", "shape"): "size"}

# Scalar arguments dtplan reads as numbers: a bool there is written as 0 or 1.
NUMBER_ATTRS = frozenset(["other", "exponent", "alpha", "scale", "dropout_p", "eps", "fill_value",
                          "self", "start", "end", "step"])

DROPPED_ATTRS = frozenset(["device", "layout", "pin_memory", "memory_format", "non_blocking",
                           "generator", "out"])

DEFAULT_LAYER_REGEX = r"layers(?:\.|\[')(\d+)"

# Ops AutoParallel keeps whole (docs/reference/strategy_selection.md §4.1): removed from the
# decomposition table.
AP_KEPT_OPS = ["full_like", "empty_like", "threshold_backward", "native_layer_norm",
               "native_layer_norm_backward", "embedding_dense_backward", "_softmax",
               "_softmax_backward_data", "stack"]


class ExportError(RuntimeError):
    """An input the exporter cannot represent; the message names the node."""


def _torch():
    try:
        import torch  # noqa: F401  (imported lazily so that --help and py_compile work anywhere)
    except ImportError as e:
        raise ExportError(
            "PyTorch is not installed in this Python environment; run "
            "scripts/export_fx_graph.py where your model's PyTorch is installed "
            "(pip install torch). dtplan itself does not need PyTorch.") from e
    return torch


def _dtype_name(dtype, where):
    torch = _torch()
    names = {
        torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16", torch.float64: "f64",
        torch.int32: "i32", torch.int64: "i64", torch.int8: "i8", torch.uint8: "u8",
        torch.bool: "bool", torch.complex64: "c64",
    }
    if hasattr(torch, "float8_e4m3fn"):
        names[torch.float8_e4m3fn] = "f8e4m3"
    if dtype not in names:
        raise ExportError(f"{where}: dtype {dtype} is not one dtplan represents "
                          f"({', '.join(sorted(set(names.values())))})")
    return names[dtype]


def _int(value):
    """A concrete int from an int or a SymInt (its hint)."""
    torch = _torch()
    if isinstance(value, torch.SymInt):
        hint = value.node.hint if hasattr(value.node, "hint") else None
        return int(hint) if hint is not None else int(value)
    return int(value)


def _is_tensor(value):
    return isinstance(value, _torch().Tensor)


def _meta(value, where):
    return {"shape": [_int(s) for s in value.shape], "dtype": _dtype_name(value.dtype, where)}


def _tensor_elements(val):
    """The tensor elements of a node's value (a tensor, or a tuple/list holding some)."""
    if _is_tensor(val):
        return [val], {0: 0}
    if isinstance(val, (tuple, list)):
        tensors, index = [], {}
        for i, v in enumerate(val):
            if _is_tensor(v):
                index[i] = len(tensors)
                tensors.append(v)
        return tensors, index
    return [], {}


def _op_name(target):
    """(dtplan op, full target name) for a call_function target."""
    import operator
    if target is operator.getitem:
        return "getitem", "operator.getitem"
    full = str(target)  # "aten.mm.default"
    parts = full.split(".")
    base = ".".join(parts[:2]) if len(parts) >= 2 else full
    if base in RENAMED_OPS:
        return RENAMED_OPS[base], full
    if len(parts) >= 2 and parts[0] == "aten" and parts[1] in KNOWN_OPS:
        return parts[1], full
    return "other", full


def _attr_value(value):
    """A JSON attribute value, or None to drop the argument."""
    torch = _torch()
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, torch.SymInt)):
        return _int(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, str):
        return value
    if isinstance(value, torch.dtype):
        return _dtype_name(value, "attribute")
    if isinstance(value, (list, tuple)) and all(
            isinstance(v, (int, torch.SymInt)) and not isinstance(v, bool) for v in value):
        return [_int(v) for v in value]
    return None  # device, layout, memory_format, float lists, ...


class _Exporter:
    def __init__(self, gm, name, layer_regex):
        self.gm = gm
        self.name = name
        self.layer_re = re.compile(layer_regex)
        self.names = {}       # fx node -> exported name
        self.index_maps = {}  # fx node -> {tuple index: exported output index}
        self.scalars = {}     # fx node with a non-tensor value -> that value
        self.exported = {}    # exported name -> node dict
        self.nodes = []
        self.backward = set()

    # -- helpers ---------------------------------------------------------------------------------

    def _layer(self, node, fqn=None):
        candidates = [fqn] if fqn else []
        stack = node.meta.get("nn_module_stack") or node.meta.get("fwd_nn_module_stack") or {}
        for value in reversed(list(stack.values())):
            path = value[0] if isinstance(value, (tuple, list)) else value
            candidates.append(str(path))
        for text in candidates:
            m = self.layer_re.search(text or "")
            if m:
                return int(m.group(1))
        return -1

    def _phase(self, node, is_tangent=False):
        if is_tangent or node.meta.get("partitioner_tag") == "is_backward":
            return "backward"
        for arg in node.all_input_nodes:
            if arg in self.backward:
                return "backward"
        return "forward"

    def _arg_refs(self, node):
        """Tensor inputs (exported names) and attributes from the schema arguments."""
        torch = _torch()
        schema = getattr(node.target, "_schema", None)
        op, _ = _op_name(node.target)
        inputs, attrs = [], {}

        def add_value(arg_name, value):
            if isinstance(value, torch.fx.Node):
                if value in self.names:
                    inputs.append(self.names[value])
                elif value in self.scalars:
                    v = _attr_value(self.scalars[value])
                    if v is not None and arg_name:
                        attrs[RENAMED_ATTRS.get((op, arg_name), arg_name)] = v
                return
            if isinstance(value, (list, tuple)) and any(isinstance(v, torch.fx.Node) for v in value):
                if all(isinstance(v, torch.fx.Node) and v in self.names for v in value):
                    inputs.extend(self.names[v] for v in value)  # Tensor[] (cat, einsum)
                    return
                value = [self.scalars.get(v, v) if isinstance(v, torch.fx.Node) else v
                         for v in value]
            v = _attr_value(value)
            if v is not None and arg_name and arg_name not in DROPPED_ATTRS:
                if isinstance(v, bool) and arg_name in NUMBER_ATTRS:
                    v = int(v)
                attrs[RENAMED_ATTRS.get((op, arg_name), arg_name)] = v

        if schema is not None:
            arguments = list(schema.arguments)
            for i, value in enumerate(node.args):
                add_value(arguments[i].name if i < len(arguments) else None, value)
            for key, value in node.kwargs.items():
                add_value(key, value)
        else:
            for value in node.args:
                add_value(None, value)
            for key, value in node.kwargs.items():
                add_value(key, value)
        return inputs, attrs

    def _emit(self, entry):
        self.nodes.append(entry)
        self.exported[entry["name"]] = entry

    # -- node kinds ------------------------------------------------------------------------------

    def placeholder(self, node):
        val = node.meta.get("val")
        if not _is_tensor(val):
            self.scalars[node] = val  # a SymInt or RNG token: used as a scalar argument
            return
        desc = node.meta.get("desc")
        kind = type(desc).__name__ if desc is not None else ""
        name, role, fqn = node.name, "input", None
        if kind == "ParamAOTInput":
            role, fqn = "param", desc.target
        elif kind == "BufferAOTInput":
            role, fqn = "buffer", desc.target
        elif kind == "TangentAOTInput" or node.name.startswith("tangents"):
            role = "tangent"
        if fqn and fqn not in self.exported:
            name = fqn
        phase = "backward" if role == "tangent" else "forward"
        if phase == "backward":
            self.backward.add(node)
        self.names[node] = name
        self._emit({"name": name, "op": "placeholder",
                    "outputs": [_meta(val, f"node '{name}'")], "phase": phase,
                    "layer": self._layer(node, fqn), "role": role})

    def get_attr(self, node):
        val = node.meta.get("val")
        if val is None:
            val = getattr(self.gm, str(node.target), None)
        if not _is_tensor(val):
            self.scalars[node] = val
            return
        self.names[node] = node.name
        self._emit({"name": node.name, "op": "placeholder",
                    "outputs": [_meta(val, f"node '{node.name}'")], "phase": "forward",
                    "layer": -1, "role": "buffer"})

    def call_function(self, node):
        val = node.meta.get("val")
        tensors, index_map = _tensor_elements(val)
        op, full = _op_name(node.target)
        if op == "getitem":
            source, idx = node.args[0], node.args[1]
            if source not in self.names or idx not in self.index_maps.get(source, {}):
                self.scalars[node] = val  # an element that is not a tensor
                return
            inputs, attrs = [self.names[source]], {"index": self.index_maps[source][idx]}
        else:
            if not tensors:
                self.scalars[node] = val  # shape arithmetic, asserts, ...
                return
            inputs, attrs = self._arg_refs(node)
        phase = self._phase(node)
        if phase == "backward":
            self.backward.add(node)
        self.names[node] = node.name
        self.index_maps[node] = index_map
        entry = {"name": node.name, "op": op}
        if op == "other":
            entry["target"] = full
        if inputs:
            entry["inputs"] = inputs
        entry["outputs"] = [_meta(t, f"node '{node.name}'") for t in tensors]
        if attrs:
            entry["attrs"] = attrs
        entry["phase"] = phase
        entry["layer"] = self._layer(node)
        self._emit(entry)

    def output(self, node):
        torch = _torch()
        values = node.args[0]
        if not isinstance(values, (list, tuple)):
            values = [values]
        descs = node.meta.get("desc") or [None] * len(values)
        inputs, output_names = [], {}
        for value, desc in zip(values, descs):
            if not isinstance(value, torch.fx.Node) or value not in self.names:
                continue
            name = self.names[value]
            inputs.append(name)
            kind = type(desc).__name__ if desc is not None else ""
            entry = self.exported[name]
            if entry["op"] == "placeholder" or "role" in entry:
                continue  # returned as is, or already tagged: no role to add
            if kind == "GradAOTOutput":
                target = desc.grad_of
                partner = self._find_input(target)
                if partner is not None:
                    self._pair(entry, partner, "grad")
            elif kind == "PlainAOTOutput":
                entry["role"] = "output"
                output_names[repr(desc)] = entry
        # Tangents name the output they belong to.
        for entry in self.nodes:
            desc = entry.pop("_tangent_of", None)
            if desc is not None and desc in output_names and "pair" not in output_names[desc]:
                entry["pair"] = output_names[desc]["name"]
                output_names[desc]["pair"] = entry["name"]
        self._emit({"name": "output", "op": "output", "inputs": inputs, "outputs": [],
                    "phase": "backward", "layer": -1})

    def _find_input(self, desc):
        for node, name in self.names.items():
            if node.op == "placeholder" and repr(node.meta.get("desc")) == repr(desc):
                return self.exported[name]
        return None

    @staticmethod
    def _pair(entry, partner, role):
        if "pair" in partner:
            return
        entry["role"] = role
        entry["pair"] = partner["name"]
        partner["pair"] = entry["name"]

    def run(self):
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                self.placeholder(node)
                desc = node.meta.get("desc")
                if node in self.names and type(desc).__name__ == "TangentAOTInput":
                    self.exported[self.names[node]]["_tangent_of"] = repr(desc.output)
            elif node.op == "get_attr":
                self.get_attr(node)
            elif node.op == "call_function":
                self.call_function(node)
            elif node.op == "output":
                self.output(node)
            else:
                raise ExportError(f"node '{node.name}': unsupported FX op '{node.op}' "
                                  "(export the joint graph of aot_export_joint_with_descriptors)")
        for entry in self.nodes:
            entry.pop("_tangent_of", None)  # a tangent whose output is not returned stays unpaired
        # Key order as dtplan writes it.
        order = ["name", "op", "target", "inputs", "outputs", "attrs", "phase", "layer", "role",
                 "pair"]
        nodes = [{k: e[k] for k in order if k in e} for e in self.nodes]
        return {"name": self.name,
                "exporter": {"script": "scripts/export_fx_graph.py", "format": FORMAT_VERSION,
                             "torch": _torch().__version__},
                "graph": {"name": self.name, "nodes": nodes}}


def graph_module_to_document(gm, name="model", layer_regex=DEFAULT_LAYER_REGEX):
    """dtplan's graph document for a joint FX GraphModule whose nodes carry meta['val']."""
    return _Exporter(gm, name, layer_regex).run()


def decomposition_table(kind):
    """The decompositions to trace with: 'inductor' (AutoParallel's choice: inductor's table
    minus the ops it keeps whole), 'core' (torch._decomp's core aten table) or 'none'."""
    torch = _torch()
    if kind == "none":
        return None
    if kind == "core":
        from torch._decomp import core_aten_decompositions
        return core_aten_decompositions()
    from torch._inductor.decomposition import select_decomp_table
    table = dict(select_decomp_table())
    for op_name in AP_KEPT_OPS:
        packet = getattr(torch.ops.aten, op_name, None)
        if packet is None:
            continue
        for overload in packet.overloads():
            table.pop(getattr(packet, overload), None)
    return table


def export_model(model, args, kwargs=None, name=None, decompositions="inductor",
                 layer_regex=DEFAULT_LAYER_REGEX):
    """Traces the joint forward+backward graph of `model` on `args` and returns the document."""
    _torch()
    from contextlib import ExitStack
    try:
        from torch._functorch.aot_autograd import aot_export_joint_with_descriptors
    except ImportError as e:
        raise ExportError("this PyTorch has no aot_export_joint_with_descriptors (torch >= 2.9 "
                          "needed); export a joint GraphModule yourself and call "
                          "graph_module_to_document()") from e
    model.train()
    table = decomposition_table(decompositions)
    with ExitStack() as stack:
        call = dict(decompositions=table) if table is not None else {}
        if kwargs:
            joint = aot_export_joint_with_descriptors(stack, model, tuple(args), kwargs, **call)
        else:
            joint = aot_export_joint_with_descriptors(stack, model, tuple(args), **call)
        return graph_module_to_document(joint.graph_module, name or type(model).__name__,
                                        layer_regex)


def document_text(doc):
    """The document as dtplan writes graphs: one node per line, keys in a fixed order."""
    head = {k: v for k, v in doc.items() if k != "graph"}
    lines = ["{"]
    for key, value in head.items():
        lines.append(f" {json.dumps(key)}: {json.dumps(value)},")
    graph = doc["graph"]
    lines.append(' "graph": {')
    lines.append(f'  "name": {json.dumps(graph["name"])},')
    nodes = graph["nodes"]
    lines.append('  "nodes": [')
    for i, node in enumerate(nodes):
        sep = "," if i + 1 < len(nodes) else ""
        lines.append("   " + json.dumps(node, separators=(",", ":"), allow_nan=False) + sep)
    lines.append("  ]")
    lines.append(" }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_document(doc, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write(document_text(doc))


def _load_factory(spec):
    if ":" not in spec:
        raise ExportError(f"'{spec}': expected MODULE:FUNCTION, e.g. mypkg.models:make_llama")
    module_name, func_name = spec.split(":", 1)
    module = importlib.import_module(module_name)
    factory = getattr(module, func_name, None)
    if factory is None:
        raise ExportError(f"'{spec}': module '{module_name}' has no '{func_name}'")
    made = factory()
    if not isinstance(made, tuple) or len(made) not in (2, 3):
        raise ExportError(f"'{spec}' must return (model, args) or (model, args, kwargs)")
    return made if len(made) == 3 else (made[0], made[1], None)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Export a model's joint forward+backward FX graph to dtplan's graph JSON.")
    parser.add_argument("factory", help="MODULE:FUNCTION returning (model, args[, kwargs])")
    parser.add_argument("--out", default="-", help="output file (default: stdout)")
    parser.add_argument("--name", help="graph name (default: the model's class name)")
    parser.add_argument("--decompositions", choices=["inductor", "core", "none"],
                        default="inductor", help="decomposition table to trace with")
    parser.add_argument("--layer-regex", default=DEFAULT_LAYER_REGEX,
                        help="regex whose first group is the layer index in a module path")
    opts = parser.parse_args(argv)
    try:
        _torch()
        model, args, kwargs = _load_factory(opts.factory)
        doc = export_model(model, args, kwargs, name=opts.name,
                           decompositions=opts.decompositions, layer_regex=opts.layer_regex)
    except ExportError as e:
        print(f"export_fx_graph.py: {e}", file=sys.stderr)
        return 2
    text = document_text(doc)
    if opts.out == "-":
        sys.stdout.write(text)
    else:
        with open(opts.out, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"export_fx_graph.py: wrote {len(doc['graph']['nodes'])} nodes to {opts.out}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
