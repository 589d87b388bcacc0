#!/usr/bin/env python3
"""Generate tracer/wrappers.c: one PMPI wrapper per MPI function the installed
library provides.

Run at build time.  The functions and their exact C prototypes come from the
installed mpi.h (preprocessed once); what the library really defines comes
from one link test of every PMPI_ counterpart, repeated without the symbols
the linker reports missing; what each parameter means (kind, direction,
array length) comes from tracer/mpi_api.tab, derived from the MPI Forum's
API description.  The rules that neither source gives are in RULES.md next
to this script; the section names below refer to it.

Usage:
  gen_wrappers.py --table tracer/mpi_api.tab --cc "gcc $MPI_CFLAGS" \\
      --link gcc --libs "$MPI_LIBS" --out tracer/wrappers.c
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

import gen_fortran

# ---- what is not wrapped (RULES.md "Exclusions") ---------------------------
NOISE = ("MPI_Wtime", "MPI_Wtick")
HAND_WRITTEN = ("MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Pcontrol")
NO_RETURN = gen_fortran.NO_RETURN
TOOL_PREFIX = "MPI_T_"

# ---- C declarations ---------------------------------------------------------

TOKEN = re.compile(r"""\s+|([A-Za-z_]\w*|\d[\w.]*|\.\.\.|"(?:\\.|[^"\\])*"
                     |'(?:\\.|[^'\\])*'|\S)""", re.X)
# Words that carry nothing for a prototype's types and may hide inside one.
NOISE_WORDS = {"extern", "__extension__", "__inline", "__inline__", "inline",
               "__restrict", "__restrict__", "restrict"}
ATTRIBUTE_WORDS = {"__attribute__", "__attribute", "__asm__", "__asm"}
INTEGER_WORDS = {"int", "long", "short", "unsigned", "signed", "char",
                 "_Bool", "size_t", "ptrdiff_t"}
TYPE_WORDS = INTEGER_WORDS | {"void", "float", "double", "const", "volatile",
                              "struct", "union", "enum"}
OPEN = {"(": ")", "[": "]", "{": "}"}


def tokenize(text):
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    return [m.group(1) for m in TOKEN.finditer(text) if m.group(1)]


def matching(toks, i):
    """Index of the bracket closing the one at toks[i]."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j] in OPEN:
            depth += 1
        elif toks[j] in OPEN.values():
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced brackets in the preprocessed mpi.h")


def strip_noise(toks):
    """toks without attributes, asm labels and storage words."""
    out, i = [], 0
    while i < len(toks):
        if toks[i] in ATTRIBUTE_WORDS and i + 1 < len(toks) and toks[i + 1] == "(":
            i = matching(toks, i + 1) + 1
        elif toks[i] in NOISE_WORDS:
            i += 1
        else:
            out.append(toks[i])
            i += 1
    return out


def declarations(toks):
    """Top-level declarations, without function bodies (inline functions in
    system headers)."""
    decl, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t == ";":
            yield strip_noise(decl)
            decl = []
        elif t in OPEN:
            j = matching(toks, i)
            if t == "{" and decl and decl[-1] == ")":
                decl = []  # a function definition: nothing to declare
            else:
                decl.extend(toks[i:j + 1])
            i = j
        else:
            decl.append(t)
        i += 1


def split_commas(toks):
    parts, cur, i = [], [], 0
    while i < len(toks):
        if toks[i] in OPEN:
            j = matching(toks, i)
            cur.extend(toks[i:j + 1])
            i = j + 1
            continue
        if toks[i] == ",":
            parts.append(cur)
            cur = []
        else:
            cur.append(toks[i])
        i += 1
    if cur:
        parts.append(cur)
    return parts


def render(toks):
    """C text for a token list, spaced as people write it."""
    out = ""
    for t in toks:
        if out and out[-1] not in "(*[ " and t not in ")],[" and \
                not (t == "(" and out[-1] == ")"):
            out += " "
        out += t
    return out


class CParam:
    """One parameter as mpi.h declares it: its type words, pointer and array
    levels, and its name (arg<i> when mpi.h gives none)."""

    def __init__(self, toks, index):
        self.funcptr = "(" in toks  # written out as ret (*name)(args)
        self.dims = []
        if self.funcptr:
            k = toks.index("(")
            end = matching(toks, k)
            if not re.match(r"[A-Za-z_]", toks[end - 1]):  # ret (*)(args)
                toks = toks[:end] + ["arg%d" % index] + toks[end:]
                end += 1
            self.name, self.decl = toks[end - 1], toks
            self.base, self.ptr, self.const = "void", 1, False
            return
        while toks and toks[-1] == "]":
            k = len(toks) - 1 - toks[::-1].index("[")
            self.dims.insert(0, "".join(toks[k + 1:-1]))
            toks = toks[:k]
        words = [t for t in toks if t not in ("*", "const", "volatile")]
        if len(words) >= 2 and words[-1] not in TYPE_WORDS and \
                words[-2] not in ("struct", "union", "enum"):
            self.name = words[-1]
            toks = toks[:len(toks) - 1 - toks[::-1].index(self.name)]
        else:
            self.name = "arg%d" % index
        self.decl = toks + [self.name]
        self.const = "const" in toks
        self.ptr = toks.count("*")
        self.base = " ".join(t for t in toks if t not in ("*", "const", "volatile"))

    def text(self):
        """The declaration as written in mpi.h, with the name we use."""
        return render(self.decl) + "".join("[%s]" % d for d in self.dims)

    def local(self, name):
        """A declaration of a local variable of this type (arrays as
        pointers, no top-level const): the Fortran entry points' C
        values (gen_fortran.py)."""
        if self.funcptr:
            toks = list(self.decl)
            toks[toks.index(self.name)] = name
            return render(toks)
        toks = list(self.decl[:-1])
        if self.depth == 0:
            toks = [t for t in toks if t != "const"]
        if self.dims == ["", "3"]:
            return "%s (*%s)[3]" % (render(toks), name)
        return render(toks + ["*"] * len(self.dims) + [name])

    @property
    def depth(self):
        """Levels of indirection: pointers and array brackets."""
        return self.ptr + len(self.dims)


class CFunc:
    """One function as mpi.h declares it."""

    def __init__(self, name, ret, params):
        self.name, self.ret, self.params = name, ret, params

    def prototype(self):
        args = ", ".join(p.text() for p in self.params) or "void"
        return "%s %s(%s)" % (self.ret, self.name, args)


class Header:
    """What the preprocessed mpi.h declares: MPI_/PMPI_ functions and the
    typedefs needed to classify their parameter types."""

    def __init__(self, text):
        self.funcs = {}
        self.typedefs = {}  # name -> ("func" | "funcptr" | "int" | tokens)
        for decl in declarations(tokenize(text)):
            if not decl:
                continue
            if decl[0] == "typedef":
                self._typedef(decl[1:])
            else:
                self._function(decl)

    def _typedef(self, toks):
        if "(" in toks and "{" not in toks:
            k = toks.index("(")
            inner = toks[k + 1:matching(toks, k)]
            if inner and re.match(r"[A-Za-z_]", inner[-1]) and \
                    matching(toks, k) + 1 < len(toks):
                # ret (NAME)(args) or ret (*NAME)(args)
                self.typedefs[inner[-1]] = "funcptr" if "*" in inner else "func"
                return
            self.typedefs[toks[k - 1]] = "func"  # ret NAME(args)
            return
        while toks and toks[-1] == "]":
            toks = toks[:toks.index("[")]
        if not toks:
            return
        name, rest = toks[-1], toks[:-1]
        if rest and rest[0] == "enum":
            self.typedefs[name] = "int"
        elif "*" not in rest and "{" not in rest:
            self.typedefs[name] = rest

    def _function(self, decl):
        for i, t in enumerate(decl):
            if re.match(r"P?MPI_\w+$", t) and i + 1 < len(decl) and \
                    decl[i + 1] == "(" and i > 0:
                end = matching(decl, i + 1)
                inner = decl[i + 2:end]
                parts = split_commas(inner)
                if parts == [["void"]]:
                    parts = []
                params = [CParam(p, k) for k, p in enumerate(parts)]
                self.funcs[t] = CFunc(t, render(decl[:i]), params)
                return

    def kind_of(self, base):
        """'int', 'func', 'funcptr' or None for a type name."""
        seen = set()
        while base not in seen:
            seen.add(base)
            words = base.split()
            if words and all(w in INTEGER_WORDS for w in words):
                return "int"
            td = self.typedefs.get(base)
            if td is None:
                return None
            if isinstance(td, str):
                return td
            base = " ".join(td)
        return None


def run(cmd, what):
    """Runs cmd; returns (returncode, output).  Exits when cmd cannot start."""
    env = dict(os.environ, LC_ALL="C")
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, env=env)
    except OSError as e:
        die("%s: cannot run %s: %s" % (what, cmd[0], e))
    return p.returncode, p.stdout


def die(msg):
    sys.stderr.write("gen_wrappers: %s\n" % msg)
    sys.exit(1)


def warn(msg):
    sys.stderr.write("gen_wrappers: warning: %s\n" % msg)


def includes(extra):
    text = "#include <mpi.h>\n"
    if extra:
        text += '#include "%s"\n' % os.path.abspath(extra)
    return text


def preprocess(cc, extra, tmp):
    src = os.path.join(tmp, "decl.c")
    with open(src, "w") as f:
        f.write(includes(extra))
    rc, out = run(cc + ["-E", src], "preprocessor")
    if rc != 0:
        die("the preprocessor failed on <mpi.h> (%s):\n%s" % (" ".join(cc), out))
    return out


# Linker messages naming a missing symbol: GNU ld, gold, lld, Apple ld.
UNDEFINED = re.compile(r"undefined (?:reference to|symbol:?)\s*[`'\"‘]?_?(PMPI_\w+)")


def link_test(names, cc, link, libs, extra, tmp):
    """The subset of names whose PMPI_ counterpart links, and the rest."""
    missing = []
    while True:
        src = os.path.join(tmp, "links.c")
        with open(src, "w") as f:
            f.write(includes(extra))
            f.write('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n'
                    "typedef void (*rondo_fn)(void);\n"
                    "static rondo_fn const rondo_fns[] = {\n")
            for n in names:
                f.write("\t(rondo_fn)P%s,\n" % n)
            f.write("\t0\n};\n"
                    "int main(void) { return rondo_fns[0] == 0; }\n")
        obj, exe = os.path.join(tmp, "links.o"), os.path.join(tmp, "links")
        rc, out = run(cc + ["-c", src, "-o", obj], "link test")
        if rc != 0:
            die("the link test does not compile (%s):\n%s" % (" ".join(cc), out))
        rc, out = run(link + [obj, "-o", exe] + libs, "link test")
        if rc == 0:
            return names, missing
        gone = {m[1:] for m in UNDEFINED.findall(out)} & set(names)
        if not gone:
            die("the link test fails for another reason than missing symbols"
                " (%s ... %s):\n%s" % (" ".join(link), " ".join(libs), out))
        missing += sorted(gone)
        names = [n for n in names if n not in gone]


# ---- the API table -------------------------------------------------------------

class TabParam:
    """One parameter as tracer/mpi_api.tab describes it."""

    def __init__(self, field):
        parts = field.split(":") + ["", ""]
        self.name, self.kind, self.direction = parts[0], parts[1], parts[2]
        self.length = parts[3] or None
        self.root_only = parts[4] == "root"


def read_table(path):
    """name -> (return kind, [TabParam])"""
    table = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                name, _, ret = fields[0].partition(":")
                table[name] = (ret or "ERROR_CODE", [TabParam(x) for x in fields[1:]])
    except OSError as e:
        die("cannot read the API table: %s" % e)
    return table


# ---- encoding rules (RULES.md "Encoding") ------------------------------------

HANDLES = {
    "MPI_Comm": ("comm", "MPI_COMM_NULL"),
    "MPI_Group": ("group", "MPI_GROUP_NULL"),
    "MPI_Datatype": ("datatype", "MPI_DATATYPE_NULL"),
    "MPI_Op": ("op", "MPI_OP_NULL"),
    "MPI_Info": ("info", "MPI_INFO_NULL"),
    "MPI_Errhandler": ("errhandler", "MPI_ERRHANDLER_NULL"),
    "MPI_Win": ("win", "MPI_WIN_NULL"),
    "MPI_File": ("file", "MPI_FILE_NULL"),
    "MPI_Message": ("message", "MPI_MESSAGE_NULL"),
    "MPI_Request": ("request", "MPI_REQUEST_NULL"),
    "MPI_Session": ("session", "MPI_SESSION_NULL"),  # MPI 4: MPICH, not Open MPI 4.1
}
RANK_KINDS = {"RANK", "RANK_NNI"}
# Recorders whose bytes depend only on the value and on tables that move
# rec_epoch on when they change (record.h): the wrappers keep them.
KEPT_RECORDERS = {"int", "tag", "buf", "rank", "root", "comm", "datatype", "op",
                  "group", "info", "errhandler", "win", "file", "session"}
# Values that point to where the call stores a pointer (void * in C, meaning
# void **) when they are outputs.
POINTER_OUT_KINDS = {"C_BUFFER", "C_BUFFER2", "ATTRIBUTE_VAL", "ATTRIBUTE_VAL_10"}
# Fortran status arrays of MPI_STATUS_SIZE integers: recorded by address.
OPAQUE_KINDS = {"F90_STATUS", "F08_STATUS"}
# Returned values that are error codes, not results.
ERROR_KINDS = {"ERROR_CODE", "ERROR_CLASS"}
# Ranks of another communicator than the call's first one: recorded as the
# absolute value, since readers turn relative ranks back with the first
# communicator (MPI_Intercomm_create's remote_leader is a rank of
# peer_comm).
OTHER_COMM_RANKS = {("MPI_Intercomm_create", "remote_leader")}
# Rank arrays that describe a whole graph, the same on every rank (every
# node's edges): recorded as plain integers, since relative to the caller
# they would differ from rank to rank.
WHOLE_GRAPH = {("MPI_Graph_create", "edges"), ("MPI_Graph_map", "edges"),
               ("MPI_Graph_get", "edges")}
# Byte displacements of type constructors (hindexed, struct): absolute
# addresses when the program took them from MPI_Get_address to use with
# MPI_BOTTOM; rec_disp records those as buffers, relative ones as integers.
DISPLACEMENT_KINDS = {"POLYDISPLACEMENT_AINT_COUNT"}
# Absolute addresses stored in an MPI_Aint: recorded as buffers.
ADDRESSES = {("MPI_Get_address", "address")}
# Parameters ignored when a buffer is MPI_IN_PLACE: buffer -> (functions
# that accept it there, the parameters then ignored).  Only a scatter's root
# passes MPI_IN_PLACE as its receive buffer.
IN_PLACE_SIDES = {
    "sendbuf": (re.compile(r"^MPI_"),
                {"sendcount", "sendtype", "sendcounts", "sdispls", "sendtypes"}),
    "recvbuf": (re.compile(r"^MPI_I?[Ss]catterv?(_init)?(_c)?$"),
                {"recvcount", "recvtype"}),
}
# Requests whose statuses the program writes (generalized requests): every
# field of their statuses is recorded.  Others: STATUS_RULES in RULES.md.
USER_REQUESTS = {"MPI_Grequest_start"}
# Length rules computed from a communicator -> the runtime's function.
COMM_RULES = {"comm_size": "rec_comm_size", "indegree": "rec_comm_indegree",
              "outdegree": "rec_comm_outdegree", "cart_ndims": "rec_cart_ndims"}
# A length the table gives as a rule, rule(param), and the rules known.
RULE = re.compile(r"^(\w+)\((\w+)\)$")
LENGTH_RULES = set(COMM_RULES) | {"sum", "last", "after"}


class Param:
    """A C parameter joined with its table entry (None when the table does
    not know the function), and the plan for recording it."""

    def __init__(self, c, tab):
        self.c = c
        self.name = tab.name if tab else c.name  # the name the trace shows
        self.kind = tab.kind if tab else ""
        self.length = tab.length if tab else None
        self.root_only = tab.root_only if tab else False
        if tab:
            self.direction = tab.direction
        elif c.depth and not c.const and c.base not in ("void", "char"):
            self.direction = "out"  # C alone: a non-const pointer is written
        else:
            self.direction = "in"
        self.save = []       # (C type, name, value) kept before the PMPI call
        self.conds = []      # conditions under which rec_null is recorded
        self.stmt = None     # the recorder call
        self.out = int(self.direction == "out")
        self.deref = False   # the value is read through a pointer after the call
        self.own = None      # a status (array) the program may ignore: the
                             # expression of its length, "1" for one status


class Result:
    """The value a function returns when it is not an error code
    (MPI_Comm_f2c...): recorded as one more parameter, "return"."""

    def __init__(self, kind):
        self.name, self.kind, self.direction = "return", kind or "", "in"


class Wrapper:
    """The plan of one function's wrapper."""

    def __init__(self, header, cfunc, entry):
        self.h, self.f = header, cfunc
        ret_kind, tabs = entry if entry else (None, None)
        if tabs is not None and len(tabs) != len(cfunc.params):
            warn("%s: mpi.h has %d parameters, the API table %d; encoding it"
                 " from its C types" % (cfunc.name, len(cfunc.params), len(tabs)))
            ret_kind, tabs = None, None
        self.from_table = tabs is not None
        self.params = [Param(c, tabs[i] if tabs else None)
                       for i, c in enumerate(cfunc.params)]
        self.by_name = {p.name: p for p in self.params}
        self.locals = {p.c.name for p in self.params}
        self.setup, self.memo, self.helpers = [], {}, set()
        self.unencoded = []
        comms = [p.c.name for p in self.params
                 if p.c.base == "MPI_Comm" and p.c.depth == 0]
        self.comm = comms[0] if comms else None
        # The recording is a body function shared by the C and Fortran
        # entry points: it gets the record by pointer, and &(*rp) is
        # written rp when emitted.
        self.rp, self.ret = self.fresh("rp"), self.fresh("ret")
        self.r = "(*%s)" % self.rp
        if ret_kind is not None:
            value = ret_kind not in ERROR_KINDS
        else:
            value = cfunc.ret != "int"
        self.result = Result(ret_kind) if value else None
        for p in self.params:
            self.plan(p)

    def fresh(self, name):
        """A local name no parameter uses."""
        while name in self.locals:
            name += "_"
        self.locals.add(name)
        return name

    def once(self, name, ctype, expr):
        """A local computed once after the call."""
        if expr not in self.memo:
            var = self.fresh(name)
            self.setup.append("%s %s = %s;" % (ctype, var, expr))
            self.memo[expr] = var
        return self.memo[expr]

    # -- when a value means nothing -----------------------------------------
    def ok_cond(self):
        # A failed call's outputs may be garbage; MPI_ERR_IN_STATUS is not a
        # failure of the call: its statuses say which requests failed.
        ok = self.once("ok", "int", "%s == MPI_SUCCESS || %s == MPI_ERR_IN_STATUS"
                       % (self.ret, self.ret))
        return "!" + ok

    def root_cond(self):
        root = self.by_name.get("root")
        if root is None or self.comm is None:
            return None
        self.helpers.add("is_root")
        return "!" + self.once("is_root", "int", "wrappers_is_root(%s, %s)"
                               % (self.comm, root.c.name))

    def guards(self, p):
        conds = []
        if p.root_only:
            conds.append(self.root_cond())
        for buf, (funcs, side) in IN_PLACE_SIDES.items():
            if p.name in side and buf in self.by_name and funcs.match(self.f.name):
                conds.append("%s == MPI_IN_PLACE" % self.by_name[buf].c.name)
        if p.deref and p.direction == "out":
            conds.append(self.ok_cond())
            flag = self.by_name.get("flag")
            if flag is not None and flag is not p and flag.direction == "out" \
                    and flag.c.depth == 1:
                conds.append("!%s || !*%s" % (flag.c.name, flag.c.name))
        return conds

    # -- lengths --------------------------------------------------------------
    def length(self, p, of):
        """C expression for the number of elements of `of`, recorded for p;
        None when unknown; a negative value means none may be read."""
        length = of.length
        if length is None or length == "*" or length.startswith("MPI_"):
            return None
        length = length.split("*")[0]  # n*3: the rows; 3 is in the C type
        m = RULE.match(length)
        src = self.by_name.get(m.group(2) if m else length)
        if src is None:
            return None
        if src.root_only and not p.root_only:
            p.conds.append(self.root_cond())  # unknown off the root
        v = src.c.name
        if not m:
            return "(%s ? *%s : -1)" % (v, v) if src.c.depth else v
        rule = m.group(1)
        if rule not in LENGTH_RULES:
            return None
        self.helpers.add(rule)
        if rule in COMM_RULES:
            return self.once("n_" + rule, "int64_t", "wrappers_%s(%s)" % (rule, v))
        if rule == "after":
            return "wrappers_after(%s)" % v
        inner = self.length(p, src)
        return "wrappers_%s(%s, %s)" % (rule, v, inner) if inner else None

    # -- recorders --------------------------------------------------------------
    def param_name(self, *names):
        """The C name of the first of these parameters the function has."""
        for n in names:
            if n in self.by_name:
                return self.by_name[n].c.name
        return None

    def posted(self):
        """A receive's posted count, datatype, source and tag, as C
        expressions; a matched message (Mrecv) matched any source and tag;
        a probe posts no count.  None for a function that receives
        nothing."""
        count = self.param_name("count", "recvcount") or "-1"
        dtype = self.param_name("datatype", "recvtype") or "MPI_DATATYPE_NULL"
        source, tag = self.param_name("source"), self.param_name("tag", "recvtag")
        comm = self.comm or "MPI_COMM_NULL"
        if source and tag:
            return [count, dtype, source, tag, comm]
        if "message" in self.by_name and count != "-1":
            return [count, dtype, "MPI_ANY_SOURCE", "MPI_ANY_TAG", comm]
        return None

    def request_out(self, expr):
        """The recorder of a request the call creates: its kind says what
        the status of its completion can add (STATUS_RULES)."""
        r = "&" + self.r
        if self.params[-1].c.base != "MPI_Request":
            warn("%s: the request is not the last parameter; its pool is"
                 " keyed by the arguments before it" % self.f.name)
        posted = self.posted()
        if posted:
            return "rec_request_new(%s, %s, REC_REQ_RECV, %s)" % (
                r, expr, ", ".join(posted))
        count = self.param_name("count")
        if self.f.name.startswith("MPI_File_") and count:
            return ("rec_request_new(%s, %s, REC_REQ_IO, %s, %s, 0, 0,"
                    " MPI_COMM_NULL)" % (r, expr, count,
                                         self.param_name("datatype")))
        if self.f.name in USER_REQUESTS:
            return ("rec_request_new(%s, %s, REC_REQ_UNKNOWN, -1,"
                    " MPI_DATATYPE_NULL, 0, 0, MPI_COMM_NULL)" % (r, expr))
        return "rec_request_out(%s, %s)" % (r, expr)

    def status(self, p):
        """The recorder of one status (STATUS_RULES)."""
        r, v = "&" + self.r, p.c.name
        if p.direction == "in":
            return "rec_status_read(%s, %s)" % (r, v)
        index = self.param_name("index")
        if index:
            return "rec_status_req(%s, %s, %s ? *%s : -1)" % (r, v, index, index)
        request = self.by_name.get("request")
        if request is not None and request.c.base == "MPI_Request":
            return "rec_status_req(%s, %s, 0)" % (r, v)
        posted = self.posted()
        if posted:
            return "rec_status_recv(%s, %s, %s)" % (r, v, ", ".join(posted))
        if self.f.name.startswith("MPI_File_"):
            return "rec_status_io(%s, %s, %s, %s)" % (
                r, v, self.param_name("count") or "-1",
                self.param_name("datatype") or "MPI_DATATYPE_NULL")
        return "rec_status(%s, %s)" % (r, v)

    def value(self, p, expr, ctype):
        """The recorder of one value of type ctype, or None."""
        r = "&" + self.r
        if ctype == "MPI_Request" and p.direction == "out":
            return self.request_out(expr)
        if ctype == "MPI_Comm" and p.direction == "out" and \
                self.f.name.startswith("MPI_Comm_idup") and self.comm:
            return "rec_comm_dup_out(%s, %s, %s)" % (r, expr, self.comm)
        if ctype in HANDLES:
            suffix = "_out" if p.direction == "out" else ""
            return "rec_%s%s(%s, %s)" % (HANDLES[ctype][0], suffix, r, expr)
        if self.h.kind_of(ctype) != "int":
            return None
        if (self.f.name, p.name) in ADDRESSES:
            return "rec_buf(%s, (const void *)(intptr_t)%s)" % (r, expr)
        if p.kind in RANK_KINDS and p.name == "root":
            # the same on every rank of the collective: stored as it is
            return "rec_root(%s, %s)" % (r, expr)
        if p.kind in RANK_KINDS and self.comm and \
                (self.f.name, p.name) not in OTHER_COMM_RANKS:
            return "rec_rank(%s, %s, %s)" % (r, expr, self.comm)
        if p.kind == "TAG":
            return "rec_tag(%s, %s)" % (r, expr)
        return "rec_int(%s, %s)" % (r, expr)

    def plan(self, p):
        c, v, r = p.c, p.c.name, "&" + self.r
        ftype = self.h.kind_of(c.base)
        if c.funcptr or (ftype == "func" and c.depth == 1) or \
                (ftype == "funcptr" and c.depth == 0):
            p.stmt = "rec_callback(%s, (void (*)(void))%s)" % (r, v)
        elif c.depth == 0:
            p.stmt = self.value(p, v, c.base)
        elif p.kind in OPAQUE_KINDS:
            p.stmt = "rec_buf(%s, %s)" % (r, v)
        elif c.base == "void" or p.kind in POINTER_OUT_KINDS:
            self.pointer(p)
        elif c.base == "char":
            self.text(p)
        elif p.length is not None:
            self.array(p)
        elif c.base == "MPI_Status" and c.depth == 1:
            p.stmt = self.status(p)
            p.deref = True
            p.out = int(p.direction != "in")
            if p.direction == "out":
                p.own = "1"
        elif c.depth == 1:
            self.pointee(p)
        if p.stmt is None:
            self.unencoded.append(v)
            p.stmt = "rec_buf(%s, %s)" % (r, v) if c.depth else "rec_null(%s)" % r
            p.conds = []
        else:
            p.conds = self.guards(p) + p.conds

    def pointer(self, p):
        """void *: a buffer's address, or where the call stores a pointer."""
        c, v, r = p.c, p.c.name, "&" + self.r
        if p.direction == "out" and (c.depth == 2 or p.kind in POINTER_OUT_KINDS):
            p.stmt = "rec_buf(%s, *(void **)%s)" % (r, v)
            p.conds.append("!" + v)
            p.deref = True
        elif c.depth == 1:
            p.stmt = "rec_buf(%s, %s)" % (r, v)

    def text(self, p):
        """Strings, string arrays and argument vectors."""
        c, v, r = p.c, p.c.name, "&" + self.r
        if c.depth == 1:
            p.stmt = "rec_string(%s, %s)" % (r, v)
            p.conds.append("!" + v)
            p.deref = True
        elif p.length is not None:
            self.array(p)
        elif p.kind == "STRING_ARRAY":  # MPI_Comm_spawn argv: NULL-terminated
            self.helpers.add("argv")
            p.stmt = "wrappers_argv(%s, %s)" % (r, v)
        else:
            p.stmt = "rec_null(%s)" % r  # an argv of unknown length

    def array(self, p):
        """An array with a length (possibly computed by a rule)."""
        n = self.length(p, p)
        if n is None:
            p.stmt = "rec_buf(&%s, %s)" % (self.r, p.c.name)
            return
        p.stmt = self.list_of(p, n)
        p.deref = True
        p.out = int(p.direction != "in")

    def list_of(self, p, n):
        """The recorder of an array of n elements, or None."""
        c, v = p.c, p.c.name
        args, extra = [v], []
        if c.dims == ["", "3"]:
            kind, args = "range3", ["(const int (*)[3])" + v]
        elif c.base == "char":
            kind = "argv_list" if c.depth == 3 else "string"
        elif c.base == "MPI_Status":
            # Waitall/Testall: status i is of request i; Waitsome/Testsome:
            # of request indices[i]
            indices = self.param_name("array_of_indices")
            if indices:
                kind, extra = "status_of_indices", [indices]
            elif "array_of_requests" in self.by_name:
                kind = "status_of_requests"
            else:
                kind = "status"
            if p.direction == "out" and kind != "status":
                # MPI_STATUSES_IGNORE: the call gets an array of the
                # tracer's own, as long as its requests
                p.own = self.param_name("incount") or n
        elif c.base == "MPI_Request" and p.direction == "inout":
            saved = self.fresh("saved_" + v)
            self.helpers.add("save_requests")
            p.save.append(("MPI_Request *", saved, "wrappers_save_requests(&%s, %s, %s)"
                           % (self.r, v, n)))
            kind, args = "request_inout", [saved, v]
        elif c.base in HANDLES:
            # No other handle array is inout today; one would be recorded
            # after the call like an output.
            kind = HANDLES[c.base][0] + ("" if p.direction == "in" else "_out")
        elif p.kind == "WEIGHT":
            kind = "weights"
        elif p.kind in DISPLACEMENT_KINDS and c.base == "MPI_Aint":
            kind = "disp"
        elif p.kind in RANK_KINDS and self.comm and \
                (self.f.name, p.name) not in WHOLE_GRAPH:
            kind, extra = "rank", [self.comm]
        elif self.h.kind_of(c.base) == "int":
            kind = "int:" + c.base
        else:
            return None
        self.helpers.add(kind)
        return "wrappers_list_%s(&%s, %s)" % (ident(kind), self.r,
                                              ", ".join(args + [n] + extra))

    def pointee(self, p):
        """A single value passed by address."""
        c, v = p.c, p.c.name
        if p.direction == "inout" and c.base in HANDLES:
            saved = self.fresh("saved_" + v)
            p.save.append((c.base + " ", saved, "%s ? *%s : %s"
                           % (v, v, HANDLES[c.base][1])))
            p.stmt = "rec_%s_inout(&%s, %s, *%s)" % (HANDLES[c.base][0], self.r,
                                                    saved, v)
            p.out = 1
        elif p.direction == "inout":
            # The value going in (a keyval being freed) says more than the
            # invalid value coming back.
            saved = self.fresh("saved_" + v)
            p.save.append((c.base + " ", saved, "%s ? *%s : 0" % (v, v)))
            p.stmt = self.value(p, saved, c.base)
        else:
            p.stmt = self.value(p, "*" + v, c.base)
        p.deref = True
        p.conds.append("!" + v)

    # -- output -----------------------------------------------------------------
    def record(self, stmt, conds):
        conds = list(dict.fromkeys(c for c in conds if c))
        if not conds:
            return ["\t%s;" % stmt]
        return ["\tif (%s)" % " ||\n\t    ".join(conds),
                "\t\trec_null(&%s);" % self.r, "\telse", "\t\t%s;" % stmt]

    def kept(self, body):
        """The recorders of the leading parameters that only read tables
        (record.h, "arguments recorded before"), wrapped so that their
        bytes are reused when the same values come again."""
        keys, bufs, n = [], 0, 0
        r = re.escape("&" + self.r)
        for p in self.params:
            read = self.cond_reads(p.conds)
            if p.save or p.deref or read is None:
                break
            if p.stmt == "rec_null(&%s)" % self.r and not p.conds:
                n += 1
                continue
            m = re.match(r"rec_(\w+)\(%s, (.*)\)$" % r, p.stmt)
            if not m or m.group(1) not in KEPT_RECORDERS:
                break
            if p.out and m.group(1) != "buf":  # an output buffer's address
                break
            read.append(p.c)
            if m.group(1) == "rank":
                read.append(self.by_name_c(self.comm))
            new = []
            for c in read:
                if c.name not in [k.name for k in keys + new]:
                    new.append(c)
            if len(keys) + len(new) > 8:  # REC_MEMO_KEYS
                break
            if m.group(1) == "buf" and p.c.depth == 0 and \
                    (self.f.name, p.name) not in ADDRESSES:
                break
            keys += new
            if m.group(1) == "buf":
                bufs |= 1 << [k.name for k in keys].index(p.c.name)
            n += 1
        if n < 2 or not keys:
            return body
        head = [line for p in self.params[:n]
                for line in self.record(p.stmt, p.conds)]
        assert body[:len(head)] == head
        key = self.fresh("key")
        values = ", ".join(("(uint64_t)(uintptr_t)%s" if c.depth else
                            "HMAP_KEY(%s)" if c.base in HANDLES else
                            "(uint64_t)%s") % c.name for c in keys)
        return (["	const uint64_t %s[] = {%s};" % (key, values),
                 "	if (!rec_memo_hit(&%s, %s, %d)) {"
                 % (self.r, key, len(keys))]
                + ["	" + line for line in head]
                + ["		rec_memo_save(&%s, %s, %d, 0x%x);"
                   % (self.r, key, len(keys), bufs), "	}"]
                + body[len(head):])

    def cond_reads(self, conds):
        """The parameters conditions on recording a value read, when they
        are values alone: MPI_IN_PLACE given for a buffer, the caller
        being the root (the communicator's rank and size do not change);
        None when one reads anything else (the result, an output)."""
        read = []
        for cond in conds:
            m = re.match(r"(\w+) == MPI_IN_PLACE$", cond)
            if m and m.group(1) in [p.c.name for p in self.params]:
                read.append(self.by_name_c(m.group(1)))
            elif cond == "!" + self.memo.get(
                    "wrappers_is_root(%s, %s)" % (self.comm, self.param_name("root")), "?"):
                read += [self.by_name_c(self.comm),
                         self.by_name_c(self.param_name("root"))]
            else:
                return None
        return read

    def by_name_c(self, cname):
        return next(p.c for p in self.params if p.c.name == cname)

    def names(self):
        return [p.name for p in self.params] + (["return"] if self.result else [])

    def outs(self):
        return [p.out for p in self.params] + ([1] if self.result else [])

    def saves(self):
        return [sv for p in self.params for sv in p.save]

    def body_call(self, args, ret=None):
        """The call of the body function, given the C values of the
        parameters (after the PMPI call) in order, and of the result."""
        return "wrappers_body_%s(%s, %s, %s)" % (
            self.f.name, self.rp, ret or self.ret,
            ", ".join(list(args) + [name for _, name, _ in self.saves()]))

    def emit_body(self):
        """The recording of a call, once it returned: a function the C and
        Fortran entry points share."""
        f, r, ret = self.f, self.r, self.ret
        params = ["struct rec *%s" % self.rp, "%s %s" % (f.ret, ret)]
        params += [p.c.text() for p in self.params]
        params += ["%s%s" % (t, name) for t, name, _ in self.saves()]
        out = ["static inline __attribute__((always_inline)) %s" % f.ret,
               "wrappers_body_%s(%s)" % (f.name, ", ".join(params)), "{"]
        body = [line for p in self.params for line in self.record(p.stmt, p.conds)]
        body = self.kept(body)
        if self.result:
            stmt = self.value(self.result, ret, f.ret) or "rec_null(&%s)" % r
            body += self.record(stmt, [])
            body += ["\trec_end(&%s, MPI_SUCCESS);" % r, "\treturn %s;" % ret]
        else:
            body += ["\treturn rec_end(&%s, %s);" % (r, ret)]
        out += ["\t" + s for s in self.setup] + body + ["}"]
        return "\n".join(out).replace("&" + r, self.rp)

    def owned(self):
        """The statuses a program may ignore, which the C entry point
        replaces by the tracer's own (STATUS_RULES): declarations before
        the call, and the name each parameter is passed as."""
        decls, names = [], []
        for p in self.params:
            if p.own is None:
                names.append(p.c.name)
                continue
            v = p.c.name
            mine = self.fresh("own_" + v)
            if p.own == "1":
                decls += ["\tMPI_Status %s_s;" % mine,
                          "\tMPI_Status *%s = rec_status_own(%s, %s, &%s_s);"
                          % (mine, self.rp, v, mine)]
            else:
                decls.append("\tMPI_Status *%s = rec_statuses_own(%s, %s, %s);"
                             % (mine, self.rp, v, p.own))
            names.append(mine)
        return decls, names

    def emit(self):
        """The C entry point."""
        f, ret, rp = self.f, self.ret, self.rp
        call = "P%s(%s)" % (f.name, ", ".join(p.c.name for p in self.params))
        rs = self.fresh("rs")
        out = ["REC_API " + f.prototype(), "{",
               "\tstruct rec %s, *%s = &%s;" % (rs, rp, rs)]
        if f.name not in NO_RETURN:
            out.append("\t%s %s;" % (f.ret, ret))
        out += ["",
               "\tif (!rec_begin(%s, RF_%s))" % (rp, f.name), "\t\treturn %s;" % call]
        out += ["\t%s%s = %s;" % sv for sv in self.saves()]
        if f.name in NO_RETURN:
            hook, arg = NO_RETURN[f.name]
            out += ["\trec_pmpi_start(%s);" % rp, "\trec_pmpi_done(%s);" % rp,
                    "\t%s;" % self.body_call((p.c.name for p in self.params),
                                             "MPI_SUCCESS"),
                    "\t%s(%s);" % (hook, arg), "\treturn %s;" % call, "}"]
            return "\n".join(out).replace("&" + self.r, rp)
        # statuses the program ignores: the call gets the tracer's own
        decls, names = self.owned()
        call = "P%s(%s)" % (f.name, ", ".join(names))
        out += decls
        out += ["\trec_pmpi_start(%s);" % rp, "\t%s = %s;" % (ret, call),
                "\trec_pmpi_done(%s);" % rp]
        # a replay's wildcard: recorded as posted (record.h, rec_as_posted)
        source, tag = self.param_name("source"), self.param_name("tag", "recvtag")
        if source and tag:
            out.append("\trec_as_posted(&%s, &%s);" % (source, tag))
        out += ["\treturn %s;" % self.body_call(names), "}"]
        return "\n".join(out).replace("&" + self.r, rp)


def ident(kind):
    return kind.replace("int:", "").replace(" ", "_")


# ---- helpers of the generated file ----------------------------------------------

FIXED_HELPERS = {
    "is_root": """\
/* The caller is the root of a rooted operation on comm: root is its rank in
 * an intracommunicator, MPI_ROOT in an intercommunicator. */
static int wrappers_is_root(MPI_Comm comm, int root)
{
	int inter = 0, rank = -1;

	if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
		return 0;
	if (inter)
		return root == MPI_ROOT;
	return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == root;
}""",
    "after": """\
/* The entries a Waitsome or Testsome wrote: none for MPI_UNDEFINED. */
static int64_t wrappers_after(const int *outcount)
{
	return outcount && *outcount != MPI_UNDEFINED ? *outcount : -1;
}""",
    "sum": """\
/* The sum of n counts (MPI_Dist_graph_create: degrees), -1 if unusable. */
static int64_t wrappers_sum(const int *a, int64_t n)
{
	int64_t i, s = 0;

	if (!a || n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (a[i] < 0)
			return -1;
		s += a[i];
	}
	return s;
}""",
    "last": """\
/* The last of n entries (MPI_Graph_create: index[nnodes-1] edges). */
static int64_t wrappers_last(const int *a, int64_t n)
{
	if (n == 0)
		return 0;
	return a && n > 0 ? a[n - 1] : -1;
}""",
    "argv": """\
/* A NULL-terminated argument vector (MPI_ARGV_NULL is NULL). */
static void wrappers_argv(struct rec *r, char *const *argv)
{
	int64_t i, n = 0;

	if (!argv) {
		rec_null(r);
		return;
	}
	while (argv[n])
		n++;
	rec_list(r, n);
	for (i = 0; i < n; i++)
		rec_string(r, argv[i]);
}""",
    "save_requests": """\
static MPI_Request *wrappers_save_requests(struct rec *r, const MPI_Request *a,
					   int64_t n)
{
	return a && n > 0 ? rec_save_requests(r, a, (int)n) : NULL;
}""",
}

COMM_HELPER = """\
static int64_t wrappers_%(rule)s(MPI_Comm comm)
{
	return comm == MPI_COMM_NULL ? -1 : %(runtime)s(comm);
}"""

LIST_HELPER = """\
static void wrappers_list_%(name)s(struct rec *r, %(params)s, int64_t n%(extra)s)
{
	int64_t i;

	%(named)sif (%(absent)s) {
		rec_null(r);
		return;
	}
	rec_list(r, n);
	for (i = 0; i < n; i++)
		%(elem)s;
}"""

# kind -> (element parameters, element recorder, absent condition, extra)
LISTS = {
    "range3": ("const int (*a)[3]",
               "{\n\t\trec_list(r, 3);\n\t\trec_int(r, a[i][0]);\n"
               "\t\trec_int(r, a[i][1]);\n\t\trec_int(r, a[i][2]);\n\t}", None, ""),
    "string": ("char *const *a",
               "if (a[i])\n\t\t\trec_string(r, a[i]);\n\t\telse\n\t\t\trec_null(r)",
               None, ""),
    "argv_list": ("char **const *a", "wrappers_argv(r, a[i])", None, ""),
    "status": ("const MPI_Status *a", "rec_status(r, &a[i])",
               "!a || n < 0", ""),
    "status_of_requests": ("const MPI_Status *a",
                           "rec_status_req(r, &a[i], (int)i)", "!a || n < 0", ""),
    "status_of_indices": ("const MPI_Status *a",
                          "rec_status_req(r, &a[i], idx ? idx[i] : -1)",
                          "!a || n < 0", ", const int *idx"),
    "request_inout": ("const MPI_Request *saved, const MPI_Request *a",
                      "rec_request_inout(r, saved[i], a[i])",
                      "!a || n < 0 || (n > 0 && !saved)", ""),
    "rank": ("const int *a", "rec_rank(r, a[i], comm)", None, ", MPI_Comm comm"),
    "disp": ("const MPI_Aint *a", "rec_disp(r, a[i])", None, ""),
}

WEIGHTS_HELPER = """\
/* Graph weights; MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are not arrays. */
static void wrappers_list_weights(struct rec *r, const int *a, int64_t n)
{
	int64_t i;

	if (a == MPI_UNWEIGHTED || a == MPI_WEIGHTS_EMPTY) {
		rec_buf(r, a);
		return;
	}
	if (!a || n < 0) {
		rec_null(r);
		return;
	}
	rec_list(r, n);
	for (i = 0; i < n; i++)
		rec_int(r, a[i]);
}"""


def helper_text(kind):
    if kind in FIXED_HELPERS:
        return FIXED_HELPERS[kind]
    if kind in COMM_RULES:
        return COMM_HELPER % {"rule": kind, "runtime": COMM_RULES[kind]}
    if kind == "weights":
        return WEIGHTS_HELPER
    if kind in LISTS:
        params, elem, absent, extra = LISTS[kind]
    elif kind.startswith("int:"):
        params, elem, absent, extra = ("const %s *a" % kind[4:], "rec_int(r, a[i])",
                                       None, "")
    else:  # a handle type, "_out" for handles the call returns
        handle = kind[:-4] if kind.endswith("_out") else kind
        ctype = [t for t, h in HANDLES.items() if h[0] == handle][0]
        params, elem, absent, extra = ("const %s *a" % ctype,
                                       "rec_%s(r, a[i])" % kind, None, "")
    named = ""
    if kind.startswith("status"):
        # an array of the tracer's own (rec_statuses_own) that holds no
        # status: what the program passed
        named = ("if (a == MPI_STATUSES_IGNORE || (r->own_status && n <= 0)) {"
                 "\n\t\trec_statuses_ignored(r);\n\t\treturn;\n\t}\n\t")
    return LIST_HELPER % {"name": ident(kind), "params": params, "extra": extra,
                          "absent": absent or "!a || n < 0", "elem": elem,
                          "named": named}


# ---- the generated file ---------------------------------------------------------

PREAMBLE = """\
/* Generated by tracer/gen/gen_wrappers.py from tracer/mpi_api.tab and the
 * installed <mpi.h>: do not edit.  How each parameter is recorded: RULES.md
 * beside the generator. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
%(extra)s
#include "record.h"
#include "fortran.h"

/* Deprecated MPI functions are wrapped like the others: programs call them. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
"""


def shared_array(out, arrays, ctype, prefix, values):
    """The name of the static array holding values, appended to out the
    first time: functions with the same parameters share them."""
    if not values:
        return "NULL"
    if values not in arrays:
        arrays[values] = "%s%d" % (prefix, len(arrays))
        out.append("static %s %s[] = {%s};" % (ctype, arrays[values], ", ".join(values)))
    return arrays[values]


def generate(wrappers, extra):
    out = [PREAMBLE % {"extra": '#include "%s"\n' % os.path.abspath(extra)
                       if extra else ""}, "enum {"]
    out += ["\tRF_%s," % w.f.name for w in wrappers]
    out += ["\tRF_COUNT", "};", ""]
    names, outs, table = {}, {}, []
    for w in wrappers:
        p = shared_array(out, names, "const char *const", "wrappers_p",
                         tuple('"%s"' % n for n in w.names()))
        o = shared_array(out, outs, "const unsigned char", "wrappers_o",
                         tuple(str(x) for x in w.outs()))
        table.append('\t{"%s", %d, %s, %s},' % (w.f.name, len(w.names()), p, o))
    out += ["", "const struct rec_func rec_funcs[] = {"] + table + ["};",
            "const uint32_t rec_nfuncs = RF_COUNT;", ""]
    for w in wrappers:
        w.fortran, w.fortran_why = gen_fortran.entries(w, HANDLES, IN_PLACE_SIDES)
    helpers = set().union(*(w.helpers for w in wrappers))
    if "argv_list" in helpers:
        helpers.add("argv")
    out += [helper_text(k) + "\n" for k in sorted(helpers)]
    out += ["\n\n".join([w.emit_body(), w.emit()] +
                        [e.emit() for e in w.fortran]) + "\n"
            for w in wrappers]
    return "\n".join(out)


# ---- main -------------------------------------------------------------------------

def excluded(name):
    """The reason name is not wrapped, or None."""
    if name in NOISE:
        return "noise"
    if name in HAND_WRITTEN:
        return "hand-written"
    if name.startswith(TOOL_PREFIX):
        return "tool"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", required=True, help="tracer/mpi_api.tab")
    ap.add_argument("--cc", required=True,
                    help="C compiler and MPI compile flags, as one string")
    ap.add_argument("--link", required=True, help="the linker command (the compiler)")
    ap.add_argument("--libs", default="", help="MPI link flags, as one string")
    ap.add_argument("--extra-header",
                    help="a header included after mpi.h (tests: fake declarations)")
    ap.add_argument("--out", required=True, help="the C file to write")
    args = ap.parse_args()
    cc, link, libs = shlex.split(args.cc), shlex.split(args.link), shlex.split(args.libs)
    table = read_table(args.table)

    with tempfile.TemporaryDirectory(prefix="gen_wrappers.") as tmp:
        try:
            header = Header(preprocess(cc, args.extra_header, tmp))
        except ValueError as e:
            die("cannot read the preprocessed <mpi.h>: %s" % e)
        declared = sorted(n for n in header.funcs if n.startswith("MPI_"))
        reasons = {n: excluded(n) for n in declared}
        wanted = [n for n in declared if reasons[n] is None]
        no_pmpi = [n for n in wanted if "P" + n not in header.funcs]
        wanted = [n for n in wanted if "P" + n in header.funcs]
        linked, missing = link_test(wanted, cc, link, libs, args.extra_header, tmp)

    wrappers = [Wrapper(header, header.funcs[n], table.get(n)) for n in linked]
    text = generate(wrappers, args.extra_header)
    try:
        with open(args.out + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(args.out + ".tmp", args.out)
    except OSError as e:
        die("cannot write %s: %s" % (args.out, e))

    for w in wrappers:
        if w.unencoded:
            warn("%s: recorded by address or as null, type unknown to the rules: %s"
                 % (w.f.name, " ".join(w.unencoded)))
    print(summary(declared, reasons, wrappers, missing, no_pmpi))
    return 0


def summary(declared, reasons, wrappers, missing, no_pmpi):
    """The one line the build prints."""
    counts = {why: list(reasons.values()).count(why) for why in ("hand-written", "tool")}
    line = ("gen_wrappers: %d MPI functions wrapped (%d declared in mpi.h;"
            " excluded: %s, %d hand-written, %d MPI_T_; %d declared but not linkable%s"
            % (len(wrappers), len(declared),
               " ".join(n for n in declared if reasons[n] == "noise") or "-",
               counts["hand-written"], counts["tool"], len(missing),
               (": " + " ".join(missing)) if missing else ""))
    if no_pmpi:
        line += "; %d without a PMPI_ declaration: %s" % (len(no_pmpi), " ".join(no_pmpi))
    c_only = [w.f.name for w in wrappers if not w.from_table]
    if c_only:
        line += "; %d encoded from C types alone: %s" % (len(c_only), " ".join(c_only))
    line += ")"
    with_f = [w for w in wrappers if w.fortran]
    odd = ["%s (%s)" % (w.f.name, w.fortran_why) for w in wrappers
           if not w.fortran and w.fortran_why.startswith("parameter")]
    line += ("\ngen_wrappers: Fortran: %d functions with entry points (%d for mpif.h"
             " and use mpi, %d for use mpi_f08), %d without a Fortran binding"
             " of the same parameters%s"
             % (len(with_f), sum(e.flavour == "mpif" for w in with_f for e in w.fortran),
                sum(e.flavour != "mpif" for w in with_f for e in w.fortran),
                len(wrappers) - len(with_f) - len(odd),
                "; not converted: " + ", ".join(odd) if odd else ""))
    return line


if __name__ == "__main__":
    sys.exit(main())
