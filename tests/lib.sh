# lib.sh - what the shell scripts that run the tracer share; sourced, with
# lib set to the tracer module (tracer/.libs/librondo-trace.so).
#
# mpi_env: lets Open MPI run as root (it refuses otherwise) and place more
# ranks than there are cores.
#
# san_env: a sanitizer build of the module needs the sanitizer runtimes
# loaded before anything else in the programs it is preloaded into, which
# are not instrumented themselves.  Sets san to those runtimes (empty for a
# plain build) and pre to what to preload for the module ("$san:$lib", or
# "$lib"); with sanitizers, exports ASAN_OPTIONS: no leak report for the
# programs traced (theirs, not ours), and exit status 86 when ASan finds
# something (unless ASAN_EXITCODE says otherwise; empty: ASan's own).

mpi_env() {
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_rmaps_base_oversubscribe=1
}

san_env() {
	san=$(ldd "$lib" | awk '/lib(asan|ubsan)\.so/ { printf "%s%s", sep, $3; sep = ":" }')
	pre=$lib
	if [ -n "$san" ]; then
		pre="$san:$lib"
		ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0"
		[ -z "${ASAN_EXITCODE-86}" ] ||
			ASAN_OPTIONS="$ASAN_OPTIONS:exitcode=${ASAN_EXITCODE-86}"
		export ASAN_OPTIONS
	fi
}
