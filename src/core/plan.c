/* What a run's configuration decides before its backend starts: the processor grid and the ghost
   cutoff, and whether the GPU's keys can act in this run (refused, or named as unused). */
#include "plan.h"

#include "skin_tuner.h"
#include "../parallel/domain.h"
#include "../util/util.h"

#include <string.h>

/* The ghost cutoff: the largest list cutoff of the run (skin = auto tries up to skin_tuner_largest). */
static double ghost_cutoff(const mdl_config *cfg, const mdl_pair_table *pt)
{
    return pt->cutmax + (cfg->skin_auto ? skin_tuner_largest(pt->cutmax) : cfg->skin);
}

/* The processor grid ([run] processors, or the fewest ghosts) and the ghost cutoff. */
int run_choose_grid(const mdl_config *cfg, const char *backend, int nranks, const mdl_system *s,
                    const mdl_pair_table *pt, mdl_setup *setup)
{
    const int *p = cfg->processors;
    const int images = 1; /* ghosts take bricks of any length (several hops), on both backends */
    setup->rghost = ghost_cutoff(cfg, pt);
    if (p[0] > 0) {
        if ((long)p[0] * p[1] * p[2] != nranks) {
            mdl_error("%s: [run] processors: %d x %d x %d bricks for %d rank%s (their product must be the number "
                      "of ranks, or auto)", config_origin(cfg, "run", "processors"), p[0], p[1], p[2], nranks,
                      nranks == 1 ? "" : "s");
            return MDL_EINPUT;
        }
        memcpy(setup->grid, p, sizeof setup->grid);
    } else {
        domain_choose_grid(&s->box, nranks, setup->rghost, images, setup->grid);
    }
    for (int d = 0; d < 3; d++) {
        const char *why = domain_axis_unfit(&s->box, setup->grid, d, setup->rghost, images);
        if (why && p[0] <= 0) { /* auto found no grid that fits */
            mdl_error("%s: [run] processors = auto: no grid of %d bricks fits this box (%g x %g x %g): a decomposed "
                      "axis must be periodic and each brick at least the list cutoff %g long (run fewer ranks)",
                      config_origin(cfg, "run", "processors"), nranks, s->box.len[0], s->box.len[1],
                      s->box.len[2], setup->rghost);
            return MDL_EINPUT;
        }
        if (why) {
            mdl_error("%s: [run] processors: %d bricks along %c (%g long; list cutoff %g): %s (fewer ranks, or "
                      "another grid)", config_origin(cfg, "run", "processors"), setup->grid[d], "xyz"[d],
                      s->box.len[d] / setup->grid[d], setup->rghost, why);
            return MDL_EINPUT;
        }
    }
    const int ghosts = nranks > 1 || domain_box_ghosted(&s->box, setup->rghost);
    if (ghosts && strcmp(backend, "gpu") == 0 && strcmp(cfg->method, "cell") != 0) {
        mdl_error("%s: [neighbor] method = %s: %s on the GPU build their lists with the cell method",
                  config_origin(cfg, "neighbor", "method"), cfg->method,
                  nranks > 1 ? "several ranks" : "the ghost atoms of a small or triclinic box");
        return MDL_EINPUT;
    }
    return MDL_OK;
}

/* The GPU's keys ([neighbor] outer_skin, list, layout, max_neighbors, grow; [run] gpu_comm, gpu_arrays, gpu_step;
   [output] rebuild_timeline) where they cannot act: refused where the run would be wrong to go on, else a
   warning that names the key. */
int run_check_gpu_keys(const mdl_config *cfg, const char *backend, int nranks, const mdl_system *s,
                       const mdl_pair_table *pt)
{
    const int gpu = strcmp(backend, "gpu") == 0;
    if (gpu && cfg->ensemble == MDL_NPT_NOSE_HOOVER && cfg->outer_skin > 0)
        mdl_warn("%s: [neighbor] outer_skin: not used by this run (the box moves: one list, rebuilt by the skin "
                 "test)", config_origin(cfg, "neighbor", "outer_skin"));
    struct {
        const char *section, *key;
        int set, ranks_only;
    } keys[] = {{"neighbor", "outer_skin", cfg->outer_skin > 0, 0}, {"neighbor", "list", cfg->list_form != 0, 0},
                {"neighbor", "layout", config_has(cfg, "neighbor", "layout"), 0},
                {"neighbor", "max_neighbors", cfg->max_neighbors > 0, 0},
                {"neighbor", "grow", !cfg->grow, 0},           {"run", "gpu_comm", cfg->gpu_comm != 0, 1},
                {"run", "gpu_arrays", cfg->gpu_arrays != 0, 1}, {"output", "rebuild_timeline", cfg->rebuild_timeline > 0, 2},
                {"run", "gpu_step", cfg->gpu_step != 0, 3}}; /* ranks_only 3: one GPU alone */
    const int ghosts = nranks > 1 || domain_box_ghosted(&s->box, ghost_cutoff(cfg, pt)); /* ranks_only 2: one rank's ghosts too */
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (keys[k].set && (!gpu || (keys[k].ranks_only == 1 && nranks == 1) || (keys[k].ranks_only == 2 && !ghosts) ||
                            (keys[k].ranks_only == 3 && nranks > 1)))
            mdl_warn("%s: [%s] %s: not used by this run (%s)", config_origin(cfg, keys[k].section, keys[k].key),
                     keys[k].section, keys[k].key, !gpu ? "a GPU key, and the backend is cpu"
                     : keys[k].ranks_only == 3 ? "it acts on one GPU alone" : "it acts between GPU ranks");
    if (gpu && nranks > 1 && !cfg->distance_check) {
        mdl_error("%s: [neighbor] distance_check = no: GPU ranks rebuild on the skin test only (one GPU, the CPU "
                  "backend and CPU ranks take it)", config_origin(cfg, "neighbor", "distance_check"));
        return MDL_EINPUT;
    }
    if (!gpu || cfg->outer_skin <= 0)
        return MDL_OK;
    if (nranks > 1) {
        mdl_error("%s: [neighbor] outer_skin = %g: pruned lists run on one GPU rank (this run has %d); set it to 0",
                  config_origin(cfg, "neighbor", "outer_skin"), cfg->outer_skin, nranks);
        return MDL_EINPUT;
    }
    const double rlist = ghost_cutoff(cfg, pt) + cfg->outer_skin;
    for (int d = 0; d < 3; d++)
        if (s->box.len[d] <= 2 * rlist) {
            mdl_error("%s: [neighbor] outer_skin = %g: the outer list's radius %g is more than half the box length %g "
                      "along %c", config_origin(cfg, "neighbor", "outer_skin"), cfg->outer_skin, rlist, s->box.len[d],
                      "xyz"[d]);
            return MDL_EINPUT;
        }
    return MDL_OK;
}
