#!/usr/bin/env python3
"""Derive tracer/mpi_api.tab from the MPI Forum's apis.json (MPI 4.0).

Run by developers when apis.json changes, not by the build; the table is
committed.  It keeps only what the wrapper generator needs, as facts: one C
function per line, tab-separated,

    NAME[:RETURN_KIND]  PARAM  PARAM ...

with RETURN_KIND only when the function returns something other than an
error code, and each PARAM (in C parameter order) written as

    name:KIND:direction[:length[:flags]]

length is another parameter's name, an MPI constant, a product such as n*3
(from the JSON's ["n","3"]), or one of the rules of RULES.md that replace the
JSON's "*": comm_size(c) indegree(c) outdegree(c) cart_ndims(c) after(p)
sum(p) last(p).  flags: "root" for a parameter read only at the root.

Usage: mpi_table.py [--json apis.json] [--out tracer/mpi_api.tab]
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_JSON = os.path.normpath(
    os.path.join(HERE, "..", "..", "..", "shared", "mpi-api", "apis.json"))
DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "mpi_api.tab"))

# ---- corrections to the JSON -------------------------------------------------
# Each entry is something the JSON states wrongly or leaves open for C, with
# the reason.  Keys are (function, parameter) as named in the JSON; they apply
# to the large-count _c variant too.

# Lengths the JSON gives as "*" or "" (or not at all), and which the C binding
# needs to walk an array.  The collective cases are derived by pattern in
# collective_length(); these are the rest.
LENGTH_OVERRIDES = {
    # One status per request: the JSON says "*".
    ("MPI_Waitall", "array_of_statuses"): "count",
    ("MPI_Testall", "array_of_statuses"): "count",
    # Only the first *outcount entries are written.
    ("MPI_Waitsome", "array_of_indices"): "after(outcount)",
    ("MPI_Waitsome", "array_of_statuses"): "after(outcount)",
    ("MPI_Testsome", "array_of_indices"): "after(outcount)",
    ("MPI_Testsome", "array_of_statuses"): "after(outcount)",
    # One entry per dimension of the Cartesian communicator.
    ("MPI_Cart_rank", "coords"): "cart_ndims(comm)",
    ("MPI_Cart_sub", "remain_dims"): "cart_ndims(comm)",
    # The edges of all n sources, and their weights.
    ("MPI_Dist_graph_create", "destinations"): "sum(degrees)",
    ("MPI_Dist_graph_create", "weights"): "sum(degrees)",
    # Weights go with the neighbour lists their sibling parameters size.
    ("MPI_Dist_graph_create_adjacent", "sourceweights"): "indegree",
    ("MPI_Dist_graph_create_adjacent", "destweights"): "outdegree",
    ("MPI_Dist_graph_neighbors", "sourceweights"): "maxindegree",
    ("MPI_Dist_graph_neighbors", "destweights"): "maxoutdegree",
    # index[nnodes-1] is the total number of edges.
    ("MPI_Graph_create", "edges"): "last(index)",
    ("MPI_Graph_map", "edges"): "last(index)",
    # One error code per spawned process.
    ("MPI_Comm_spawn", "array_of_errcodes"): "maxprocs",
    ("MPI_Comm_spawn_multiple", "array_of_errcodes"): "sum(array_of_maxprocs)",
    # The JSON gives no length, but there is one command per count.
    ("MPI_Comm_spawn_multiple", "array_of_commands"): "count",
    # As for MPI_Init, whose argv the JSON does size by argc.
    ("MPI_Init_thread", "argv"): "argc",
    # datarep is an ordinary NUL-terminated string: no length needed.
    ("MPI_Pack_external", "datarep"): None,
    ("MPI_Pack_external_size", "datarep"): None,
    ("MPI_Unpack_external", "datarep"): None,
}

# root_only flags the JSON gets wrong.
ROOT_ONLY_OVERRIDES = {
    # Every process receives in a scatter; only the send side is root-only
    # (as in MPI_Scatterv and MPI_Iscatterv).
    ("MPI_Scatterv_init", "recvbuf"): False,
}

# Directions the JSON gets wrong.  (Its param_direction already reads "in"
# where C passes a handle by value that the language-independent listing
# calls INOUT, as for MPI_Comm_set_name or MPI_File_write: no correction.)
DIRECTION_OVERRIDES = {
    # Copied from MPI_Init, but the standard lists both as IN and C passes
    # them by value: int argc, char *argv[].
    ("MPI_Info_create_env", "argc"): "in",
    ("MPI_Info_create_env", "argv"): "in",
}

# Send-side and receive-side parameter names of the v and w collectives.
SEND_SIDE = {"sendcounts", "sdispls", "sendtypes"}
RECV_SIDE = {"recvcounts", "rdispls", "recvtypes", "displs"}
# Matched on the lower-cased name: MPI_Ialltoallv, MPI_Ineighbor_alltoallv.
V_COLLECTIVE = re.compile(
    r"^mpi_i?(allgatherv|alltoall[vw]|gatherv|scatterv|reduce_scatter)(_init)?$")
NEIGHBOR_COLLECTIVE = re.compile(r"^mpi_i?neighbor_\w+$")


def collective_length(func, param):
    """The rule for a "*" array of a v/w collective, or None."""
    func = func.lower()
    if NEIGHBOR_COLLECTIVE.match(func):
        if param in SEND_SIDE:
            return "outdegree(comm)"
        if param in RECV_SIDE:
            return "indegree(comm)"
    # On an intercommunicator these arrays have one entry per remote
    # process: the runtime's rec_comm_size() gives the remote size there.
    if V_COLLECTIVE.match(func) and param in SEND_SIDE | RECV_SIDE:
        return "comm_size(comm)"
    return None


def length_of(func, p):
    """The normalised length of JSON parameter p of func, or None."""
    key = (func, p["name"])
    if key in LENGTH_OVERRIDES:
        return LENGTH_OVERRIDES[key]
    length = p["length"]
    if isinstance(length, list):
        return "*".join(length)
    if length == "*":
        rule = collective_length(func, p["name"])
        # Left as "*": the generator records the pointer and RULES.md lists
        # it as a gap; a new JSON with new "*" lengths shows up here.
        return rule if rule else "*"
    return length or None


def is_c_procedure(entry):
    attrs = entry["attributes"]
    return (attrs["c_expressible"] and not attrs["callback"]
            and not attrs["predefined_function"])


def has_large_count_variant(entry):
    # pympistandard's rule: a "POLY" kind is int in the plain binding and
    # MPI_Count/MPI_Aint in the _c one.
    return any(p["kind"].startswith("POLY") for p in c_params(entry, True))


def c_params(entry, large):
    """The parameters present in the C binding (large: the _c variant)."""
    return [p for p in entry["parameters"]
            if "c_parameter" not in p["suppress"]
            and (large or not p["large_only"])]


def format_param(func, p):
    direction = DIRECTION_OVERRIDES.get((func, p["name"]), p["param_direction"])
    root = ROOT_ONLY_OVERRIDES.get((func, p["name"]), p["root_only"])
    fields = [p["name"], p["kind"], direction, length_of(func, p) or ""]
    if root:
        fields.append("root")
    return ":".join(fields).rstrip(":")


def table_lines(api):
    lines = []
    for entry in api.values():
        if not is_c_procedure(entry):
            continue
        name = entry["name"]
        head = name
        if entry["return_kind"] != "ERROR_CODE":
            head += ":" + entry["return_kind"]
        variants = [(head, False)]
        if has_large_count_variant(entry):
            variants.append((head.replace(name, name + "_c", 1), True))
        for label, large in variants:
            params = [format_param(name, p) for p in c_params(entry, large)]
            lines.append("\t".join([label] + params))
    return sorted(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", default=DEFAULT_JSON)
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    with open(args.json, encoding="utf-8") as f:
        api = json.load(f)
    lines = table_lines(api)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    stars = sum(line.count(":*") for line in lines)
    print("mpi_table: %d C functions, %d lengths left as '*' -> %s"
          % (len(lines), stars, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
