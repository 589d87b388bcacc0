/* analyses/stats.c */
#include "stats.h"
