/*
 * fuzz_payload.c - libFuzzer target for the section payload decoders,
 * reached directly (through a whole file they sit behind zstd).  The first
 * byte picks the decoder, the rest is the payload.
 */
#include <stdint.h>
#include <stdlib.h>

#include "format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fmt_err e = {0};
	const uint8_t *p = data + 1;
	size_t n = size ? size - 1 : 0;
	int rc = 0;

	if (size == 0)
		return 0;
	switch (data[0] % 13) {
	case 0: {
		struct fmt_meta m;

		rc = fmt_meta_decode(&m, p, n, &e);
		fmt_meta_free(&m);
		break;
	}
	case 1: {
		struct fmt_funcs f;

		rc = fmt_funcs_decode(&f, p, n, &e);
		fmt_funcs_free(&f);
		break;
	}
	case 2: {
		struct fmt_consts c;

		rc = fmt_consts_decode(&c, p, n, &e);
		fmt_consts_free(&c);
		break;
	}
	case 3: {
		struct fmt_cst c;

		rc = fmt_cst_decode(&c, p, n, 16, &e);
		fmt_cst_free(&c);
		break;
	}
	case 4: {
		struct fmt_grammar g;
		uint64_t *len = NULL;

		rc = fmt_grammar_decode(&g, p, n, 16, &len, &e);
		free(len);
		fmt_grammar_free(&g);
		break;
	}
	case 5: {
		struct fmt_rankmap r;

		rc = fmt_rankmap_decode(&r, p, n, 16, &e);
		fmt_rankmap_free(&r);
		break;
	}
	case 6: {
		struct fmt_stats s;

		rc = fmt_stats_decode(&s, p, n, 16, &e);
		fmt_stats_free(&s);
		break;
	}
	case 7: {
		struct fmt_typesizes t;

		rc = fmt_typesizes_decode(&t, p, n, 16, &e);
		fmt_typesizes_free(&t);
		break;
	}
	case 8: {
		struct fmt_timing t;

		rc = fmt_timing_decode(&t, p, n, 4, &e);
		fmt_timing_free(&t);
		break;
	}
	case 9: {
		struct fmt_rankvals v;

		rc = fmt_rankvals_decode(&v, p, n, 4, &e);
		fmt_rankvals_free(&v);
		break;
	}
	case 10: {
		struct fmt_ranksum s;

		rc = fmt_ranksum_decode(&s, p, n, 4, 16, &e);
		fmt_ranksum_free(&s);
		break;
	}
	case 11: {
		struct fmt_stats s;

		rc = fmt_sigstats_decode(&s, p, n, 16, &e);
		fmt_stats_free(&s);
		break;
	}
	default: {
		struct fmt_ranktime r;

		rc = fmt_ranktime_decode(&r, p, n, 4, 16, &e);
		fmt_ranktime_free(&r);
		break;
	}
	}
	if (rc < 0 && e.msg[0] == '\0')
		abort(); /* a failure must always say why */
	return 0;
}
