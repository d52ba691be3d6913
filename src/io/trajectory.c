/* Trajectory files: dispatches to the H5MD writer (.h5, .h5md) or writes extended XYZ (.xyz) or a
   LAMMPS text dump (lammps_dump.c, [output] dump_columns). */
#define _POSIX_C_SOURCE 200809L
#include "trajectory.h"

#include "../physics/elements.h"
#include "h5md.h"
#include "lammps_dump.h"
#include "frame_check.h"
#include "../util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct mdl_traj {
    h5md_file *h5;
    FILE *xyz;
    off_t whole;                /* extended XYZ: the file's size at the end of its last whole frame */
    char path[MDL_PATH_LEN];
    int fields;
    const char *species_column; /* "species" when every name is an element symbol, else "type" */
    double momentum_factor;     /* velocity in the run's units -> ASE's (Angstrom per ASE time unit) */
    int unwrapped;              /* [output] positions = unwrapped */
    double *u;                  /* the unwrapped positions, x then y then z (3 ucap) */
    size_t ucap;
    mdl_frame unwrapped_frame;  /* the frame being written, with them */
    mdl_outfile *claim;         /* the file's claim: it takes its name at its first flush */
    int cols[MDL_DUMP_MAX_COLUMNS], ncols; /* a LAMMPS text dump's columns (ncols 0: extended XYZ) */
    mdl_boundary bound;         /* its box's faces */
};

/* 1 ps in ASE's time unit, Angstrom sqrt(amu / eV) (ase.units.fs * 1000). */
#define ASE_PS 98.22694788464064

/* An extended XYZ file to append to whose first frame records the other positions convention
   (mdlite_positions=): 1 after a message naming both. */
static int xyz_positions_differ(const mdl_traj *t)
{
    FILE *f = fopen(t->path, "r");
    char line[4096] = "";
    for (int k = 0; f && k < 2 && fgets(line, sizeof line, f); k++)
        ;
    if (f)
        fclose(f);
    const char *p = strstr(line, "mdlite_positions="), *now = t->unwrapped ? "unwrapped" : "wrapped";
    if (!p || !strncmp(p + 17, now, strlen(now)))
        return 0;
    mdl_error("%s: cannot append: its positions are %.*s, this run's %s ([output] positions); restart into another "
              "trajectory", t->path, (int)strcspn(p + 17, " \n"), p + 17, now);
    return 1;
}

int traj_open(mdl_traj **out, const mdl_config *cfg, const mdl_units *u, const mdl_system *s, int append,
              mdl_outfile *claim)
{
    mdl_traj *t = calloc(1, sizeof *t);
    if (!t)
        return MDL_ERUN;
    *out = t;
    t->claim = claim;
    mdl_copy(t->path, sizeof t->path, cfg->trajectory);
    t->fields = traj_fields_written(cfg);
    t->unwrapped = cfg->unwrapped;
    t->species_column = "species";
    for (int k = 0; k < s->ntypes; k++)
        if (!mdl_is_element(s->species[k]))
            t->species_column = "type"; /* ASE would refuse a species column of non-element names */
    t->momentum_factor = strcmp(u->name, "metal") == 0 ? 1.0 / ASE_PS : 1.0;
    if (mdl_has_suffix(t->path, ".h5") || mdl_has_suffix(t->path, ".h5md"))
        return h5md_open(&t->h5, cfg, u, s, append, outfile_target(claim));
    int fields;
    const char *bad;
    if (cfg->dump_columns[0] && !config_dump_columns(cfg->dump_columns, t->cols, &t->ncols, &fields, &bad))
        return MDL_EINPUT; /* config_lammps_dump: valid */
    t->bound = s->bound;
    if (append && !t->ncols && xyz_positions_differ(t))
        return MDL_EINPUT;
    errno = 0;
    t->xyz = fopen(outfile_target(claim), append ? "a" : "w");
    struct stat st;
    if (!t->xyz || fstat(fileno(t->xyz), &st) != 0) {
        mdl_error("%s: [output] trajectory: cannot create the file: %s", t->path, strerror(errno));
        return MDL_EINPUT;
    }
    t->whole = st.st_size;
    return MDL_OK;
}

/* A frame's text (len bytes) onto the file in one write and flushed; where that fails (a full
   disk), the file is cut back to its last whole frame, so that every reader still reads it. */
static int append_frame(mdl_traj *t, const char *text, size_t len, long step)
{
    errno = 0;
    if (fwrite(text, 1, len, t->xyz) == len && fflush(t->xyz) == 0) {
        t->whole += (off_t)len;
        return MDL_OK;
    }
    const int err = errno;
    clearerr(t->xyz);
    if (ftruncate(fileno(t->xyz), t->whole) != 0 || fseeko(t->xyz, t->whole, SEEK_SET) != 0) {
        mdl_error("%s: cannot write the frame at step %ld (%s), nor cut the file back to its last whole frame: %s",
                  t->path, step, strerror(err), strerror(errno));
        return MDL_ERUN;
    }
    mdl_error("%s: cannot write the frame at step %ld: %s (the file ends at its last whole frame)", t->path, step,
              strerror(err));
    return MDL_ERUN;
}

/* ASE's pbc flag of dimension d: F along a non-periodic one (a 2-d system's z is LAMMPS's periodic one). */
static char pbc_flag(const mdl_box *b, int d)
{
    return b->periodic[d] || (d == 2 && b->dim == 2) ? 'T' : 'F';
}

/* A text frame's body, printed into o. */
typedef void (*frame_text_fn)(const mdl_traj *t, const mdl_frame *f, FILE *o);

/* A text frame made whole in memory by print (after its values are checked finite), then written. */
static int write_text_frame(mdl_traj *t, const mdl_frame *f, frame_text_fn print)
{
    const mdl_system *s = f->s;
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    if (!o) {
        mdl_error("%s: out of memory for the frame at step %ld", t->path, f->step);
        return MDL_ERUN;
    }
    if (frame_nonfinite(t->path, f->step, "position", s->x, s->y, s->z, s->n) ||
        ((t->fields & MDL_DUMP_VELOCITY) && frame_nonfinite(t->path, f->step, "velocity", s->vx, s->vy, s->vz, s->n)) ||
        ((t->fields & MDL_DUMP_FORCE) && frame_nonfinite(t->path, f->step, "force", s->fx, s->fy, s->fz, s->n)))
        return fclose(o), free(text), MDL_ERUN;
    print(t, f, o);
    const int bad = ferror(o);
    int rc = fclose(o) != 0 || bad ? MDL_ERUN : MDL_OK;
    if (rc != MDL_OK)
        mdl_error("%s: out of memory for the frame at step %ld", t->path, f->step);
    else
        rc = append_frame(t, text, len, f->step);
    free(text);
    return rc;
}

/* A LAMMPS text dump frame (lammps_dump.c). */
static void print_lammps_dump(const mdl_traj *t, const mdl_frame *f, FILE *o)
{
    lammps_dump_frame(o, f->s, &t->bound, f->step, t->cols, t->ncols);
}

/* One extended XYZ frame: Lattice, Properties (species or type, pos, and as dumped velo with
   masses and momenta for ASE, forces, image), pbc, step, time. */
static void print_xyz(const mdl_traj *t, const mdl_frame *f, FILE *o)
{
    const mdl_system *s = f->s;
    fprintf(o, "%zu\nLattice=\"%.10g 0 0 %.10g %.10g 0 %.10g %.10g %.10g\" Origin=\"%.10g %.10g %.10g\" "
               "Properties=%s:S:1:pos:R:3%s%s%s pbc=\"%c %c %c\" Step=%ld Time=%.10g mdlite_positions=%s\n",
            s->n, s->box.len[0], s->box.tilt[0], s->box.len[1], s->box.tilt[1], s->box.tilt[2], s->box.len[2],
            s->box.lo[0], s->box.lo[1], s->box.lo[2],
            t->species_column, t->fields & MDL_DUMP_VELOCITY ? ":velo:R:3:masses:R:1:momenta:R:3" : "",
            t->fields & MDL_DUMP_FORCE ? ":forces:R:3" : "", t->fields & MDL_DUMP_IMAGE ? ":image:I:3" : "",
            pbc_flag(&s->box, 0), pbc_flag(&s->box, 1), pbc_flag(&s->box, 2), f->step,
            f->time, t->unwrapped ? "unwrapped" : "wrapped");
    const double *x = f->at[0] ? f->at[0] : s->x, *y = f->at[0] ? f->at[1] : s->y, *z = f->at[0] ? f->at[2] : s->z;
    for (size_t i = 0; i < s->n; i++) {
        fprintf(o, "%s %.10g %.10g %.10g", s->species[s->type[i]], x[i], y[i], z[i]);
        if (t->fields & MDL_DUMP_VELOCITY) {
            double m = s->mass[s->type[i]], p = m * t->momentum_factor;
            fprintf(o, " %.10g %.10g %.10g %.10g %.10g %.10g %.10g", s->vx[i], s->vy[i], s->vz[i], m, p * s->vx[i],
                    p * s->vy[i], p * s->vz[i]);
        }
        if (t->fields & MDL_DUMP_FORCE)
            fprintf(o, " %.10g %.10g %.10g", s->fx[i], s->fy[i], s->fz[i]);
        if (t->fields & MDL_DUMP_IMAGE)
            fprintf(o, " %d %d %d", s->ix[i], s->iy[i], s->iz[i]);
        fputc('\n', o);
    }
}

/* A frame in the trajectory's text format; a LAMMPS dump's at the multiples of its interval alone. */
static int write_text(mdl_traj *t, const mdl_frame *f)
{
    if (t->ncols && f->every > 0 && f->step % f->every != 0)
        return MDL_OK;
    return write_text_frame(t, f, t->ncols ? print_lammps_dump : print_xyz);
}

int traj_flush(mdl_traj *t)
{
    if (t->h5) {
        MDL_TRY(h5md_flush(t->h5));
        return outfile_publish(t->claim); /* readable now, frames and all: it takes its name */
    }
    errno = 0;
    if (fflush(t->xyz) != 0) {
        mdl_error("%s: cannot write: %s", t->path, strerror(errno));
        return MDL_ERUN;
    }
    return outfile_publish(t->claim);
}

/* The frame's positions unwrapped by their images (x + image x edge) into t->u; *g the frame
   writing them. */
static int unwrap(mdl_traj *t, const mdl_frame *f, mdl_frame *g)
{
    const mdl_system *s = f->s;
    if (s->n > t->ucap) {
        free(t->u);
        t->ucap = 0;
        if (!(t->u = mdl_alloc(3 * s->n * sizeof *t->u, "unwrapped positions")))
            return MDL_ERUN;
        t->ucap = s->n;
    }
    *g = *f;
    for (int d = 0; d < 3; d++)
        g->at[d] = t->u + (size_t)d * s->n;
    for (size_t i = 0; i < s->n; i++) { /* p + ix a + iy b + iz c */
        const double p[3] = {s->x[i], s->y[i], s->z[i]};
        const int32_t im[3] = {s->ix[i], s->iy[i], s->iz[i]};
        double u[3];
        box_unwrap(&s->box, p, im, u);
        t->u[i] = u[0], t->u[s->n + i] = u[1], t->u[2 * s->n + i] = u[2];
    }
    return MDL_OK;
}

int traj_write(mdl_traj *t, const mdl_frame *f)
{
    if (t->unwrapped && !f->checkpoint_only) {
        MDL_TRY(unwrap(t, f, &t->unwrapped_frame));
        f = &t->unwrapped_frame;
    }
    int rc = t->h5 ? h5md_write(t->h5, f) : f->checkpoint_only ? MDL_OK : write_text(t, f);
    if (rc != MDL_OK)
        return rc;
    return f->flush ? traj_flush(t) : MDL_OK;
}


int traj_close(mdl_traj *t)
{
    if (!t)
        return MDL_OK;
    int rc = MDL_OK;
    if (t->h5) {
        rc = h5md_close(t->h5);
    } else if (t->xyz) {
        errno = 0;
        if (fclose(t->xyz) != 0) {
            mdl_error("%s: cannot finish writing: %s", t->path, strerror(errno));
            rc = MDL_ERUN;
        }
    }
    /* closed (on a full disk too: the frames written stay readable): it takes its name */
    const int prc = outfile_publish(t->claim);
    rc = rc == MDL_OK ? prc : rc;
    free(t->u);
    free(t);
    return rc;
}

int traj_put_table(mdl_traj *t, const char *group, const char *name, const double *v, size_t rows, size_t cols,
                   const char *unit)
{
    return t && t->h5 ? h5md_put_table(t->h5, group, name, v, rows, cols, unit) : MDL_OK;
}

