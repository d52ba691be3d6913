/* CPU pair forces (any style of physics/pair_styles.h) over a half neighbor list (Newton's third law), OpenMP-parallel with
   per-thread force buffers summed in a fixed order, so a thread count gives one result. */
#ifndef MDL_CPU_FORCE_H
#define MDL_CPU_FORCE_H

#include "../parallel/domain.h"
#include "../system/potential.h"
#include "neighbor.h"

/* The style and its coefficient arrays (coeff[k][ti * ntypes + tj]) for vectorised gathers. */
typedef struct {
    int ntypes, style;
    double coeff[MDL_PAIR_MAX_COEFF][MDL_MAX_SPECIES * MDL_MAX_SPECIES];
    double cutsq[MDL_MAX_SPECIES * MDL_MAX_SPECIES];
    const mdl_eam *eam; /* an EAM style's tables (the run's: NULL for a pair style) */
} cpu_pair_table;

void cpu_pair_table_fill(cpu_pair_table *t, const mdl_pair_table *pt);

/* Per-thread scratch for the force loop. */
typedef struct {
    double *fbuf;        /* (nthreads - 1) * 3 * capacity: forces of threads 1.. */
    size_t fbuf_atoms;
    int nthreads;
    double *eam;         /* EAM: each atom's density, its embedding slope, then threads 1..'s densities
                            (nthreads + 1 arrays of eam_atoms) */
    size_t eam_atoms;
} cpu_force_scratch;

void force_scratch_init(cpu_force_scratch *s);
void force_scratch_destroy(cpu_force_scratch *s);
/* Room for the forces of threads 1 .. nthreads - 1 (thread 0 writes the output). */
int force_scratch_reserve(cpu_force_scratch *s, int nthreads, size_t n);
/* In a parallel region: thread th's force arrays (thread 0's are fx, fy, fz), zeroed, into g; then,
   after a barrier, every thread's added into fx, fy, fz in thread order (a work-shared loop), so
   that a thread count gives one result. */
void force_buffers(const cpu_force_scratch *s, int th, size_t n, double *fx, double *fy, double *fz, double *g[3]);
void force_buffers_sum(const cpu_force_scratch *s, int nthreads, size_t n, double *fx, double *fy, double *fz);

/* Forces into fx, fy, fz of the n atoms (overwritten; those of ghosts, [nlocal, n), mean nothing).
   energy_virial (enum mdl_ev): MDL_EV_ENERGY, *pe and *virial get the totals (a pair with a ghost
   counts half); MDL_EV_VIRIAL, *virial alone (*pe untouched; a barostat's steps, the energy's pass
   saved). */
int pair_forces(const cpu_pair_table *t, const cpu_nlist *nl, const mdl_box *box, size_t nlocal, size_t n,
                const double *x, const double *y, const double *z, const int32_t *type, double *fx, double *fy,
                double *fz, int energy_virial, double *pe, double *virial, cpu_force_scratch *scratch);

/* The virial tensor of the pairs in the list (xx yy zz xy xz yz; a ghost's pair half), as the
   last force call computed their forces: the style's arithmetic, pair by pair. */
void pair_virial_tensor(const cpu_pair_table *t, const cpu_nlist *nl, const mdl_box *box, size_t nlocal,
                        const double *x, const double *y, const double *z, const int32_t *type, double w[6]);
/* Each owned atom's potential energy e[0, nlocal) from the pairs in the list (half of each pair's
   to each atom; a ghost's half is counted by its owner), by the style's arithmetic. */
void pair_atom_energies(const cpu_pair_table *t, const cpu_nlist *nl, const mdl_box *box, size_t nlocal,
                        const double *x, const double *y, const double *z, const int32_t *type, double *e);
/* The same for EAM: each atom's embedding energy at the last force call's density, and half of each
   pair's phi (eam_force.c). */
void eam_atom_energies(const mdl_eam *e, const cpu_nlist *nl, const mdl_box *box, size_t nlocal, const double *x,
                       const double *y, const double *z, const int32_t *type, const cpu_force_scratch *scratch,
                       double *out);
/* The same for EAM, from the embedding slopes of the last force call (eam_force.c). */
void eam_virial_tensor(const mdl_eam *e, const cpu_nlist *nl, const mdl_box *box, size_t nlocal, size_t n,
                       const double *x, const double *y, const double *z, const int32_t *type,
                       const cpu_force_scratch *scratch, double w[6]);
/* EAM (eam_force.c): the same contract as pair_forces; dm forwards the owned atoms' embedding
   slopes to their ghosts on other ranks. */
int eam_forces(const mdl_eam *e, const cpu_nlist *nl, const mdl_box *box, size_t nlocal, size_t n, const double *x,
               const double *y, const double *z, const int32_t *type, double *fx, double *fy, double *fz,
               int energy_virial, double *pe, double *virial, cpu_force_scratch *scratch, mdl_domain *dm);

#endif
