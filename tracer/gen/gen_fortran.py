"""The Fortran entry points of tracer/wrappers.c (imported by gen_wrappers.py).

A Fortran program calls the library's Fortran bindings, not its C functions:
mpi_send_ for mpif.h and `use mpi`, mpi_send_f08_ (Open MPI) or
mpi_send_f08ts_ (MPICH, choice buffers as descriptors) for `use mpi_f08`.
Open MPI's bindings call PMPI_* directly, so C wrappers see none of their
calls.  So the tracer defines those entry points too.  Each one forwards the
call, arguments untouched, to the library's own profiling entry point of the
same binding (pmpi_send_, pmpi_send_f08_, pmpir_send_f08ts_): what the
program sees (ierr, 1-based indices, blank-padded strings, its handles) is
what the library gives.  The values the call was made with are converted to
C (handles through the f2c functions, sentinels such as MPI_IN_PLACE to
their C values, statuses, 1-based indices to 0-based, strings trimmed) and
recorded by the same body function as the C call: a Fortran call and the C
call that does the same thing are recorded alike.  While the forwarded call
runs, the C function of the same name the binding calls (MPICH's do, but
for its mpi_f08 functions without a buffer; fortran.h, FORT_CALLS_C) is
marked as its forwarding (record.h, rec_forward) and not recorded again,
whatever calls it on the way (another PMPI tool stacked before rondo); the
other C functions it calls come from the MPI library and are not recorded
either (record.c, rec_begin_at).

RULES.md, "Fortran", lists the rules; the runtime support (sentinels,
conversions, finding the library's entry points) is tracer/fortran.c.
"""

import re

# Functions that do not return: the call is recorded before the PMPI call,
# then the tracer is told (the hook, and the parameter it is given).
NO_RETURN = {"MPI_Abort": ("rt_abort", "errorcode")}

# Bindings, as record.h numbers them.
BINDINGS = {"mpif": "REC_BIND_F", "f08": "REC_BIND_F08", "f08ts": "REC_BIND_F08"}
# Integer types a Fortran binding passes as themselves (INTEGER(KIND=...));
# other integers are INTEGER, MPI_Fint.
WIDE = {"MPI_Aint", "MPI_Offset", "MPI_Count"}
# void * values that Fortran passes as an address-sized integer
# (INTEGER(KIND=MPI_ADDRESS_KIND)), or a default INTEGER (_10 and
# EXTRA_STATE2: MPI-1's attribute functions).
ADDRESS_VALUES = {"ATTRIBUTE_VAL": "MPI_Aint", "EXTRA_STATE": "MPI_Aint",
                  "ATTRIBUTE_VAL_10": "MPI_Fint", "EXTRA_STATE2": "MPI_Fint"}
# Outputs where C stores a pointer: Fortran gets an address-sized integer
# (mpif.h) or a TYPE(C_PTR) (mpi_f08), the same bytes.
POINTER_OUTPUTS = {"C_BUFFER": "MPI_Aint", "ATTRIBUTE_VAL": "MPI_Aint",
                   "ATTRIBUTE_VAL_10": "MPI_Fint"}
# Outputs indexing an array of requests: 1-based in Fortran.
ONE_BASED = {("MPI_Waitany", "index"), ("MPI_Testany", "index"),
             ("MPI_Waitsome", "array_of_indices"),
             ("MPI_Testsome", "array_of_indices")}
# Functions whose Fortran binding has other parameters than the C one.
DIFFERENT = {"MPI_Info_create_env"}  # Fortran: no argc, argv
# C functions without a Fortran binding: conversions between the
# languages.
C_ONLY = re.compile(r"_(c2f|f2c|f082c|c2f08|f2f08|f082f)$")
OK = "(*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS)"


class Unsupported(Exception):
    pass


class FortranEntry:
    """One Fortran entry point of a wrapped function: flavour "mpif"
    (mpif.h and `use mpi`), "f08" (mpi_f08, buffers by address) or
    "f08ts" (mpi_f08, buffers as array descriptors)."""

    def __init__(self, w, flavour, handles, in_place_sides):
        self.w, self.flavour, self.handles = w, flavour, handles
        self.in_place_sides = in_place_sides
        self.large = w.f.name.endswith("_c")
        self.fargs = []    # the Fortran parameters, C declarations
        self.fnames = []   # and their names
        self.hidden = []   # hidden string lengths
        self.locals = []   # C values: declarations with their value
        self.pre, self.post = [], []
        for p in w.params:
            self.param(p)

    # -- names ------------------------------------------------------------
    def base(self):
        name = self.w.f.name[:-2] if self.large else self.w.f.name
        return name.lower()

    def symbols(self):
        b = self.base()
        if self.flavour == "mpif":
            return [b + "_", b + "__", b, b.upper()]
        return [b + "_" + self.flavour + ("_large" if self.large else "") + "_"]

    def targets(self):
        """The library's entry points this one forwards to, by preference."""
        if self.flavour == "mpif":
            b = "p" + self.base()
            return [b + "_", b, b + "__", b.upper()]
        s = self.symbols()[0]
        return ["p" + s, "pmpir" + s[3:]]

    # -- parameters ---------------------------------------------------------
    def fparam(self, ctype, v):
        f = "f_" + v
        self.fargs.append(ctype % f if "%" in ctype else ctype + f)
        self.fnames.append(f)
        return f

    def val(self, p, expr, when="pre"):
        """The C value of p is expr, computed before the call or after."""
        v = p.c.name
        if when == "pre":
            self.locals.append("%s = %s;" % (p.c.local(v), expr))
        else:
            self.locals.append("%s = 0;" % p.c.local(v))
            self.post.append("%s = %s;" % (v, expr))

    def param(self, p):
        c, v, w = p.c, p.c.name, self.w
        kind_of = w.h.kind_of(c.base)
        if c.base == "MPI_Fint" or p.kind in ("F90_STATUS", "F08_STATUS"):
            raise Unsupported(v)
        if c.funcptr or (kind_of == "func" and c.depth == 1) or \
                (kind_of == "funcptr" and c.depth == 0):
            f = self.fparam("void (*%s)(void)", v)
            self.val(p, "(__typeof__(%s))%s" % (v, f))
        elif c.depth == 0 and c.base in self.handles:
            f = self.fparam("MPI_Fint *", v)
            self.val(p, "fort_%s(*%s)" % (self.handles[c.base][0], f))
        elif c.depth == 0 and kind_of == "int":
            t = c.base if c.base in WIDE else "MPI_Fint"
            f = self.fparam(t + " *", v)
            self.val(p, "(*%s != 0)" % f if p.kind.startswith("LOGICAL")
                     else "*" + f)
        elif c.base == "void" and c.depth == 1:
            self.void_pointer(p)
        elif c.base == "char":
            f = self.fparam("char *", v)
            self.hidden.append("size_t %s_len" % f)
            if c.depth == 1:
                self.val(p, "fort_string(rp, %s, %s_len)" % (f, f), "post")
            else:  # arrays of strings: not converted
                self.val(p, "NULL")
        elif c.base == "MPI_Status" and c.depth == 1 and p.length is None:
            f = self.fparam("MPI_Fint *", v)
            self.locals.append("MPI_Status %s_c;" % v)
            if p.own:
                self.pre.append("%s = fort_status_own(rp, %s, 1, 0);" % (f, f))
            self.val(p, "fort_status(%s, &%s_c)" % (f, v),
                     "pre" if p.direction == "in" else "post")
        elif c.base == "MPI_Status":
            f = self.fparam("MPI_Fint *", v)
            if p.own:
                self.pre.append("%s = fort_status_own(rp, %s, %s, 1);"
                                % (f, f, p.own))
            self.post_ok(p, "fort_statuses(rp, %s, %s)" % (f, self.length(p)))
        elif c.base in self.handles and c.depth == 1:
            self.handle_pointer(p)
        elif kind_of == "int" and c.depth == 1 and \
                not (c.dims and c.dims != [""]) or c.dims == ["", "3"]:
            self.int_pointer(p)
        else:
            raise Unsupported(v)

    def f08(self):
        return int(self.flavour != "mpif")

    def length(self, p, of=None):
        """The number of elements of p as a C expression of the C values."""
        of = of or p
        length = of.length
        if length is None or length == "*" or length.startswith("MPI_"):
            raise Unsupported(p.c.name)
        length = length.split("*")[0]
        m = re.match(r"^(\w+)\((\w+)\)$", length)
        src = self.w.by_name.get(m.group(2) if m else length)
        if src is None:
            raise Unsupported(p.c.name)
        v = src.c.name
        if not m:
            return "(%s ? *%s : -1)" % (v, v) if src.c.depth else v
        rule = m.group(1)
        if rule in ("comm_size", "indegree", "outdegree", "cart_ndims"):
            self.w.helpers.add(rule)
            return "wrappers_%s(%s)" % (rule, v)
        if rule == "after":
            self.w.helpers.add(rule)
            return "wrappers_after(%s)" % v
        if rule in ("sum", "last"):
            self.w.helpers.add(rule)
            return "wrappers_%s(%s, %s)" % (rule, v, self.length(p, src))
        raise Unsupported(p.c.name)

    def post_ok(self, p, expr):
        """p's C value after a call that succeeded (its length may be
        garbage otherwise); NULL after one that failed."""
        self.locals.append("%s = NULL;" % p.c.local(p.c.name))
        self.post.append("if %s\n\t\t%s = %s;" % (OK, p.c.name, expr))

    def void_pointer(self, p):
        v, kind = p.c.name, p.kind
        if p.direction == "out" and kind in POINTER_OUTPUTS:
            f = self.fparam(POINTER_OUTPUTS[kind] + " *", v)
            self.locals.append("void *%s_p = NULL;" % v)
            self.val(p, "&%s_p" % v)
            self.post.append("%s_p = (void *)(intptr_t)*%s;" % (v, f))
        elif p.direction == "out" and kind == "C_BUFFER2":
            f = self.fparam("void *", v)
            self.locals.append("void *%s_p = %s;" % (v, f))
            self.val(p, "&%s_p" % v)
        elif kind in ADDRESS_VALUES:
            f = self.fparam(ADDRESS_VALUES[kind] + " *", v)
            self.val(p, "(void *)(intptr_t)*%s" % f)
        else:  # a choice buffer, an address
            f = self.fparam("void *", v)
            if self.flavour == "f08ts" and kind == "BUFFER":
                self.val(p, "fort_buf(fort_desc(%s))" % f)
            else:
                self.val(p, "fort_buf(%s)" % f)

    def handle_pointer(self, p):
        """Handles by address: converted before the call when they go in,
        after it when they come out; requests that went in change only to
        null (fort_request(s)_after), so they are not converted again."""
        c, v = p.c, p.c.name
        f = self.fparam("MPI_Fint *", v)
        name, null = self.handles[c.base]
        again = p.direction == "inout" and c.base == "MPI_Request"
        if p.length is None and not c.dims:  # one handle
            self.locals.append("%s %s_c = %s;" % (c.base, v, null))
            self.val(p, "%s ? &%s_c : NULL" % (f, v))
            one = "if (%s)\n\t\t%s_c = fort_%s(*%s);" % (f, v, name, f)
            if p.direction != "out":
                self.pre.append(one)
            if again:
                self.post.append("fort_request_after(%s, &%s_c);" % (f, v))
            elif p.direction != "in":
                self.post.append(one)
            return
        n = self.length(p)
        self.locals.append("%s = NULL;" % c.local(v))
        # an array MPI_IN_PLACE makes meaningless may be a scalar dummy
        skip = self.in_place_skip(p)
        conv = "%s = %sfort_list_%s(rp, %s, %s);" % (v, skip, name, f, n)
        if p.direction != "out":
            self.pre.append(conv)
        if again:
            self.post.append("if %s\n\t\tfort_requests_after(%s, %s, %s);"
                             % (OK, f, v, n))
        elif p.direction != "in":
            self.post.append("if %s\n\t\t%s" % (OK, conv))

    def in_place_skip(self, p):
        for buf, (funcs, side) in self.in_place_sides.items():
            if p.name in side and buf in self.w.by_name and \
                    funcs.match(self.w.f.name):
                return "%s == MPI_IN_PLACE ? NULL : " % self.w.by_name[buf].c.name
        return ""

    def int_pointer(self, p):
        c, v = p.c, p.c.name
        t = c.base if c.base in WIDE else "MPI_Fint"
        f = self.fparam(t + " *", v)
        if (self.w.f.name, p.name) in ONE_BASED:
            if p.length is None:
                self.locals.append("int %s_c = 0;" % v)
                self.val(p, "%s ? &%s_c : NULL" % (f, v))
                self.post.append("if (%s)\n\t\t%s_c = fort_index(*%s, %d);"
                                 % (f, v, f, self.f08()))
            else:
                self.post_ok(p, "fort_indices(rp, %s, %s, %d)"
                             % (f, self.length(p), self.f08()))
        elif p.kind == "WEIGHT":
            self.val(p, "fort_weights(%s)" % f)
        elif p.kind == "ERROR_CODE" and p.length is not None:
            self.val(p, "fort_errcodes(%s)" % f)
        else:
            self.val(p, "(__typeof__(%s))%s" % (v, f))

    # -- output -------------------------------------------------------------
    def emit(self):
        w = self.w
        fn = "wrappers_%s_%s" % (self.flavour, w.f.name)
        params = self.fargs + ["MPI_Fint *ierr"] + self.hidden
        call = "next(%s)" % ", ".join(
            self.fnames + ["ierr"] + [h.split()[-1] for h in self.hidden])
        rs, rp = w.fresh("rs"), w.rp
        # the library's nested C call of the function is the forwarding
        # (record.h, rec_forward), recorded or not, where it makes one
        fw, cc, rf = w.fresh("fw"), w.fresh("calls_c"), "RF_" + w.f.name
        out = ["static void %s(%s)" % (fn, ", ".join(params)), "{",
               "\tstatic const char *const names[] = {%s, NULL};"
               % ", ".join('"%s"' % t for t in self.targets()),
               "\tstatic __typeof__(%s) *next;" % fn,
               "\tstatic unsigned char %s = FORT_CALLS_C_%s;"
               % (cc, self.flavour.upper()),
               "\tstruct rec %s, *%s = &%s;" % (rs, rp, rs)]
        if self.flavour != "mpif":
            out += ["\tMPI_Fint ierr_own = MPI_SUCCESS;", "",
                    "\tif (!ierr) /* optional in mpi_f08 */",
                    "\t\tierr = &ierr_own;"]
        else:
            out.append("")
        out += ["\tif (!next && !(next = fort_next(names))) {",
                "\t\tfort_missing(names[0], ierr);", "\t\treturn;", "\t}",
                "\tif (!rec_begin_binding(%s, %s, %s)) {"
                % (rp, rf, BINDINGS[self.flavour]),
                "\t\tuint64_t %s = rec_forward(%s, &%s);" % (fw, rf, cc), "",
                "\t\t%s;" % call,
                "\t\trec_forward_done(%s, %s, &%s);" % (rf, fw, cc),
                "\t\treturn;", "\t}"]
        out += ["\t" + s for s in self.locals + self.pre]
        out += ["\t%s%s = %s;" % sv for sv in w.saves()]
        if w.f.name in NO_RETURN:
            # recorded first: the call does not come back
            hook, arg = NO_RETURN[w.f.name]
            out += ["\trec_pmpi_start(%s);" % rp, "\trec_pmpi_done(%s);" % rp,
                    "\t%s;" % w.body_call((p.c.name for p in w.params),
                                          "MPI_SUCCESS"),
                    "\t%s(%s);" % (hook, arg),
                    "\trec_forward(%s, &%s);" % (rf, cc), "\t%s;" % call, "}"]
        else:
            out += ["\tuint64_t %s = rec_forward(%s, &%s);" % (fw, rf, cc),
                    "\trec_pmpi_start(%s);" % rp, "\t%s;" % call,
                    "\trec_pmpi_done(%s);" % rp,
                    "\trec_forward_done(%s, %s, &%s);" % (rf, fw, cc)]
            out += ["\t" + s for s in self.post]
            out += ["\t%s;" % w.body_call((p.c.name for p in w.params), "*ierr"), "}"]
        for i, s in enumerate(self.symbols()):
            out.append('extern __typeof__(%s) %s_%d __asm__("%s")\n'
                       '\t__attribute__((alias("%s"), visibility("default")));'
                       % (fn, fn, i, s, fn))
        return "\n".join(out).replace("&" + w.r, rp)


def has_buffer(w):
    return any(p.kind == "BUFFER" and p.c.base == "void" for p in w.params)


def entries(w, handles, in_place_sides):
    """The Fortran entry points of wrapper w, and the reason it has none
    (handles, in_place_sides: gen_wrappers.py's HANDLES, IN_PLACE_SIDES)."""
    name = w.f.name
    if name in DIFFERENT or C_ONLY.search(name) or w.result or \
            name.startswith(("MPIX_", "PMPI")) or not w.from_table:
        return [], "no Fortran binding of the same parameters"
    flavours = ["f08"] if name.endswith("_c") else ["mpif", "f08"]
    if has_buffer(w):
        flavours.append("f08ts")
    try:
        return [FortranEntry(w, f, handles, in_place_sides)
                for f in flavours], None
    except Unsupported as e:
        return [], "parameter %s" % e
