/* The GPU backend's way out to the host: queued observables, snapshots for the writer thread, the
   health check's slow path, list statistics and the neighbor rows. */
#include "context.h"

#include "../core/health.h"
#include "../parallel/comm.h"
#include "../util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gpu_free_slots(gpu_ctx *c)
{
    for (int k = 0; k < c->nslots; k++) {
        struct gpu_slot *sl = &c->slots[k];
        for (int a = 0; a < MDL_FIELD_ARRAYS; a++) {
            gpu_free(sl->dev[a]);
            gpu_host_pin_free(sl->host[a]);
        }
        gpu_free(sl->dev_sums);
        gpu_free(sl->dev_box);
        gpu_free(sl->dev_order);
        gpu_host_pin_free(sl->host_order);
        gpu_host_pin_free(sl->host_sums);
        gpu_host_pin_free(sl->host_box);
        gpu_event_destroy(sl->snapped);
        gpu_event_destroy(sl->copied);
    }
    free(c->slots);
    c->slots = NULL;
    c->nslots = 0;
    gpu_stream_destroy(c->copy_stream);
    c->copy_stream = NULL;
}

/* n values of type mdl_real on the device, as doubles on the host */
static int download_real(double *out, const mdl_real *dev, size_t n, mdl_real *tmp)
{
    TRY(gpu_d2h(tmp, dev, n * sizeof *tmp));
    for (size_t i = 0; i < n; i++)
        out[i] = (double)tmp[i];
    return MDL_OK;
}

/* A barostat's box that halted the step (gpu_box_state.runaway) is said here, with the step; with
   no atom past the skin, or faces that moved past twice the skin, the faces' motion since the
   build is what was unsafe (MDL_HEALTH_BOX, as the CPU backend finds it). */
static int diagnose_box(const gpu_ctx *c, mdl_health *h)
{
    gpu_box_state b;
    TRY(gpu_d2h(&b, c->bx, sizeof b));
    const long step = (long)c->report[0];
    const double *len = b.grid.region.len;
    if (b.runaway == GPU_BOX_RUNAWAY && barostat_runaway(&b.grid.region, b.volume0, b.rlist, b.ghosted, NULL, step) != MDL_OK)
        return MDL_ERUN;
    if (b.runaway) {
        mdl_error("step %ld: the barostat took the box to %.6g x %.6g x %.6g, under 3 cells of the list cutoff %g "
                  "along an edge where the GPU's cell search started with 3 or more (%d x %d x %d); the run stops "
                  "(a box this small runs on with --backend cpu)", step, len[0], len[1], len[2], b.rlist, c->nc[0],
                  c->nc[1], c->nc[2]);
        return MDL_ERUN;
    }
    const double bd = box_faces_moved(&b.grid.region, &b.built);
    /* the box, as the CPU backend says: where its faces alone use the skin up, or no atom moved past it */
    if (h->what == MDL_HEALTH_OK || (h->what == MDL_HEALTH_MOVED && c->skin - 0.5 * bd <= 0))
        *h = (mdl_health){MDL_HEALTH_BOX, -1, bd};
    return MDL_OK;
}

/* The health check's slow path (the run is failing): the state and the positions at the last
   build, in the device's order with their ids, scanned on the host; the worst over all ranks. */
int gpu_diagnose(void *p, mdl_health *h)
{
    gpu_ctx *c = p;
    size_t n = c->n;
    double *a = malloc(12 * n * sizeof *a); /* x y z, x0 y0 z0, vx vy vz, fx fy fz */
    mdl_real *tmp = malloc(4 * gpu_pos_atoms(n) * sizeof *tmp);
    int64_t *id = malloc(n * sizeof *id);
    int rc = a && tmp && id && !gpu_d2h(id, c->id, n * sizeof *id) ? MDL_OK : MDL_ERUN;
    const double *d8[] = {c->x, c->y, c->z, NULL, NULL, NULL, c->vx, c->vy, c->vz};
    for (int k = 0; k < 9 && rc == MDL_OK; k++)
        if (d8[k] && gpu_d2h(a + k * n, d8[k], n * sizeof *a))
            rc = MDL_ERUN;
    const mdl_real *f[] = {c->fx, c->fy, c->fz};
    for (int k = 0; k < 3 && rc == MDL_OK; k++)
        rc = download_real(a + (9 + k) * n, f[k], n, tmp);
    if (rc == MDL_OK && !gpu_d2h(tmp, c->pos0, 4 * gpu_pos_atoms(n) * sizeof *tmp))
        for (size_t i = 0; i < n; i++)
            for (int d = 0; d < 3; d++)
                a[(3 + d) * n + i] = (double)tmp[gpu_pos_index(i, d)];
    if (rc == MDL_OK)
        health_scan(n, id, (mdl_vec3_arrays){a, a + n, a + 2 * n}, (mdl_vec3_arrays){a + 3 * n, a + 4 * n, a + 5 * n},
                    (mdl_vec3_arrays){a + 6 * n, a + 7 * n, a + 8 * n},
                    (mdl_vec3_arrays){a + 9 * n, a + 10 * n, a + 11 * n}, c->skin, h);
    free(a), free(tmp), free(id);
    MDL_TRY(rc);
    if (c->barostat)
        MDL_TRY(diagnose_box(c, h));
    return health_agree(h);
}

/* Queues the reduction of sum m v^2 and the per-atom energies and virials of the last force call
   with energy (the arrays keep them until the next one) into sums. */
static int queue_reduce(gpu_ctx *c, double *sums)
{
    return gpu_reduce(c->n, c->vx, c->vy, c->vz, c->type, c->pe, c->w, c->partials, sums);
}

/* box: where the sums were taken (a barostat's, copied with them; NULL: the fixed box) */
static void observables_from_sums(const gpu_ctx *c, const double *sums, const mdl_box *box, mdl_observables *o)
{
    *o = (mdl_observables){.kinetic = 0.5 * c->u.mvv2e * sums[0], .potential = sums[1], .virial = sums[2]};
    mdl_finish_observables(o, c->natoms, box ? box : &c->box, &c->u, c->tail);
}

/* This rank's sums, then every rank's added in rank order (the host waits). */
static int sum_over_ranks(gpu_ctx *c, double *dev, double *host)
{
    TRY(queue_reduce(c, dev));
    TRY(gpu_d2h(host, dev, 3 * sizeof(double)));
    return comm_sum_doubles(host, 3);
}

/* Thermo without stalls: the reduction and a 24-byte copy to pinned memory are queued behind the
   step on the compute stream; the driver prints the row once the event has passed. (Several
   ranks: the sums over ranks are waited for here.) */
int gpu_reduce_start(void *p, int slot)
{
    gpu_ctx *c = p;
    double *dev = c->result + 3 * (1 + slot), *host = c->host_result + 3 * (1 + slot);
    if (c->nh) { /* the chains' energy now, behind the step */
        double *e = c->nh_factor + 2 + slot;
        TRY(gpu_nose_hoover_energy(c->nh, &c->bx->grid.region, e));
        TRY(gpu_copy_async(c->nh_host + slot, e, sizeof(double), NULL));
    }
    if (c->barostat)
        TRY(gpu_copy_async(c->box_host + slot, &c->bx->grid.region, sizeof(mdl_box), NULL));
    if (c->halo) {
        MDL_TRY(sum_over_ranks(c, dev, host));
        return gpu_event_record(c->thermo_ev[slot], NULL) ? MDL_ERUN : MDL_OK;
    }
    TRY(queue_reduce(c, dev));
    TRY(gpu_copy_async(host, dev, 3 * sizeof(double), NULL));
    return gpu_event_record(c->thermo_ev[slot], NULL) ? MDL_ERUN : MDL_OK;
}

int gpu_reduce_poll(void *p, int slot, mdl_observables *o, int wait)
{
    gpu_ctx *c = p;
    if (wait) {
        TRY(gpu_event_sync(c->thermo_ev[slot]));
    } else {
        int q = gpu_event_query(c->thermo_ev[slot]);
        if (q == 1)
            return MDL_NOT_READY;
        if (q != 0)
            return MDL_ERUN;
    }
    observables_from_sums(c, c->host_result + 3 * (1 + slot), c->barostat ? c->box_host + slot : NULL, o);
    o->ecouple = c->nh ? c->nh_host[slot] : 0.0;
    return MDL_OK;
}

/* Entry q of row k of n (gpu_list_strides' si, sk); packed lists through their table or relative
   to the row's atom (gpu.h). */
static int list_entry(const int *nl, gpu_rows form, const int *table, size_t k, int q, int si, int sk, size_t n)
{
    const int *t = table ? table + k / 32 * GPU_LIST_TABLE : NULL;
    if (form == GPU_ROWS_PLAIN || (form == GPU_ROWS_TABLE && t[GPU_LIST_TABLE - 1] != GPU_LIST_PACKED))
        return nl[k * si + (size_t)q * sk];
    unsigned two = (unsigned)nl[(size_t)(q / 2) * sk + k], e = q % 2 ? two >> 16 : two & 0xffffu;
    return form == GPU_ROWS_RELATIVE ? gpu_list_relative((int)k, e, (int)n) : gpu_list_unpack(t, e);
}

/* Packed lists: how many warps' rows are packed, on stderr (`mdlite neighbors`, tests). */
static void note_packed(const int *table, size_t n)
{
    size_t packed = 0, warps = (n + 31) / 32;
    for (size_t w = 0; w < warps; w++)
        packed += table[w * GPU_LIST_TABLE + GPU_LIST_TABLE - 1] == GPU_LIST_PACKED;
    fprintf(stderr, "GPU list: 16-bit entries in %zu of %zu warps' rows\n", packed, warps);
}

int gpu_neighbor_rows(void *p, int **rows_out, size_t **start_out)
{
    gpu_ctx *c = p;
    size_t n = c->n, cap = (size_t)c->capacity, held = cap * (c->transposed ? gpu_list_rows(n) : n);
    size_t tables = gpu_list_rows(n) / 32 * GPU_LIST_TABLE;
    const int *dev_table = gpu_list_table(c);
    int *nl = malloc(held * sizeof *nl), *count = malloc(n * sizeof *count);
    int *table = dev_table ? malloc(tables * sizeof *table) : NULL;
    int64_t *id = malloc(n * sizeof *id);
    size_t *start = calloc(n + 1, sizeof *start);
    int *rows = NULL;
    int rc = nl && count && id && start && (table || !dev_table) ? MDL_OK : MDL_ERUN;
    if (rc == MDL_OK && (gpu_d2h(nl, c->nl, held * sizeof *nl) || gpu_d2h(count, c->count, n * sizeof *count) ||
                         gpu_d2h(id, c->id, n * sizeof *id) ||
                         (table && gpu_d2h(table, dev_table, tables * sizeof *table))))
        rc = MDL_ERUN;
    if (rc == MDL_OK && table)
        note_packed(table, n);
    else if (rc == MDL_OK && gpu_rows_now(c) == GPU_ROWS_RELATIVE)
        fprintf(stderr, "GPU list: 16-bit entries relative to each row's atom\n");
    if (rc == MDL_OK) {
        for (size_t k = 0; k < n; k++)
            start[id[k] + 1] = (size_t)count[k];
        for (size_t i = 0; i < n; i++)
            start[i + 1] += start[i];
        rows = malloc((start[n] + 1) * sizeof *rows);
        rc = rows ? MDL_OK : MDL_ERUN;
    }
    int si, sk;
    gpu_list_strides(c, &si, &sk);
    const gpu_rows form = gpu_rows_now(c);
    for (size_t k = 0; k < n && rc == MDL_OK; k++) {
        int *row = rows + start[id[k]];
        for (int q = 0; q < count[k]; q++)
            row[q] = (int)id[list_entry(nl, form, table, k, q, si, sk, n)];
    }
    free(nl), free(count), free(id), free(table);
    if (rc != MDL_OK) {
        free(rows), free(start);
        return rc;
    }
    *rows_out = rows;
    *start_out = start;
    return MDL_OK;
}

int gpu_stats(void *p, mdl_backend_stats *out)
{
    gpu_ctx *c = p;
    int *cnt = malloc(c->n * sizeof(int));
    double total = 0;
    int rc = cnt && gpu_d2h(cnt, c->count, c->n * sizeof(int)) == 0 ? MDL_OK : MDL_ERUN;
    for (size_t i = 0; i < c->n && rc == MDL_OK; i++)
        total += cnt[i];
    free(cnt);
    if (rc == MDL_OK && c->halo) /* a pair with a ghost is in one row on each of its two ranks */
        rc = comm_sum_doubles(&total, 1);
    gpu_nb_state st;
    if (rc == MDL_OK && gpu_d2h(&st, c->nbs, sizeof st))
        rc = MDL_ERUN;
    *out = (mdl_backend_stats){0.5 * total /* full lists hold each pair twice */, gpu_bytes_allocated(),
                               rc == MDL_OK ? (long)st.builds + c->extra_builds : 0,
                               rc == MDL_OK ? (long)st.dangerous : 0, rc == MDL_OK ? (long)st.last_build : 0,
                               gpu_list_entries(c), 0, c->n, 0, NULL, c->grown, c->folded, c->persistent,
                               rc == MDL_OK ? (long)st.prunes : 0, c->outer > 0 ? c->skin + c->outer : 0,
                               c->method != MDL_NL_CELL ? NULL
                               : c->count_sort          ? "counting (two kernels)"
                                                        : "radix (CUB)", c->box};
    if (c->halo)
        halo_stats(c, out);
    return rc;
}

int gpu_snapshot_alloc(void *p, int nslots, int max_fields)
{
    gpu_ctx *c = p;
    gpu_free_slots(c);
    c->slots = calloc((size_t)nslots, sizeof *c->slots);
    if (!c->slots)
        return MDL_ERUN;
    c->nslots = nslots;
    c->slot_fields = c->halo ? max_fields & ~MDL_DUMP_BUILD : max_fields; /* ranks: a restart builds anew */
    TRY(gpu_stream_create(&c->copy_stream));
    return MDL_OK;
}

/* A slot's device staging arrays and events, on its first use (main thread). */
static int fill_slot_device(gpu_ctx *c, struct gpu_slot *sl)
{
    if (sl->snapped)
        return MDL_OK;
    for (int a = 0; a < MDL_FIELD_ARRAYS; a++)
        if (c->slot_fields & field_of_array(a))
            TRY(gpu_malloc(&sl->dev[a], c->natoms * field_array_bytes(a), "output staging slots"));
    TRY(gpu_malloc((void **)&sl->dev_sums, 3 * sizeof(double), "output staging slots"));
    TRY(gpu_malloc((void **)&sl->dev_box, sizeof(mdl_box), "output staging slots"));
    if (c->slot_fields & MDL_DUMP_BUILD)
        TRY(gpu_malloc((void **)&sl->dev_order, c->natoms * sizeof(int), "output staging slots"));
    TRY(gpu_event_create(&sl->snapped));
    TRY(gpu_event_create_blocking(&sl->copied)); /* the writer thread sleeps on it */
    return MDL_OK;
}

/* A slot's pinned arrays, on its first use (writer thread: touching and page-locking take
   milliseconds per 10 MB, which the step loop should not wait for). */
static int fill_slot_host(gpu_ctx *c, struct gpu_slot *sl)
{
    if (sl->host_sums)
        return MDL_OK;
    for (int a = 0; a < MDL_FIELD_ARRAYS; a++)
        if (c->slot_fields & field_of_array(a))
            TRY(gpu_host_pin_alloc(&sl->host[a], c->natoms * field_array_bytes(a), "pinned output slots"));
    TRY(gpu_host_pin_alloc((void **)&sl->host_sums, 3 * sizeof(double), "pinned output slots"));
    TRY(gpu_host_pin_alloc((void **)&sl->host_box, sizeof(mdl_box), "pinned output slots"));
    if (c->slot_fields & MDL_DUMP_BUILD)
        TRY(gpu_host_pin_alloc((void **)&sl->host_order, c->natoms * sizeof(int), "pinned output slots"));
    return MDL_OK;
}

int gpu_force_norms(void *p, double out[2])
{
    gpu_ctx *c = p;
    const size_t n = c->n;
    double *f = malloc(3 * (n ? n : 1) * sizeof *f), m = 0, sq = 0;
    mdl_real *tmp = malloc((n ? n : 1) * sizeof *tmp);
    int rc = f && tmp && !gpu_stream_sync(NULL) ? MDL_OK : MDL_ERUN; /* the last force call's forces */
    const mdl_real *dev[3] = {c->fx, c->fy, c->fz};
    for (int k = 0; k < 3 && rc == MDL_OK; k++)
        rc = download_real(f + (size_t)k * n, dev[k], n, tmp);
    for (size_t i = 0; i < 3 * n && rc == MDL_OK; i++) /* in the device's order: the same each time */
        m = fabs(f[i]) > m ? fabs(f[i]) : m, sq += f[i] * f[i];
    free(f);
    free(tmp);
    if (rc == MDL_OK)
        rc = comm_max_double(&m);
    if (rc == MDL_OK)
        rc = comm_sum_doubles(&sq, 1);
    out[0] = m, out[1] = sqrt(sq);
    return rc;
}

/* The owned atoms' fields (and ids) to the host, in the device's order. */
static int download_fields(gpu_ctx *c, int fields, mdl_system *s)
{
    size_t n = c->n;
    MDL_TRY(system_reserve(s, n ? n : 1));
    TRY(gpu_d2h(s->id, c->id, n * sizeof(int64_t)));
    const double *d8[6] = {c->x, c->y, c->z, c->vx, c->vy, c->vz};
    double *h8[6] = {s->x, s->y, s->z, s->vx, s->vy, s->vz};
    for (int k = 0; k < 6; k++)
        if (fields & field_of_array(k))
            TRY(gpu_d2h(h8[k], d8[k], n * sizeof(double)));
    mdl_real *tmp = fields & MDL_DUMP_FORCE ? malloc((n ? n : 1) * sizeof *tmp) : NULL;
    const mdl_real *f[3] = {c->fx, c->fy, c->fz};
    double *hf[3] = {s->fx, s->fy, s->fz};
    int rc = (fields & MDL_DUMP_FORCE) && !tmp ? MDL_ERUN : MDL_OK;
    for (int k = 0; k < 3 && tmp && rc == MDL_OK; k++)
        rc = download_real(hf[k], f[k], n, tmp);
    free(tmp);
    const int *im[3] = {c->ix, c->iy, c->iz};
    int32_t *him[3] = {s->ix, s->iy, s->iz};
    for (int k = 0; k < 3 && rc == MDL_OK && (fields & MDL_DUMP_IMAGE); k++)
        if (gpu_d2h(him[k], im[k], n * sizeof(int32_t)))
            rc = MDL_ERUN;
    s->n = n;
    return rc;
}

/* Several ranks: every rank's atoms gathered on rank 0 (MPI), which puts them into the slot's host
   arrays in id order; the observables summed over ranks. The host waits. */
static int gather_snapshot(gpu_ctx *c, int k, int fields)
{
    mdl_system s;
    int words = 0;
    MDL_TRY(system_init(&s, 16));
    int rc = download_fields(c, fields, &s);
    double *mine = rc == MDL_OK ? system_pack_frame(&s, c->n, fields, 0, &words) : NULL, *all = NULL;
    system_destroy(&s);
    size_t total = 0;
    rc = mine ? comm_gather_root(mine, c->n * (size_t)words, &all, &total) : MDL_ERUN;
    struct gpu_slot *sl = comm_rank() == 0 && rc == MDL_OK ? &c->slots[k] : NULL;
    if (sl && (rc = fill_slot_host(c, sl)) == MDL_OK && total != c->natoms * (size_t)words) {
        mdl_error("internal: a frame of %zu atoms from every rank, %zu expected", total / (size_t)words, c->natoms);
        rc = MDL_ERUN;
    }
    if (sl && rc == MDL_OK)
        system_unpack_frame(sl->host, c->natoms, fields, all, words, 0);
    if (all != mine)
        free(all);
    free(mine);
    MDL_TRY(rc);
    double sums[3];
    MDL_TRY(sum_over_ranks(c, c->result, sums));
    if (sl) {
        sl->fields = fields;
        memcpy(sl->host_sums, sums, sizeof sums);
    }
    return MDL_OK;
}

/* Main thread, never blocking: the compute stream scatters the fields into id order in the
   slot's staging arrays and reduces the observables into it. (A slot is free only once the
   writer has finished it, so its previous copy is complete.) */
int gpu_snapshot_start(void *p, int k, int fields)
{
    gpu_ctx *c = p;
    if (!gpu_build_repeatable(c)) /* a checkpoint without its build: a restart builds from its positions */
        fields &= ~MDL_DUMP_BUILD;
    if (c->halo)
        return gather_snapshot(c, k, fields);
    struct gpu_slot *sl = &c->slots[k];
    if (fill_slot_device(c, sl) != MDL_OK)
        return MDL_ERUN;
    double *const *d = (double *const *)sl->dev;
    if (fields & MDL_DUMP_POSITION)
        TRY(gpu_scatter3_double(c->n, c->id, (const double *const[]){c->x, c->y, c->z}, d));
    if (fields & MDL_DUMP_VELOCITY)
        TRY(gpu_scatter3_double(c->n, c->id, (const double *const[]){c->vx, c->vy, c->vz}, d + 3));
    if (fields & MDL_DUMP_FORCE)
        TRY(gpu_scatter3_real(c->n, c->id, (const mdl_real *const[]){c->fx, c->fy, c->fz}, d + 6));
    if (fields & MDL_DUMP_IMAGE)
        TRY(gpu_scatter3_int(c->n, c->id, (const int *const[]){c->ix, c->iy, c->iz}, (int *const *)sl->dev + 9));
    if (fields & MDL_DUMP_BUILD) /* the last build's positions and order: a restart makes that build again */
        TRY(gpu_scatter_build(c->n, c->id, c->pos0, d + 12, sl->dev_order));
    TRY(queue_reduce(c, sl->dev_sums));
    if (c->barostat)
        TRY(gpu_d2d(sl->dev_box, &c->bx->grid.region, sizeof(mdl_box)));
    TRY(gpu_event_record(sl->snapped, NULL));
    sl->fields = fields;
    return MDL_OK;
}

/* Writer thread: the copy stream moves the slot to pinned memory once the snapshot is done; wait
   for it; the frame's arrays are the slot's pinned memory. */
int gpu_snapshot_finish(void *p, int k, mdl_system *frame, mdl_observables *obs)
{
    gpu_ctx *c = p;
    struct gpu_slot *sl = &c->slots[k];
    if (c->halo) { /* gathered already */
        system_point_fields(frame, sl->host, sl->fields);
        observables_from_sums(c, sl->host_sums, NULL, obs);
        return MDL_OK;
    }
    if (fill_slot_host(c, sl) != MDL_OK)
        return MDL_ERUN;
    TRY(gpu_stream_wait(c->copy_stream, sl->snapped));
    for (int a = 0; a < MDL_FIELD_ARRAYS; a++)
        if (sl->fields & field_of_array(a))
            TRY(gpu_copy_async(sl->host[a], sl->dev[a], c->natoms * field_array_bytes(a), c->copy_stream));
    if (sl->fields & MDL_DUMP_BUILD)
        TRY(gpu_copy_async(sl->host_order, sl->dev_order, c->natoms * sizeof(int), c->copy_stream));
    TRY(gpu_copy_async(sl->host_sums, sl->dev_sums, 3 * sizeof(double), c->copy_stream));
    if (c->barostat)
        TRY(gpu_copy_async(sl->host_box, sl->dev_box, sizeof(mdl_box), c->copy_stream));
    TRY(gpu_event_record(sl->copied, c->copy_stream));
    TRY(gpu_event_sync(sl->copied));
    system_point_fields(frame, sl->host, sl->fields);
    frame->border = sl->fields & MDL_DUMP_BUILD ? sl->host_order : NULL;
    observables_from_sums(c, sl->host_sums, c->barostat ? sl->host_box : NULL, obs);
    return MDL_OK;
}
