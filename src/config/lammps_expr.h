/* LAMMPS's equal-style formulas: numbers, v_NAME references, its operators in its precedence, its
   math functions and constants, evaluated as LAMMPS evaluates them. */
#ifndef MDL_LAMMPS_EXPR_H
#define MDL_LAMMPS_EXPR_H

#include "../util/strbuf.h"

/* The value of variable `name` (a v_name reference): MDL_OK, or MDL_EINPUT with the reason in why. */
typedef int (*lammps_var_fn)(void *user, const char *name, double *out, mdl_buf *why);

/* Evaluates formula into *out: MDL_OK; MDL_EINPUT with the reason in why (a syntax error, a
   division by zero, a function mdlite does not evaluate, a thermo keyword, a result that is not
   finite); MDL_ERUN when memory runs out. */
int lammps_expr_eval(const char *formula, lammps_var_fn var, void *user, double *out, mdl_buf *why);
/* The same where a bare word (a thermo keyword) is keyword(user, word, ...)'s value: a formula
   evaluated during a run, as LAMMPS evaluates a variable in a thermo column. */
int lammps_expr_eval_thermo(const char *formula, lammps_var_fn var, lammps_var_fn keyword, void *user, double *out,
                            mdl_buf *why);

#endif
