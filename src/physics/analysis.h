/* On-the-fly analysis written once for host C and CUDA: the radial distribution function's bin of
   a separation (numpy.histogram's, so MDAnalysis's InterRDF bins alike), its species pairs, which
   list pairs count (the mean squared displacement unwraps by box.h's box_unwrap). */
#ifndef MDL_PHYSICS_ANALYSIS_H
#define MDL_PHYSICS_ANALYSIS_H

#include "hd.h"
#include "species.h"

#include <math.h>
#include <stdint.h>

#define MDL_MAX_SPECIES_PAIRS (MDL_MAX_SPECIES * (MDL_MAX_SPECIES + 1) / 2)

/* What a run samples (the core's [analysis] keys, as a backend gets them). */
typedef struct {
    int rdf_bins;    /* 0: no RDF */
    double rdf_max;  /* the histogram's range (0, rdf_max] */
    int rdf_all_pairs; /* rdf_max past the pair cutoff: every pair counted, not the list's (one rank) */
    int msd;         /* the MSD's sums are sampled */
    int msd_rows;    /* samples the MSD holds at most (rows of ntypes sums, by lag) */
    int msd_origins; /* time origins (1: the stage's first sample alone) */
    int origin_every; /* samples between two origins */
} mdl_analysis_spec;

/* The MSD's time origins: origin k is the positions at sample k * origin_every (k < msd_origins);
   sample s adds, for each origin taken by then, its sums to the row of lag s - k * origin_every.
   Whether sample s takes a new origin (origin 0 is the start's), and how many origins it adds to. */
static inline MDL_HD int msd_new_origin(const mdl_analysis_spec *sp, int sample)
{
    return sample > 0 && sample % sp->origin_every == 0 && sample / sp->origin_every < sp->msd_origins;
}

static inline MDL_HD int msd_origins_taken(const mdl_analysis_spec *sp, int sample)
{
    const int k = sample / sp->origin_every + 1;
    return k < sp->msd_origins ? k : sp->msd_origins;
}

/* The species pair (a, b), a <= b, as an index into the upper triangle, row by row:
   (0,0) (0,1) ... (0,n-1) (1,1) ... */
static inline MDL_HD int rdf_pair_index(int a, int b, int ntypes)
{
    if (a > b) {
        const int t = a;
        a = b, b = t;
    }
    return a * ntypes - a * (a - 1) / 2 + (b - a);
}

/* Edge k (0..nbins) of nbins equal bins of (0, rmax], as numpy.linspace makes them: k * (rmax / nbins),
   the last one rmax. */
static inline MDL_HD double rdf_edge(int k, double rmax, int nbins)
{
    return k == nbins ? rmax : k * (rmax / nbins);
}

/* The bin of separation r between those edges as numpy.histogram(range=(0, rmax)) finds it: r ==
   rmax in the last bin; -1 past rmax. */
static inline MDL_HD int rdf_bin(double r, double rmax, int nbins)
{
    if (!(r <= rmax))
        return -1;
    int k = (int)(r * ((double)nbins / rmax));
    if (k == nbins)
        k--;
    if (r < rdf_edge(k, rmax, nbins))
        k--;
    else if (k != nbins - 1 && r >= rdf_edge(k + 1, rmax, nbins))
        k++;
    return k;
}

/* How many times a list pair (i of species a, j of species b) adds to the histogram of (a, b),
   so that over all ranks a pair of one species counts twice (both orders, as InterRDF counts a
   group with itself) and a pair of two species once. full: the list holds each pair from both
   atoms (GPU); else each owned pair once (CPU's half list), and a pair with a ghost on both
   ranks. */
static inline MDL_HD int rdf_pair_weight(int a, int b, int full, int j_is_ghost)
{
    if (full)
        return a <= b ? 1 : 0;
    if (!j_is_ghost)
        return a == b ? 2 : 1;
    return a == b || a < b ? 1 : 0;
}

#endif
