#!/usr/bin/env python3
"""LAMMPS's groups and the commands that act on them, against `lmp` on the same script (every row to
1e-10, lammps_trust.agree), or refused naming the script's line.

  flows     the examples' 2-d channels (flow/in.flow.couette and in.flow.pois, shortened): groups of
            block regions, union and subtract, set group, compute temp on a group, velocity create
            with temp, velocity set in lattice units, temp/rescale on a group with its window and
            fix_modify temp, setforce (NULL too), aveforce, addforce, thermo_modify temp with the
            pressure tensor; stages that unfix setforce and reset thermo_modify with thermo_style;
            a restart bit for bit; crack/in.crack in a smaller box (neigh_modify exclude type);
            obstacle/in.obstacle shortened (voids deleted, two indenters); walls unfixed between runs
  groups3d  3-d groups by type, id ranges, intersect, velocity ramp (sum yes) and scale, Berendsen on
            a group, setforce, addforce and aveforce on others; exclude type; fix viscous with scale, in MD
            and cg; fix indent (sphere,
            cylinder, plane, side in, fix_modify energy, their f_ID columns; one moving, at v_NAME coordinates
            of the step);
            minimisation with a group held by setforce and
            pressed by an indenter; regions sphere and cylinder, side out, flat blocks; delete_atoms
  fills     create_atoms in regions, one after another with their types (friction/in.friction's slabs and
            half-spheres, shortened, its temp/partial): regions intersect and union, side out of them,
            groups of types made before a set, a joined region deleted; compute temp/partial in velocity
            create and scale, temp/rescale and temp/berendsen, thermo and the pressure tensor; deletions
            before velocity create (LAMMPS's slot order and ids); a
            create_atoms after a group, after a new lattice, a join of a join, Langevin with temp/partial
            and vz in 2-d refused
  timesteps  reset_timestep between runs (0, then 1000): rows numbered as LAMMPS's, temp/rescale on
            the new numbers; restarts at the run's boundary and inside it bit for bit (thermo.csv: the run's
            own steps); a shift off thermo's cadence, one before the first run and one with a dump refused
  walls     fix wall/lj93, wall/lj126 and wall/harmonic on fixed and shrink-wrapped faces (EDGE, lattice and
            box units, a group, sigma other than 1, fix_modify energy in pe and in a minimisation), a 2-d
            disc between four walls (balance/in.balance's, shortened); an atom past a wall stopping the run
            (exit 1, naming it); each fix's energy and force on each wall as f_ID columns, a restart's first row
            of them (and of an indenter's energy in pe) the run's never stopped; fix balance's columns
            on one process, balanced or not, its weighted load refused; a periodic face (zlo
            in 2-d too), a wall at a variable, a face given twice, f_ID[k] past its walls, another fix's or a
            compute's column refused
  computes  thermo's c_ID and c_ID[k] of compute temp, temp/partial, temp/com, ke, pe, com and reduce
            (each mode, over velocities, forces, ke/atom, a non-periodic position, orientorder/atom's
            Q_l, W_l and W_l hat, pe/atom of LJ and EAM), in formulas too;
            per atom and totals, 3-d and 2-d; temp, pe and press the same to the bit with them; a restart
            bit for bit, their columns too; the box's keywords and dt in formulas as the script is read;
            print after a run of thermo keywords and computes (${v},
            $(formula:format)), each line LAMMPS's; what mdlite does not compute refused naming its line
  run_zero  run 0 between runs and the fixes added before it: every row LAMMPS prints, the same
  refusals  what mdlite does not take of them, each naming its line; the GPU refusing a run of
            groups by name
  velocities  velocity between runs (scale, set with sum, ramp along a shrink-wrapped dimension,
            create loop all with another group's temperature): each run's first row again with the
            new velocities, as LAMMPS's; restarts at the run's boundary and inside the run after it bit
            for bit; loop geom and a ramp along a periodic dimension after a run refused; the INI key
            outside a later stage and an edit of a group no one defined refused before the first step

usage: lammps_groups.py MDLITE CASE
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
import lammps_trust  # noqa: E402
from common import SKIP, fail, run, run_lmp, workdir, write  # noqa: E402
from lammps_families import lj3d, restart_exact  # noqa: E402
from lammps_trust import agree, lammps_refuses, refused  # noqa: E402
from lammps_compare import POT  # noqa: E402

CHANNEL = ("units lj\ndimension 2\nboundary p s p\natom_style atomic\nneighbor 0.3 bin\nneigh_modify delay 5\n"
           "lattice hex 0.7\nregion box block 0 20 0 10 -0.25 0.25\ncreate_box 3 box\ncreate_atoms 1 box\n"
           "mass 1 1.0\nmass 2 1.0\nmass 3 1.0\npair_style lj/cut 1.12246\npair_coeff * * 1.0 1.0 1.12246\n"
           "region 1 block INF INF INF 1.25 INF INF\ngroup lower region 1\n"
           "region 2 block INF INF 8.75 INF INF INF\ngroup upper region 2\ngroup boundary union lower upper\n"
           "group flow subtract all boundary\nset group lower type 2\nset group upper type 3\n"
           "compute mobile flow temp\nvelocity flow create 1.0 482748 temp mobile\nfix 1 all nve\n"
           "fix 2 flow temp/rescale 200 1.0 1.0 0.02 1.0\nfix_modify 2 temp mobile\n")
CRACK = ("dimension 2\nboundary s s p\natom_style atomic\nneighbor 0.3 bin\nneigh_modify delay 5\nlattice hex 0.93\n"
         "region box block 0 50 0 20 -0.25 0.25\ncreate_box 5 box\ncreate_atoms 1 box\nmass * 1.0\n"
         "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0 2.5\nregion 1 block INF INF INF 1.25 INF INF\n"
         "group lower region 1\nregion 2 block INF INF 18.75 INF INF INF\ngroup upper region 2\n"
         "group boundary union lower upper\ngroup mobile subtract all boundary\n"
         "region leftupper block INF 10 10 INF INF INF\nregion leftlower block INF 10 INF 10 INF INF\n"
         "group leftupper region leftupper\ngroup leftlower region leftlower\nset group leftupper type 2\n"
         "set group leftlower type 3\nset group lower type 4\nset group upper type 5\ncompute new mobile temp\n"
         "velocity mobile create 0.01 887723 temp new\nvelocity upper set 0.0 0.3 0.0\n"
         "velocity mobile ramp vy 0.0 0.3 y 1.25 18.75 sum yes\nfix 1 all nve\nfix 2 boundary setforce NULL 0.0 0.0\n"
         "timestep 0.003\nthermo 100\nthermo_modify temp new\nneigh_modify exclude type 2 3\nrun 1000\n")
TENSOR = "thermo_style custom step temp pe ke etotal press pxx pyy pxy vol\nthermo_modify temp mobile\n"


def flows(d):
    couette = (CHANNEL + "velocity lower set 0.0 0.0 0.0\nvelocity upper set 3.0 0.0 0.0\n"
               "fix 3 boundary setforce 0.0 0.0 0.0\nfix 4 all enforce2d\ntimestep 0.003\nthermo 50\n")
    agree(d, "couette", couette + TENSOR + "run 600\n",
          what="Couette flow: the wall moving at 3 lattice units, temp/rescale on the flow within 0.02")
    agree(d, "poiseuille", CHANNEL + "velocity boundary set 0.0 0.0 0.0\nfix 3 lower setforce 0.0 0.0 0.0\n"
          "fix 4 upper setforce 0.0 NULL 0.0\nfix 5 upper aveforce 0.0 -1.0 0.0\nfix 6 flow addforce 0.5 0.0 0.0\n"
          "fix 7 all enforce2d\ntimestep 0.003\nthermo 50\n" + TENSOR + "run 600\n",
          what="Poiseuille flow: the upper wall pressed by aveforce, the flow driven by addforce")
    agree(d, "stages", couette + "thermo_modify temp mobile\nrun 300\nunfix 3\nunfix 2\n"
          "fix 2 flow temp/berendsen 1.0 1.0 0.5\nthermo_style custom step temp pe ke etotal press\nrun 200\n",
          what="setforce unfixed and thermo_modify temp reset by thermo_style at the second run (the pressure "
          "keeps the flow's kinetic part, as LAMMPS's thermo_press does), Berendsen on a group")
    restart_exact(d, "restart", couette + "thermo_modify temp mobile\nthermo 25\nrun 200\n")
    unfixed_walls(d)
    obstacle = (CHANNEL.replace("region box block 0 20 0 10", "region box block 0 40 0 10") +
                "velocity boundary set 0.0 0.0 0.0\nfix 3 lower setforce 0.0 0.0 0.0\nfix 4 upper setforce 0.0 NULL 0.0\n"
                "fix 5 upper aveforce 0.0 -0.5 0.0\nfix 6 flow addforce 1.0 0.0 0.0\nregion void1 sphere 10 4 0 3\n"
                "delete_atoms region void1\nregion void2 sphere 20 7 0 3\ndelete_atoms region void2\n"
                "fix 7 flow indent 100 sphere 10 4 0 4\nfix 8 flow indent 100 sphere 20 7 0 4\nfix 9 all enforce2d\n"
                "timestep 0.003\nthermo 100\nthermo_modify temp mobile\nrun 1500\n")
    agree(d, "obstacle", obstacle, what="obstacle/in.obstacle, shortened: two voids of sphere regions deleted (ids "
          "made 1 .. N again), two indenters where they were, aveforce and addforce")
    agree(d, "crack", CRACK, what="crack/in.crack in a smaller box: a ramp summed onto the created velocities, "
          "setforce NULL, the crack's faces (types 2 and 3) excluded from each other")


def unfixed_walls(d):
    """Walls unfixed between runs are gone from the next (a stage that sets the ensemble drops them): a hot
    gas then leaves through the fixed faces, which stops both codes (LAMMPS: Lost atoms)."""
    text = ("units lj\natom_style atomic\nboundary p f p\nlattice fcc 0.8442 origin 0.25 0.25 0.25\n"
            "region box block 0 4 0 4 0 4\ncreate_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\n"
            "velocity all create 3.0 87287 loop geom\npair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\n"
            "fix 1 all nve\nfix 2 all wall/reflect ylo EDGE yhi EDGE\nthermo 50\nrun 100\nunfix 2\nrun 300\n")
    folder = os.path.join(d, "unfixed_walls")
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "in.test"), text)
    p = run([lammps_trust.MDLITE, "run", "in.test"], check=False, cwd=folder)
    lp = run_lmp(["lmp", "-in", "in.test", "-log", "none"], check=False, cwd=folder)
    if p.returncode != 1 or "left the box" not in p.stderr or "Lost atoms" not in lp.stdout + lp.stderr:
        fail(f"unfixed walls: expected both to lose atoms in the second run, mdlite exit {p.returncode}:\n{p.stderr}")
    print(f"unfixed_walls: both lose atoms once the walls are unfixed: '{p.stderr.strip().splitlines()[-1][:80]}...'")


FCC = ("units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 5 0 5 0 5\ncreate_box 2 box\n"
       "create_atoms 1 box\nmass 1 1.0\nmass 2 2.0\npair_style lj/cut 2.5\npair_coeff * * 1.0 1.0 2.5\n"
       "neighbor 0.3 bin\nneigh_modify delay 0 every 1 check yes\nregion left block INF 2.5 INF INF INF INF\n"
       "group left region left\ngroup ids id 1:40 100 200:210 377\ngroup both intersect left ids\n"
       "set group both type 2\ngroup ones type 1\ngroup twos type 2\ngroup mix union twos ids\n")


def groups3d(d):
    agree(d, "fcc_groups", FCC + "velocity all create 1.5 87287 loop geom\n"
          "velocity left ramp vx 0.0 0.5 y 0.0 4.0 sum yes\nvelocity mix scale 2.0\ncompute tl left temp\n"
          "fix 1 all nve\nfix 2 left temp/berendsen 1.2 1.2 0.5\nfix 3 both setforce NULL 0.0 NULL\n"
          "fix 4 twos addforce 0.1 0.0 -0.1\nfix 5 ones aveforce NULL NULL 0.0\nthermo_style custom step temp pe ke etotal press pxx pyz\n"
          "thermo_modify temp tl\nthermo 20\nrun 200\n",
          what="groups by id ranges, intersect, and types after set; ramp and scale; Berendsen on a group")
    agree(d, "exclude", FCC + "velocity all create 1.5 87287 loop geom\nneigh_modify exclude type 1 2\nfix 1 all nve\n"
          "thermo_style custom step temp pe ke etotal press pxy\nthermo 20\nrun 100\n",
          what="type 2 atoms excluded from type 1 (neigh_modify exclude type)")
    agree(d, "regions", FCC.replace("region left block INF 2.5 INF INF INF INF\n",
                                     "region left cylinder z 2.5 2.5 1.8 INF 3.5 side out\n") +
          "region ball sphere 2.5 2.5 2.5 1.2\nregion slab block INF INF INF INF 1.0 1.0\ngroup flat region slab\n"
          "velocity all create 1.5 87287 loop geom\nvelocity flat set 0.0 0.0 0.0\ndelete_atoms region ball\n"
          "region hole cylinder x 2.5 2.5 0.8 EDGE INF units lattice\ndelete_atoms region hole compress yes\n"
          "fix 1 all nve\nfix 2 left setforce NULL NULL 0.0\nthermo 20\nrun 100\n",
          what="a cylinder region with side out and INF, a sphere and a cylinder deleted, a flat block (zlo = zhi)")
    agree(d, "create_on_groups", FCC + "compute tl0 left temp\n"
          "velocity left create 2.0 4928 loop geom dist gaussian\nvelocity ids create 0.5 777 temp tl0\n"
          "fix 1 all nve\nthermo 20\nrun 100\n", what="velocity create on groups: loop geom, and loop all with "
          "another group's temperature")
    indent = ("dimension 2\nboundary p s p\natom_style atomic\nneighbor 0.3 bin\nneigh_modify delay 5\n"
              "lattice hex 0.9\nregion box block 0 20 0 10 -0.25 0.25\ncreate_box 2 box\ncreate_atoms 1 box\n"
              "mass * 1.0\npair_style lj/cut 2.5\npair_coeff * * 1.0 1.0 2.5\nregion 1 block INF INF INF 1.25 INF INF\n"
              "group lower region 1\ngroup mobile subtract all lower\nset group lower type 2\n")
    agree(d, "viscous", FCC + "velocity all create 2.0 87287 loop geom\nfix 1 all nve\n"
          "fix 2 all viscous 0.5 scale 2 3.0\nfix 3 left viscous 0.2\nthermo_style custom step temp pe ke etotal press pxy\n"
          "thermo 50\nrun 300\nvelocity all create 1.0 4711\nminimize 1e-8 1e-8 100 1000\n",
          what="fix viscous on all (type 2 scaled by 3) and again on a group; then cg, where LAMMPS's drag reads "
          "the velocities as they stand")
    agree(d, "indent_md", FCC + "velocity all create 1.5 87287 loop geom\nfix 1 all nve\n"
          "fix 4 all indent 5.0 cylinder z 2.3 2.2 1.0\nfix 5 mix indent 10.0 plane y 0.2 lo\nfix_modify 5 energy yes\n"
          "fix 6 all indent 5.0 sphere 4.2 4.2 4.2 7.0 side in units box\nfix_modify 6 energy yes\n"
          "thermo_style custom step temp pe epair ke etotal press fmax f_4 f_4[1] f_4[2] f_5 f_5[2] f_6 f_6[3]\n"
          "thermo 20\nrun 200\n",
          what="fix indent: a cylinder, a plane on a group and a sphere holding the atoms in, two counting their "
          "energy in pe (not in epair); each one's energy and the force on it (f_ID, f_ID[k])")
    moving = (indent + "compute new mobile temp\nvelocity mobile create 0.2 482748 temp new\nfix 1 all nve\n"
              "fix 2 lower setforce 0.0 0.0 0.0\nfix 3 all temp/rescale 100 0.1 0.1 0.01 1.0\ntimestep 0.003\n"
              "variable k equal 1000.0/xlat\nvariable y equal \"13.0*ylat - step*dt*0.2*ylat\"\n"
              "fix 4 all indent $k sphere 10 v_y 0 5.0\nfix_modify 4 energy yes\nfix 5 all enforce2d\n"
              "thermo_style custom step temp pe ke etotal press v_y\nthermo 200\nthermo_modify temp new\nrun 2000\n")
    agree(d, "indent_moving", moving, what="indent/in.indent's indenter at v_y = 13 ylat - step dt 0.2 ylat, pressed "
          "into the slab as it moves (its energy in pe)")
    refused(d, "indent_curve", moving.replace("step*dt*0.2*ylat", "step*step*1e-8"), ["in.test:", "lie on no line"])
    refused(d, "indent_radius", moving.replace("sphere 10 v_y 0 5.0", "sphere 10 13 0 v_y"), ["in.test:", "radius"])
    agree(d, "indent_min", indent + "fix 2 lower setforce 0.0 0.0 0.0\nfix 5 all enforce2d\nthermo 10\n"
          "minimize 1.0e-6 1.0e-6 1000 1000\nvariable k equal 5000.0/xlat\nfix 4 all indent $k sphere 10 13.0 0 6.0\n"
          "fix_modify 4 energy yes\nminimize 1.0e-6 1.0e-6 10 1000\n",
          what="indent/in.indent.min's first minimisation and 10 iterations of its second: setforce before "
          "any run, then a sphere pressed in (its k 5000/xlat), its energy minimised; the shrink-wrapped box's "
          "volume and pressure as LAMMPS's (atoms on the box's upper x face at the lattice's start)")
    agree(d, "min_setforce", indent +
          "velocity mobile create 0.5 4928\nfix 1 all nve\nfix 2 lower setforce 0.0 0.0 0.0\nfix 5 all enforce2d\n"
          "thermo 50\nrun 100\nthermo_style custom step pe fnorm fmax\nthermo 10\nminimize 1.0e-6 1.0e-6 1000 1000\n",
          what="in/indent.min's slab: a run, then cg with the lower layer held")


BOX_WALLS = ("units lj\natom_style atomic\nboundary f p s\nlattice fcc 0.8442\nregion box block 0 6 0 4 0 4\n"
             "create_box 1 box\nregion inner block 0.3 5.7 INF INF 0.3 3.7\ncreate_atoms 1 region inner\nmass 1 1.0\n"
             "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\ngroup ids id 1:150\nneighbor 0.3 bin\n"
             "neigh_modify delay 0 every 1 check yes\n")


def walls(d):
    md = (BOX_WALLS + "velocity all create 1.5 87287 loop geom\nfix 1 all nve\n"
          "fix 2 all wall/lj93 xlo EDGE 1.0 1.1 2.5 xhi EDGE 0.5 1.0 2.0\n"
          "fix 3 ids wall/lj126 zlo -0.5 1.0 1.1 1.5\nfix 4 all wall/harmonic zhi 7.0 5.0 1.0 1.5 units box\n"
          "fix_modify 3 energy yes\nfix_modify 4 energy yes\n"
          "thermo_style custom step temp pe epair ke etotal press pxx pzz f_2 f_2[1] f_2[2] f_3 f_3[1] f_4\n"
          "thermo 50\nrun 400\n")
    agree(d, "walls_md", md, what="lj93 at both x faces (EDGE, sigma 1.1), lj126 on a group at z = -0.5 lattice "
          "spacings, harmonic at z = 7 box units, the last two counting their energy in pe; each fix's energy and "
          "the force on each wall (f_ID, f_ID[k])")
    restart_exact(d, "walls_restart", md.replace("fix_modify 3 energy yes\n", "fix_modify 3 energy yes\n"
                  "fix 5 ids indent 5.0 sphere 4 3 3 2.0\nfix_modify 5 energy yes\n").replace("f_4\n", "f_4 f_5 f_5[1]\n").replace("run 400", "run 200").replace("thermo 50", "thermo 25"),
                  extra=("--set", "output.thermo_file_columns=thermo"))
    agree(d, "walls_min", md.replace("thermo 50\nrun 400", "thermo 10\nminimize 1.0e-8 1.0e-8 200 2000"),
          what="the same walls in cg: their energy minimised with the pair's")
    disc = ("units lj\ndimension 2\natom_style atomic\nboundary f f p\nlattice hex 0.85\n"
            "region box block 0 30 0 14 -0.5 0.5\ncreate_box 1 box\nregion circle sphere 16 7 0.0 6\n"
            "create_atoms 1 region circle\nmass 1 1.0\nvelocity all create 0.5 87287 loop geom\n"
            "velocity all set 5 2 0 sum yes\npair_style lj/cut 2.5\npair_coeff 1 1 10.0 1.0 2.5\nneighbor 0.3 bin\n"
            "neigh_modify delay 0 every 1 check yes\nfix 1 all nve\nfix 2 all wall/lj93 xlo 0.0 1 1 2.5 xhi 30 1 1 2.5\n"
            "fix 3 all wall/lj93 ylo 0.0 1 1 2.5 yhi 14 1 1 2.5\ncomm_style tiled\nfix 10 all balance 50 0.9 rcb\n"
            "thermo_style custom step temp epair press f_10[1] f_10[2] f_10[3] f_10\n"
            "thermo 50\nrun 400\n")
    agree(d, "walls_disc", disc, what="balance/in.balance's disc thrown at four lj93 walls (lattice units, 2-d; "
          "the rows part at rounding past step 450), fix balance's columns as LAMMPS's on one process (balanced: "
          "its threshold 0.9 below the imbalance 1)")
    unbalanced = (BOX_WALLS.replace("boundary f p s", "boundary p p p") + "velocity all create 1.5 87287 loop geom\n"
                  "fix 1 all nve\nfix 9 all balance 50 1.0 shift x 10 1.0\n"
                  "thermo_style custom step temp pe f_9 f_9[1] f_9[2] f_9[3]\nthermo 50\nrun 100\n")
    agree(d, "balance_columns", unbalanced, what="fix balance's columns never balanced (threshold 1.0, not exceeded)")
    refused(d, "balance_weighted", unbalanced.replace("shift x 10 1.0", "shift x 10 1.0 weight time 1.0"),
            ["in.test:", "largest load with weights"])
    folder = os.path.join(d, "walls_past")
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "in.test"), BOX_WALLS.replace("0.3 5.7", "0.0 5.7") + "fix 1 all nve\n"
          "fix 2 all wall/lj93 xlo EDGE 1.0 1.0 2.5\nrun 10\n")
    p = run([lammps_trust.MDLITE, "run", "in.test"], check=False, cwd=folder)
    lp = run_lmp(["lmp", "-in", "in.test", "-log", "none"], check=False, cwd=folder)
    if p.returncode != 1 or "on or past the wall at xlo" not in p.stderr or "inside fix wall" not in lp.stdout + lp.stderr:
        fail(f"walls_past: expected both to stop at an atom on the wall, mdlite exit {p.returncode}:\n{p.stderr}")
    print(f"walls_past: both stop: '{p.stderr.strip().splitlines()[-1][:100]}'")
    base = BOX_WALLS + "fix 1 all nve\n"
    for name, line, expect in (("walls_periodic", "fix 2 all wall/lj93 ylo EDGE 1 1 2.5", "periodic dimension"),
                               ("walls_variable", "variable z equal 0.1\nfix 2 all wall/lj93 zlo v_z 1 1 2.5",
                                "a variable's coordinate"),
                               ("walls_column", "fix 2 all wall/lj93 zlo 0.1 1 1 2.5\nthermo_style custom step pe f_2[2]",
                                "k from 1 to the fix's walls"),
                               ("walls_setforce_column", "fix 2 ids setforce 0 0 0\nthermo_style custom step pe f_2[1]",
                                "fix 2 setforce as a column"),
                               ("walls_compute_column", "compute t all ke/atom\nthermo_style custom step pe c_t",
                                "per-atom compute"),
                               ("walls_twice", "fix 2 all wall/lj93 zlo 0.1 1 1 2.5 zlo 0.2 1 1 2.5", "zlo twice")):
        text = base + line + "\nrun 10\n"
        refused(d, name, text, ["in.test:", expect])
        if name in ("walls_periodic", "walls_twice", "walls_column"):
            lammps_refuses(d, name, text)
    refused(d, "walls_2d_z", disc.replace("ylo 0.0 1 1 2.5 yhi 14 1 1 2.5", "zlo 0.0 1 1 2.5"), ["in.test:", "periodic"])
    lammps_refuses(d, "walls_2d_z", disc.replace("ylo 0.0 1 1 2.5 yhi 14 1 1 2.5", "zlo 0.0 1 1 2.5"))


FILLS = ("dimension 2\nboundary p s p\natom_style atomic\nneighbor 0.3 bin\nneigh_modify delay 5\nlattice hex 0.9\n"
         "region box block 0 30 0 16 -0.25 0.25\ncreate_box 4 box\nmass * 1.0\n"
         "region lo-slab block INF INF INF 5 INF INF\nregion hi-slab block INF INF 11 INF INF INF\n"
         "region above-lo block INF INF INF 5 INF INF side out\nregion below-hi block INF INF 11 INF INF INF side out\n"
         "region lo-ball sphere 18 5 0 5\nregion hi-ball sphere 10 11 0 5\n"
         "region lo-half intersect 2 lo-ball above-lo\nregion hi-half intersect 2 hi-ball below-hi\n"
         "create_atoms 1 region lo-slab\ncreate_atoms 1 region hi-slab\ncreate_atoms 2 region lo-half\n"
         "create_atoms 3 region hi-half\npair_style lj/cut 2.5\npair_coeff * * 1.0 1.0 2.5\n"
         "group lo region lo-slab\ngroup lo type 2\ngroup hi region hi-slab\ngroup hi type 3\n"
         "region lo-fixed block INF INF INF 1.1 INF INF\nregion hi-fixed block INF INF 14.9 INF INF INF\n"
         "group lo-fixed region lo-fixed\ngroup hi-fixed region hi-fixed\ngroup boundary union lo-fixed hi-fixed\n"
         "group mobile subtract all boundary\nset group lo-fixed type 4\nset group hi-fixed type 4\n")


def fills(d):
    agree(d, "friction_fills", FILLS + "compute new mobile temp/partial 0 1 0\n"
          "velocity mobile create 0.1 482748 temp new\nvelocity hi set 1.0 0.0 0.0 sum yes\nfix 1 all nve\n"
          "fix 2 boundary setforce 0.0 0.0 0.0\nfix 3 mobile temp/rescale 50 0.1 0.1 0.02 1.0\nfix_modify 3 temp new\n"
          "fix 4 all enforce2d\ntimestep 0.0025\nthermo_style custom step atoms temp pe ke etotal press pxx pxy\n"
          "thermo 100\nthermo_modify temp new\nrun 500\n",
          what="friction/in.friction's slabs and half-spheres (create_atoms in regions, intersect with side out, "
          "groups of types before set, IDs with '-'), its temp/partial 0 1 0 in velocity create, temp/rescale's "
          "fix_modify temp and thermo_modify temp")
    partial = ("units lj\natom_style atomic\nboundary p s p\nlattice fcc 0.8442\nregion box block 0 6 0 6 0 6\n"
               "create_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\npair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\n"
               "region top block INF INF 5 INF INF INF\ngroup top region top\ngroup inner subtract all top\n"
               "compute yz inner temp/partial 0 1 1\ncompute xo all temp/partial 1 0 0\n"
               "velocity all create 1.5 87287 loop geom temp xo\nvelocity top set 0.5 NULL NULL sum yes\n"
               "velocity inner scale 1.2 temp yz\nfix 1 all nve\n")
    agree(d, "partial_rescale", partial + "fix 2 inner temp/rescale 10 1.0 1.0 0.05 1.0\nfix_modify 2 temp yz\n"
          "thermo_style custom step temp pe ke etotal press pxx pyy pxy pyz\nthermo_modify temp yz\nthermo 20\nrun 200\n",
          what="3-d temp/partial 0 1 1 and 1 0 0: velocity create and scale with them, temp/rescale and "
          "thermo on y and z alone, the pressure tensor's kinetic part of them")
    agree(d, "partial_berendsen", partial + "fix 2 inner temp/berendsen 1.0 1.0 0.5\nfix_modify 2 temp yz\n"
          "thermo_style custom step temp pe ke etotal press\nthermo 20\nrun 200\n",
          what="temp/berendsen with temp/partial 0 1 1 (thermo of every atom's full temperature)")
    refused(d, "partial_langevin", partial + "fix 2 inner langevin 1.0 1.0 0.5 4928\nfix_modify 2 temp yz\nrun 10\n",
            ["in.test:21", "temp/partial"])
    refused(d, "partial_2d_z", FILLS + "compute new mobile temp/partial 0 1 1\n", ["in.test:36", "vz"])
    joined = ("units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 6 0 6 0 6\ncreate_box 2 box\n"
              "mass * 1.0\npair_style lj/cut 2.5\npair_coeff * * 1.0 1.0 2.5\nregion a sphere 3 3 3 2.2\n"
              "region b block 0 2 INF INF INF INF\nregion ab union 2 a b\nregion notab union 2 a b side out\n"
              "region c cylinder z 3 3 1.5 INF INF\nregion cb intersect 2 c b side out\n"
              "create_atoms 1 region ab\ncreate_atoms 2 region notab\ngroup ones type 1\nset region a type 2\n"
              "group ring region c\nvelocity all create 1.2 4711 loop geom\nvelocity ones scale 1.5\n"
              "velocity ring scale 0.5\ndelete_atoms region cb\nfix 1 all nve\n"
              "thermo_style custom step atoms temp pe ke etotal press\nthermo 25\nrun 100\n")
    agree(d, "union_fills", joined, what="union and its side out filled with two types, a group of type 1 before a set "
          "made type 2 of some, an intersect's side out deleted (LAMMPS regions joined, De Morgan for side out)")
    holes = ("units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 6 0 6 0 6\ncreate_box 1 box\n"
             "create_atoms 1 box\nmass 1 1.0\npair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\n"
             "region hole sphere 3 3 3 1.5\nregion slab block INF INF INF INF 0 1.2\ngroup low region slab\n"
             "delete_atoms region hole\ndelete_atoms region slab compress yes\nvelocity all create 1.2 4711\n"
             "velocity low set 0.2 NULL NULL\nfix 1 all nve\nthermo_style custom step atoms temp pe ke etotal press\n"
             "thermo 25\nrun 100\n")
    agree(d, "delete_then_velocity", holes, what="two delete_atoms before velocity create loop all: each as LAMMPS's "
          "(the last atom into a deleted one's slot, ids by slot), so every atom draws LAMMPS's velocity")
    agree(d, "fill_minus_holes", holes.replace("group low region slab\n", "").replace("velocity low set 0.2 NULL NULL\n",
          ""), what="the same deletions right after create_atoms, no group before them")
    refused(d, "delete_velocity_delete", holes.replace("velocity low set 0.2 NULL NULL\n",
            "velocity low set 0.2 NULL NULL\ndelete_atoms region hole\n"), ["in.test:17", "at one point"])
    refused(d, "fill_then_group", joined.replace("create_atoms 2 region notab\n", "group one type 1\n"
            "create_atoms 2 region notab\n"), ["in.test:17", "after commands that named"])
    refused(d, "fill_new_lattice", joined.replace("create_atoms 2 region notab\n", "lattice fcc 0.9\n"
            "create_atoms 2 region notab\n"), ["in.test:17", "one lattice"])
    refused(d, "nested_join", joined.replace("region cb intersect 2 c b side out\n", "region cb intersect 2 c ab\n"),
            ["in.test:14", "itself joined"])


def refusals(d):
    base = CHANNEL.replace("fix 1 all nve\nfix 2 flow temp/rescale 200 1.0 1.0 0.02 1.0\nfix_modify 2 temp mobile\n", "")
    for name, text, expect in [
            ("nve_group", base + "fix 1 flow nve\nrun 10\n", ["in.test:26:", "nve", "all atoms"]),
            ("group_after_run", base + "fix 1 all nve\nrun 10\ngroup late region 1\nrun 10\n", ["in.test:28:", "after a run"]),
            ("set_after_type_group", base + "group twos type 2\nset group flow type 1\n", ["in.test:27:", "group of types"]),
            ("block_after_type", base + "group twos type 2\ngroup twos region 1\n", ["in.test:27:", "of types before"]),
            ("temp_other_group", base + "compute t all temp\nfix 1 all nve\nfix 2 flow temp/rescale 10 1.0 1.0 0.0 1.0\n"
             "fix_modify 2 temp t\n", ["in.test:29:", "group all", "group flow"]),
            ("addforce_null", base + "fix 1 all nve\nfix 2 flow addforce 0.5 NULL 0.0\nrun 10\n", ["in.test:27:", "NULL"]),
            ("before_langevin", base + "fix 1 all nve\nfix 3 boundary setforce 0 0 0\nfix 2 flow langevin 1 1 1 4\n"
             "run 10\n", ["in.test:27:", "before fix langevin"]),
            ("compute_pe", base + "compute p all stress/atom NULL\n", ["in.test:26:", "compute stress/atom"]),
            ("z_force_2d", base + "fix 1 all nve\nfix 2 flow setforce 0 0 1.0\nrun 10\n", ["in.test:27:", "2-d"]),
            ("nvt_group", base + "fix 1 flow nvt temp 1 1 0.5\nrun 10\n", ["in.test:26:", "nvt", "all atoms"]),
            ("velocity_keyword", base + "velocity upper set 1 0 0 rot yes\n", ["in.test:26:", "rot yes"]),
            ("no_group", base + "fix 1 nogroup setforce 0 0 0\n", ["in.test:26:", "no group nogroup"]),
            ("exclude_group", base + "neigh_modify exclude group lower upper\n", ["in.test:26:", "exclude type M N"]),
            ("velocity_after_delete", base + "region v sphere 10 4 0 3\ndelete_atoms region v\nvelocity flow set 1 0 0\n",
             ["in.test:28:", "after delete_atoms"]),
            ("delete_no_compress", base + "region v sphere 10 4 0 3\ndelete_atoms region v compress no\n",
             ["in.test:27:", "compress yes"]),
            ("box_of_a_sphere", "units lj\nlattice fcc 0.8\nregion s sphere 0 0 0 3\ncreate_box 1 s\n",
             ["in.test:4:", "block or prism"])]:
        refused(d, name, text, expect)
    # what LAMMPS refuses too: a thermo temperature no column uses, a temperature of 0 to scale
    for name, text, expect in [
            ("thermo_temp_unused", base + "thermo_style custom step pe press\nthermo_modify temp mobile\n",
             ["in.test:27:", "does not use temp"]),
            ("scale_zero_temperature", base + "region far block INF INF 100 INF INF INF\ngroup none region far\n"
             "velocity none scale 1.0\nfix 1 all nve\nrun 10\n", ["velocity_edits", "0.0 temperature"])]:
        refused(d, name, text, expect)
        lammps_refuses(d, name, text)
    # the GPU: a run whose fixes act on a group is refused by name before the device is asked
    folder = os.path.join(d, "gpu")
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "in.test"), base + "fix 1 all nve\nfix 3 boundary setforce 0 0 0\nrun 10\n")
    p = run([lammps_trust.MDLITE, "run", "in.test", "--set", "run.backend=gpu"], check=False, cwd=folder)
    if p.returncode != 2 or "backend = gpu" not in p.stderr or "force_fixes" not in p.stderr:
        fail(f"gpu: expected exit 2 naming the groups, got {p.returncode}:\n{p.stderr}")
    print(f"gpu: refused: {p.stderr.strip().splitlines()[-1][:120]}")


BETWEEN = (lj3d("p s p", temp="1.0").replace("pair_coeff", "region lo block INF INF INF 1.5 INF INF\n"
           "group lo region lo\ngroup hi subtract all lo\ncompute tlo lo temp\npair_coeff") +
           "fix 1 all nve\nthermo 20\nrun 100\nvelocity all scale 1.5\nvelocity lo set 0.5 NULL NULL sum yes\n"
           "velocity hi ramp vx 0.0 1.0 y 2.0 4.0 sum yes\nrun 100\nvelocity hi create 0.3 4711 temp tlo\n"
           "thermo_style custom step temp pe ke etotal press pxy\nrun 100\n")


def restarted_rows(d, name, cut, stop, script=BETWEEN):
    """The script's INI (BETWEEN's) run straight, then with stage run2 cut to `cut` steps (a checkpoint
    where it ends) and restarted from there with the whole run: (the straight run's CSV rows, the
    restarted's)."""
    folder = os.path.join(d, name)
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "in.test"), script)
    write(os.path.join(folder, "run.ini"), run([lammps_trust.MDLITE, "convert", "in.test"], cwd=folder).stdout)
    mdl = [lammps_trust.MDLITE, "run", "run.ini", "--quiet", "--overwrite"]
    run([*mdl, "--set", "output.thermo_file=a.csv"], cwd=folder)
    traj = ["--set", "output.thermo_file=b.csv", "--set", "output.trajectory=b.h5md", "--set", "output.dump_every=25"]
    run([*mdl, *traj, "--set", f"stage:run2.steps={cut}", "--set", "stage:run3.steps=0"], cwd=folder)
    run([*mdl, *traj, "--restart", "b.h5md"], cwd=folder)
    rows = [open(os.path.join(folder, f)).read().splitlines() for f in ("a.csv", "b.csv")]
    rows[1] = [r for r in rows[1] if not r[:1].isdigit() or int(r.split(",")[0]) % 20 == 0]  # less the cut's row
    if rows[0] != rows[1] or len(rows[0]) < stop:
        fail(f"{name}: the restarted run's rows are not the straight run's:\n{rows[0]}\n{rows[1]}")
    return rows[0]


RESET = (lj3d("p p p", temp="1.5").replace("pair_coeff", "compute tz all temp/partial 0 0 1\npair_coeff") + "fix 1 all nve\nthermo 20\nthermo_style custom step time temp pe ke etotal elapsed elaplong\n"
         "run 100\nreset_timestep 0\nfix 2 all temp/rescale 10 1.0 1.0 0.02 1.0\nfix_modify 2 temp tz\nrun 100\n"
         "unfix 2\nreset_timestep 1000\nrun 1100 upto\n")


def timesteps(d):
    agree(d, "reset_timestep", RESET, what="reset_timestep 0 and 1000 between runs: each run's rows numbered from "
          "there (its first row again; run 1100 upto after the second), time, elapsed and elaplong as LAMMPS's, temp/rescale every 10 of the new "
          "numbers")
    rows = restarted_rows(d, "reset_restart_boundary", 0, 16, RESET)
    print(f"reset_restart_boundary: restarted at the second run's first step: {len(rows) - 1} CSV rows equal, bit "
          "for bit (the run's own steps, 0 to 300)")
    rows = restarted_rows(d, "reset_restart_inside", 50, 16, RESET)
    print(f"reset_restart_inside: restarted inside the renumbered run: {len(rows) - 1} CSV rows equal")
    unaligned = RESET.replace("run 100\nreset_timestep 0\n", "run 100\nreset_timestep 7\n")
    refused(d, "reset_unaligned", unaligned, ["reset_timestep", "not a multiple of its thermo 20"])
    refused(d, "reset_first", RESET.replace("fix 1 all nve\n", "reset_timestep 5\nfix 1 all nve\n"),
            ["in.test:", "before the first run"])
    refused(d, "reset_dump", RESET.replace("run 100\nreset_timestep 0", "dump 1 all atom 50 d.txt\nrun 100\n"
            "reset_timestep 0"), ["in.test:", "with dump 1"])


def run_zero(d):
    """run 0 between runs, as LAMMPS's: its set-up takes the fixes added since (their forces in the next
    run's first step), its row printed, and the next run's first row again, new columns too."""
    text = (lj3d("p p p", temp="1.0") + "group low id 1:40\nfix 1 all nve\nthermo 5\nrun 10\nrun 0\n"
            "fix 2 low addforce 0.1 0.0 0.0\nfix 3 all setforce NULL 0.0 NULL\n"
            "thermo_style custom step temp pe ke pxy fmax fnorm\nrun 0\nrun 10\nunfix 2\nrun 0\n"
            "write_data a.data\nwrite_data b.data\nrun 5\n")
    agree(d, "run_zero", text, every_row=True, what="run 0 after a run, fixes added, run 0 again, a run, unfix, "
          "run 0 and two write_data: each row LAMMPS prints, the fixes' forces in the first step after a run 0")


COMPUTES = ("compute tl left temp\ncompute tp all temp/partial 1 0 1\ncompute tc left temp/com\ncompute k left ke\n"
            "compute p all pe\ncompute c twos com\ncompute ka all ke/atom\ncompute r1 all reduce sum vx\n"
            "compute r2 left reduce ave vx vy c_ka fz\ncompute r3 all reduce max c_ka vz\ncompute r4 twos reduce sumsq fx\n"
            "compute r5 all reduce min fy\ncompute r6 mix reduce avesq vy\nvariable a equal c_tl*2+c_r2[3]-c_p/atoms\n")
COMPUTE_COLUMNS = ("thermo_style custom step temp pe c_tl c_tl[*] c_tp c_tc c_tc[4] c_k c_p c_c[*] c_r1 c_r2[*] c_r3[1] "
                   "c_r3[2] c_r4 c_r5 c_r6 v_a\n")


def computes(d):
    """Thermo's c_ID columns and c_ID in formulas: temp (its tensor), temp/partial, temp/com, ke, pe (an
    indenter's energy in it), com (crossing periodic faces), reduce of every mode over velocities, forces,
    ke/atom and a non-periodic position, in 3-d and 2-d, per atom and totals."""
    fcc = FCC.replace("units lj\n", "units lj\nboundary p s p\n") + "velocity all create 1.5 87287 loop geom\n"
    agree(d, "computes", fcc + COMPUTES + "compute ry all reduce max y\nfix 1 all nve\n"
          "fix 2 all indent 5.0 sphere 4.0 8.0 4.0 2.0\nfix_modify 2 energy yes\n" + COMPUTE_COLUMNS.replace("v_a", "v_a c_ry") +
          "thermo 20\nrun 100\nthermo_modify temp tl\nrun 40\n", every_row=True,
          what="3-d, y shrink-wrapped, thermo_modify norm yes (lj), thermo_modify temp between runs")
    flow = fcc.replace("velocity all create 1.5 87287 loop geom\n", "velocity all create 1.0 87287 loop geom\n"
                       "velocity twos set 0.5 0.0 0.2 sum yes\n")
    agree(d, "computes_totals", flow + COMPUTES + "fix 1 all nvt temp 1.0 1.0 0.5\n" + COMPUTE_COLUMNS +
          "thermo_modify norm no\nthermo 25\nrun 150\n", what="totals (norm no), NVT, a group drifting through the "
          "periodic x and z faces (com of unwrapped positions)")
    restart_exact(d, "computes_restart", flow + COMPUTES + "fix 1 all nvt temp 1.0 1.0 0.5\n" + COMPUTE_COLUMNS +
                  "thermo_modify norm no\nthermo 25\nrun 200\n", ["--set", "output.thermo_file_columns=thermo"])
    disc = ("units lj\ndimension 2\natom_style atomic\nlattice hex 0.7\nregion box block 0 12 0 8 -0.25 0.25\n"
            "create_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\nvelocity all create 1.0 87287 loop geom\n"
            "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\nregion half block INF 6 INF INF INF INF\n"
            "group half region half\ncompute t half temp\ncompute tp half temp/partial 0 1 0\ncompute c all com\n"
            "compute r half reduce ave vx vy fx fy\nfix 1 all nve\nfix 2 all enforce2d\n"
            "thermo_style custom step temp c_t c_t[1] c_t[2] c_t[4] c_tp c_c[1] c_c[2] c_r[*]\nthermo 20\nrun 100\n")
    agree(d, "computes_2d", disc, what="2-d: temperatures of 2N - 2 and N - 1 degrees of freedom")
    agree(d, "orientorder", fcc + "compute q all orientorder/atom degrees 4 4 6 8 12 wl yes wl/hat yes\n"
          "compute q2 left orientorder/atom nnn NULL cutoff 1.3 chunksize 100\ncompute rq all reduce ave c_q[1] c_q[2] "
          "c_q[4] c_q[7] c_q[10] c_q[12]\ncompute rq2 left reduce max c_q2[1] c_q2[2] c_q2[5]\ncompute r3 twos reduce "
          "min c_q[9]\nfix 1 all nve\nthermo_style custom step temp pe c_rq[*] c_rq2[*] c_r3\nthermo 20\nrun 100\n",
          what="orientorder/atom (its 12 nearest; all within a cutoff on a group), Q_l, W_l and W_l hat reduced")
    agree(d, "pe_atom", fcc + "compute pa all pe/atom\ncompute pl left pe/atom\ncompute r1 all reduce sum c_pa\n"
          "compute r2 left reduce ave c_pa c_pl\ncompute r3 all reduce min c_pl\ncompute p all pe\nfix 1 all nve\n"
          "thermo_style custom step pe c_p c_r1 c_r2[*] c_r3\nthermo 20\nrun 100\n",
          what="pe/atom (LJ) reduced: its sum the pair energy, per atom in lj units")
    eam = ("units metal\natom_style atomic\nboundary p p s\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\n"
           "create_box 1 box\ncreate_atoms 1 box\nmass 1 63.55\npair_style eam\npair_coeff 1 1 " + POT + "/Cu_u3.eam\n"
           "region top block INF INF INF INF 2 INF\ngroup top region top\nvelocity all create 600 4928 loop geom\n"
           "compute pa top pe/atom\ncompute r all reduce sum c_pa\ncompute m top reduce max c_pa\nfix 1 all nve\n"
           "thermo_style custom step pe c_r c_m\nthermo 20\nrun 100\n")
    agree(d, "pe_atom_eam", eam, what="pe/atom of EAM (the embedding energy and half of each pair's) on a group, "
          "z shrink-wrapped")
    prints(d, fcc)
    box_keywords(d)
    unobserved(d, fcc)
    base = fcc + "compute ka all ke/atom\ncompute t left temp\ncompute r all reduce sum vx\nfix 1 all nve\n"
    for name, text, expect in [
            ("no_compute", "thermo_style custom step c_none\n", ["in.test:", "no compute none"]),
            ("per_atom", "thermo_style custom step c_ka\n", ["c_ka", "per-atom compute"]),
            ("past_vector", "thermo_style custom step c_t[7]\n", ["c_t[7]", "k from 1"]),
            ("scalar_index", "thermo_style custom step c_r[1]\n", ["c_r[1]", "a scalar alone"]),
            ("periodic_x", "compute rx all reduce max x\nthermo_style custom step c_rx\n", ["along a periodic"]),
            ("pe_group", "compute pl left pe\n", ["in.test:", "group all"]),
            ("reduce_sumabs", "compute ra all reduce sumabs vx\n", ["in.test:", "sumsq avesq"]),
            ("reduce_replace", "compute rr all reduce max vx vy replace 1 2\n", ["in.test:", "replace"]),
            ("reduce_variable", "compute rv all reduce max v_x\n", ["in.test:", "variable"]),
            ("other_style", "compute s all stress/atom NULL\n", ["in.test:", "stress/atom"]),
            ("orientorder_column", "compute q all orientorder/atom\ncompute rq all reduce ave c_q[6]\n"
             "thermo_style custom step c_rq\n", ["thermo_computes", "k from 1 to its columns"]),
            ("orientorder_components", "compute q all orientorder/atom components 6\n", ["thermo_computes", "components"])]:
        refused(d, f"computes_{name}", base + text + "run 10\n", expect)


def box_keywords(d):
    """The box's keywords and dt in formulas as the script is read (create_box's box, before a run and after
    one that cannot move it), and after a run that does (y shrink-wrapped): left to the run's last state;
    before a run of a shrink-wrapped box (LAMMPS widens it by 1e-4): refused."""
    for name, boundary in (("box_fixed", "p p p"), ("box_wrapped", "p s p")):
        text = ("units lj\ndimension 2\natom_style atomic\nboundary " + boundary + "\nlattice sq2 0.6\n"
                "region simbox block 0 10 0 8 -0.1 0.1\ncreate_box 1 simbox\ncreate_atoms 1 box\nmass * 1.0\n"
                "pair_style lj/cut 2.5\npair_coeff * * 1 1\nvelocity all create 1.0 97287\ntimestep 0.004\n"
                "variable scale equal vol/(2.0*lx*dt)\n" +
                ("print \"before: vol $(vol) lx $(lx:%.6f) scale ${scale} xlo $(xlo) yhi $(yhi) xy $(xy) dt $(dt)\"\n"
                 if boundary == "p p p" else "print \"before: dt $(dt)\"\n") +
                "fix 1 all nve\nfix 3 all enforce2d\nthermo_style custom step temp pe vol\nthermo 50\nrun 100\n"
                "print \"after: $(vol*2) ly $(ly:%.10f) ylo $(ylo:%.10f)\"\n")
        lines = {}
        for who in ("lammps", "mdlite"):
            folder = os.path.join(d, name, who)
            os.makedirs(folder, exist_ok=True)
            write(os.path.join(folder, "in.test"), text)
            cmd = ["lmp", "-in", "in.test", "-log", "none"] if who == "lammps" else [lammps_trust.MDLITE, "run", "in.test"]
            out = (run_lmp if who == "lammps" else run)(cmd, cwd=folder).stdout
            lines[who] = [x for x in out.splitlines() if x.startswith(("before:", "after:"))]
        if lines["mdlite"] != lines["lammps"] or len(lines["lammps"]) != 2:
            fail(f"{name}: mdlite's {lines['mdlite']}, LAMMPS's {lines['lammps']}")
        print(f"{name} ({boundary}): 2 lines LAMMPS's to the character: {lines['mdlite'][1]}")
    refused(d, "box_wrapped_before", "units lj\nboundary p s p\natom_style atomic\nlattice fcc 0.8\nregion b block 0 2 0 2 0 2\n"
            "create_box 1 b\ncreate_atoms 1 box\nmass 1 1\npair_style lj/cut 2.5\npair_coeff * * 1 1\n"
            "print \"$(ly)\"\nfix 1 all nve\nrun 0\n", ["in.test:", "'ly'"])


def unobserved(d, fcc):
    """Computes observe: the run's rows of temp and pe with them and without, equal to the bit."""
    rows = {}
    for name, extra in (("bare", ""), ("observed", COMPUTES.replace("variable a equal c_tl*2+c_r2[3]-c_p/atoms\n", ""))):
        folder = os.path.join(d, "unobserved", name)
        os.makedirs(folder, exist_ok=True)
        cols = " c_tl[*] c_r2[*] c_c[*]" if extra else ""
        write(os.path.join(folder, "in.test"), fcc + extra + "fix 1 all nve\nthermo_style custom step temp pe press" + cols +
              "\nthermo_modify format float %.17g\nthermo 10\nrun 200\n")
        out = run([lammps_trust.MDLITE, "run", "in.test"], cwd=folder).stdout
        rows[name] = [x.split()[:4] for x in out.splitlines() if x.strip() and x.split()[0].isdigit()]
    if rows["bare"] != rows["observed"] or len(rows["bare"]) != 21:
        fail(f"unobserved: temp, pe and press with computes {rows['observed'][:3]}, without {rows['bare'][:3]}")
    print(f"unobserved: {len(rows['bare'])} rows of temp, pe and press equal to the bit with 15 compute columns and without")


def prints(d, fcc):
    """print after a run of thermo keywords and computes, as LAMMPS evaluates it there: ${v} of an equal
    variable, $(formula) with its format, a format variable, each line LAMMPS's to the character."""
    text = (fcc + "compute k left ke\ncompute t all temp\ncompute r twos reduce max vx\nvariable e equal pe\n"
            "variable both equal 2*v_e+c_k\nvariable f format e %.6f\nfix 1 all nve\n"
            "thermo_style custom step temp pe c_k c_r\nprint \"before: no values\"\nrun 50\n"
            "print \"after: pe ${e} both ${both} f ${f} k/atom $(c_k/atoms:%.8f) temp $(temp:%.15g) $(v_e*2:%12.4e)\"\n"
            "run 0\nprint \"end: $(pe:%.10f) at $(step) max vx $(c_r:%.12f) lattice $(xlat:%.6f)\"\n")
    lines = {}
    for who in ("lammps", "mdlite"):
        folder = os.path.join(d, "prints", who)
        os.makedirs(folder, exist_ok=True)
        write(os.path.join(folder, "in.test"), text)
        cmd = ["lmp", "-in", "in.test", "-log", "none"] if who == "lammps" else [lammps_trust.MDLITE, "run", "in.test"]
        out = (run_lmp if who == "lammps" else run)(cmd, cwd=folder).stdout
        lines[who] = [x for x in out.splitlines() if x.startswith(("before:", "after:", "end:"))]
    if lines["mdlite"] != lines["lammps"] or len(lines["lammps"]) != 3:
        fail(f"prints: mdlite's {lines['mdlite']}, LAMMPS's {lines['lammps']}")
    print(f"prints: {len(lines['lammps'])} lines LAMMPS's to the character, e.g. {lines['mdlite'][1][:90]}")
    base = fcc + "compute k all ke\nfix 1 all nve\n"
    for name, tail, expect in [
            ("print_before_run", "print \"x $(pe)\"\nrun 10\n", ["in.test:", "'pe'"]),
            ("print_after_velocity", "run 10\nvelocity all scale 2.0\nprint \"x $(ke)\"\n", ["velocity came after"]),
            ("print_not_current", "thermo_style custom step temp pe\nrun 10\nprint \"x $(c_k)\"\n",
             ["end_message", "not current"]),
            ("print_requires", "thermo_style custom step temp\nrun 10\nprint \"x $(pe)\"\n",
             ["end_message", "requires thermo to use/init pe"]),
            ("print_unknown", "run 10\nprint \"x $(nosuch)\"\n", ["end_message", "nosuch"])]:
        refused(d, f"computes_{name}", base + tail, expect)


def velocities(d):
    agree(d, "between_runs", BETWEEN, what="velocity scale, set (sum yes) and ramp (y shrink-wrapped) after a "
          "run, then create on a group scaled by another's temperature: each run's first row again")
    around_min = (lj3d("p p p", temp="2.0") + "fix 1 all nve\nthermo 50\nrun 100\n"
                  "velocity all set 0.5 0.0 0.0 sum yes\nreset_timestep 1000\nminimize 1e-6 1e-6 20 100\nrun 100\nrun 100\n")
    agree(d, "edit_before_min", around_min, what="velocity set (sum yes) and reset_timestep before a minimisation: "
          "made once, not again at the runs after it (LAMMPS's velocities pass through the minimisation)")
    rows = restarted_rows(d, "restart_boundary", 0, 17)
    twice = [r.split(",")[0] for r in rows[1:]].count("100")
    if twice != 2:
        fail(f"restart_boundary: step 100 has {twice} rows in thermo.csv, expected 2 (before and after the edit)")
    print(f"restart_boundary: restarted at step 100, the run's boundary: {len(rows) - 1} rows equal, bit for bit "
          "(step 100 twice: before the edit and after)")
    rows = restarted_rows(d, "restart_inside", 50, 17)
    print(f"restart_inside: restarted at step 150, inside the run after the edit: {len(rows) - 1} rows equal")
    base = lj3d("p s p", temp="1.0") + "fix 1 all nve\nrun 10\n"
    refused(d, "geom_after_run", base + "velocity all create 1.0 5 loop geom\nrun 10\n",
            ["in.test:", "loop geom after a run"])
    refused(d, "periodic_ramp_after_run", base + "velocity all ramp vy 0 1 x 0 3\nrun 10\n",
            ["in.test:", "ramp along periodic x"])
    folder = os.path.join(d, "ini")
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "in.test"), base + "velocity all scale 2.0\nrun 10\n")
    ini = run([lammps_trust.MDLITE, "convert", "in.test"], cwd=folder).stdout
    if "stage_velocity_edits = scale all 2.0" not in ini.split("[stage:run2]")[-1]:
        fail(f"ini: the second stage holds no stage_velocity_edits:\n{ini}")
    for name, text, expect in [
            ("top", ini.replace("[run]\n", "[run]\nstage_velocity_edits = scale all 2.0\n", 1), "after the first"),
            ("no_group", ini.replace("scale all 2.0", "scale nobody 2.0"), "GROUP one of")]:
        write(os.path.join(folder, f"{name}.ini"), text)
        p = run([lammps_trust.MDLITE, "run", f"{name}.ini", "--quiet"], check=False, cwd=folder)
        if p.returncode != 2 or expect not in p.stderr or "stage_velocity_edits" not in p.stderr or \
                os.path.exists(os.path.join(folder, "thermo.csv")):
            fail(f"ini {name}: expected exit 2 naming stage_velocity_edits before any row, got {p.returncode}:\n"
                 f"{p.stderr}")
        print(f"ini {name}: refused: {p.stderr.strip().splitlines()[-1][:140]}")


def main():
    lammps_trust.MDLITE, case = sys.argv[1], sys.argv[2]
    if not shutil.which("lmp"):
        print("no lmp (LAMMPS): skipped")
        sys.exit(SKIP)
    d = workdir(f"lammps-groups-{case}")
    {"flows": flows, "groups3d": groups3d, "refusals": refusals, "velocities": velocities, "fills": fills,
     "timesteps": timesteps, "walls": walls, "run_zero": run_zero, "computes": computes}[case](d)


if __name__ == "__main__":
    main()
