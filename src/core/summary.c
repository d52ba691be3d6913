/* The summary a run (each stage of it) prints at its end, from every rank's phases and counts. */
#include "summary.h"

#include "../parallel/comm.h"
#include "../util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *PHASE_NAMES[PH_COUNT] = {"Neighbor", "Force", "Integrate", "Thermo", "Output"};
enum { RANK_STATS = PH_COUNT + 3 }; /* per rank, gathered for the summary: phases, comm, atoms, ghosts */

/* The phases, the time in exchanges between ranks (taken out of Neighbor, where it happens) and
   the atoms and ghosts of every rank, gathered: mine[RANK_STATS] -> all[nranks * RANK_STATS]. */
static int gather_rank_stats(const mdl_summary *r, double *all)
{
    double mine[RANK_STATS];
    for (int p = 0; p < PH_COUNT; p++)
        mine[p] = r->timers->t[p];
    mine[PH_NEIGHBOR] -= r->stats->comm_seconds; /* (the GPU's is timed on the device: never below 0) */
    if (mine[PH_NEIGHBOR] < 0)
        mine[PH_NEIGHBOR] = 0;
    mine[PH_COUNT] = r->stats->comm_seconds;
    mine[PH_COUNT + 1] = (double)r->stats->owned;
    mine[PH_COUNT + 2] = (double)r->stats->ghosts;
    return comm_allgather_doubles(mine, RANK_STATS, all);
}

/* min, average and max of column k of the ranks' stats */
static void rank_spread(const mdl_summary *r, const double *all, int k, double out[3])
{
    out[0] = out[2] = all[k], out[1] = 0;
    for (int q = 0; q < r->nranks; q++) {
        double v = all[q * RANK_STATS + k];
        out[0] = v < out[0] ? v : out[0];
        out[2] = v > out[2] ? v : out[2];
        out[1] += v / r->nranks;
    }
}

static void print_phases(const mdl_summary *r, const double *all, double loop)
{
    const char *names[PH_COUNT + 1];
    for (int p = 0; p < PH_COUNT; p++)
        names[p] = PHASE_NAMES[p];
    names[PH_COUNT] = "Comm";
    int several = r->nranks > 1;
    double sum = 0, v[3];
    mdl_say("\n%-10s | %12s | %7s%s\n", "Phase", several ? "avg time (s)" : "time (s)", "%total",
           several ? " | min time (s) | max time (s)" : "");
    mdl_say("-----------+--------------+--------%s\n", several ? "+--------------+-------------" : "");
    for (int p = 0; p <= PH_COUNT; p++) {
        if (p == PH_COUNT && !several)
            continue;
        rank_spread(r, all, p, v);
        sum += v[1];
        mdl_say("%-10s | %12.6g | %6.2f", names[p], v[1], loop > 0 ? 100 * v[1] / loop : 0);
        if (several)
            mdl_say(" | %12.6g | %12.6g", v[0], v[2]);
        mdl_say("\n");
    }
    double other = loop - sum > 0 ? loop - sum : 0;
    mdl_say("%-10s | %12.6g | %6.2f\n\n", "Other", other, loop > 0 ? 100 * other / loop : 0);
}

static void print_decomposition(const mdl_summary *r, const double *all)
{
    if (r->nranks == 1)
        return;
    double a[3], g[3];
    rank_spread(r, all, PH_COUNT + 1, a);
    rank_spread(r, all, PH_COUNT + 2, g);
    mdl_say("Decomposition = %d x %d x %d bricks on %d ranks (exchanges: %s)\n", r->grid[0], r->grid[1], r->grid[2],
           r->nranks, r->stats->exchange ? r->stats->exchange : "none");
    mdl_say("Atoms per rank = %.0f to %.0f (imbalance max/avg %.3f); ghosts per rank = %.0f to %.0f\n", a[0], a[2],
           a[1] > 0 ? a[2] / a[1] : 0, g[0], g[2]);
}

static void print_summary(const mdl_summary *r, double loop, const double *all)
{
    const mdl_config *cfg = r->cfg;
    mdl_say("Loop time of %.6g s on %d thread%s%s (%s backend) for %ld steps with %zu atoms\n", loop, r->threads,
           r->threads == 1 ? "" : "s", r->nranks > 1 ? " per rank" : "", r->backend, cfg->steps, r->natoms);
    const int metal = strcmp(cfg->units, "metal") == 0, real = strcmp(cfg->units, "real") == 0; /* ns/day; lj: tau/day */
    mdl_print_performance(r->natoms, cfg->steps, loop, cfg->timestep, metal || real ? "ns" : "tau",
                          metal ? 86.4 : real ? 0.0864 : 86400.0);
    mdl_say("Species = %s; ensemble = %s", r->species_counts, config_ensemble_name(cfg->ensemble));
    if (cfg->ensemble == MDL_NPT_NOSE_HOOVER && r->volume_rows > 0) {
        const double v = r->volume_sum / (double)r->volume_rows;
        mdl_say(": average volume %.6g, density %.6g atoms per unit volume over the stage's last half (steps %ld "
               "to %ld, %ld thermo rows)", v, (double)r->natoms / v, r->final_step - cfg->steps / 2, r->final_step,
               r->volume_rows);
    }
    mdl_say("\n");
    print_phases(r, all, loop);
    mdl_say("Neighbor pairs = %.0f (%.4g per atom)\n", r->stats->pairs, r->stats->pairs / (double)r->natoms);
    mdl_say("Neighbor list builds = %ld\n", r->stats->builds);
    if (r->stats->outer_skin > 0)
        mdl_say("Neighbor list prunes = %ld (outer list skin %g)\n", r->stats->prunes, r->stats->outer_skin);
    if (cfg->distance_check)
        mdl_say("Dangerous builds = %ld\n", r->stats->dangerous);
    else /* LAMMPS says "not checked"; mdlite counts what the check would have seen */
        mdl_say("Dangerous builds not checked (distance_check = no); builds that found an atom past half the skin "
               "= %ld\n", r->stats->dangerous);
    print_decomposition(r, all);
    size_t b = r->stats->device_bytes;
    if (b)
        mdl_say("Device memory = %.1f MiB (%.0f bytes/atom), neighbor list capacity %d per atom\n", b / 1048576.0,
               (double)b / (double)r->natoms, r->stats->capacity);
    if (r->stats->cell_sort)
        mdl_say("Cell sort = %s\n", r->stats->cell_sort);
    if (r->stats->folded)
        mdl_say("Steps with the kicks in the force pass = %ld\n", r->stats->folded);
    if (r->stats->persistent)
        mdl_say("Steps in the persistent step = %ld\n", r->stats->persistent);
    if (r->stats->grown)
        mdl_say("Atom arrays grown = %ld times (rank 0: arrivals and ghosts past their room)\n", r->stats->grown);
    mdl_print_cpu_use(r->cpu, loop, r->threads, r->backend);
    if (r->sync_phases)
        mdl_say("(sync_phases = yes: phases synchronised with the device)\n");
}


int summary_print(const mdl_summary *m, double loop)
{
    double *all = mdl_alloc((size_t)m->nranks * RANK_STATS * sizeof *all, "the summary");
    int rc = all ? gather_rank_stats(m, all) : MDL_ERUN;
    if (rc == MDL_OK && comm_rank() == 0)
        print_summary(m, loop, all);
    free(all);
    return rc;
}
