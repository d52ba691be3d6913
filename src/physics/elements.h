/* Chemical element symbols, to tell species names that tools map to elements from other names. */
#ifndef MDL_ELEMENTS_H
#define MDL_ELEMENTS_H

#include <string.h>

/* The symbols in the order of their atomic numbers, each between blanks. */
#define MDL_ELEMENT_SYMBOLS                                                                                  \
    " H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr"    \
    " Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb"  \
    " Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr Rf"  \
    " Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og "

/* The symbol of atomic number z into out (3 bytes); 0 when z is none (out ""). */
static inline int mdl_element_symbol(int z, char out[3])
{
    const char *p = MDL_ELEMENT_SYMBOLS;
    out[0] = '\0';
    for (int k = 1; k < z && p; k++)
        p = strchr(p + 1, ' ');
    if (z < 1 || !p || !p[1])
        return 0;
    size_t n = strcspn(p + 1, " ");
    memcpy(out, p + 1, n);
    out[n] = '\0';
    return 1;
}

/* 1 when name is a chemical symbol ("Ar", "H"; case as written by IUPAC). */
static inline int mdl_is_element(const char *name)
{
    static const char *const SYMBOLS = MDL_ELEMENT_SYMBOLS;
    size_t n = strlen(name);
    if (n == 0 || n > 2)
        return 0;
    char key[5] = {' ', name[0], n > 1 ? name[1] : ' ', n > 1 ? ' ' : '\0', '\0'};
    return strstr(SYMBOLS, key) != NULL;
}

#endif
