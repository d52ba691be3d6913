/* LAMMPS's `velocity create` reproduced operation for operation, so that a script's step 0 is
   LAMMPS's: RanPark, loop all / loop geom, zero momentum, the rescale to T. */
#include "lammps_velocity.h"

#include "../physics/observables.h"

#include <math.h>
#include <string.h>

enum { PARK_A = 16807, PARK_M = 2147483647, PARK_Q = 127773, PARK_R = 2836 };

void ranpark_init(mdl_ranpark *r, int seed)
{
    r->seed = seed;
    r->save = 0;
    r->second = 0;
}

double ranpark_uniform(mdl_ranpark *r)
{
    int k = r->seed / PARK_Q;
    r->seed = PARK_A * (r->seed - k * PARK_Q) - PARK_R * k;
    if (r->seed < 0)
        r->seed += PARK_M;
    return (1.0 / PARK_M) * r->seed;
}

/* Marsaglia's polar method; the second deviate of a pair is kept for the next call. */
double ranpark_gaussian(mdl_ranpark *r)
{
    if (r->save) {
        r->save = 0;
        return r->second;
    }
    double v1, v2, rsq;
    do {
        v1 = 2.0 * ranpark_uniform(r) - 1.0;
        v2 = 2.0 * ranpark_uniform(r) - 1.0;
        rsq = v1 * v1 + v2 * v2;
    } while (rsq >= 1.0 || rsq == 0.0);
    double fac = sqrt(-2.0 * log(rsq) / rsq);
    r->second = v1 * fac;
    r->save = 1;
    return v2 * fac;
}

static unsigned int hash_bytes(unsigned int hash, const void *data, size_t n)
{
    const signed char *b = data; /* LAMMPS hashes `char`, signed on x86 */
    for (size_t i = 0; i < n; i++) {
        hash += (unsigned int)(int)b[i];
        hash += hash << 10;
        hash ^= hash >> 6;
    }
    return hash;
}

void ranpark_reset_coord(mdl_ranpark *r, int seed, const double coord[3])
{
    unsigned int hash = hash_bytes(0, &seed, sizeof seed);
    hash = hash_bytes(hash, coord, 3 * sizeof(double));
    hash += hash << 3;
    hash ^= hash >> 11;
    hash += hash << 15;
    r->seed = (int)(hash & 0x7ffffff);
    if (!r->seed)
        r->seed = 1;
    for (int i = 0; i < 5; i++)
        ranpark_uniform(r);
    r->save = 0;
}

static void draw_triple(mdl_ranpark *r, int gaussian, double v[3])
{
    for (int d = 0; d < 3; d++)
        v[d] = gaussian ? ranpark_gaussian(r) : ranpark_uniform(r) - 0.5;
}

/* Velocity::zero_momentum: the group's mass and centre-of-mass velocity, summed in atom order. */
static void zero_momentum(mdl_system *s, uint32_t group)
{
    double mtot = 0, p[3] = {0, 0, 0};
    for (size_t i = 0; i < s->n; i++)
        if (group_has(s->groups, s->id[i], group))
            mtot += s->mass[s->type[i]];
    for (size_t i = 0; i < s->n; i++) {
        if (!group_has(s->groups, s->id[i], group))
            continue;
        double m = s->mass[s->type[i]];
        p[0] += s->vx[i] * m;
        p[1] += s->vy[i] * m;
        p[2] += s->vz[i] * m;
    }
    for (int d = 0; d < 3; d++)
        p[d] /= mtot;
    for (size_t i = 0; i < s->n; i++)
        if (group_has(s->groups, s->id[i], group))
            s->vx[i] -= p[0], s->vy[i] -= p[1], s->vz[i] -= p[2];
}

double velocities_temperature(const mdl_system *s, const mdl_units *u, uint32_t group, int components)
{
    double t = 0;
    size_t n = 0;
    const double cx = components & 1, cy = (components >> 1) & 1, cz = (components >> 2) & 1;
    for (size_t i = 0; i < s->n; i++)
        if (group_has(s->groups, s->id[i], group)) { /* LAMMPS's temp/partial: flag * v * v, flags 0 or 1 */
            t += (cx * s->vx[i] * s->vx[i] + cy * s->vy[i] * s->vy[i] + cz * s->vz[i] * s->vz[i]) * s->mass[s->type[i]];
            n++;
        }
    const double dof = mdl_dof(n, mdl_component_count(components, box_dimension(&s->box)));
    return dof > 0 ? t * (u->mvv2e / (dof * u->boltz)) : 0.0;
}

int velocities_scale(mdl_system *s, const mdl_units *u, double T, uint32_t group, uint32_t temp_group,
                     int temp_components)
{
    double t = velocities_temperature(s, u, temp_group, temp_components);
    if (!(t > 0))
        return -1;
    double factor = sqrt(T / t);
    for (size_t i = 0; i < s->n; i++)
        if (group_has(s->groups, s->id[i], group))
            s->vx[i] *= factor, s->vy[i] *= factor, s->vz[i] *= factor;
    return 0;
}

int velocities_lammps_group(mdl_system *s, const mdl_units *u, double T, int seed, int loop, int gaussian,
                            uint32_t group, uint32_t temp_group, int temp_components)
{
    mdl_ranpark r;
    ranpark_init(&r, loop == MDL_VEL_LOOP_ALL ? seed : 1);
    for (size_t i = 0; i < s->n; i++) { /* loop all: a draw for every id, kept for the group's atoms */
        double v[3], c[3] = {s->x[i], s->y[i], s->z[i]};
        const int in = group_has(s->groups, s->id[i], group);
        if (loop == MDL_VEL_LOOP_GEOM && !in)
            continue;
        if (loop == MDL_VEL_LOOP_GEOM)
            ranpark_reset_coord(&r, seed, c);
        draw_triple(&r, gaussian, v);
        if (!in)
            continue;
        double factor = 1.0 / sqrt(s->mass[s->type[i]]);
        s->vx[i] = v[0] * factor, s->vy[i] = v[1] * factor; /* in 2-d LAMMPS draws vz and sets it to 0 */
        s->vz[i] = box_dimension(&s->box) == 2 ? 0.0 : v[2] * factor;
    }
    zero_momentum(s, group);
    return velocities_scale(s, u, T, group, temp_group, temp_components);
}

void velocities_lammps(mdl_system *s, const mdl_units *u, double T, int seed, int loop, int gaussian)
{
    /* every atom: more than one (setup.c), so the drawn velocities have a temperature */
    (void)velocities_lammps_group(s, u, T, seed, loop, gaussian, MDL_GROUP_ALL, MDL_GROUP_ALL, 7);
}

void velocities_set(mdl_system *s, uint32_t group, const int acts[3], const double v[3], int sum)
{
    double *c[3] = {s->vx, s->vy, s->vz};
    for (size_t i = 0; i < s->n; i++)
        for (int d = 0; d < 3; d++)
            if (acts[d] && group_has(s->groups, s->id[i], group))
                c[d][i] = sum ? c[d][i] + v[d] : v[d];
}

void velocities_ramp(mdl_system *s, uint32_t group, int vdim, double vlo, double vhi, int cdim, double clo, double chi,
                     int sum)
{
    double *v = vdim == 0 ? s->vx : vdim == 1 ? s->vy : s->vz;
    const double *x = cdim == 0 ? s->x : cdim == 1 ? s->y : s->z;
    for (size_t i = 0; i < s->n; i++) {
        if (!group_has(s->groups, s->id[i], group))
            continue;
        double fraction = (x[i] - clo) / (chi - clo);
        fraction = fraction < 0.0 ? 0.0 : fraction > 1.0 ? 1.0 : fraction;
        const double ramp = vlo + fraction * (vhi - vlo);
        v[i] = sum ? v[i] + ramp : ramp;
    }
}
