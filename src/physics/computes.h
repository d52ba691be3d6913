/* LAMMPS's computes that thermo prints as c_ID columns (temp, temp/partial, temp/com, ke, pe, com,
   reduce over per-atom values; ke/atom, pe/atom, orientorder/atom as reduce's inputs): what each is, its size, and whether it is
   extensive (thermo_modify norm divides it by the atoms, as LAMMPS's thermo does). */
#ifndef MDL_PHYSICS_COMPUTES_H
#define MDL_PHYSICS_COMPUTES_H

#include <stdint.h>

#define MDL_MAX_COMPUTES 16
#define MDL_COMPUTE_VALUES 16 /* a compute's scalar and at most 15 vector elements (c_ID[1] .. c_ID[15]) */
#define MDL_COMPUTE_ID_LEN 32

enum { MDL_COMPUTE_TEMP, MDL_COMPUTE_TEMP_PARTIAL, MDL_COMPUTE_TEMP_COM, MDL_COMPUTE_KE, MDL_COMPUTE_PE,
       MDL_COMPUTE_COM, MDL_COMPUTE_REDUCE, MDL_COMPUTE_KE_ATOM, MDL_COMPUTE_ORIENTORDER, MDL_COMPUTE_PE_ATOM };
#define MDL_MAX_DEGREES 12 /* orientorder/atom's degrees l */
/* compute reduce's modes, LAMMPS's names in this order */
enum { MDL_REDUCE_SUM, MDL_REDUCE_MIN, MDL_REDUCE_MAX, MDL_REDUCE_AVE, MDL_REDUCE_SUMSQ, MDL_REDUCE_AVESQ };
/* reduce's per-atom inputs: x y z vx vy vz fx fy fz, or MDL_REDUCE_INPUT_COMPUTE + 64 j + k (compute
   j's per-atom value: a ke/atom's or a pe/atom's, k = 0; column k of an orientorder/atom's, k >= 1) */
enum { MDL_REDUCE_INPUT_COMPUTE = 100 };

/* One compute: its ID, style, group (its bit), temp/partial's velocity components (bits 1 x, 2 y,
   4 z), reduce's mode and inputs; orientorder/atom's degrees, its nnn nearest neighbors (0: all
   within the cutoff), its cutoff (0: the pair style's largest), and whether W_l and W_l hat follow
   the Q_l in its columns. */
typedef struct {
    char id[MDL_COMPUTE_ID_LEN];
    int style;
    uint32_t group;
    int components;
    int mode, ninputs, input[MDL_COMPUTE_VALUES - 1];
    int ndegrees, degree[MDL_MAX_DEGREES], nnn, wl, wlhat;
    double cutoff;
} mdl_compute;

/* A per-atom compute's columns (ke/atom's one value; orientorder/atom's Q_l, then W_l, then W_l hat). */
static inline int compute_atom_columns(const mdl_compute *c)
{
    return c->style == MDL_COMPUTE_ORIENTORDER ? c->ndegrees * (1 + c->wl + c->wlhat) : 1;
}

typedef struct {
    int n;
    mdl_compute c[MDL_MAX_COMPUTES];
} mdl_computes;

/* How many vector elements a compute has (0: a scalar alone; -1: neither, a per-atom compute), and
   whether it has a scalar. LAMMPS's: temp's six (the kinetic energy tensor m v_a v_b), com's three,
   reduce's one scalar for one input or a vector of one element per input. */
static inline int compute_vector_size(const mdl_compute *c)
{
    switch (c->style) {
    case MDL_COMPUTE_TEMP:
    case MDL_COMPUTE_TEMP_PARTIAL:
    case MDL_COMPUTE_TEMP_COM: return 6;
    case MDL_COMPUTE_COM: return 3;
    case MDL_COMPUTE_REDUCE: return c->ninputs > 1 ? c->ninputs : 0;
    case MDL_COMPUTE_KE_ATOM:
    case MDL_COMPUTE_PE_ATOM:
    case MDL_COMPUTE_ORIENTORDER: return -1;
    default: return 0;
    }
}

static inline int compute_has_scalar(const mdl_compute *c)
{
    return c->style != MDL_COMPUTE_COM && compute_vector_size(c) >= 0 &&
           !(c->style == MDL_COMPUTE_REDUCE && c->ninputs > 1);
}

/* Whether value k (0 the scalar, k >= 1 vector element k) is extensive, LAMMPS's extscalar and
   extvector: ke, pe and reduce's sums are; temperatures are not, their tensors are; com is not. */
static inline int compute_extensive(const mdl_compute *c, int k)
{
    switch (c->style) {
    case MDL_COMPUTE_KE:
    case MDL_COMPUTE_PE: return 1;
    case MDL_COMPUTE_TEMP:
    case MDL_COMPUTE_TEMP_PARTIAL:
    case MDL_COMPUTE_TEMP_COM: return k > 0;
    case MDL_COMPUTE_REDUCE:
        return c->mode == MDL_REDUCE_SUM || c->mode == MDL_REDUCE_SUMSQ;
    default: return 0;
    }
}

#endif
