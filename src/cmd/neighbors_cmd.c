/* `mdlite neighbors FILE --cutoff R ...`: builds the neighbor list of a coordinate file with the
   chosen backend and method, reports the build time and writes `count j1 j2 ...` per atom. */
#define _POSIX_C_SOURCE 200809L
#include "neighbors_cmd.h"

#include "../cpu/neighbor.h"
#ifdef MDLITE_HAVE_GPU
#include "../gpu/neighbors_demo.h"
#endif
#include "../io/outfile.h"
#include "../io/readers.h"
#include "../system.h"
#include "../util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *file, *output, *backend, *method, *layout;
    double cutoff;
    double box[3];
    int nbox;
    long repeat;
} nb_args;

static int usage_error(const char *what)
{
    mdl_error("neighbors: %s\nusage: mdlite neighbors FILE --cutoff R [--backend cpu|gpu] [--method cell|brute|brute-atomic]\n"
              "                        [--layout transposed|row] [--box LX LY [LZ]] [--output FILE] [--repeat N]",
              what);
    return MDL_EINPUT;
}

static int parse_args(int argc, char **argv, nb_args *a)
{
    memset(a, 0, sizeof *a);
    a->backend = "cpu";
    a->method = "cell";
    a->layout = "transposed";
    a->repeat = 1;
    a->cutoff = -1;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        int more = argc - i - 1;
        if (strcmp(o, "--cutoff") == 0 && more >= 1) {
            if (mdl_parse_double(argv[++i], &a->cutoff) != 0 || a->cutoff <= 0)
                return usage_error("--cutoff needs a positive number");
        } else if (strcmp(o, "--backend") == 0 && more >= 1) {
            a->backend = argv[++i];
        } else if (strcmp(o, "--method") == 0 && more >= 1) {
            a->method = argv[++i];
        } else if (strcmp(o, "--layout") == 0 && more >= 1) {
            a->layout = argv[++i];
        } else if (strcmp(o, "--output") == 0 && more >= 1) {
            a->output = argv[++i];
        } else if (strcmp(o, "--repeat") == 0 && more >= 1) {
            if (mdl_parse_long(argv[++i], &a->repeat) != 0 || a->repeat < 1 || a->repeat > 100000)
                return usage_error("--repeat needs a count from 1 to 100000");
        } else if (strcmp(o, "--box") == 0 && more >= 2) {
            a->nbox = 0;
            while (i + 1 < argc && a->nbox < 3 && mdl_parse_double(argv[i + 1], &a->box[a->nbox]) == 0) {
                if (a->box[a->nbox] <= 0)
                    return usage_error("--box lengths must be positive");
                a->nbox++;
                i++;
            }
            if (a->nbox < 2)
                return usage_error("--box needs LX LY [LZ]");
        } else if (o[0] == '-' && o[1] == '-') {
            return usage_error(more ? "unknown option" : "option without its value");
        } else if (!a->file) {
            a->file = o;
        } else {
            return usage_error("more than one FILE");
        }
    }
    if (!a->file)
        return usage_error("missing FILE");
    if (a->cutoff < 0)
        return usage_error("missing --cutoff R");
    if (strcmp(a->layout, "transposed") != 0 && strcmp(a->layout, "row") != 0)
        return usage_error("--layout must be transposed or row");
    int gpu = strcmp(a->backend, "gpu") == 0;
#ifndef MDLITE_HAVE_GPU
    if (gpu) {
        mdl_error("neighbors: --backend gpu: this build of mdlite has no GPU backend");
        return MDL_EINPUT;
    }
#endif
    if (!gpu && strcmp(a->backend, "cpu") != 0)
        return usage_error("--backend must be cpu or gpu");
    if (strcmp(a->method, "cell") != 0 && strcmp(a->method, "brute") != 0 &&
        (!gpu || strcmp(a->method, "brute-atomic") != 0))
        return usage_error(strcmp(a->method, "brute-atomic") == 0 ? "--method brute-atomic is a GPU method"
                                                                  : "--method must be cell, brute or brute-atomic");
    return MDL_OK;
}

static int set_box(const nb_args *a, mdl_system *s)
{
    if (a->nbox == 0)
        return MDL_OK;
    for (int d = 0; d < 3; d++) {
        int periodic = d < a->nbox;
        s->box.periodic[d] = periodic;
        if (periodic) {
            s->box.lo[d] = 0;
            s->box.len[d] = a->box[d];
            if (a->cutoff >= 0.5 * a->box[d]) {
                mdl_error("neighbors: --cutoff %g is not less than half the box length %g", a->cutoff, a->box[d]);
                return MDL_EINPUT;
            }
        }
    }
    /* open dimensions keep the bounding box the reader found */
    double *c[3] = {s->x, s->y, s->z};
    for (size_t i = 0; i < s->n; i++)
        for (int d = 0; d < a->nbox; d++)
            if (c[d][i] < 0 || c[d][i] >= a->box[d]) {
                mdl_error("%s: atom %zu: %c = %g is outside the box [0, %g)", a->file, i + 1, "xyz"[d], c[d][i],
                          a->box[d]);
                return MDL_EINPUT;
            }
    return MDL_OK;
}

static int cmp_i32(const void *p, const void *q)
{
    int32_t a = *(const int32_t *)p, b = *(const int32_t *)q;
    return (a > b) - (a < b);
}

/* Expands the half list (sorted indices) to full rows in the file's order and writes them. */
static int write_full_lists(const cpu_nlist *nl, const int64_t *id, size_t n, FILE *out, const char *name)
{
    size_t *start = calloc(n + 1, sizeof *start);
    size_t pairs = nlist_pairs(nl);
    int32_t *rows = malloc((2 * pairs + 1) * sizeof *rows);
    if (!start || !rows) {
        free(start);
        free(rows);
        mdl_error("out of memory writing the neighbor lists");
        return MDL_ERUN;
    }
    for (int t = 0; t < nl->nseg; t++)
        for (size_t i = nl->seg[t].atom_begin; i < nl->seg[t].atom_end; i++)
            for (int k = 0; k < nl->count[i]; k++) {
                start[id[i] + 1]++;
                start[id[nl->seg[t].data[nl->first[i] + k]] + 1]++;
            }
    for (size_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    size_t *fill = malloc((n + 1) * sizeof *fill);
    if (!fill) {
        free(start);
        free(rows);
        return MDL_ERUN;
    }
    memcpy(fill, start, (n + 1) * sizeof *fill);
    for (int t = 0; t < nl->nseg; t++)
        for (size_t i = nl->seg[t].atom_begin; i < nl->seg[t].atom_end; i++)
            for (int k = 0; k < nl->count[i]; k++) {
                int64_t a = id[i], b = id[nl->seg[t].data[nl->first[i] + k]];
                rows[fill[a]++] = (int32_t)b;
                rows[fill[b]++] = (int32_t)a;
            }
    for (size_t i = 0; i < n; i++) {
        size_t cnt = start[i + 1] - start[i];
        qsort(rows + start[i], cnt, sizeof *rows, cmp_i32);
        fprintf(out, "%zu", cnt);
        for (size_t k = start[i]; k < start[i + 1]; k++)
            fprintf(out, " %d", rows[k]);
        fputc('\n', out);
    }
    free(start);
    free(fill);
    free(rows);
    if (ferror(out)) {
        mdl_error("%s: write error: %s", name, strerror(errno));
        return MDL_ERUN;
    }
    return MDL_OK;
}

/* Rows already in file order: rows[start[i] .. start[i+1]) ascending. */
static int write_rows(const int *rows, const size_t *start, size_t n, FILE *out, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%zu", start[i + 1] - start[i]);
        for (size_t k = start[i]; k < start[i + 1]; k++)
            fprintf(out, " %d", rows[k]);
        fputc('\n', out);
    }
    if (ferror(out)) {
        mdl_error("%s: write error: %s", name, strerror(errno));
        return MDL_ERUN;
    }
    return MDL_OK;
}

static int cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

/* Builds the list `repeat` times from the file's order; returns the median build time. */
static int build_timed(const nb_args *a, mdl_system *s, cpu_nlist *nl, double *median)
{
    size_t n = s->n;
    cpu_cells cells;
    cells_init(&cells);
    double *times = malloc((size_t)a->repeat * sizeof *times);
    int32_t *perm = malloc(n * sizeof *perm);
    void *scratch = malloc(n * sizeof(int64_t));
    double *x = malloc(3 * n * sizeof *x);
    int64_t *id = malloc(n * sizeof *id);
    int rc = times && perm && scratch && x && id ? MDL_OK : MDL_ERUN;
    for (long r = 0; r < a->repeat && rc == MDL_OK; r++) {
        memcpy(x, s->x, n * sizeof *x), memcpy(x + n, s->y, n * sizeof *x), memcpy(x + 2 * n, s->z, n * sizeof *x);
        for (size_t i = 0; i < n; i++)
            id[i] = (int64_t)i;
        double t0 = mdl_wtime();
        if (strcmp(a->method, "cell") == 0) {
            rc = cells_sort(&cells, &s->box, a->cutoff, n, x, x + n, x + 2 * n, perm);
            for (int d = 0; d < 3 && rc == MDL_OK; d++)
                permute_array(x + d * n, perm, n, sizeof *x, scratch);
            if (rc == MDL_OK)
                permute_array(id, perm, n, sizeof *id, scratch);
            if (rc == MDL_OK)
                rc = nlist_build_cells(nl, &cells, &s->box, a->cutoff, n, x, x + n, x + 2 * n, 0);
        } else {
            rc = nlist_build_brute(nl, &s->box, a->cutoff, n, x, x + n, x + 2 * n, 0);
        }
        times[r] = mdl_wtime() - t0;
    }
    if (rc == MDL_OK) {
        qsort(times, (size_t)a->repeat, sizeof *times, cmp_double);
        *median = times[a->repeat / 2];
        memcpy(s->id, id, n * sizeof *id);
    }
    cells_destroy(&cells);
    free(times), free(perm), free(scratch), free(x), free(id);
    return rc;
}

int neighbors_main(int argc, char **argv)
{
    nb_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != MDL_OK)
        return rc;
    mdl_named_path in = {a.file, "input file"}, out_path = {a.output, "--output file"};
    if (outputs_check(&in, 1, &out_path, 1, -1, -1) != MDL_OK)
        return MDL_EINPUT;
    mdl_system s;
    cpu_nlist nl;
    nlist_init(&nl);
    if (system_init(&s, 0) != MDL_OK)
        return MDL_ERUN;
    int has_box;
    rc = read_coordinates(a.file, &s, &has_box);
    if (rc == MDL_OK) {
        for (int d = 0; d < 3; d++)
            s.box.periodic[d] = 0; /* open boundaries unless --box */
        if (has_box) /* the reader took Lattice=; use the atoms' extent instead */
            system_bounding_box(&s);
        rc = set_box(&a, &s);
    }
    double median = 0;
    int *rows = NULL;
    size_t *row_start = NULL;
#ifdef MDLITE_HAVE_GPU
    if (rc == MDL_OK && strcmp(a.backend, "gpu") == 0)
        rc = gpu_neighbor_demo(&s, a.cutoff,
                               strcmp(a.method, "brute") == 0          ? MDL_NL_BRUTE
                               : strcmp(a.method, "brute-atomic") == 0 ? MDL_NL_BRUTE_ATOMIC
                                                                       : MDL_NL_CELL,
                               strcmp(a.layout, "row") == 0 ? MDL_NL_ROW : MDL_NL_TRANSPOSED, a.repeat, &rows,
                               &row_start, &median);
    else
#endif
    if (rc == MDL_OK)
        rc = build_timed(&a, &s, &nl, &median);
    FILE *out = stdout;
    if (rc == MDL_OK && a.output && !(out = fopen(a.output, "w"))) {
        mdl_error("%s: cannot write: %s", a.output, strerror(errno));
        rc = MDL_EINPUT;
    }
    if (rc == MDL_OK && rows)
        rc = write_rows(rows, row_start, s.n, out, a.output ? a.output : "stdout");
    else if (rc == MDL_OK)
        rc = write_full_lists(&nl, s.id, s.n, out, a.output ? a.output : "stdout");
    if (out && out != stdout && fclose(out) != 0 && rc == MDL_OK) {
        mdl_error("%s: cannot finish writing: %s", a.output, strerror(errno));
        rc = MDL_ERUN;
    }
    size_t pairs = rows ? row_start[s.n] / 2 : nlist_pairs(&nl);
    if (rc == MDL_OK)
        fprintf(a.output ? stdout : stderr,
                "neighbors: %zu atoms, %zu pairs (%.3f per atom), cutoff %g, backend %s, method %s%s%s: build %.4f ms "
                "(median of %ld)\n",
                s.n, pairs, 2.0 * (double)pairs / (double)s.n, a.cutoff, a.backend, a.method,
                rows ? ", layout " : "", rows ? a.layout : "", median * 1e3, a.repeat);
    free(rows);
    free(row_start);
    nlist_destroy(&nl);
    system_destroy(&s);
    return rc;
}
