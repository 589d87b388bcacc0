#!/bin/sh
# fuzz.sh [SECONDS] - fuzz the reader with libFuzzer (clang, ASan, UBSan),
# seeded with the corpus of damaged files and a few good traces.  Not part
# of make check: run it by hand after changing the format code.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
out=${FUZZ_DIR:-/tmp/rondo-fuzz}
mkdir -p "$out/corpus" "$out/inc"
echo '#define PACKAGE_VERSION "fuzz"' >"$out/inc/config.h"
cd "$top"
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -I"$out/inc" -Ireader -Itracer \
	tests/fuzz_open.c reader/trace.c reader/iter.c reader/sig_format.c \
	reader/format.c -lzstd -o "$out/fuzz_open"
cp tests/corpus/*.rondo "$out/corpus/"
for f in build/demo.rondo build-check/tests/*.rondo; do
	[ -f "$f" ] && cp "$f" "$out/corpus/"
done
"$out/fuzz_open" -max_total_time="$secs" -max_len=65536 "$out/corpus"
