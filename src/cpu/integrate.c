/* Velocity Verlet kicks and drifts, kinetic energy and thermostat forces on the CPU. */
#include "integrate.h"

#include "../physics/langevin.h"
#include "../physics/rng.h"
#include "../util/util.h"
#include "neighbor.h"

#include <math.h>
#include <omp.h>

void integrate_kick(size_t n, double dtf, const double *inv_mass_of_type, const int32_t *type, double *vx,
                    double *vy, double *vz, const double *fx, const double *fy, const double *fz)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) {
        double a = dtf * inv_mass_of_type[type[i]];
        vx[i] += a * fx[i];
        vy[i] += a * fy[i];
        vz[i] += a * fz[i];
    }
}

void remap_coordinates(size_t n, double *x, double lo, double len, double lo2, double len2)
{
    const double inv = 1.0 / len;
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++)
        x[i] = nh_remap(x[i], lo, inv, lo2, len2);
}

void integrate_drift(size_t n, double dt, double *x, double *y, double *z, const double *vx, const double *vy,
                     const double *vz)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) {
        x[i] += dt * vx[i];
        y[i] += dt * vy[i];
        z[i] += dt * vz[i];
    }
}

double sum_mv2(size_t n, const double *mass_of_type, const int32_t *type, const double *vx, const double *vy,
               const double *vz, int nthreads)
{
    double part[MDL_MAX_THREADS] = {0};
    int T = 1;
#pragma omp parallel num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    {
        int t = omp_get_thread_num();
#pragma omp single
        T = omp_get_num_threads();
        double s = 0;
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++)
            s += mass_of_type[type[i]] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
        if (t < MDL_MAX_THREADS)
            part[t] = s;
    }
    double total = 0;
    for (int t = 0; t < T && t < MDL_MAX_THREADS; t++)
        total += part[t];
    return total;
}

void scale_velocities(size_t n, double factor, double *vx, double *vy, double *vz)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) {
        vx[i] *= factor;
        vy[i] *= factor;
        vz[i] *= factor;
    }
}

void langevin_forces(size_t n, const double *mass_of_type, const int32_t *type, const int64_t *id,
                     const uint32_t *groups, const double *vx, const double *vy, const double *vz, double *fx, double *fy, double *fz,
                     const mdl_langevin *p, uint64_t seed, uint64_t step)
{
    const uint64_t key = mdl_rng_key(seed, MDL_STREAM_LANGEVIN);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        if (!group_has(groups, id[i], p->group))
            continue;
        mdl_u32x4 r = mdl_random_block(key, (uint64_t)id[i], step);
        double f[3];
        langevin_force(p, step, mass_of_type[type[i]], vx[i], vy[i], vz[i], r.v, f);
        fx[i] += f[0];
        fy[i] += f[1];
        fz[i] += f[2];
    }
}

int cpu_velocity_normals(uint64_t key, size_t n, const int64_t *id, double *out)
{
    /* each atom's draw depends only on (key, id): threads fill disjoint atoms */
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)n; i++) {
        double unused;
        mdl_normal2(mdl_random_block(key, (uint64_t)id[i], 0), &out[3 * i], &out[3 * i + 1]);
        mdl_normal2(mdl_random_block(key, (uint64_t)id[i], 1), &out[3 * i + 2], &unused);
    }
    return MDL_OK;
}
