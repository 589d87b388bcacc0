#!/bin/sh
# fuzz.sh [SECONDS] - fuzz the reader with libFuzzer (clang, ASan, UBSan):
# whole files through the public API (checksums disabled in this build so
# mutations get past them), then the payload decoders directly.  Seeds: the
# corpus of damaged files and the demo trace.  Not part of make check: run
# it by hand after changing the format code.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
out=${FUZZ_DIR:-/tmp/rondo-fuzz}
mkdir -p "$out/files" "$out/payloads" "$out/inc"
echo '#define PACKAGE_VERSION "fuzz"' >"$out/inc/config.h"
cd "$top"
cc="clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -D_GNU_SOURCE -I$out/inc -Iinclude -Iformat -Icommon -Ireader"
$cc tests/fuzz_open.c reader/*.c \
	format/*.c common/fileio.c -lzstd -lm -o "$out/fuzz_open"
$cc tests/fuzz_payload.c format/*.c common/fileio.c -lzstd -lm \
	-o "$out/fuzz_payload"
cp tests/corpus/*.rondo "$out/files/"
printf '\004\002\002\000\004\003\004\001\006' >"$out/payloads/grammar"
"$out/fuzz_open" -max_total_time="$secs" -max_len=65536 "$out/files"
"$out/fuzz_payload" -max_total_time="$secs" -max_len=4096 "$out/payloads"
