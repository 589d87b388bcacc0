/* analyses/matrix.c */
#include "matrix.h"
