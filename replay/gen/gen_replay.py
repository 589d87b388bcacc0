#!/usr/bin/env python3
"""Generate replay/calls.c: one function per MPI function rondo-replay can
issue, turning a call signature's recorded values back into arguments.

Run at build time, like the tracer's wrappers: the C prototypes come from
the installed mpi.h, what each parameter means from tracer/mpi_api.tab
(gen_wrappers.py's readers are reused).  A parameter whose kind the rules
below do not cover makes its function unsupported: rondo-replay names such
functions before a run starts, never in the middle of one.

Usage:
  gen_replay.py --table tracer/mpi_api.tab --cc "gcc $MPI_CFLAGS" \\
      --link gcc --libs "$MPI_LIBS" --out replay/calls.c
"""

import argparse
import os
import re
import shlex
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tracer", "gen"))
import gen_wrappers as gw  # noqa: E402

# Written by hand: the start and end (replay.c), the completion calls
# (complete.c), and what is no call of the program's communication.
BY_HAND = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Pcontrol"}
COMPLETION = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
              "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome"}
SKIP = re.compile(r"^MPI_(T_|Wtime$|Wtick$|.*_(f2c|c2f|f082c|c2f08|f2f08|f082f)$)")
# Handle conversions between C and Fortran (functions in Open MPI, macros
# in MPICH), as mixed-language programs make them: replayed on the
# replay's own handle, so that the re-trace has the call.
CONVERT = re.compile(r"^MPI_(Comm|Type|Group|Info|Errhandler|Win|File|Op)_(f2c|c2f)$")
CONVERT_TYPES = {"Comm": "MPI_Comm", "Type": "MPI_Datatype",
                 "Group": "MPI_Group", "Info": "MPI_Info",
                 "Errhandler": "MPI_Errhandler", "Win": "MPI_Win",
                 "File": "MPI_File", "Op": "MPI_Op"}
INTS = {"MPI_Aint": "MPI_Aint", "MPI_Count": "MPI_Count",
        "MPI_Offset": "MPI_Offset", "MPI_Fint": "MPI_Fint"}
ARRAYS = {"int": "rp_ints", "MPI_Aint": "rp_aints", "MPI_Count": "rp_counts",
          "MPI_Offset": "rp_offsets"}
# Callbacks: stand-ins of the right type (rt.c).
CALLBACKS = {
    "MPI_User_function": "rp_user_function(c, %d)",
    "MPI_Comm_copy_attr_function": "rp_Comm_copy_fn(c, %d)",
    "MPI_Comm_delete_attr_function": "rp_Comm_delete_fn(c, %d)",
    "MPI_Type_copy_attr_function": "rp_Type_copy_fn(c, %d)",
    "MPI_Type_delete_attr_function": "rp_Type_delete_fn(c, %d)",
    "MPI_Win_copy_attr_function": "rp_Win_copy_fn(c, %d)",
    "MPI_Win_delete_attr_function": "rp_Win_delete_fn(c, %d)",
    "MPI_Comm_errhandler_function": "rp_Comm_errh_fn(c, %d)",
    "MPI_Win_errhandler_function": "rp_Win_errh_fn(c, %d)",
    "MPI_File_errhandler_function": "rp_File_errh_fn(c, %d)",
    "MPI_Session_errhandler_function": "rp_Session_errh_fn(c, %d)",
}
# Memory MPI hands the program: its segment is that memory from then on.
MEMORY_OUT = {("MPI_Alloc_mem", "baseptr"), ("MPI_Win_allocate", "baseptr"),
              ("MPI_Win_allocate_shared", "baseptr")}
# ...and given back.
MEMORY_FREED = {("MPI_Free_mem", "base")}
# The parameters of a call whose source and tag may be wildcards.
TAG_NAMES = ("tag", "recvtag")
# Collectives whose count is per member of the communicator on one side.
PER_MEMBER_RECV = re.compile(r"^MPI_(I?(All)?[Gg]ather|I?[Aa]lltoall|"
                             r"I?[Nn]eighbor_(allgather|alltoall))(_init)?(_c)?$")
PER_MEMBER_SEND = re.compile(r"^MPI_(I?[Ss]catter|I?[Aa]lltoall|"
                             r"I?[Nn]eighbor_alltoall|I?[Rr]educe_scatter_block)"
                             r"(_init)?(_c)?$")


class Unsupported(Exception):
    pass


def span(f, names, n):
    """(span, count param, type param, displacement param) for buffer n."""
    def has(*xs):
        return all(x in names for x in xs)

    per_recv = PER_MEMBER_RECV.match(f) is not None
    per_send = PER_MEMBER_SEND.match(f) is not None
    if n in ("buf", "buffer", "inoutbuf") and has("count", "datatype"):
        return ("ONE", "count", "datatype", None)
    if n == "buffer" and has("size"):
        return ("BYTES", "size", None, None)
    if n == "sendbuf":
        if has("sendcounts", "sdispls", "sendtypes"):
            return ("W", "sendcounts", "sendtypes", "sdispls")
        if has("sendcounts", "sdispls", "sendtype"):
            return ("V", "sendcounts", "sendtype", "sdispls")
        if has("sendcount", "sendtype"):
            return ("COMM" if per_send else "ONE", "sendcount", "sendtype", None)
        if has("recvcounts", "datatype"):
            return ("SUM", "recvcounts", "datatype", None)
        if has("recvcount", "datatype"):
            return ("COMM", "recvcount", "datatype", None)
        if has("count", "datatype"):
            return ("ONE", "count", "datatype", None)
    if n == "recvbuf":
        if has("recvcounts", "rdispls", "recvtypes"):
            return ("W", "recvcounts", "recvtypes", "rdispls")
        for d in ("rdispls", "displs"):
            if has("recvcounts", d, "recvtype"):
                return ("V", "recvcounts", "recvtype", d)
        if has("recvcount", "recvtype"):
            return ("COMM" if per_recv else "ONE", "recvcount", "recvtype", None)
        if has("recvcounts", "datatype"):
            return ("SUM", "recvcounts", "datatype", None)
        if has("recvcount", "datatype"):
            return ("ONE", "recvcount", "datatype", None)
        if has("count", "datatype"):
            return ("ONE", "count", "datatype", None)
    if n == "sendbuf" and has("displs", "sendcounts", "sendtype"):
        return ("V", "sendcounts", "sendtype", "displs")
    if n == "origin_addr" and has("origin_count", "origin_datatype"):
        return ("ONE", "origin_count", "origin_datatype", None)
    if n == "result_addr" and has("result_count", "result_datatype"):
        return ("ONE", "result_count", "result_datatype", None)
    if n == "result_addr" and has("datatype"):
        return ("ONE", None, "datatype", None)
    if n == "compare_addr" and has("datatype"):
        return ("ONE", None, "datatype", None)
    if n == "origin_addr" and has("datatype"):
        return ("ONE", None, "datatype", None)
    if n == "inbuf":
        if has("incount", "datatype"):
            return ("ONE", "incount", "datatype", None)
        if has("insize"):
            return ("BYTES", "insize", None, None)
    if n == "outbuf":
        if has("outcount", "datatype"):
            return ("ONE", "outcount", "datatype", None)
        if has("outsize"):
            return ("BYTES", "outsize", None, None)
    if n == "base" and has("size"):
        return ("BYTES", "size", None, None)
    return ("NONE", None, None, None)


def convert_text(name, header):
    """The function replaying handle conversion `name`, or None: f2c on
    the handle the call gave (known by then; its Fortran integer is this
    run's, taken by PMPI so that it is not recorded), c2f on the handle
    it was given."""
    m = CONVERT.match(name)
    if not m:
        return None
    obj, way = m.groups()
    acc = gw.HANDLES[CONVERT_TYPES[obj]][0]
    if way == "f2c":
        if "PMPI_%s_c2f" % obj not in header.funcs:
            return None
        call = "MPI_%s_f2c(PMPI_%s_c2f(rp_%s(c, 1)))" % (obj, obj, acc)
    else:
        call = "MPI_%s_c2f(rp_%s(c, 0))" % (obj, acc)
    return ("static int rp_%s(struct rp_call *c)\n{\n\t(void)%s;\n"
            "\treturn MPI_SUCCESS;\n}\n" % (name, call))


class Func:
    def __init__(self, header, cf, entry):
        self.name = cf.name
        self.cf = cf
        self.header = header
        ret, tparams = entry
        if ret not in gw.ERROR_KINDS:
            raise Unsupported("returns a value")
        if len(tparams) != len(cf.params):
            raise Unsupported("table and mpi.h disagree")
        self.params = list(zip(cf.params, tparams))
        self.names = [t.name for t in tparams]
        self.index = {t.name: k for k, t in enumerate(tparams)}
        self.decls, self.args, self.pre, self.post = [], [], [], []
        for k, (c, t) in enumerate(self.params):
            self.plan(k, c, t)
        src = self.index.get("source")
        tag = next((self.index[x] for x in TAG_NAMES if x in self.index), None)
        if src is not None and tag is not None and "comm" in self.index:
            st = next((k for k, (c, t) in enumerate(self.params)
                       if c.base == "MPI_Status"), -1)
            req = next((k for k, (c, t) in enumerate(self.params)
                        if c.base == "MPI_Request" and t.direction == "out"), -1)
            self.pre.append("rp_wildcard(c, %d, %d, a%d, &a%d, &a%d);"
                            % (st, req, self.index["comm"], src, tag))

    def idx(self, name):
        return -1 if name is None else self.index[name]

    def plan(self, k, c, t):
        base, depth, out = c.base, c.depth, t.direction
        kind = self.header.kind_of(base)
        local = "a%d" % k
        if c.funcptr or kind in ("func", "funcptr"):
            if base not in CALLBACKS:
                raise Unsupported("callback %s" % base)
            self.args.append(CALLBACKS[base] % k if "%d" in CALLBACKS[base]
                             else CALLBACKS[base])
            return
        handle = gw.HANDLES.get(base)
        intlike = kind == "int" or base in INTS
        if depth == 0:
            if handle:
                h = handle[0]
                if h == "request":
                    self.args.append("*rp_request(c, %d)" % k)
                elif h == "message":
                    raise Unsupported("%s by value" % h)
                else:
                    self.decls.append("%s %s = rp_%s(c, %d);" % (base, local, h, k))
                    self.args.append(local)
                return
            if intlike:
                fn = {"RANK": "rp_rank", "RANK_NNI": "rp_rank",
                      "TAG": "rp_tag"}.get(t.kind, "rp_int")
                if (self.name, t.name) in gw.OTHER_COMM_RANKS:
                    fn = "rp_int"
                self.decls.append("%s %s = (%s)%s(c, %d);" % (base, local, base, fn, k))
                self.args.append(local)
                return
            raise Unsupported("value of type %s" % base)
        array = bool(c.dims) or t.length is not None
        if depth == 1:
            if base == "void":
                if (self.name, t.name) in MEMORY_OUT:
                    self.decls.append("void *%s = NULL;" % local)
                    self.args.append("&%s" % local)
                    self.post.append("rp_set_memory(c, %d, %s);" % (k, local))
                    return
                if t.kind in gw.POINTER_OUT_KINDS and out == "out":
                    self.decls.append("void *%s = NULL;" % local)
                    self.args.append("&%s" % local)
                    return
                if (self.name, t.name) in MEMORY_FREED:
                    self.post.append("rp_drop_memory(c, %d);" % k)
                sp, kc, kt, kd = span(self.name, self.index, t.name)
                self.args.append("rp_buf(c, %d, RP_SPAN_%s, %d, %d, %d)" % (
                    k, sp, self.idx(kc), self.idx(kt), self.idx(kd)))
                return
            if base == "char":
                if out == "in":
                    self.args.append("(char *)rp_string(c, %d)" % k)
                else:
                    self.args.append("(char *)rp_out(c, %d, 65536)" % k)
                return
            if base == "MPI_Status":
                if array:
                    raise Unsupported("status array")
                self.args.append("rp_status(c, %d)" % k)
                return
            if handle:
                h = handle[0]
                if h == "message":
                    self.args.append("rp_message(c, %d)" % k)
                    return
                if array:
                    if h == "request" and out == "inout":
                        self.args.append("rp_requests(c, %d)" % k)
                        self.post.append("rp_requests_back(c, %d);" % k)
                        return
                    if h == "datatype" and out == "in":
                        self.args.append("rp_datatypes(c, %d)" % k)
                        return
                    if h == "datatype" and out == "out":
                        self.decls.append("MPI_Datatype *%s = rp_out(c, %d, sizeof(MPI_Datatype));"
                                          % (local, k))
                        self.args.append(local)
                        self.post.append("rp_set_datatypes(c, %d, %s);" % (k, local))
                        return
                    raise Unsupported("array of %s" % base)
                if h == "request":
                    if out == "out":
                        self.decls.append("MPI_Request %s = MPI_REQUEST_NULL;" % local)
                        self.args.append("&%s" % local)
                        self.post.append("rp_set_request(c, %d, %s);" % (k, local))
                    else:
                        self.args.append("rp_request(c, %d)" % k)
                    return
                if out == "out":
                    self.decls.append("%s %s = %s;" % (base, local, handle[1]))
                else:
                    self.decls.append("%s %s = rp_%s(c, %d);" % (base, local, h, k))
                self.args.append("&%s" % local)
                if out != "in":
                    if self.name == "MPI_Win_free":
                        self.post.append("rp_drop_window_memory(c, %d);" % k)
                    self.post.append("rp_set_%s(c, %d, %s);" % (h, k, local))
                return
            if intlike:
                if array:
                    if out == "out":
                        self.args.append("(%s *)rp_out(c, %d, sizeof(%s))" % (base, k, base))
                        return
                    fn = ARRAYS.get(base)
                    if not fn:
                        raise Unsupported("array of %s" % base)
                    self.args.append("(%s *)%s(c, %d)" % (base, fn, k))
                    return
                if out == "out":
                    self.decls.append("%s %s = 0;" % (base, local))
                else:
                    self.decls.append("%s %s = (%s)rp_int(c, %d);" % (base, local, base, k))
                self.args.append("&%s" % local)
                return
        raise Unsupported("parameter %s of type %s%s" % (t.name, base, "*" * depth))

    def text(self):
        lines = ["static int rp_%s(struct rp_call *c)" % self.name, "{"]
        lines += ["\t" + d for d in self.decls]
        lines.append("\tint ret;")
        lines.append("")
        lines.append("\t(void)c;")
        lines += ["\t" + p for p in self.pre]
        if self.pre:
            lines.append("\tif (c->skip)")
            lines.append("\t\treturn MPI_SUCCESS;")
        lines.append("\tret = %s(%s);" % (self.name, ", ".join(self.args)))
        if self.post:
            lines.append("\tif (ret == MPI_SUCCESS) {")
            lines += ["\t\t" + p for p in self.post]
            lines.append("\t}")
        lines.append("\treturn ret;")
        lines.append("}")
        return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--link", required=True)
    ap.add_argument("--libs", default="")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    cc, link, libs = shlex.split(args.cc), shlex.split(args.link), shlex.split(args.libs)
    table = gw.read_table(args.table)
    with tempfile.TemporaryDirectory(prefix="gen_replay.") as tmp:
        header = gw.Header(gw.preprocess(cc, None, tmp))
        declared = sorted(n for n in header.funcs if n.startswith("MPI_")
                          and "P" + n in header.funcs)
        linked, _ = gw.link_test(declared, cc, link, libs, None, tmp)
    funcs, skipped, converts = [], [], []
    for n in linked:
        text = convert_text(n, header) if n in table else None
        if text:
            converts.append((n, text))
            continue
        if n in BY_HAND or n in COMPLETION or SKIP.match(n):
            continue
        if n not in table:
            skipped.append((n, "not in the API table"))
            continue
        try:
            funcs.append(Func(header, header.funcs[n], table[n]))
        except Unsupported as e:
            skipped.append((n, str(e)))
    out = ["/* replay/calls.c - generated by replay/gen/gen_replay.py from",
           " * tracer/mpi_api.tab and the installed mpi.h: do not edit. */",
           "#include <stddef.h>", "#include <mpi.h>", "",
           '#include "replay.h"', "",
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
           '#pragma GCC diagnostic ignored "-Wcast-qual"', ""]
    for f in funcs:
        out.append(f.text())
    entries = [(f.name, " ".join(f.names), "rp_" + f.name) for f in funcs]
    for n, text in converts:
        out.append(text)
        entries.append((n, " ".join([t.name for t in table[n][1]] + ["return"]),
                        "rp_" + n))
    for n in sorted(COMPLETION):
        if n in linked and n in table:
            out.append("static int rp_%s(struct rp_call *c)\n{\n"
                       "\treturn rp_complete(c, \"%s\");\n}\n" % (n, n))
            entries.append((n, " ".join(t.name for t in table[n][1]), "rp_" + n))
    entries.sort()
    out.append("const struct rp_entry rp_calls[] = {")
    for n, p, fn in entries:
        out.append('\t{"%s", "%s", %s},' % (n, p, fn))
    out.append("};")
    out.append("const unsigned rp_ncalls = %d;" % len(entries))
    out.append("")
    out.append("/* Not replayable (%d):" % len(skipped))
    for n, why in skipped:
        out.append(" *   %s: %s" % (n, why))
    out.append(" */")
    with open(args.out + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    os.replace(args.out + ".tmp", args.out)
    print("gen_replay: %d functions replayable, %d not (listed at the end of %s)"
          % (len(entries), len(skipped), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
