/* Allocation and growth of the structure-of-arrays particle state. */
#include "system.h"

#include "../util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#define THREADS(t) ((t) > 0 ? (t) : omp_get_max_threads())
#else
#define THREADS(t) 1
#endif

int system_init(mdl_system *s, size_t capacity)
{
    memset(s, 0, sizeof *s);
    for (int d = 0; d < 3; d++)
        s->box.periodic[d] = 1;
    return system_reserve(s, capacity ? capacity : 16);
}

void system_destroy(mdl_system *s)
{
    void *arrays[] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz,
                      s->ix, s->iy, s->iz, s->bx, s->by, s->bz, s->type, s->id, s->groups};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    memset(s, 0, sizeof *s);
}

void system_point_fields(mdl_system *s, void *const arrays[MDL_FIELD_ARRAYS], int fields)
{
    void **a[MDL_FIELD_ARRAYS];
    system_field_arrays(s, a);
    for (int k = 0; k < MDL_FIELD_ARRAYS; k++)
        if (fields & field_of_array(k))
            *a[k] = arrays ? arrays[k] : NULL;
}

void system_free_fields(mdl_system *s)
{
    void **a[MDL_FIELD_ARRAYS];
    system_field_arrays(s, a);
    for (int k = 0; k < MDL_FIELD_ARRAYS; k++) {
        free(*a[k]);
        *a[k] = NULL;
    }
}

static int grow(void **p, size_t count, size_t size)
{
    size_t bytes;
    if (mdl_mul_size(count, size, &bytes) != 0) {
        mdl_error("%zu atoms: the atom arrays would need more bytes than this machine can address", count);
        return -1;
    }
    void *q = mdl_realloc(*p, bytes, "atom arrays");
    if (!q)
        return -1;
    *p = q;
    return 0;
}

void system_field_arrays(mdl_system *s, void **addr[MDL_FIELD_ARRAYS])
{
    void **a[MDL_FIELD_ARRAYS] = {(void **)&s->x,  (void **)&s->y,  (void **)&s->z,  (void **)&s->vx,
                                  (void **)&s->vy, (void **)&s->vz, (void **)&s->fx, (void **)&s->fy,
                                  (void **)&s->fz, (void **)&s->ix, (void **)&s->iy, (void **)&s->iz,
                                  (void **)&s->bx, (void **)&s->by, (void **)&s->bz};
    memcpy(addr, a, sizeof a);
}

int system_reserve(mdl_system *s, size_t capacity)
{
    if (capacity <= s->capacity)
        return MDL_OK;
    void **a[MDL_FIELD_ARRAYS];
    system_field_arrays(s, a);
    for (int k = 0; k < MDL_GROWN_ARRAYS; k++)
        if (grow(a[k], capacity, field_array_bytes(k)))
            return MDL_ERUN;
    if (grow((void **)&s->type, capacity, sizeof(int32_t)) || grow((void **)&s->id, capacity, sizeof(int64_t)))
        return MDL_ERUN;
    s->capacity = capacity;
    return MDL_OK;
}

long system_add_atom(mdl_system *s, int type, double x, double y, double z)
{
    if (s->n == s->capacity && system_reserve(s, 2 * s->capacity) != MDL_OK)
        return -1;
    size_t i = s->n++;
    s->x[i] = x;
    s->y[i] = y;
    s->z[i] = z;
    s->vx[i] = s->vy[i] = s->vz[i] = 0;
    s->fx[i] = s->fy[i] = s->fz[i] = 0;
    s->ix[i] = s->iy[i] = s->iz[i] = 0;
    s->type[i] = type;
    s->id[i] = (int64_t)i;
    return (long)i;
}

int system_species_matches(const mdl_system *s, int t, const char *name)
{
    if (strcmp(s->species[t], name) == 0)
        return 1;
    char number[16];
    snprintf(number, sizeof number, "%d", t + 1);
    if (strcmp(number, name) != 0)
        return 0;
    for (int k = 0; k < s->ntypes; k++) /* a number names a type only where no species has that name */
        if (strcmp(s->species[k], name) == 0)
            return 0;
    return 1;
}

int system_species_index(mdl_system *s, const char *name, int add)
{
    for (int t = 0; t < s->ntypes; t++)
        if (strcmp(s->species[t], name) == 0)
            return t;
    for (int t = 0; t < s->ntypes && !add; t++)
        if (system_species_matches(s, t, name))
            return t;
    if (!add || s->ntypes == MDL_MAX_SPECIES || strlen(name) >= MDL_NAME_LEN)
        return -1;
    strcpy(s->species[s->ntypes], name);
    s->mass[s->ntypes] = 0;
    return s->ntypes++;
}

void system_bounding_box(mdl_system *s)
{
    double *c[3] = {s->x, s->y, s->z};
    for (int d = 0; d < 3; d++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < s->n; i++) {
            lo = fmin(lo, c[d][i]);
            hi = fmax(hi, c[d][i]);
        }
        s->box.lo[d] = lo;
        s->box.len[d] = hi > lo ? hi - lo : 0;
        s->box.periodic[d] = 0;
    }
}

double *system_pack_frame(mdl_system *s, size_t n, int fields, int threads, int *words)
{
    void **src[MDL_FIELD_ARRAYS];
    system_field_arrays(s, src);
    int arrays[MDL_FIELD_ARRAYS], m = 0;
    for (int a = 0; a < MDL_FIELD_ARRAYS; a++)
        if (fields & field_of_array(a))
            arrays[m++] = a;
    *words = m + 1;
    double *buf = mdl_alloc((n ? n : 1) * (size_t)(m + 1) * sizeof *buf, "a frame");
    if (!buf)
        return NULL;
    const long count = (long)n;
#pragma omp parallel for schedule(static) num_threads(THREADS(threads))
    for (long i = 0; i < count; i++) {
        double *w = buf + (size_t)i * (size_t)(m + 1);
        w[0] = (double)s->id[i];
        for (int k = 0; k < m; k++)
            w[k + 1] = field_array_is_double(arrays[k]) ? ((const double *)*src[arrays[k]])[i]
                                                        : ((const int32_t *)*src[arrays[k]])[i];
    }
    return buf;
}

void system_unpack_frame(void *const arrays[MDL_FIELD_ARRAYS], size_t natoms, int fields, const double *all,
                         int words, int threads)
{
    const long n = (long)natoms;
#pragma omp parallel for schedule(static) num_threads(THREADS(threads))
    for (long i = 0; i < n; i++) {
        const double *w = all + (size_t)i * (size_t)words;
        size_t id = (size_t)w[0];
        for (int a = 0, m = 1; a < MDL_FIELD_ARRAYS; a++) {
            if (!(fields & field_of_array(a)))
                continue;
            if (field_array_is_double(a))
                ((double *)arrays[a])[id] = w[m++];
            else
                ((int32_t *)arrays[a])[id] = (int32_t)w[m++];
        }
    }
}

void system_species_counts(const mdl_system *s, char *out, size_t size)
{
    size_t count[MDL_MAX_SPECIES] = {0}, k = 0;
    for (size_t i = 0; i < s->n; i++)
        count[s->type[i]]++;
    out[0] = '\0';
    for (int t = 0; t < s->ntypes && k < size; t++)
        k += (size_t)snprintf(out + k, size - k, "%s%s %zu", t ? ", " : "", s->species[t], count[t]);
}
