#!/usr/bin/env python3
"""Writes the malformed-input corpus of tests/cli/malformed_inputs_test.cc.

Run from anywhere: `python3 tests/data/malformed/generate.py`. It rewrites the files under
tests/data/malformed/ (mesh/, hardware/, model/, plan/, nccl/, pins/) and cases.tsv, deterministically.

cases.tsv has one case per line, tab-separated:
    CODE    NEEDLES    ARGS
CODE is the exit code dtplan must return (2 bad input, 3 unsupported); NEEDLES are '|'-separated
substrings that must all appear on stderr (the file name, flag or field at fault); ARGS is the
command line after `dtplan`, run by /bin/sh from the source tree. `{OUT}` in ARGS is replaced by a
fresh path that must not exist after the run (nothing is written on error). A case whose
subcommand the binary does not have yet (plan, simulate, ...) is skipped, so cases for commands
that other branches add can be listed here before they land.
"""

import json
import os
import shlex

HERE = os.path.dirname(os.path.abspath(__file__))
REL = "tests/data/malformed"
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

cases = []


def case(code, needles, args):
    cases.append((code, "|".join(needles), args))


def write(folder, name, text):
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    with open(os.path.join(HERE, folder, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return f"{REL}/{folder}/{name}"


def truncations(text, count):
    """`count` prefixes of text, cut at evenly spaced points strictly inside it."""
    n = len(text)
    return [text[: max(1, n * (i + 1) // (count + 1))] for i in range(count)]


def q(s):
    return shlex.quote(s)


# ---- syntax that is broken the same way in every JSON loader --------------------------------
BROKEN_JSON = {
    "empty": "",
    "spaces": "   \n",
    "null": "null",
    "array": "[1, 2]",
    "string": '"shape"',
    "number": "42",
    "open_brace": "{",
    "trailing_comma": '{"a": 1,}',
    "single_quotes": "{'a': 1}",
    "comment": '{"a": 1} // c',
    "two_docs": "{} {}",
    "bad_escape": '{"a": "\\q"}',
    "nul_byte": '{"a"\u0000: 1}',
    "bare_word": "{shape: [2]}",
    # nlohmann throws out_of_range, not parse_error, for a number beyond double (fuzz finding)
    "number_overflow": '{"shape": [1e999]}',
    "number_overflow_nested": '{"a": {"b": [1, 2, -1e400]}}',
    "number_overflow_truncated": '{"graph": {"nodes": [1e400]}',
}


def broken_json(folder, commands):
    for name, text in sorted(BROKEN_JSON.items()):
        path = write(folder, f"syntax_{name}.json", text)
        for code, needles, args in commands(path):
            case(code, needles, args)


# ---- mesh files: `dtplan mesh --mesh F` and `dtplan redistribute --mesh F ...` --------------
# Well-formed meshes beyond dtplan's limits (core/limits.h): unsupported, exit 3.
UNSUPPORTED_MESHES = {"shape_too_many_ranks", "shape_huge", "shape_overflowing_product",
                      "shape_too_many_dims"}
MESH = {"shape": [2, 4], "names": ["dp", "tp"], "flatten": [["dp", "tp"]], "hardware": "h100-dgx"}


def mesh_commands(path):
    base = os.path.basename(path)
    yield 2, [base], f"mesh --mesh {path}"
    yield 2, [base], (f"redistribute --mesh {path} --shape 16,16 --from 'S(0),R' --to R,R")


def mesh_cases():
    broken_json("mesh", mesh_commands)
    text = json.dumps(MESH)
    for i, cut in enumerate(truncations(text, 6)):
        for code, needles, args in mesh_commands(write("mesh", f"truncated_{i}.json", cut)):
            case(code, needles, args)
    bad = {
        # name: (document, field the message must name)
        "shape_missing": ({"names": ["dp"]}, "shape"),
        "shape_string": ({"shape": "2,4"}, "shape"),
        "shape_empty": ({"shape": []}, "shape"),
        "shape_float": ({"shape": [2.5, 4]}, "shape"),
        "shape_negative": ({"shape": [-2, 4]}, "shape"),
        "shape_zero": ({"shape": [0, 4]}, "shape"),
        "shape_huge": ({"shape": [9223372036854775807]}, "shape"),
        "shape_beyond_int64": ({"shape": [18446744073709551615]}, "shape"),
        "shape_overflowing_product": ({"shape": [4294967296, 4294967296]}, "shape"),
        "shape_too_many_ranks": ({"shape": [1024, 1024, 1024]}, "shape"),
        "shape_too_many_dims": ({"shape": [1] * 65}, "shape"),
        "shape_nested": ({"shape": [[2, 4]]}, "shape"),
        "shape_null_entry": ({"shape": [2, None]}, "shape"),
        "names_count": ({"shape": [2, 4], "names": ["dp"]}, "names"),
        "names_duplicate": ({"shape": [2, 4], "names": ["dp", "dp"]}, "names"),
        "names_empty_name": ({"shape": [2, 4], "names": ["dp", ""]}, "names"),
        "names_number": ({"shape": [2, 4], "names": ["dp", 1]}, "names"),
        "names_string": ({"shape": [2, 4], "names": "dp,tp"}, "names"),
        "flatten_unknown_dim": ({"shape": [2, 4], "names": ["dp", "tp"], "flatten": [["dp", "xx"]]},
                                "flatten[0]"),
        "flatten_not_list": ({"shape": [2, 4], "names": ["dp", "tp"], "flatten": "dp,tp"},
                             "flatten"),
        "flatten_empty_entry": ({"shape": [2, 4], "names": ["dp", "tp"], "flatten": [[]]},
                                "flatten[0]"),
        "flatten_repeated_dim": ({"shape": [2, 4], "names": ["dp", "tp"],
                                  "flatten": [["dp", "dp"]]}, "flatten[0]"),
        "flatten_without_names": ({"shape": [2, 4], "flatten": [["dp", "tp"]]}, "flatten[0]"),
        "flatten_object_no_dims": ({"shape": [2, 4], "names": ["dp", "tp"],
                                    "flatten": [{"name": "x"}]}, "flatten[0]"),
        "flatten_object_unknown_key": ({"shape": [2, 4], "names": ["dp", "tp"],
                                        "flatten": [{"dims": ["dp"], "nam": "x"}]}, "nam"),
        "flatten_name_clash": ({"shape": [2, 4], "names": ["dp", "tp"],
                                "flatten": [{"dims": ["dp", "tp"], "name": "tp"}]}, "flatten[0]"),
        "flatten_name_number": ({"shape": [2, 4], "names": ["dp", "tp"],
                                 "flatten": [{"dims": ["dp", "tp"], "name": 7}]}, "flatten[0]"),
        "hardware_number": ({"shape": [2, 4], "hardware": 100}, "hardware"),
        "ranks_too_few": ({"shape": [2, 4], "ranks": [0, 1, 2]}, "ranks"),
        "ranks_too_many": ({"shape": [2, 2], "ranks": [0, 1, 2, 3, 4]}, "ranks"),
        "ranks_negative": ({"shape": [2, 2], "ranks": [0, 1, 2, -3]}, "ranks"),
        "ranks_duplicate": ({"shape": [2, 2], "ranks": [0, 1, 2, 2]}, "ranks"),
        "ranks_strings": ({"shape": [2, 2], "ranks": ["0", "1", "2", "3"]}, "ranks"),
        "unknown_field": ({"shape": [2, 4], "shapes": [2, 4]}, "shapes"),
        "unknown_field_typo": ({"shape": [2, 4], "nmaes": ["dp", "tp"]}, "nmaes"),
    }
    for name, (doc, field) in sorted(bad.items()):
        path = write("mesh", name + ".json", json.dumps(doc))
        for code, needles, args in mesh_commands(path):
            # A shape beyond the rank limit is well-formed but unsupported.
            code = 3 if name in UNSUPPORTED_MESHES else code
            case(code, needles + [field], args)
    # A mesh file naming an unknown hardware profile: redistribute loads it.
    path = write("mesh", "hardware_unknown.json",
                 json.dumps({"shape": [2, 2], "hardware": "h100-dgz"}))
    case(2, ["h100-dgz"], f"redistribute --mesh {path} --shape 4,4 --from 'S(0),R' --to R,R")


# ---- hardware profiles: `dtplan cost --hardware F` and `redistribute --hardware F` -----------
def load_h100():
    with open(os.path.join(ROOT, "configs", "hardware", "h100-dgx.json"), encoding="utf-8") as f:
        return json.load(f)


def hardware_commands(path):
    base = os.path.basename(path)
    yield 2, [base], f"cost --collective all_reduce --ranks 16 --hardware {path} --sizes 1MiB"
    yield 2, [base], (f"redistribute --mesh 2,2 --shape 8,8 --from 'P(sum),R' --to R,R "
                      f"--hardware {path}")


def set_path(doc, path, value):
    cur = doc
    for key in path[:-1]:
        cur = cur[key]
    if value is DELETE:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value


DELETE = object()


def hardware_cases():
    broken_json("hardware", hardware_commands)
    text = json.dumps(load_h100(), indent=2)
    for i, cut in enumerate(truncations(text, 5)):
        for code, needles, args in hardware_commands(write("hardware", f"truncated_{i}.json", cut)):
            case(code, needles, args)
    mutations = {
        "name_missing": (["name"], DELETE, "name"),
        "name_number": (["name"], 7, "name"),
        "gpu_missing": (["gpu"], DELETE, "gpu"),
        "gpu_string": (["gpu"], "h100", "gpu"),
        "peak_negative": (["gpu", "peak_flop_per_s", "bf16"], -1.0, "peak_flop_per_s"),
        "peak_string": (["gpu", "peak_flop_per_s", "bf16"], "fast", "peak_flop_per_s"),
        "peak_unknown_dtype": (["gpu", "peak_flop_per_s", "bf17"], 1e15, "bf17"),
        "hbm_zero": (["gpu", "hbm_byte_per_s"], 0, "hbm_byte_per_s"),
        "hbm_capacity_negative": (["gpu", "hbm_capacity_bytes"], -5, "hbm_capacity_bytes"),
        "hbm_capacity_float": (["gpu", "hbm_capacity_bytes"], 1.5, "hbm_capacity_bytes"),
        "hbm_capacity_huge": (["gpu", "hbm_capacity_bytes"], 1e300, "hbm_capacity_bytes"),
        "gpus_per_node_zero": (["node", "gpus_per_node"], 0, "gpus_per_node"),
        "gpus_per_node_negative": (["node", "gpus_per_node"], -8, "gpus_per_node"),
        "gpus_per_node_huge": (["node", "gpus_per_node"], 9223372036854775807, "gpus_per_node"),
        "gpus_per_node_string": (["node", "gpus_per_node"], "8", "gpus_per_node"),
        "cpu_vendor_unknown": (["node", "cpu_vendor"], "zilog", "cpu_vendor"),
        "intra_fabric_unknown": (["node", "intra_fabric"], "carrier-pigeon", "intra_fabric"),
        "nvlink_links_negative": (["node", "nvlink_links_per_gpu"], -1, "nvlink_links_per_gpu"),
        "nvls_string": (["node", "nvls"], "yes", "nvls"),
        "nics_negative": (["node", "nics_per_node"], -1, "nics_per_node"),
        "nic_rate_zero": (["node", "nic_gbit_per_s"], 0, "nic_gbit_per_s"),
        "nic_rate_null": (["node", "nic_gbit_per_s"], None, "nic_gbit_per_s"),
        "node_unknown_key": (["node", "gpus_per_nod"], 8, "gpus_per_nod"),
        "nccl_version_unknown": (["nccl", "version"], "1.0", "version"),
        "nccl_version_number": (["nccl", "version"], 2.28, "version"),
        "collnet_string": (["nccl", "collnet"], "no", "collnet"),
        "launch_floor_negative": (["collective", "launch_floor_us"], -1, "launch_floor_us"),
        "efficiency_above_one": (["compute", "compute_efficiency"], 1.5, "compute_efficiency"),
        "efficiency_zero": (["compute", "memory_efficiency"], 0, "memory_efficiency"),
        "notes_not_list": (["notes"], "a note", "notes"),
        "unknown_top_key": (["gpus"], {}, "gpus"),
        "measured_not_list": (["measured"], {"points": []}, "measured"),
        "measured_empty_points": (["measured"], [{"collective": "all_reduce", "ranks": 16,
                                                  "nodes": 2, "min_ranks_per_node": 8,
                                                  "max_ranks_per_node": 8, "points": []}],
                                  "measured"),
        "measured_unknown_collective": (["measured"], [{"collective": "all_reduse", "ranks": 16,
                                                        "nodes": 2, "min_ranks_per_node": 8,
                                                        "max_ranks_per_node": 8,
                                                        "points": [[1024, 10.0]]}], "measured"),
        "measured_negative_time": (["measured"], [{"collective": "all_reduce", "ranks": 16,
                                                   "nodes": 2, "min_ranks_per_node": 8,
                                                   "max_ranks_per_node": 8,
                                                   "points": [[1024, -10.0]]}], "measured"),
        "measured_bad_point": (["measured"], [{"collective": "all_reduce", "ranks": 16, "nodes": 2,
                                               "min_ranks_per_node": 8, "max_ranks_per_node": 8,
                                               "points": [[1024]]}], "measured"),
        "measured_inconsistent_nodes": (["measured"], [{"collective": "all_reduce", "ranks": 16,
                                                        "nodes": 3, "min_ranks_per_node": 8,
                                                        "max_ranks_per_node": 8,
                                                        "points": [[1024, 10.0]]}], "measured"),
    }
    for name, (path, value, field) in sorted(mutations.items()):
        doc = load_h100()
        set_path(doc, path, value)
        fpath = write("hardware", name + ".json", json.dumps(doc, indent=2))
        for code, needles, args in hardware_commands(fpath):
            # An NCCL version older than the tuning tables is well-formed but unsupported.
            code = 3 if name == "nccl_version_unknown" else code
            case(code, needles + [field], args)
    case(2, ["--hardware", "h100-dgz", "h100-dgx"],
         "cost --collective all_reduce --ranks 16 --hardware h100-dgz")
    case(2, ["--hardware", "no_such_file.json"],
         f"cost --collective all_reduce --ranks 16 --hardware {REL}/no_such_file.json")
    case(2, ["--base", "h100-dgz"],
         "calibrate --nccl-tests tests/data/nccl-tests/all_reduce_perf_1x8_h100.log "
         "--base h100-dgz --out {OUT}")


# ---- nccl-tests logs: `dtplan calibrate --nccl-tests F --out {OUT}` -------------------------
def nccl_cases():
    with open(os.path.join(ROOT, "tests", "data", "nccl-tests", "all_reduce_perf_1x8_h100.log"),
              encoding="utf-8") as f:
        good = f.read()
    lines = good.split("\n")
    data = [i for i, l in enumerate(lines) if l.strip() and l.strip()[0].isdigit()]
    devices = [i for i, l in enumerate(lines) if l.startswith("#  Rank")]

    def with_lines(edit):
        out = list(lines)
        edit(out)
        return "\n".join(out)

    def set_line(i, text):
        return lambda out: out.__setitem__(i, text)

    variants = {
        "empty": "",
        "no_rows": "\n".join(l for i, l in enumerate(lines) if i not in data),
        "no_devices": "\n".join(l for i, l in enumerate(lines) if i not in devices),
        "header_only": "\n".join(lines[: data[0]]),
        "row_letters": with_lines(set_line(data[0], "   1024  256  float  sum  -1  fast  0.06  0.11"
                                                    "  0  17.24  0.06  0.10  0")),
        "row_short": with_lines(set_line(data[1], "   2048  512  float")),
        "row_negative_time": with_lines(set_line(data[2], "   4096  1024  float  sum  -1  -17.03"
                                                          "  0.24  0.42  0  17.00  0.24  0.42  0")),
        "row_huge_size": with_lines(set_line(data[3], "   99999999999999999999999  2048  float  sum"
                                                      "  -1  17.16  0.48  0.84  0  17.26  0.47"
                                                      "  0.83  0")),
        "duplicate_rank": with_lines(set_line(devices[1], lines[devices[0]])),
        "one_rank": "\n".join(l for i, l in enumerate(lines) if i not in devices[1:]),
        "rank_gap": with_lines(set_line(devices[3], lines[devices[3]].replace("Rank  3",
                                                                              "Rank 30"))),
        "binary_garbage": "\u0001\u0002\u00ff" * 50,
    }
    for name, text in sorted(variants.items()):
        path = write("nccl", f"all_reduce_perf_{name}.log", text)
        case(2, [os.path.basename(path)], f"calibrate --nccl-tests {path} --out {{OUT}}")
    case(2, ["no_such.log"], f"calibrate --nccl-tests {REL}/nccl/no_such.log --out {{OUT}}")
    # An unknown collective in a file name without a "Collective test starting" line.
    text = "\n".join(l for l in lines if "Collective test starting" not in l)
    path = write("nccl", "mystery_perf.log", text)
    case(2, ["mystery_perf.log"], f"calibrate --nccl-tests {path} --out {{OUT}}")


# ---- flags ----------------------------------------------------------------------------------
def flag_cases():
    R = "redistribute --mesh 2,2 --names A,B"
    flags = [
        # mesh
        (2, ["--shape"], "mesh --shape 2,x"),
        (2, ["--shape"], "mesh --shape ''"),
        (2, ["--shape"], "mesh --shape 2,,2"),
        (2, ["--shape"], "mesh --shape -2,4"),
        (2, ["--shape"], "mesh --shape 0"),
        (2, ["--shape"], "mesh --shape 99999999999999999999"),
        (3, ["--shape", "4194304"], "mesh --shape 4294967296,4294967296"),
        (3, ["--shape", "4194304"], "mesh --shape 4096,4096"),
        (3, ["--shape", "64"], "mesh --shape " + ",".join(["1"] * 65)),
        (2, ["--shape"], "mesh --shape 2.5"),
        (2, ["--shape"], "mesh"),
        (2, ["--shape"], "mesh --shape"),
        (2, ["--names"], "mesh --shape 2,2 --names dp"),
        (2, ["--names"], "mesh --shape 2,2 --names dp,dp"),
        (2, ["--names"], "mesh --shape 2,2 --names dp,"),
        (2, ["--ranks"], "mesh --shape 2,2 --ranks 0,1,2"),
        (2, ["--ranks"], "mesh --shape 2,2 --ranks 0,1,1,2"),
        (2, ["--ranks"], "mesh --shape 2,2 --ranks 0,1,2,-1"),
        (2, ["--ranks"], "mesh --shape 2,2 --ranks a,b,c,d"),
        (2, ["--flatten"], "mesh --shape 2,2 --names dp,tp --flatten dp,xx"),
        (2, ["--flatten"], "mesh --shape 2,2 --names dp,tp --flatten dp,dp"),
        (2, ["--flatten"], "mesh --shape 2,2 --names dp,tp --flatten dp,tp="),
        (2, ["--flatten"], "mesh --shape 2,2 --flatten 0,1"),
        (2, ["--slice"], "mesh --shape 2,2 --names dp,tp --slice xx"),
        (2, ["--slice"], "mesh --shape 2,2 --names dp,tp --slice tp,dp"),
        (2, ["--unflatten"], "mesh --shape 2,4 --names dp,tp --unflatten tp=3,2:a,b"),
        (2, ["--unflatten"], "mesh --shape 2,4 --names dp,tp --unflatten tp=2,2"),
        (2, ["--unflatten"], "mesh --shape 2,4 --names dp,tp --unflatten tp=2,2:a"),
        (2, ["--unflatten"], "mesh --shape 2,4 --names dp,tp --unflatten xx=2,2:a,b"),
        (2, ["--unflatten"], "mesh --shape 2,4 --names dp,tp --unflatten tp=2,2:dp,b"),
        (2, ["--unflatten"], "mesh --shape 2,4 --names dp,tp --unflatten tp=-2,-2:a,b"),
        (2, ["--mesh", "no_such_mesh.json"], f"mesh --mesh {REL}/no_such_mesh.json"),
        (2, ["--shap"], "mesh --shap 2,2"),
        (2, ["--jsn"], "mesh --shape 2,2 --jsn"),
        (2, ["unexpected"], "mesh --shape 2,2 unexpected"),
        (2, ["mesj", "mesh"], "mesj --shape 2,2"),
        (2, ["frobnicate"], "frobnicate"),
        # redistribute
        (2, ["--from", "Shrad(0)"], R + " --shape 8,8 --from 'Shrad(0),R' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from 'S(0)' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from 'S(0),R,R' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from 'S(2),R' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from 'S(-3),R' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from 'S(x),R' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from 'S(0' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from '_S(0,0),R' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from '_S(0,-2),R' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from 'R[0],R' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from 'S(0)[0],S(0)[0]' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from 'S(0)[5],S(0)[0]' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from 'P(sum),' --to R,R"),
        (2, ["--from"], R + " --shape 8,8 --from '' --to R,R"),
        (3, ["--from", "prod"], R + " --shape 8,8 --from 'P(prod),R' --to R,R"),
        (3, ["--from"], R + " --shape 8,8 --from 'P(sum),P(max)' --to R,R"),
        (2, ["--to", "Q"], R + " --shape 8,8 --from R,R --to Q,R"),
        (2, ["--to"], R + " --shape 8,8 --from R,R --to 'P(bogus),R'"),
        (3, ["Partial(sum)", "Partial(max)"], R + " --shape 8,8 --from 'P(sum),R' --to 'P(max),R'"),
        (2, ["--shape"], R + " --shape 8,-8 --from R,R --to R,R"),
        (2, ["--shape"], R + " --shape 8,y --from R,R --to R,R"),
        (2, ["--shape"], R + " --from R,R --to R,R"),
        (2, ["--shape", "overflows"], R + " --shape 9223372036854775807,2 --from R,R --to R,R"),
        (2, ["--shape", "overflows"], R + " --shape 4294967296,4294967296 --from R,R --to R,R"),
        (2, ["--shape", "bytes", "overflows"], R + " --shape 4611686018427387904 --from R,R --to R,R"
         " --dtype f64"),
        (3, ["--shape", "64"], R + " --shape " + ",".join(["1"] * 65) + " --from R,R --to R,R"),
        (2, ["--group"], "cost --collective all_reduce --group ''"),
        (2, ["--dtype", "bf17"], R + " --shape 8,8 --from R,R --to R,R --dtype bf17"),
        (2, ["--planner"], R + " --shape 8,8 --from R,R --to R,R --planner fastest"),
        (2, ["--model"], R + " --shape 8,8 --from R,R --to R,R --model magic"),
        (2, ["--gpus-per-node"], R + " --shape 8,8 --from R,R --to R,R --gpus-per-node 0"),
        (2, ["--gpus-per-node"], R + " --shape 8,8 --from R,R --to R,R --gpus-per-node 9"),
        (2, ["--gpus-per-node"], R + " --shape 8,8 --from R,R --to R,R --gpus-per-node eight"),
        (2, ["--hardware"], R + " --shape 8,8 --from R,R --to R,R --hardware tpu-v9"),
        (2, ["--flatten"], R + " --shape 8,8 --from R,R --to R,R --flatten A,Z"),
        (2, ["--names"], R + ",C --shape 8,8 --from R,R --to R,R"),
        (2, ["--mesh"], "redistribute --mesh 2,0 --shape 8,8 --from R,R --to R,R"),
        (2, ["--mesh"], "redistribute --shape 8,8 --from R,R --to R,R"),
        (2, ["--names"], "redistribute --mesh configs/meshes/8x8.json --names a,b --shape 8,8 "
                         "--from R,R --to R,R"),
        (3, ["--mesh", "16"], "redistribute --mesh " + ",".join(["2"] * 17) +
         " --shape 8 --from " + ",".join(["R"] * 17) + " --to " + ",".join(["R"] * 17)),
        (2, ["--planer"], R + " --shape 8,8 --from R,R --to R,R --planer greedy"),
        # cost
        (2, ["--collective", "all_reduse"], "cost --collective all_reduse --ranks 8"),
        (2, ["--collective"], "cost --ranks 8"),
        (2, ["--ranks"], "cost --collective all_reduce"),
        (2, ["--ranks"], "cost --collective all_reduce --ranks 0"),
        (2, ["--ranks"], "cost --collective all_reduce --ranks -8"),
        (2, ["--ranks"], "cost --collective all_reduce --ranks 8x"),
        (3, ["--ranks", "4194304"], "cost --collective all_reduce --ranks 9223372036854775807"),
        (3, ["--ranks", "4194304"], "cost --collective all_reduce --ranks 4194305"),
        (2, ["--ranks"], "cost --collective all_reduce --ranks 99999999999999999999"),
        (2, ["--group"], "cost --collective all_reduce --ranks 8 --group 0,1"),
        (2, ["--group"], "cost --collective all_reduce --group 0,1,1"),
        (2, ["--group"], "cost --collective all_reduce --group 0,-1"),
        (2, ["--group"], "cost --collective all_reduce --group 0,,1"),
        (2, ["--sizes"], "cost --collective all_reduce --ranks 8 --sizes 8:4:x2"),
        (2, ["--sizes"], "cost --collective all_reduce --ranks 8 --sizes 8:64:x1"),
        (2, ["--sizes"], "cost --collective all_reduce --ranks 8 --sizes 8:64:+0"),
        (2, ["--sizes"], "cost --collective all_reduce --ranks 8 --sizes 8:64"),
        (2, ["--sizes"], "cost --collective all_reduce --ranks 8 --sizes 8QiB"),
        (2, ["--sizes"], "cost --collective all_reduce --ranks 8 --sizes -8"),
        (2, ["--sizes"], "cost --collective all_reduce --ranks 8 --sizes 9999999TiB"),
        (2, ["--sizes"], "cost --collective all_reduce --ranks 8 --sizes 1:1TiB:+1"),
        (2, ["--sizes"], "cost --collective all_reduce --ranks 8 --sizes 0:64:x2"),
        (3, ["--nccl-version"], "cost --collective all_reduce --ranks 8 --nccl-version 1.2"),
        (2, ["--model"], "cost --collective all_reduce --ranks 8 --model exact"),
        (2, ["--dtype"], "cost --collective all_reduce --ranks 8 --dtype float128"),
        (2, ["--gpus-per-node"], "cost --collective all_reduce --ranks 8 --gpus-per-node 16"),
        (2, ["--gpus-per-node"], "cost --collective all_reduce --ranks 8 --gpus-per-node -1"),
        (2, ["--collective"], "cost --collective"),
        # calibrate
        (2, ["--nccl-tests"], "calibrate --out {OUT}"),
        (2, ["--nccl-tests"], "calibrate --nccl-tests --json"),
        (2, ["--out"], "calibrate --nccl-tests tests/data/nccl-tests/all_reduce_perf_1x8_h100.log "
                       f"--out {REL}/no_such_dir/profile.json"),
        (2, ["gpu_missing.json", "gpu"], "calibrate --nccl-tests tests/data/nccl-tests/all_reduce_perf_1x8_h100.log "
                        f"--base {REL}/hardware/gpu_missing.json --out {{OUT}}"),
        # commands that other branches add (skipped until the binary has them)
        (2, ["no_such_model.json"], f"plan --model {REL}/no_such_model.json "
                                               "--mesh configs/meshes/8x8.json --out {OUT}"),
        (2, ["--plan", "no_such_plan.json"], f"simulate --plan {REL}/no_such_plan.json"),
        (2, ["--plan", "no_such_plan.json"], f"replay --plan {REL}/no_such_plan.json "
                                             "--backend fake"),
        (2, ["--world"], "sweep --model configs/models/llama3-tiny.json --world 0"),
    ]
    for code, needles, args in flags:
        case(code, needles, args)


# ---- model files: `dtplan plan --model F` (skipped until plan lands) ------------------------
def model_cases():
    def commands(path):
        yield 2, [os.path.basename(path)], (f"plan --model {path} --mesh configs/meshes/8x8.json "
                                            "--out {OUT}")
    broken_json("model", commands)
    with open(os.path.join(ROOT, "configs", "models", "llama3-tiny.json"), encoding="utf-8") as f:
        tiny = json.load(f)
    bad = {
        "builder_unknown": ("builder", "gpt5"),
        "dim_negative": ("dim", -64),
        "dim_string": ("dim", "64"),
        "dim_huge": ("dim", 9223372036854775807),
        "layers_zero": ("n_layers", 0),
        "layers_huge": ("n_layers", 1000000),
        "heads_not_dividing": ("n_heads", 3),
        "kv_heads_not_dividing": ("n_kv_heads", 3),
        "vocab_negative": ("vocab_size", -1),
        "batch_zero": ("batch", 0),
        "seq_len_float": ("seq_len", 16.5),
        "attention_unknown": ("attention", "quadratic"),
        "unknown_field": ("n_layer", 2),
    }
    for name, (field, value) in sorted(bad.items()):
        doc = dict(tiny)
        doc[field] = value
        path = write("model", name + ".json", json.dumps(doc, indent=2))
        for code, needles, args in commands(path):
            # dtplan plan reports a model over kMaxLayers as an unsupported request (exit 3).
            if name == "layers_huge" and args.startswith("plan "):
                code = 3
            case(code, needles + [field], args)
    graph = {"graph": {"nodes": [
        {"name": "x", "op": "placeholder", "role": "input",
         "outputs": [{"shape": [4, 8], "dtype": "bf16"}]},
        {"name": "x", "op": "sum", "inputs": ["x"], "attrs": {"dim": [1], "keepdim": True},
         "outputs": [{"shape": [4, 1], "dtype": "bf16"}]},
        {"name": "output", "op": "output", "inputs": ["x"], "outputs": []}]}}
    path = write("model", "graph_duplicate_node.json", json.dumps(graph))
    for code, needles, args in commands(path):
        case(code, needles + ["'x'"], args)
    graph["graph"]["nodes"][1]["name"] = "y"
    graph["graph"]["nodes"][1]["op"] = "frobnicate"
    path = write("model", "graph_unknown_op.json", json.dumps(graph))
    for code, needles, args in commands(path):
        case(code, needles + ["frobnicate"], args)


# ---- plan files: `dtplan simulate --plan F` (skipped until simulate lands) -------------------
def plan_cases():
    def commands(path):
        yield 2, [os.path.basename(path)], f"simulate --plan {path}"
    broken_json("plan", commands)


# ---- what every JSON reader refuses (core::parse_json): a key given twice, control characters --
def with_duplicate(text, key_text, again):
    """text with `again` inserted after the first occurrence of `key_text` (a "key": value)."""
    at = text.index(key_text) + len(key_text)
    return text[:at] + ", " + again + text[at:]


SMALL_PLAN = "tests/data/replay/small_model_plan.json"


def strict_json_cases():
    mesh = json.dumps(MESH)
    docs = {
        # folder, name: (text, needles, commands)
        ("mesh", "duplicate_key"): (with_duplicate(mesh, '"shape": [2, 4]', '"shape": [2, 2]'),
                                    ["field 'shape'", "duplicate key 'shape'"], mesh_commands),
        ("mesh", "duplicate_key_nested"): (
            '{"shape": [2, 4], "names": ["dp", "tp"], '
            '"flatten": [{"dims": ["dp", "tp"], "name": "a", "name": "b"}]}',
            ["field 'flatten[0].name'", "duplicate key 'name'"], mesh_commands),
        ("mesh", "control_char_name"): (json.dumps({"shape": [2, 4], "names": ["dp", "t\tp"]}),
                                        ["field 'names[1]'", "U+0009"], mesh_commands),
        ("mesh", "control_char_key"): (json.dumps({"shape": [2, 4], "na\u001bmes": ["a", "b"]}),
                                       ["U+001B"], mesh_commands),
        ("mesh", "control_char_c1"): (json.dumps({"shape": [2, 4], "names": ["dp", "t\u0085p"]}),
                                      ["field 'names[1]'", "U+0085"], mesh_commands),
    }
    h100 = json.dumps(load_h100(), indent=2)
    docs[("hardware", "duplicate_key")] = (
        with_duplicate(h100, '"gpus_per_node": 8', '"gpus_per_node": 4'),
        ["field 'node.gpus_per_node'", "duplicate key"], hardware_commands)
    doc = load_h100()
    doc["name"] = "h100\u0007dgx"
    docs[("hardware", "control_char_name")] = (json.dumps(doc, indent=2),
                                               ["field 'name'", "U+0007"], hardware_commands)
    doc = load_h100()
    doc["notes"].append("a note\nwith a second line")
    last_note = f"field 'notes[{len(doc['notes']) - 1}]'"  # the profile's note count may grow
    docs[("hardware", "control_char_note")] = (json.dumps(doc, indent=2),
                                               [last_note, "U+000A"], hardware_commands)

    def model_commands(path):
        yield 2, [os.path.basename(path)], (f"plan --model {path} --mesh configs/meshes/8x8.json "
                                            "--out {OUT}")
        yield 2, [os.path.basename(path)], f"sweep --model {path} --world 8"
    with open(os.path.join(ROOT, "configs", "models", "llama3-tiny.json"), encoding="utf-8") as f:
        tiny = f.read()
    docs[("model", "duplicate_key")] = (with_duplicate(tiny, '"n_layers": 2', '"n_layers": 3'),
                                        ["field 'n_layers'", "duplicate key"], model_commands)
    graph = {"graph": {"nodes": [
        {"name": "x", "op": "placeholder", "role": "input",
         "outputs": [{"shape": [4, 8], "dtype": "bf16"}]},
        {"name": "output", "op": "output", "inputs": ["x"], "outputs": []}]}}
    text = json.dumps(graph)
    docs[("model", "graph_duplicate_key")] = (
        with_duplicate(text, '"op": "output"', '"op": "sum"'),
        ["field 'graph.nodes[1].op'", "duplicate key 'op'"], model_commands)
    graph["graph"]["nodes"][0]["name"] = "x\ny"
    docs[("model", "graph_control_char_name")] = (json.dumps(graph),
                                                  ["field 'graph.nodes[0].name'", "U+000A"],
                                                  model_commands)

    def plan_commands(path):
        yield 2, [os.path.basename(path)], f"simulate --plan {path}"
        yield 2, [os.path.basename(path)], f"replay --plan {path} --backend fake"
    with open(os.path.join(ROOT, SMALL_PLAN), encoding="utf-8") as f:
        plan = f.read()
    docs[("plan", "duplicate_key")] = (with_duplicate(plan, '"gpus_per_node": 8',
                                                      '"gpus_per_node": 4'),
                                       ["field 'mesh.gpus_per_node'", "duplicate key"],
                                       plan_commands)
    docs[("plan", "duplicate_key_top")] = ('{"format": "dtplan-plan", "format": "x"}',
                                           ["field 'format'", "duplicate key"], plan_commands)
    docs[("plan", "control_char_model")] = (plan.replace('"hand-made"', '"hand\\u001bmade"', 1),
                                            ["field 'model'", "U+001B"], plan_commands)

    def replay_results_commands(path):
        yield 2, [os.path.basename(path)], f"calibrate --replay {path} --out {{OUT}}"
    docs[("plan", "replay_results_duplicate_key")] = (
        '{"plan": "p.json", "kind": "model", "plan": "q.json"}',
        ["field 'plan'", "duplicate key"], replay_results_commands)
    for (folder, name), (text, needles, commands) in sorted(docs.items()):
        path = write(folder, name + ".json", text)
        for code, base, args in commands(path):
            case(code, base + needles, args)


# ---- input beyond the size cap (kMaxInputBytes): read up to one byte past it, then refused ---
def oversize_cases():
    too_big = ["/dev/zero", "larger than the input limit", "DTPLAN_MAX_INPUT_BYTES"]
    for args in ["mesh --mesh /dev/zero",
                 "redistribute --mesh /dev/zero --shape 8,8 --from R,R --to R,R",
                 "plan --model /dev/zero --mesh configs/meshes/8x8.json --out {OUT}",
                 "plan --model configs/models/llama3-tiny.json --mesh /dev/zero --out {OUT}",
                 "cost --collective all_reduce --ranks 8 --hardware /dev/zero",
                 "simulate --plan /dev/zero",
                 "replay --plan /dev/zero --backend fake",
                 "sweep --model /dev/zero --world 8",
                 "calibrate --nccl-tests /dev/zero --out {OUT}",
                 "calibrate --replay /dev/zero --out {OUT}"]:
        case(2, too_big, args)


# ---- numeric flags and the limits of core/limits.h (one-line errors naming the flag) ---------
def numeric_flag_cases():
    P = "plan --model configs/models/llama3-tiny.json --mesh configs/meshes/8x8.json"
    S = "sweep --model configs/models/llama3-tiny.json --world 8"
    SIM = f"simulate --plan {SMALL_PLAN}"
    N = "calibrate --nccl-tests tests/data/nccl-tests/all_reduce_perf_1x8_h100.log"
    flags = [
        (2, ["--threads", "'x' is not an integer"], P + " --threads x --out {OUT}"),
        (2, ["--threads", "2147483648"], P + " --threads 2147483648 --out {OUT}"),
        (2, ["--threads"], P + " --threads -5 --out {OUT}"),
        (2, ["--time-limit", "'abc' is not a number"], P + " --time-limit abc --out {OUT}"),
        (2, ["--time-limit"], P + " --time-limit 1e999 --out {OUT}"),
        (2, ["--gap"], P + " --gap x --out {OUT}"),
        (2, ["--layers", "'1.5' is not an integer"], P + " --layers 1.5 --out {OUT}"),
        (2, ["--layers"], P + " --layers 99999999999999999999 --out {OUT}"),
        (2, ["--layers"], P + " --layers 0 --out {OUT}"),
        (3, ["--layers", "kMaxLayers"], P + " --layers 5000 --out {OUT}"),
        (2, ["--memory-limit"], P + " --memory-limit 0 --out {OUT}"),
        (2, ["--memory-limit"], P + " --memory-limit -5 --out {OUT}"),
        (2, ["--layers"], S + " --layers 99999999999999999999"),
        (3, ["--layers", "kMaxLayers"], S + " --layers 5000"),
        (3, ["--world", "kMaxRanks"], "sweep --model configs/models/llama3-tiny.json "
                                      "--world 8388608"),
        (2, ["--world"], "sweep --model configs/models/llama3-tiny.json "
                         "--world 99999999999999999999"),
        (2, ["--memory-limit"], S + " --memory-limit 0"),
        (2, ["--threads"], S + " --threads 1.5"),
        (2, ["--time-limit"], S + " --time-limit abc"),
        (2, ["--ranks", "'x' is not an integer"], SIM + " --ranks x"),
        (2, ["--ranks"], SIM + " --ranks -5"),
        (3, ["--ranks", "kMaxFakeWorldSize"], SIM + " --ranks 2000000"),
        (2, ["--prefetch", "'x' is not an integer"], SIM + " --prefetch x"),
        (2, ["--prefetch"], SIM + " --prefetch -2"),
        (2, ["--trace-ranks"], SIM + " --trace-ranks 0"),
        (2, ["--seed"], SIM + " --data --seed x"),
        (2, ["--seed", "18446744073709551615"], SIM + " --data --seed -5"),
        (2, ["--seed", "18446744073709551615"], SIM + " --data --seed 18446744073709551616"),
        (2, ["--seed"], "redistribute --mesh 2,2 --names A,B --shape 8,8 --from 'P(sum),R' "
                        "--to R,R --verify --seed -1"),
        (2, ["--iters"], f"replay --plan {SMALL_PLAN} --backend fake --iters x"),
        (2, ["--warmup"], f"replay --plan {SMALL_PLAN} --backend fake --warmup 1.5"),
        (2, ["--launches"], f"replay --plan {SMALL_PLAN} --backend fake --launches 2147483648"),
        # names with control characters, from flags
        (2, ["--names", "U+001B"], "mesh --shape 2,2 --names \"dp,$(printf 'a\\033b')\""),
        (2, ["--flatten", "U+000A"], "mesh --shape 2,2 --names dp,tp "
                                     "--flatten \"dp,tp=$(printf 'x\\ny')\""),
        (2, ["--name", "U+0009"], N + " --name \"$(printf 'a\\tb')\" --out {OUT}"),
    ]
    for code, needles, args in flags:
        case(code, needles, args)
# ---- plans edited by hand: `dtplan simulate --plan F`, `dtplan replay --plan F` -------------
# Well-formed plans whose fields no longer hold what the writer derives (lib/plan/plan_check.h,
# lib/redist/redist_plan_check.h): each is exit 2 naming the file and the field. The base plans
# are tests/data/replay/small_model_plan.json and its first redistribution as a standalone plan.
def plan_readback_cases():
    with open(os.path.join(ROOT, "tests/data/replay/small_model_plan.json"), encoding="utf-8") as f:
        model = json.load(f)
    redist = {"mesh": model["mesh"]}
    for key, value in model["redistributions"][0].items():
        if key not in ("consumer", "slot", "producer"):
            redist[key] = value
    def edited(base, name, field, edit):
        doc = json.loads(json.dumps(base))
        edit(doc)
        path = write("plan", f"readback_{name}.json", json.dumps(doc, indent=1) + "\n")
        needles = [os.path.basename(path), f"field '{field}'"]
        case(2, needles, f"simulate --plan {path}")
        case(2, needles, f"replay --plan {path} --backend fake --iters 1 --warmup 0")
    def setter(*keys_value):
        *keys, value = keys_value
        def edit(doc):
            for k in keys[:-1]:
                doc = doc[k]
            doc[keys[-1]] = value
        return edit
    r0 = "redistributions[0]"
    edited(model, "cost_huge", f"{r0}.steps[0].cost_us",
           setter("redistributions", 0, "steps", 0, "cost_us", 1e308))
    # Off the profile by one picosecond, with the sums it enters kept consistent: only re-pricing
    # from the profile finds it.
    def off_profile(doc):
        doc["steps"][0]["cost_us"] = round(doc["steps"][0]["cost_us"] + 1e-6, 6)
        doc["total_cost_us"] = round(sum(s["cost_us"] for s in doc["steps"]), 6)
    edited(redist, "cost_off_profile", "steps[0].cost_us", off_profile)
    edited(model, "bytes_2_62", f"{r0}.steps[0].bytes",
           setter("redistributions", 0, "steps", 0, "bytes", 2 ** 62))
    edited(model, "group_size", f"{r0}.steps[0].group_size",
           setter("redistributions", 0, "steps", 0, "group_size", 4))
    def longer(doc):
        doc["redistributions"][0]["tensor"]["shape"] = [32, 16]
        doc["ops"][0]["shape"] = [32, 16]
    edited(model, "shape_not_bytes", f"{r0}.steps[0].bytes", longer)
    # As many bytes per step as the producer's [16, 16] (S(0) over 2): only the producer differs.
    edited(model, "tensor_not_producer", f"{r0}.tensor.shape",
           setter("redistributions", 0, "tensor", "shape", [8, 32]))
    edited(model, "placement_s9", "ops[1].placements", setter("ops", 1, "placements", "S(9),R,R"))
    edited(model, "layers_1000", "layers", setter("layers", 1000))
    edited(model, "op_layer", "ops[2].layer", setter("ops", 2, "layer", 3))
    edited(model, "compute_huge", "ops[2].compute_us", setter("ops", 2, "compute_us", 1e308))
    edited(model, "compute_sum", "cost.compute_us", setter("ops", 2, "compute_us", 35.0))
    edited(model, "role", "ops[1].role", setter("ops", 1, "role", "weights"))
    edited(model, "strategies", "strategies", setter("strategies", 17))
    edited(model, "cost_total", "cost.total_us", setter("cost", "total_us", 1e308))
    edited(model, "collective_count", "collectives[0].count",
           setter("collectives", 0, "count", 2))
    edited(model, "memory_peak", "memory.peak_bytes_per_rank",
           setter("memory", "peak_bytes_per_rank", 1))
    edited(model, "flattened_layout", "mesh.flattened[0]",
           setter("mesh", "flattened", 0, "layout", "((2,2)):((2,1))"))
    edited(model, "gpus_per_node", "mesh.gpus_per_node", setter("mesh", "gpus_per_node", 64))
    # The steps no longer start from src: the first step that does not apply is named.
    edited(model, "redist_src", f"{r0}.steps[0]", setter("redistributions", 0, "src", "R,S(1),R"))
    edited(model, "warning_dims", "warnings[0].mesh_dims",
           setter("warnings", 0, "mesh_dims", [0, 7]))
    edited(redist, "redist_cost_huge", "steps[0].cost_us", setter("steps", 0, "cost_us", 1e308))
    edited(redist, "redist_bytes_2_62", "steps[0].bytes", setter("steps", 0, "bytes", 2 ** 62))
    edited(redist, "redist_shape", "steps[0].bytes", setter("tensor", "shape", [16, 32]))
    edited(redist, "redist_total", "total_cost_us", setter("total_cost_us", 1.0))
    edited(redist, "redist_planner", "planner", setter("planner", "min-cost"))
    edited(redist, "redist_model", "model", setter("model", "fastest"))
    edited(redist, "redist_algorithm", "steps[0].algorithm",
           setter("steps", 0, "algorithm", "Tree" if redist["steps"][0]["algorithm"] != "Tree"
                  else "Ring"))


# ---- pin-rule files: `dtplan plan --parallelize F` (docs/parallelize.md) ---------------------
def pin_cases():
    def commands(path):
        yield 2, ["--parallelize", os.path.basename(path)], (
            f"plan --model configs/models/llama3-tiny.json --mesh configs/meshes/2x2.json "
            f"--parallelize {path}")
    broken_json("pins", commands)
    wq = r"layers\\.0\\.attention\\.wq\\.weight"  # JSON text of the regex layers\.0\...
    rule = '{"name": "wq", "match": "' + wq + '", '
    semantic = {
        # name: (exit code, needles, document)
        "not_object": (2, ["expected an object"], '[{"name": "wq"}]'),
        "unknown_top_field": (2, ["field 'pins'"], '{"pins": []}'),
        "no_rules": (2, ["field 'rules': empty"], '{"rules": []}'),
        "rule_not_object": (2, ["field 'rules[0]': expected an object"], '{"rules": [1]}'),
        "no_name": (2, ["field 'rules[0].name'"], '{"rules": [{"match": "x", "strategy": 0}]}'),
        "duplicate_name": (2, ["named twice"],
                           '{"rules": [' + rule + '"strategy": 0}, ' + rule + '"strategy": 1}]}'),
        "unknown_field": (2, ["rule 'wq'", "unknown field 'rank'"],
                          '{"rules": [' + rule + '"placements": "R,R", "rank": 1}]}'),
        "no_match": (2, ["rule 'w'", "field 'match'"],
                     '{"rules": [{"name": "w", "placements": "R,R"}]}'),
        "both_kinds": (2, ["rule 'wq'", "exactly one"],
                       '{"rules": [' + rule + '"placements": "R,R", "strategy": 0}]}'),
        "neither_kind": (2, ["rule 'wq'", "exactly one"], '{"rules": [' + rule[:-2] + '}]}'),
        "bad_placement": (2, ["rule 'wq'", "'Q'"],
                          '{"rules": [' + rule + '"placements": "S(0),Q"}]}'),
        "placement_count": (2, ["rule 'wq'", "have 1 entries"],
                            '{"rules": [' + rule + '"placements": "S(0)"}]}'),
        "placement_not_string": (2, ["rule 'wq'", "field 'placements'"],
                                 '{"rules": [' + rule + '"placements": 7}]}'),
        "shard_order_suffix": (2, ["rule 'wq'", "shard-order suffix"],
                               '{"rules": [' + rule + '"placements": "S(0)[1],S(0)[0]"}]}'),
        "unknown_dim": (2, ["rule 'wq'", "unknown mesh dim 'cp'"],
                        '{"rules": [' + rule + '"placements": {"cp": "S(0)"}}]}'),
        "dim_not_string": (2, ["rule 'wq'", "placements.tp"],
                           '{"rules": [' + rule + '"placements": {"tp": 0}}]}'),
        "negative_strategy": (2, ["rule 'wq'", "field 'strategy'"],
                              '{"rules": [' + rule + '"strategy": -1}]}'),
        "strategy_range": (2, ["rule 'wq'", "has 9 strategies"],
                           '{"rules": [' + rule + '"strategy": 9}]}'),
        "regex_syntax": (2, ["rule 'r'", "does not compile"],
                         '{"rules": [{"name": "r", "match": "(", "strategy": 0}]}'),
        "regex_matches_nothing": (2, ["rule 'r'", "matches no op"],
                                  '{"rules": [{"name": "r", "match": "wq", "strategy": 0}]}'),
        "placement_not_offered": (3, ["rule 'wq'", "cannot be laid out"],
                                  '{"rules": [' + rule + '"placements": "S(5),R"}]}'),
        "two_pins_one_node": (3, ["rule 'b'", "rule 'wq'"],
                              '{"rules": [' + rule + '"placements": "R,R"}, {"name": "b", '
                              '"match": "' + wq + '", "placements": "S(0),R"}]}'),
    }
    for name, (code, needles, text) in sorted(semantic.items()):
        path = write("pins", f"{name}.json", text)
        for _, file_needles, args in commands(path):
            case(code, file_needles + needles, args)


def main():
    mesh_cases()
    hardware_cases()
    nccl_cases()
    flag_cases()
    model_cases()
    plan_cases()
    strict_json_cases()
    oversize_cases()
    numeric_flag_cases()
    plan_readback_cases()
    pin_cases()
    with open(os.path.join(HERE, "cases.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("# Generated by generate.py (see there): CODE<TAB>NEEDLES<TAB>ARGS\n")
        for code, needles, args in cases:
            f.write(f"{code}\t{needles}\t{args}\n")
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
