/*
 * stats.h - mpiP-like statistics, contention and imbalance, from the
 * trace's per-signature statistics and per-rank times (no call expanded).
 */
#ifndef RONDO_STATS_H
#define RONDO_STATS_H

#include "rondo.h"

#endif /* RONDO_STATS_H */
