/*
 * trace.c - opening a .rondo file: the handle, its errors, the version.
 *
 * Opening reads the file once, checks the container, then decodes the
 * sections in dependency order (functions, signatures, grammar, rank map,
 * statistics, communicators, per-rank times), each decoder checking its
 * references against what came before, and prepares what the accessors
 * need (rank groups, timing walks, the rank resolver's index).  After a
 * successful open every accessor (tables.c, ranks.c) is a lookup.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "trace_int.h"
#include "util.h"

unsigned rondo_version_number(void)
{
	return RONDO_VERSION_NUMBER;
}

const char *rondo_version_string(void)
{
	return RONDO_VERSION_STRING;
}

const char *rondo_strerror(int code)
{
	switch (code) {
	case RONDO_OK: return "success";
	case RONDO_E_IO: return "input/output error";
	case RONDO_E_NOMEM: return "out of memory";
	case RONDO_E_NOTRONDO: return "not a rondo trace";
	case RONDO_E_VERSION: return "unsupported format version";
	case RONDO_E_TRUNCATED: return "truncated file";
	case RONDO_E_CORRUPT: return "corrupt file";
	case RONDO_E_MISSING: return "missing section";
	case RONDO_E_RANGE: return "argument out of range";
	case RONDO_E_STATE: return "handle not usable";
	default: return "unknown error";
	}
}

rondo_trace *rondo_trace_create(void)
{
	return calloc(1, sizeof(rondo_trace));
}

void rondo_trace_free(rondo_trace *t)
{
	if (!t)
		return;
	fmt_meta_free(&t->meta);
	fmt_funcs_free(&t->funcs);
	fmt_consts_free(&t->consts);
	fmt_cst_free(&t->cst);
	fmt_grammar_free(&t->g);
	fmt_rankmap_free(&t->rm);
	fmt_stats_free(&t->stats);
	fmt_stats_free(&t->gaps);
	fmt_groupgaps_free(&t->ggaps);
	fmt_hists_free(&t->hists);
	fmt_comms_free(&t->comms);
	fmt_topos_free(&t->topos);
	fmt_typesizes_free(&t->typesizes);
	fmt_ranktime_free(&t->times);
	fmt_ranksum_free(&t->sum);
	fmt_timing_free(&t->timing);
	fmt_rankvals_free(&t->rankvals);
	free(t->vary);
	fmt_tscale_free(&t->tscale);
	free(t->tseq);
	free(t->ttimed);
	ranks_free(t);
	fmt_container_free(&t->c);
	free(t->rule_calls);
	free(t->rank_root);
	free(t->rank_group);
	free(t->groups);
	free(t->data);
	free(t->name);
	free(t);
}

const char *rondo_trace_error(const rondo_trace *t)
{
	return t ? t->err : "no trace handle";
}

static int trace_fail(rondo_trace *t, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int trace_fail(rondo_trace *t, int code, const char *fmt, ...)
{
	va_list ap;

	memset(&t->einfo, 0, sizeof(t->einfo));
	t->einfo.code = code;
	char name[FILEIO_SHORT];
	int n = snprintf(t->err, sizeof(t->err),
			 "%s: ", fileio_short(name, sizeof(name), t->name));

	if (n < 0 || (size_t)n >= sizeof(t->err))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(t->err + n, sizeof(t->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

/* The codec's error detail as the handle's one-line message. */
static int trace_fail_text(rondo_trace *t, const struct fmt_err *e)
{
	if (!e->section)
		return trace_fail(t, e->code, "%s (at byte %llu)", e->msg,
				  (unsigned long long)e->offset);
	if (e->size)
		return trace_fail(
			t, e->code, "section '%s': %s (at byte %llu of %llu)",
			e->section, e->msg, (unsigned long long)e->offset,
			(unsigned long long)e->size);
	return trace_fail(t, e->code, "section '%s': %s (at byte %llu)",
			  e->section, e->msg, (unsigned long long)e->offset);
}

/* Turns a codec's error detail into the handle's one-line message, and
 * keeps it as data. */
static int trace_fail_fmt(rondo_trace *t, const struct fmt_err *e)
{
	int code = trace_fail_text(t, e);

	t->einfo.section = e->section;
	t->einfo.offset = e->offset;
	t->einfo.size = e->size;
	t->einfo.has_offset = 1;
	return code;
}

int rondo_trace_error_info(const rondo_trace *t, rondo_error *out)
{
	if (!out)
		return RONDO_E_RANGE;
	memset(out, 0, sizeof(*out));
	if (!t)
		return RONDO_OK;
	*out = t->einfo;
	return out->code;
}

/* The file whole: checked to be a regular file before it is read, so a
 * FIFO or a device named by mistake is refused, not waited on. */
static int trace_read_file(rondo_trace *t, const char *path)
{
	char why[256];
	int err = fileio_read(path, SIZE_MAX / 2, &t->data, &t->size, why,
			      sizeof(why));

	if (err)
		return trace_fail(t,
				  err == ENOMEM || err == EFBIG ? RONDO_E_NOMEM
								: RONDO_E_IO,
				  "%s", why);
	return 0;
}

/* What a reader goes without when section `type` is damaged, or NULL when
 * the calls cannot be read without it. */
static const char *trace_spared(uint32_t type)
{
	switch (type) {
	case FMT_SEC_FUNCS:
	case FMT_SEC_CONSTS:
	case FMT_SEC_CST:
	case FMT_SEC_GRAMMAR:
	case FMT_SEC_RANKMAP:
	case FMT_SEC_COMMS:
	case FMT_SEC_TYPESIZES:
	case FMT_SEC_RANKVALS: return NULL;
	case FMT_SEC_META:
		return "the run's facts (command, date, tracer) not shown";
	case FMT_SEC_STATS:
	case FMT_SEC_SIGSTATS: return "statistics not shown";
	case FMT_SEC_GAPSTATS:
	case FMT_SEC_GROUPGAPS: return "the time between calls not shown";
	case FMT_SEC_RANKTIME:
	case FMT_SEC_RANKSUM: return "per-rank times not shown";
	case FMT_SEC_TIMING: return "per-call times not shown";
	case FMT_SEC_TOPOLOGY: return "Cartesian topologies not shown";
	case FMT_SEC_HISTS:
		return "merged loops' counts and merged values not shown "
		       "(loops run their kept count, values as written)";
	case FMT_SEC_INDEX:
		return "nothing lost (it repeats the section table)";
	default: return "nothing lost (this version does not read it)";
	}
}

static void trace_note(rondo_trace *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void trace_note(rondo_trace *t, const char *fmt, ...)
{
	va_list ap;

	if (t->ndamage >= TRACE_MAX_DAMAGE)
		return;
	va_start(ap, fmt);
	vsnprintf(t->damage[t->ndamage++], sizeof(t->damage[0]), fmt, ap);
	va_end(ap);
}

/* The note of a grammar cut by the end of the file: whose calls are
 * lost. */
static void trace_lost_note(rondo_trace *t)
{
	uint32_t *lost = malloc(sizeof(*lost) * (t->nlost ? t->nlost : 1));
	char ranks[160] = "";
	uint32_t k = 0;

	for (uint32_t r = 0; lost && r < t->rm.nranks; r++)
		if (t->rank_root[r] == t->lost_rule)
			lost[k++] = r;
	if (lost)
		util_put_ranks(ranks, sizeof(ranks), lost, k);
	if (strlen(ranks) > 60)
		memcpy(ranks + 57, "...", 4); /* the count follows */
	free(lost);
	if (!t->nlost)
		trace_note(t, "section 'grammar' cut by the end of the file: "
			      "no rank's calls lost");
	else
		trace_note(
			t,
			"section 'grammar' cut by the end of the file: the "
			"calls of rank%s %s lost (%u of %u)%s",
			t->nlost == 1 ? "" : "s", ranks, t->nlost, t->rm.nranks,
			t->nlost < t->rm.nranks ? ", the others' whole" : "");
}

/* The notes of a file that opened with parts missing: the cut, then each
 * section left out. */
static void trace_damage_notes(rondo_trace *t)
{
	const struct fmt_container *c = &t->c;

	if (c->want > c->size)
		trace_note(t, "truncated: %llu of %llu bytes",
			   (unsigned long long)c->size,
			   (unsigned long long)c->want);
	if (c->table_bad)
		trace_note(t, "section table damaged (checksum mismatch): "
			      "sections found from the index");
	if (c->lost)
		trace_note(t,
			   "%u sections lost with the end of the file, "
			   "with their table entries",
			   c->lost);
	for (uint32_t i = 0; i < c->nsec; i++)
		if (c->sec[i].type == FMT_SEC_GRAMMAR &&
		    t->lost_rule != UINT32_MAX)
			trace_lost_note(t);
		else if (c->sec[i].state != FMT_SEC_WHOLE)
			trace_note(t, "section '%s' %s: %s",
				   fmt_section_name(c->sec[i].type),
				   c->sec[i].state == FMT_SEC_CUT
					   ? "cut by the end of the file"
					   : "damaged (checksum mismatch)",
				   trace_spared(c->sec[i].type));
}

const char *rondo_trace_damage(const rondo_trace *t, uint32_t i)
{
	return t && t->opened && i < t->ndamage ? t->damage[i] : NULL;
}

/* Why a section the calls need is not there whole: TRUNCATED or
 * CORRUPT, or MISSING for a file that never had one. */
static int trace_needed(rondo_trace *t, uint32_t type, int idx)
{
	const struct fmt_container *c = &t->c;
	int code = idx < 0 && !c->lost ? RONDO_E_MISSING : RONDO_E_TRUNCATED;

	if (idx >= 0 && c->sec[idx].state == FMT_SEC_BAD)
		trace_fail(t, RONDO_E_CORRUPT,
			   "section '%s' damaged (checksum mismatch), and the "
			   "calls cannot be read without it",
			   fmt_section_name(type));
	else if (idx >= 0)
		trace_fail(t, code,
			   "truncated: %llu of %llu bytes, inside section "
			   "'%s', which the calls need",
			   (unsigned long long)c->size,
			   (unsigned long long)c->want, fmt_section_name(type));
	else if (code == RONDO_E_TRUNCATED)
		trace_fail(t, code,
			   "truncated: %llu of %llu bytes; section '%s', which "
			   "the calls need, is lost with the end of the file",
			   (unsigned long long)c->size,
			   (unsigned long long)c->want, fmt_section_name(type));
	else
		trace_fail(t, code, "no '%s' section", fmt_section_name(type));
	t->einfo.section = fmt_section_name(type);
	return t->einfo.code;
}

/* Loads section `type`; *raw is NULL with rc 0 if it is absent and
 * optional, or damaged and the calls can be read without it. */
static int trace_section(rondo_trace *t, uint32_t type, int required,
			 uint8_t **raw, size_t *len)
{
	struct fmt_err e = {0};
	int idx = fmt_container_find(&t->c, type);
	int rc;

	*raw = NULL;
	*len = 0;
	if (idx < 0 && !required)
		return 0;
	if (idx >= 0 && t->c.sec[idx].state != FMT_SEC_WHOLE &&
	    trace_spared(type))
		return 0;
	if (idx < 0 || t->c.sec[idx].state != FMT_SEC_WHOLE)
		return trace_needed(t, type, idx);
	rc = fmt_section_load(&t->c, (uint32_t)idx, raw, len, &e);
	return rc < 0 ? trace_fail_fmt(t, &e) : 0;
}

/* The call grammar; cut by the end of the file, with its rank map whole
 * (written before it), the rules whole before the cut and an empty one
 * for the ranks whose roots were lost.  *nrules: the rules the rank map
 * may name (the whole grammar's). */
static int trace_grammar(rondo_trace *t, uint32_t *nrules)
{
	int idx = fmt_container_find(&t->c, FMT_SEC_GRAMMAR);
	int map = fmt_container_find(&t->c, FMT_SEC_RANKMAP);
	struct fmt_err e = {0};
	uint8_t *p;
	size_t n;
	int rc;

	t->lost_rule = UINT32_MAX;
	/* cut, it is read only with the rank map; cut before the grammar,
	 * the rank map is what the calls need first */
	if (idx >= 0 && t->c.sec[idx].state == FMT_SEC_CUT &&
	    (map < 0 || t->c.sec[map].state != FMT_SEC_WHOLE))
		return trace_needed(t, FMT_SEC_RANKMAP, map);
	if (idx < 0 || t->c.sec[idx].state != FMT_SEC_CUT) {
		rc = trace_section(t, FMT_SEC_GRAMMAR, 1, &p, &n);
		if (rc < 0)
			return rc;
		rc = fmt_grammar_decode(&t->g, p, n, t->cst.n, &t->rule_calls,
					&e);
		free(p);
		*nrules = t->g.nrules;
		return rc < 0 ? trace_fail_fmt(t, &e) : 0;
	}
	rc = fmt_section_load_cut(&t->c, (uint32_t)idx, &p, &n, &e);
	if (rc == 0) {
		rc = fmt_grammar_decode_cut(&t->g, p, n, t->c.sec[idx].raw,
					    t->cst.n, &t->rule_calls, nrules,
					    &e);
		free(p);
	}
	if (rc < 0)
		return trace_fail_fmt(t, &e);
	t->lost_rule = t->g.nrules - 1;
	return 0;
}

/* Decodes the sections the API needs, each checked against the ones it
 * refers to. */
static int trace_decode(rondo_trace *t)
{
	struct fmt_err e = {0};
	uint32_t nrules;
	uint8_t *p;
	size_t n;
	int rc;

#define DECODE(type, required, call)                                           \
	do {                                                                   \
		rc = trace_section(t, type, required, &p, &n);                 \
		if (rc < 0)                                                    \
			return rc;                                             \
		if (p) {                                                       \
			rc = (call);                                           \
			free(p);                                               \
			if (rc < 0)                                            \
				return trace_fail_fmt(t, &e);                  \
		}                                                              \
	} while (0)

	DECODE(FMT_SEC_META, 0, fmt_meta_decode(&t->meta, p, n, &e));
	DECODE(FMT_SEC_FUNCS, 1, fmt_funcs_decode(&t->funcs, p, n, &e));
	DECODE(FMT_SEC_CONSTS, 0, fmt_consts_decode(&t->consts, p, n, &e));
	DECODE(FMT_SEC_CST, 1, fmt_cst_decode(&t->cst, p, n, t->funcs.n, &e));
	rc = trace_grammar(t, &nrules);
	if (rc < 0)
		return rc;
	DECODE(FMT_SEC_RANKMAP, 1,
	       fmt_rankmap_decode(&t->rm, p, n, nrules, &e));
	/* merged loops' sites are in the rules: with a cut grammar, some
	 * are lost */
	if (t->lost_rule == UINT32_MAX)
		DECODE(FMT_SEC_HISTS, 0,
		       fmt_hists_decode(&t->hists, p, n, &t->g, t->rm.nranks,
					&e));
	DECODE(FMT_SEC_SIGSTATS, 0,
	       fmt_sigstats_decode(&t->stats, p, n, t->cst.n, &e));
	if (!t->stats.st) /* an older file's */
		DECODE(FMT_SEC_STATS, 0,
		       fmt_stats_decode(&t->stats, p, n, t->cst.n, &e));
	DECODE(FMT_SEC_GAPSTATS, 0,
	       fmt_sigstats_decode(&t->gaps, p, n, t->cst.n, &e));
	/* each group's time between calls is by root: with a cut grammar,
	 * some roots are lost (the section's own note says so) */
	if (t->lost_rule == UINT32_MAX)
		DECODE(FMT_SEC_GROUPGAPS, 0,
		       fmt_groupgaps_decode(&t->ggaps, p, n, t->g.nrules,
					    t->cst.n, &e));
	DECODE(FMT_SEC_COMMS, 0,
	       fmt_comms_decode(&t->comms, p, n, t->rm.nranks, &e));
	DECODE(FMT_SEC_TOPOLOGY, 0,
	       fmt_topos_decode(&t->topos, p, n, &t->comms, &e));
	DECODE(FMT_SEC_TYPESIZES, 0,
	       fmt_typesizes_decode(&t->typesizes, p, n, t->consts.n, &e));
	DECODE(FMT_SEC_RANKTIME, 0,
	       fmt_ranktime_decode(&t->times, p, n, t->rm.nranks, t->cst.n,
				   &e));
	if (!t->times.at) /* each rank's times, when there are, say more */
		DECODE(FMT_SEC_RANKSUM, 0,
		       fmt_ranksum_decode(&t->sum, p, n, t->rm.nranks, t->cst.n,
					  &e));
	t->summed = t->sum.mpi != NULL;
	if (t->times.at &&
	    fmt_ranksum_make(&t->sum, &t->times, FMT_RANKSUM_KMAX, NULL))
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	DECODE(FMT_SEC_TIMING, 0,
	       fmt_timing_decode(&t->timing, p, n, t->rm.nranks, &e));
	DECODE(FMT_SEC_RANKVALS, 0,
	       fmt_rankvals_decode(&t->rankvals, p, n, t->rm.nranks, &e));
#undef DECODE
	return 0;
}

/* Expands the rank map (one rule per rank) and groups ranks by root. */
static int trace_rank_groups(rondo_trace *t)
{
	uint32_t nranks = t->rm.nranks, depth, *group_of;
	struct walk w;
	int rc;

	t->rank_root = malloc(sizeof(uint32_t) * nranks);
	t->rank_group = malloc(sizeof(uint32_t) * nranks);
	group_of = malloc(sizeof(uint32_t) * (t->g.nrules ? t->g.nrules : 1));
	t->groups = malloc(sizeof(*t->groups) * nranks);
	rc = walk_depth(&t->rm.map, &depth);
	if (!t->rank_root || !t->rank_group || !group_of || !t->groups ||
	    rc < 0 ||
	    walk_init(&w, &t->rm.map, t->rm.len, depth, t->rm.map.nrules - 1) <
		    0) {
		free(group_of);
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	}
	memset(group_of, 0xff, sizeof(uint32_t) * t->g.nrules);
	for (uint32_t r = 0; r < nranks; r++) {
		uint32_t root = 0;

		walk_next(&w, &root); /* the decoder checked the length */
		if (root >= t->g.nrules - 1 && t->lost_rule != UINT32_MAX) {
			root = t->lost_rule; /* past the cut: lost */
			t->nlost++;
		}
		if (group_of[root] == UINT32_MAX) {
			group_of[root] = t->ngroups;
			t->groups[t->ngroups++] =
				(struct trace_group){root, 0, UINT32_MAX};
		}
		t->rank_root[r] = root;
		t->rank_group[r] = group_of[root];
		t->groups[group_of[root]].size++;
	}
	walk_free(&w);
	/* each group's time before calls: roots increase in the section */
	for (uint32_t k = 0; k < t->ggaps.n; k++)
		if (group_of[t->ggaps.root[k]] != UINT32_MAX)
			t->groups[group_of[t->ggaps.root[k]]].gaps = k;
	free(group_of);
	return 0;
}

/* Each rank's timed calls, no more than its calls: from 1.8 its coded
 * segments' calls; before, the timing map (two rules per rank) expanded,
 * each rank's durations and intervals as many. */
static int trace_timing(rondo_trace *t)
{
	struct fmt_timing *tm = &t->timing;
	uint32_t depth;
	struct walk w;

	if (!tm->nranks)
		return 0;
	if (fmt_tscale_init(&t->tscale, tm->base) < 0 ||
	    !(t->ttimed = calloc(tm->nranks, sizeof(*t->ttimed))))
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	if (tm->coded)
		for (uint32_t r = 0; r < tm->nranks; r++) {
			uint64_t n = 0;

			for (uint64_t k = tm->first[r]; k < tm->first[r + 1];
			     k++) {
				uint64_t c = tm->seg[k].calls;

				n = c > UINT64_MAX - n ? UINT64_MAX : n + c;
			}
			t->ttimed[r] = n;
		}
	else if (walk_depth(&tm->g, &t->tdepth) < 0 ||
		 walk_depth(&tm->map.map, &depth) < 0 ||
		 !(t->tseq = malloc(sizeof(uint32_t) * 2 * (size_t)tm->nranks)))
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	else if (walk_init(&w, &tm->map.map, tm->map.len, depth,
			   tm->map.map.nrules - 1) < 0)
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	if (!tm->coded) {
		for (uint32_t k = 0; k < 2 * tm->nranks; k++)
			walk_next(&w, &t->tseq[k]); /* the decoder checked */
		walk_free(&w);
	}
	for (uint32_t r = 0; r < tm->nranks; r++) {
		uint64_t d = tm->coded ? t->ttimed[r] : tm->len[t->tseq[2 * r]];
		uint64_t i = tm->coded ? d : tm->len[t->tseq[2 * r + 1]];
		uint64_t calls = t->rule_calls[t->rank_root[r]];

		t->ttimed[r] = d;
		if (tm->coded && d > calls)
			return trace_fail(
				t, RONDO_E_CORRUPT,
				"section 'timing': rank %u has %" PRIu64
				" timed calls for %" PRIu64 " calls",
				r, d, calls);
		if (d != i || d > calls)
			return trace_fail(
				t, RONDO_E_CORRUPT,
				"section 'timing': rank %u has %" PRIu64
				" durations and %" PRIu64
				" intervals for %" PRIu64 " calls",
				r, d, i, calls);
	}
	return 0;
}

/* Slot k's value for every rank, from its items and its map. */
static int trace_vary_slot(rondo_trace *t, uint32_t k)
{
	const struct fmt_vslot *sl = &t->rankvals.slot[k];
	struct fmt_rval *v = t->vary + (size_t)k * t->rm.nranks;
	uint32_t depth, item = 0;
	struct walk w;

	if (walk_depth(&sl->map.map, &depth) < 0 ||
	    walk_init(&w, &sl->map.map, sl->map.len, depth,
		      sl->map.map.nrules - 1) < 0)
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	for (uint32_t r = 0; r < t->rm.nranks; r++) {
		walk_next(&w, &item); /* the decoder checked the length */
		if (fmt_vitem_apply(&sl->item[item], r ? &v[r - 1] : NULL,
				    &v[r]) < 0) {
			walk_free(&w);
			return trace_fail(t, RONDO_E_CORRUPT,
					  "section 'rankvals': slot %u: rank "
					  "%u's value is a difference from no "
					  "integer, or out of range",
					  k, r);
		}
	}
	walk_free(&w);
	return 0;
}

/* Every signature's per-rank value names a slot the file has. */
static int trace_vary_named(rondo_trace *t)
{
	for (uint32_t s = 0; s < t->cst.n; s++) {
		struct fmt_cur c;
		rondo_arg a;

		fmt_cur_init(&c, t->cst.sig[s].args, t->cst.sig[s].len, NULL,
			     NULL);
		for (uint32_t i = 0; i < t->cst.sig[s].nargs; i++) {
			if (fmt_arg_get(&c, &a) < 0)
				break; /* the decoder checked them */
			if (a.kind == RONDO_ARG_VARY &&
			    (a.wire != RONDO_WIRE_UINT || a.u >= t->nvary) &&
			    t->c.lost)
				return trace_needed(t, FMT_SEC_RANKVALS, -1);
			if (a.kind == RONDO_ARG_VARY &&
			    (a.wire != RONDO_WIRE_UINT || a.u >= t->nvary))
				return trace_fail(
					t, RONDO_E_CORRUPT,
					"section 'cst': signature %u names "
					"per-rank value %" PRIu64
					"; the trace has %u (section "
					"'rankvals')",
					s, a.u, t->nvary);
		}
	}
	return 0;
}

/* Expands the per-rank values, then frees the section's own form. */
static int trace_vary(rondo_trace *t)
{
	uint32_t n = t->rankvals.n;
	int rc = 0;

	if (n && (size_t)n > SIZE_MAX / sizeof(*t->vary) / t->rm.nranks)
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	t->vary = malloc(sizeof(*t->vary) * ((size_t)n * t->rm.nranks + 1));
	if (!t->vary)
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	t->nvary = n;
	for (uint32_t k = 0; k < n && rc == 0; k++)
		rc = trace_vary_slot(t, k);
	fmt_rankvals_free(&t->rankvals);
	return rc ? rc : trace_vary_named(t);
}

static int trace_load(rondo_trace *t)
{
	struct fmt_err e = {0};
	int rc;

	rc = fmt_container_parse(&t->c, t->data, t->size, &e);
	if (rc < 0)
		return trace_fail_fmt(t, &e);
	rc = trace_decode(t);
	if (rc < 0)
		return rc;
	for (uint32_t r = 0; r < t->g.nrules; r++)
		t->nsyms += t->g.first[r + 1] - t->g.first[r];
	if (walk_depth(&t->g, &t->depth) < 0)
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	rc = trace_rank_groups(t);
	if (rc < 0)
		return rc;
	rc = trace_timing(t);
	if (rc < 0)
		return rc;
	rc = trace_vary(t);
	if (rc < 0)
		return rc;
	if (ranks_init(t) < 0)
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	trace_damage_notes(t);
	t->opened = 1;
	return 0;
}

static int trace_begin(rondo_trace *t, const char *name)
{
	if (!t)
		return RONDO_E_STATE;
	if (t->opened || t->name) {
		snprintf(t->err, sizeof(t->err), "%s: handle already used",
			 name);
		return RONDO_E_STATE;
	}
	t->name = strdup(name);
	if (!t->name) {
		snprintf(t->err, sizeof(t->err), "out of memory");
		return RONDO_E_NOMEM;
	}
	return 0;
}

int rondo_trace_open(rondo_trace *t, const char *path)
{
	int rc = trace_begin(t, path ? path : "(null)");

	if (rc < 0)
		return rc;
	if (!path)
		return trace_fail(t, RONDO_E_IO, "no file name");
	rc = trace_read_file(t, path);
	return rc < 0 ? rc : trace_load(t);
}

int rondo_trace_open_memory(rondo_trace *t, const void *data, size_t size,
			    const char *name)
{
	int rc = trace_begin(t, name ? name : "(memory)");

	if (rc < 0)
		return rc;
	t->data = malloc(size ? size : 1);
	if (!t->data)
		return trace_fail(t, RONDO_E_NOMEM, "out of memory");
	if (size)
		memcpy(t->data, data, size);
	t->size = size;
	return trace_load(t);
}
