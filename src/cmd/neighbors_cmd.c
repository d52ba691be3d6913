/* `mdlite neighbors FILE --cutoff R ...`: builds the neighbor list of a coordinate file through the
   chosen backend's table (method, layout), reports the build time and writes `count j1 j2 ...` per
   atom. */
#define _POSIX_C_SOURCE 200809L
#include "neighbors_cmd.h"

#include "../core/backend.h"
#include "../io/outfile.h"
#include "../io/readers.h"
#include "../system/system.h"
#include "../util/util.h"

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
    int overwrite;
    double outer_skin;       /* GPU: the list pruned from an outer list this much longer */
    enum mdl_list_form list; /* GPU: auto, plain or packed rows */
} nb_args;

static int usage_error(const char *what)
{
    mdl_error("neighbors: %s\nusage: mdlite neighbors FILE --cutoff R [--backend cpu|gpu] [--method cell|brute|brute-atomic]\n"
              "                        [--layout transposed|row] [--list auto|plain|packed] [--outer-skin S] [--box LX LY [LZ]]\n"
              "                        [--output FILE [--overwrite]] [--repeat N]",
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
        } else if (strcmp(o, "--outer-skin") == 0 && more >= 1) {
            if (mdl_parse_double(argv[++i], &a->outer_skin) != 0 || a->outer_skin < 0)
                return usage_error("--outer-skin needs a number >= 0");
        } else if (strcmp(o, "--list") == 0 && more >= 1) {
            const char *v = argv[++i];
            if (strcmp(v, "auto") != 0 && strcmp(v, "plain") != 0 && strcmp(v, "packed") != 0)
                return usage_error("--list needs auto, plain or packed");
            a->list = v[0] == 'a' ? MDL_LIST_AUTO : v[1] == 'l' ? MDL_LIST_PLAIN : MDL_LIST_PACKED;
        } else if (strcmp(o, "--overwrite") == 0) {
            a->overwrite = 1;
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
    if (!gpu && strcmp(a->backend, "cpu") != 0)
        return usage_error("--backend must be cpu or gpu");
    if (strcmp(a->method, "cell") != 0 && strcmp(a->method, "brute") != 0 &&
        (!gpu || strcmp(a->method, "brute-atomic") != 0))
        return usage_error(strcmp(a->method, "brute-atomic") == 0 ? "--method brute-atomic is a GPU method"
                                                                  : "--method must be cell, brute or brute-atomic");
    if (!gpu && (a->outer_skin > 0 || a->list != MDL_LIST_AUTO)) /* as `run` says of their keys */
        mdl_warn("%s: not used by this run (a GPU option, and the backend is cpu)",
                 a->outer_skin > 0 ? "--outer-skin" : "--list");
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

static int cmp_int(const void *p, const void *q)
{
    int a = *(const int *)p, b = *(const int *)q;
    return (a > b) - (a < b);
}

/* Row i, rows[start[i] .. start[i+1]), as `count j1 j2 ...` with ascending j. */
static int write_rows(int *rows, const size_t *start, size_t n, FILE *out, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        qsort(rows + start[i], start[i + 1] - start[i], sizeof *rows, cmp_int);
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

/* The backend's list of s (cutoff rc, no skin) built `repeat` times after a warm-up build (each
   timed to its end on the device); the median build time, and the rows in file order. */
static int build_timed(const nb_args *a, const mdl_backend_ops *ops, const mdl_system *s, int **rows, size_t **start,
                       double *median)
{
    mdl_units u;
    units_lookup("lj", &u);
    mdl_pair_table pt = {.ntypes = s->ntypes > 0 ? s->ntypes : 1, .cutmax = a->cutoff};
    mdl_system sys = *s; /* the backend copies it; masses matter only for integration */
    for (int t = 0; t < pt.ntypes; t++)
        sys.mass[t] = sys.mass[t] > 0 ? sys.mass[t] : 1.0;
    enum mdl_nl_method method = strcmp(a->method, "cell") == 0    ? MDL_NL_CELL
                                : strcmp(a->method, "brute") == 0 ? MDL_NL_BRUTE
                                                                  : MDL_NL_BRUTE_ATOMIC;
    mdl_setup setup = {.units = &u, .pairs = &pt, .timestep = 1.0, .check = 1, .distance_check = 1, .method = method,
                       .layout = strcmp(a->layout, "row") ? MDL_NL_TRANSPOSED : MDL_NL_ROW, .grow = 1,
                       .outer_skin = a->outer_skin, .list_form = a->list};
    void *ctx = NULL;
    double *times = malloc((size_t)a->repeat * sizeof *times);
    int rc = times && ops->create(&ctx, &setup, &sys) == MDL_OK ? MDL_OK : MDL_ERUN;
    if (rc == MDL_OK)
        rc = ops->build_neighbors(ctx); /* warm-up */
    for (long r = 0; r < a->repeat && rc == MDL_OK; r++) {
        double t0 = mdl_wtime();
        rc = ops->build_neighbors(ctx) == MDL_OK && ops->synchronize(ctx) == MDL_OK ? MDL_OK : MDL_ERUN;
        times[r] = mdl_wtime() - t0;
    }
    if (rc == MDL_OK) {
        qsort(times, (size_t)a->repeat, sizeof *times, cmp_double);
        *median = times[a->repeat / 2];
        rc = ops->neighbor_rows(ctx, rows, start);
    }
    if (ctx)
        ops->destroy(ctx);
    free(times);
    return rc;
}

typedef struct {
    int *rows;
    const size_t *start;
    size_t n;
    const char *path;
} rows_out;

static int write_rows_file(void *user, const char *name)
{
    rows_out *o = user;
    FILE *f = fopen(name, "w");
    if (!f) {
        mdl_error("%s: cannot write: %s", o->path, strerror(errno));
        return MDL_ERUN;
    }
    int rc = write_rows(o->rows, o->start, o->n, f, o->path);
    if (fclose(f) != 0 && rc == MDL_OK) {
        mdl_error("%s: cannot finish writing: %s", o->path, strerror(errno));
        rc = MDL_ERUN;
    }
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
    const mdl_backend_ops *ops = backend_lookup(a.backend);
    mdl_system s;
    if (!ops)
        return MDL_EINPUT;
    /* as `run` does: written under a temporary name, an existing output kept as #name.N# unless --overwrite */
    if (a.output && outfile_check_free(a.output, out_path.role) != MDL_OK)
        return MDL_EINPUT;
    if (system_init(&s, 0) != MDL_OK)
        return MDL_ERUN;
    int has_box;
    rc = read_coordinates(a.file, 0, &s, &has_box);
    if (rc == MDL_OK) {
        for (int d = 0; d < 3; d++) /* open boundaries unless --box, which is orthogonal */
            s.box.periodic[d] = 0, s.box.tilt[d] = 0;
        if (has_box) /* the reader took Lattice=; use the atoms' extent instead */
            system_bounding_box(&s);
        rc = set_box(&a, &s);
    }
    double median = 0;
    int *rows = NULL;
    size_t *row_start = NULL;
    if (rc == MDL_OK)
        rc = build_timed(&a, ops, &s, &rows, &row_start, &median);
    rows_out ro = {rows, row_start, s.n, a.output};
    if (rc == MDL_OK && a.output)
        rc = outfile_write_whole(a.output, out_path.role, a.overwrite, write_rows_file, &ro);
    else if (rc == MDL_OK)
        rc = write_rows(rows, row_start, s.n, stdout, "stdout");
    size_t pairs = rows ? row_start[s.n] / 2 : 0;
    if (rc == MDL_OK)
        fprintf(a.output ? stdout : stderr,
                "neighbors: %zu atoms, %zu pairs (%.3f per atom), cutoff %g, backend %s, method %s%s%s: build %.4f ms "
                "(median of %ld)\n",
                s.n, pairs, 2.0 * (double)pairs / (double)s.n, a.cutoff, a.backend, a.method,
                strcmp(a.backend, "gpu") == 0 ? ", layout " : "", strcmp(a.backend, "gpu") == 0 ? a.layout : "",
                median * 1e3, a.repeat);
    free(rows);
    free(row_start);
    system_destroy(&s);
    return rc;
}
