/* LAMMPS's thermo keywords that mdlite prints, each as LAMMPS computes it for an atomic system: the
   energies of other kinds (bonds, charges, long-range) are 0, evdwl and epair are the potential
   energy (the tail included, as LAMMPS's are), the cell of an orthogonal box has right angles. */
#include "thermo_columns.h"

#include <math.h>
#include <string.h>

enum { C_STEP, C_ELAPSED, C_ELAPLONG, C_DT, C_TIME, C_CPU, C_TPCPU, C_SPCPU, C_ATOMS, C_TEMP, C_PRESS, C_PE, C_KE,
       C_ETOTAL, C_ENTHALPY, C_EVDWL, C_ECOUL, C_EPAIR, C_EBOND, C_EANGLE, C_EDIHED, C_EIMP, C_EMOL, C_ELONG, C_ETAIL,
       C_VOL, C_DENSITY, C_LX, C_LY, C_LZ, C_XLO, C_XHI, C_YLO, C_YHI, C_ZLO, C_ZHI, C_XY, C_XZ, C_YZ, C_PXX, C_PYY,
       C_PZZ, C_PXY, C_PXZ, C_PYZ, C_FMAX, C_FNORM, C_NBUILD, C_NDANGER, C_CELLA, C_CELLB, C_CELLC, C_CELLALPHA,
       C_CELLBETA, C_CELLGAMMA, C_ECOUPLE, C_ECONSERVE, C_BONDS, C_ANGLES, C_DIHEDRALS, C_IMPROPERS, C_COUNT };

enum { F = MDL_THERMO_NEEDS_FORCES, T = MDL_THERMO_NEEDS_TENSOR, S = MDL_THERMO_NEEDS_STATS, K = MDL_THERMO_NEEDS_CLOCK };

static const thermo_column COLUMNS[C_COUNT] = {
    {"step", "Step", 1, 0, 0},          {"elapsed", "Elapsed", 1, 0, 0},   {"elaplong", "Elaplong", 1, 0, 0},
    {"dt", "Dt", 0, 0, 0},              {"time", "Time", 0, 0, 0},         {"cpu", "CPU", 0, 0, K},
    {"tpcpu", "T/CPU", 0, 0, K},        {"spcpu", "S/CPU", 0, 0, K},       {"atoms", "Atoms", 1, 0, 0},
    {"temp", "Temp", 0, 0, 0},          {"press", "Press", 0, 0, 0},       {"pe", "PotEng", 0, 1, 0},
    {"ke", "KinEng", 0, 1, 0},          {"etotal", "TotEng", 0, 1, 0},     {"enthalpy", "Enthalpy", 0, 1, 0},
    {"evdwl", "E_vdwl", 0, 1, 0},       {"ecoul", "E_coul", 0, 1, 0},      {"epair", "E_pair", 0, 1, 0},
    {"ebond", "E_bond", 0, 1, 0},       {"eangle", "E_angle", 0, 1, 0},    {"edihed", "E_dihed", 0, 1, 0},
    {"eimp", "E_impro", 0, 1, 0},       {"emol", "E_mol", 0, 1, 0},        {"elong", "E_long", 0, 1, 0},
    {"etail", "E_tail", 0, 1, 0},       {"vol", "Volume", 0, 0, 0},        {"density", "Density", 0, 0, 0},
    {"lx", "Lx", 0, 0, 0},              {"ly", "Ly", 0, 0, 0},             {"lz", "Lz", 0, 0, 0},
    {"xlo", "Xlo", 0, 0, 0},            {"xhi", "Xhi", 0, 0, 0},           {"ylo", "Ylo", 0, 0, 0},
    {"yhi", "Yhi", 0, 0, 0},            {"zlo", "Zlo", 0, 0, 0},           {"zhi", "Zhi", 0, 0, 0},
    {"xy", "Xy", 0, 0, 0},              {"xz", "Xz", 0, 0, 0},             {"yz", "Yz", 0, 0, 0},
    {"pxx", "Pxx", 0, 0, T},            {"pyy", "Pyy", 0, 0, T},           {"pzz", "Pzz", 0, 0, T},
    {"pxy", "Pxy", 0, 0, T},            {"pxz", "Pxz", 0, 0, T},           {"pyz", "Pyz", 0, 0, T},
    {"fmax", "Fmax", 0, 0, F},          {"fnorm", "Fnorm", 0, 0, F},       {"nbuild", "Nbuild", 1, 0, S},
    {"ndanger", "Ndanger", 1, 0, S},    {"cella", "Cella", 0, 0, 0},       {"cellb", "Cellb", 0, 0, 0},
    {"cellc", "Cellc", 0, 0, 0},        {"cellalpha", "CellAlpha", 0, 0, 0}, {"cellbeta", "CellBeta", 0, 0, 0},
    {"cellgamma", "CellGamma", 0, 0, 0}, {"ecouple", "Ecouple", 0, 0, 0},  {"econserve", "Econserve", 0, 1, 0},
    {"bonds", "Bonds", 1, 0, 0},        {"angles", "Angles", 1, 0, 0},     {"dihedrals", "Diheds", 1, 0, 0},
    {"impropers", "Impros", 1, 0, 0}};

int thermo_column_index(const char *name)
{
    for (int c = 0; c < C_COUNT; c++)
        if (!strcmp(COLUMNS[c].name, name))
            return c;
    return -1;
}

const thermo_column *thermo_column_at(int c)
{
    return &COLUMNS[c];
}

const char *thermo_column_names(void)
{
    static char names[1024];
    if (!names[0])
        for (int c = 0; c < C_COUNT; c++)
            strcat(strcat(names, c ? " " : ""), COLUMNS[c].name);
    return names;
}

/* The pressure tensor's component k (xx yy zz xy xz yz), as LAMMPS's compute pressure's vector:
   (sum m v_a v_b + W_ab) / V, the tail's pressure on the diagonal. */
static double pressure_component(const mdl_thermo *t, int k, const mdl_observables *o, const mdl_thermo_extra *x)
{
    return (x->kinetic[k] + x->virial[k]) / o->volume * t->nktv2p + (k < 3 ? o->ptail : 0.0);
}

/* LAMMPS's cella .. cellgamma: the edges' lengths and angles (degrees) from h = (lx, ly, lz, yz, xz,
   xy), in LAMMPS's operations; an orthogonal box's are its lengths and 90. */
static double cell_parameter(int c, const mdl_observables *o)
{
    const double lx = o->box_len[0], ly = o->box_len[1], lz = o->box_len[2];
    const double xy = o->box_tilt[0], xz = o->box_tilt[1], yz = o->box_tilt[2];
    const int tri = xy != 0 || xz != 0 || yz != 0;
    const double b = sqrt(ly * ly + xy * xy), cc = sqrt(lz * lz + yz * yz + xz * xz), pi = 3.14159265358979323846;
    switch (c) {
    case C_CELLA: return lx;
    case C_CELLB: return tri ? b : ly;
    case C_CELLC: return tri ? cc : lz;
    case C_CELLALPHA: return tri ? acos((xy * xz + ly * yz) / sqrt((ly * ly + xy * xy) * (lz * lz + yz * yz + xz * xz))) * 180.0 / pi : 90.0;
    case C_CELLBETA: return tri ? acos(xz / cc) * 180.0 / pi : 90.0;
    default: return tri ? acos(xy / b) * 180.0 / pi : 90.0;
    }
}

double thermo_column_value(const mdl_thermo *t, int c, long step, double time, const mdl_observables *o,
                           const mdl_thermo_extra *x)
{
    const double per = t->norm && COLUMNS[c].energy ? t->natoms : 1.0, etotal = (o->potential + o->kinetic) / per;
    switch (c) {
    case C_STEP: return (double)step;
    case C_ELAPSED: return (double)(step - x->run_first);
    case C_ELAPLONG: return (double)(step - x->first);
    case C_DT: return x->dt;
    case C_TIME: return time;
    case C_CPU: return x->cpu;
    case C_TPCPU: return x->tpcpu;
    case C_SPCPU: return x->spcpu;
    case C_ATOMS: return t->natoms;
    case C_TEMP: return o->temperature;
    case C_PRESS: return o->pressure;
    case C_PE: case C_EVDWL: case C_EPAIR: return o->potential / per;
    case C_KE: return o->kinetic / per;
    case C_ETOTAL: return etotal;
    case C_ENTHALPY: return etotal + o->pressure * (o->volume / per) / t->nktv2p;
    case C_ETAIL: return o->etail / per;
    case C_VOL: return o->volume;
    case C_DENSITY: return t->mass * t->mv2d / o->volume;
    case C_LX: case C_LY: case C_LZ: return o->box_len[c - C_LX];
    case C_XY: case C_XZ: case C_YZ: return o->box_tilt[c - C_XY];
    case C_CELLA: case C_CELLB: case C_CELLC: case C_CELLALPHA: case C_CELLBETA: case C_CELLGAMMA:
        return cell_parameter(c, o);
    case C_XLO: case C_YLO: case C_ZLO: return o->box_lo[(c - C_XLO) / 2];
    case C_XHI: case C_YHI: case C_ZHI: return o->box_lo[(c - C_XHI) / 2] + o->box_len[(c - C_XHI) / 2];
    case C_PXX: case C_PYY: case C_PZZ: case C_PXY: case C_PXZ: case C_PYZ:
        return pressure_component(t, c - C_PXX, o, x);
    case C_FMAX: return x->fmax;
    case C_FNORM: return x->fnorm;
    case C_NBUILD: return (double)x->nbuild;
    case C_NDANGER: return (double)x->ndanger;
    case C_ECOUPLE: return o->ecouple; /* LAMMPS's: a total, whatever norm says */
    case C_ECONSERVE: return etotal + o->ecouple; /* LAMMPS's: etotal (per atom with norm) + ecouple (a total) */
    default: return 0.0; /* no bonds, charges, long-range or molecular energies in an atomic system */
    }
}
