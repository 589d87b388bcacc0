dnl RONDO_CHECK_CFLAGS(VAR, FLAGS): append to VAR each flag the compiler takes.
AC_DEFUN([RONDO_CHECK_CFLAGS], [
  for rondo_flag in $2; do
    AC_MSG_CHECKING([whether $CC accepts $rondo_flag])
    rondo_save_CFLAGS=$CFLAGS
    dnl -Wno-foo is accepted silently; test the positive form instead
    CFLAGS="$CFLAGS -Werror `echo $rondo_flag | sed 's/^-Wno-/-W/'`"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
      [AC_MSG_RESULT([yes]); $1="$$1 $rondo_flag"],
      [AC_MSG_RESULT([no])])
    CFLAGS=$rondo_save_CFLAGS
  done
])
