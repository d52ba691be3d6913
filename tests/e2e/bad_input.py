#!/usr/bin/env python3
"""Bad input must exit 2 with a message naming the file, line or key -- never a crash.

usage: bad_input.py MDLITE [MDLITE_ASAN ...]
Every case runs under each binary given; a sanitizer build must print no report.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, fcc_config, run, workdir, write  # noqa: E402

GOOD = fcc_config("4 4 4") + """[run]
steps = 2
[output]
thermo = 1
thermo_file = {d}/thermo.csv
"""

XYZ_HEAD = 'Lattice="12 0 0 0 12 0 0 0 12" Properties=species:S:1:pos:R:3 pbc="T T T"'


def cases(d):
    """(name, argv after `mdlite`, files to write, substrings the message must contain)."""
    good = GOOD.format(d=d)
    ini = os.path.join(d, "bad.ini")
    xyz = os.path.join(d, "atoms.xyz")
    xy = os.path.join(d, "points.xy")

    def with_input(text, extra=""):
        return {xyz: text, ini: f"[system]\ninput = atoms.xyz\n{extra}[output]\nthermo_file = {d}/t.csv\n"}

    atoms4 = "\n".join(f"Ar {x} {y} {z}" for x, y, z in [(1, 1, 1), (4, 4, 4), (7, 1, 7), (1, 7, 4)])
    return [
        ("unknown section", ["run", ini], {ini: good + "[sytem]\nunits = lj\n"}, [f"{ini}:12", "[sytem]", "unknown section"]),
        ("unknown key", ["run", ini], {ini: good + "[run]\nstep = 4\n"}, [":12", "[run] step", "unknown key"]),
        ("malformed number", ["run", ini], {ini: good.replace("0.8442", "0.84x")}, [f"{ini}:3", "[system] density", "not a number"]),
        ("malformed integer", ["run", ini], {ini: good.replace("cells = 4 4 4", "cells = 4 4.5 4")}, [":4", "[system] cells", "not an integer"]),
        ("out of range", ["run", ini], {ini: good.replace("steps = 2", "steps = -5")}, [":7", "[run] steps", "must be >= 0"]),
        ("bad choice", ["run", ini], {ini: good + "[neighbor]\nmethod = verlet\n"}, ["[neighbor] method", "not one of"]),
        ("bad auto value", ["run", ini, "--set", "neighbor.skin=fast"], {ini: good}, ["--set", "[neighbor] skin", "'fast' is neither a number nor auto"]),
        ("skin auto, check 2", ["run", ini], {ini: good + "[neighbor]\nskin = auto\ncheck = 2\n"}, [f"{ini}:13", "[neighbor] check", "skin = auto needs check = 1"]),
        ("negative skin", ["run", ini, "--set", "neighbor.skin=-1"], {ini: good}, ["--set", "[neighbor] skin"]),
        ("missing required", ["run", ini], {ini: good.replace("density = 0.8442\n", "")}, ["[system] density", "missing"]),
        ("no lattice or input", ["run", ini], {ini: "[run]\nsteps = 1\n"}, [ini, "[system] lattice", "missing"]),
        ("contradiction", ["run", ini], {ini: good.replace("[system]\n", "[system]\ninput = x.xyz\n")}, [f"{ini}:2", "[system] input", "contradicts lattice"]),
        ("thermostat without target", ["run", ini], {ini: good.replace("steps = 2", "steps = 2\nensemble = nvt-berendsen\ntau = 1")}, ["[run] target_temperature", "missing"]),
        ("npt without pressure", ["run", ini], {ini: good.replace("steps = 2", "steps = 2\nensemble = npt-nose-hoover\ntarget_temperature = 1\ntau = 1\npressure_tau = 5")}, ["[run] target_pressure", "missing", "npt-nose-hoover"]),
        ("npt without pressure_tau", ["run", ini], {ini: good.replace("steps = 2", "steps = 2\nensemble = npt-nose-hoover\ntarget_temperature = 1\ntau = 1\ntarget_pressure = 1")}, ["[run] pressure_tau", "missing"]),
        ("pressure with nvt", ["run", ini], {ini: good.replace("steps = 2", "steps = 2\nensemble = nvt-nose-hoover\ntarget_temperature = 1\ntau = 1\ntarget_pressure = 1")}, ["[run] target_pressure", "npt-nose-hoover"]),
        ("pressure_chain with nve", ["run", ini, "--set", "run.pressure_chain=2"], {ini: good}, ["--set", "[run] pressure_chain", "npt-nose-hoover"]),
        ("pressure_tau zero", ["run", ini, "--set", "run.pressure_tau=0"], {ini: good}, ["--set", "[run] pressure_tau"]),
        ("chain zero", ["run", ini, "--set", "run.chain=0"], {ini: good}, ["--set", "[run] chain"]),
        ("pressure_chain 17", ["run", ini, "--set", "run.pressure_chain=17"], {ini: good}, ["--set", "[run] pressure_chain"]),
        ("tau negative", ["run", ini, "--set", "run.tau=-1"], {ini: good}, ["--set", "[run] tau"]),
        ("key twice", ["run", ini], {ini: good + "[system]\ncells = 5 5 5\n"}, [f"{ini}:12", "[system] cells", "set twice", f"first at {ini}:4"]),
        ("syntax error", ["run", ini], {ini: good + "[run\n"}, [f"{ini}:11", "syntax error"]),
        ("bad --set", ["run", ini, "--set", "runsteps=3"], {ini: good}, ["--set runsteps=3", "section.key=value"]),
        ("bad --set value", ["run", ini, "--set", "run.timestep=0"], {ini: good}, ["--set", "[run] timestep", "must be >"]),
        ("missing config", ["run", os.path.join(d, "nope.ini")], {}, ["nope.ini", "cannot open config file"]),
        # the keys of LAMMPS's example commands: faces, walls, 2-d, species edits, FIRE, thermo formulas
        ("boundary word", ["run", ini, "--set", "system.boundary=p q p"], {ini: good}, ["--set", "[system] boundary", "p, f, s, m"]),
        ("boundary p on one face", ["run", ini, "--set", "system.boundary=pf p p"], {ini: good}, ["[system] boundary", "both sides"]),
        ("boundary two words", ["run", ini, "--set", "system.boundary=p s"], {ini: good}, ["[system] boundary", "three words"]),
        ("boundary under npt", ["run", ini, "--set", "system.boundary=p s p", "--set", "run.ensemble=npt-nose-hoover",
                                "--set", "run.target_temperature=1", "--set", "run.tau=1", "--set", "run.target_pressure=1",
                                "--set", "run.pressure_tau=5"], {ini: good}, ["[system] boundary", "npt-nose-hoover"]),
        ("wall on a periodic face", ["run", ini, "--set", "run.wall_reflect=xlo EDGE"], {ini: good},
         ["--set", "[run] wall_reflect", "periodic dimension"]),
        ("wall coordinate", ["run", ini, "--set", "system.boundary=f p p", "--set", "run.wall_reflect=xlo 1e"], {ini: good},
         ["[run] wall_reflect", "'xlo 1e'", "a number"]),
        ("wall face", ["run", ini, "--set", "system.boundary=f p p", "--set", "run.wall_reflect=xmid 1"], {ini: good},
         ["[run] wall_reflect", "'xmid 1'", "FACE COORD"]),
        ("wall without coordinate", ["run", ini, "--set", "system.boundary=f p p", "--set", "run.wall_reflect=xlo"],
         {ini: good}, ["[run] wall_reflect", "FACE COORD"]),
        ("dimension 2 with fcc", ["run", ini, "--set", "system.dimension=2"], {ini: good}, ["[system] lattice", "2-d"]),
        ("set_types edit", ["run", ini, "--set", "system.set_types=block 0 1 B"], {ini: good}, ["[system] set_types", "block"]),
        # groups and what acts on them
        ("group how", ["run", ini, "--set", "system.groups=g cone 1 2 3"], {ini: good}, ["[system] groups", "'g cone 1 2 3'", "HOW"]),
        ("group all", ["run", ini, "--set", "system.groups=all type A"], {ini: good}, ["[system] groups", "all is every atom"]),
        ("group of an unknown group", ["run", ini, "--set", "system.groups=g union h"], {ini: good}, ["[system] groups", "not defined before"]),
        ("group block bounds", ["run", ini, "--set", "system.groups=g block 0 1 0 1 0"], {ini: good}, ["[system] groups", "XLO XHI"]),
        ("group id range", ["run", ini, "--set", "system.groups=g id 5:2"], {ini: good}, ["[system] groups", "ranges A:B"]),
        ("group type species", ["run", ini, "--set", "system.groups=g type Q"], {ini: good}, ["[system] groups", "'Q'", "species"]),
        ("force fix style", ["run", ini, "--set", "system.groups=g id 1", "--set", "run.force_fixes=pushforce g 1 0 0"],
         {ini: good}, ["[run] force_fixes", "setforce, addforce or aveforce"]),
        ("force fix group", ["run", ini, "--set", "run.force_fixes=setforce g 0 0 0"], {ini: good}, ["[run] force_fixes", "not one of"]),
        ("force fix value", ["run", ini, "--set", "run.force_fixes=aveforce all 0 x 0"], {ini: good}, ["[run] force_fixes", "number or NULL"]),
        ("addforce NULL", ["run", ini, "--set", "run.force_fixes=addforce all 0 NULL 0"], {ini: good}, ["[run] force_fixes", "no NULL"]),
        ("thermostat group with nve", ["run", ini, "--set", "system.groups=g id 1:9", "--set", "run.thermostat_group=g"],
         {ini: good}, ["[run] thermostat_group", "nvt-rescale"]),
        ("thermo group unknown", ["run", ini, "--set", "output.thermo_group=mobile"], {ini: good}, ["[output] thermo_group", "'mobile'"]),
        ("rescale window with nve", ["run", ini, "--set", "run.rescale_window=0.1"], {ini: good}, ["[run] rescale_window", "nvt-rescale"]),
        ("final temperature negative", ["run", ini, "--set", "run.ensemble=nvt-berendsen", "--set", "run.target_temperature=1",
                                        "--set", "run.tau=0.5", "--set", "run.final_temperature=-2"], {ini: good},
         ["[run] final_temperature", "-2"]),
        ("final temperature nan", ["run", ini, "--set", "run.ensemble=nvt-langevin", "--set", "run.target_temperature=1",
                                   "--set", "run.tau=0.5", "--set", "run.final_temperature=nan"], {ini: good},
         ["[run] final_temperature", "nan"]),
        ("groups on the gpu", ["run", ini, "--set", "run.force_fixes=setforce all 0 0 0", "--set", "run.backend=gpu"],
         {ini: good}, ["[run] force_fixes", "GPU backend"]),
        ("exclude species", ["run", ini, "--set", "potential.exclude=A Q"], {ini: good}, ["[potential] exclude", "'A Q'"]),
        ("indent shape", ["run", ini, "--set", "run.force_fixes=indent all 10 cone 1 1 1 1"], {ini: good}, ["[run] force_fixes", "sphere X Y Z R"]),
        ("indent keyword", ["run", ini, "--set", "run.force_fixes=indent all 10 plane x 1 lo energy maybe"], {ini: good},
         ["[run] force_fixes", "side in|out, energy yes|no and move"]),
        ("wall NaN", ["run", ini, "--set", "run.force_fixes=wall/lj93 all xlo nan 1 1 2.5"], {ini: good},
         ["[run] force_fixes", "are numbers"]),
        ("wall cutoff 0", ["run", ini, "--set", "run.force_fixes=wall/lj93 all xlo 0 1 1 0"], {ini: good},
         ["[run] force_fixes", "cutoff is above 0"]),
        ("viscous type", ["run", ini, "--set", "run.force_fixes=viscous all 1 scale 99 2"], {ini: good},
         ["[run] force_fixes", "1 to 8"]),
        ("balance id NaN", ["run", ini, "--set", "output.thermo_balance_id=x nan"], {ini: good},
         ["[output] thermo_balance_id", "ID THRESH"]),
        ("fix column index", ["run", ini, "--set", "output.thermo_columns=step f_2[99999999999999999999]"], {ini: good},
         ["[output] thermo_columns", "f_2["]),
        # thermo's computes and the messages' formulas
        ("compute style", ["run", ini, "--set", "output.thermo_computes=t stress/atom all"], {ini: good},
         ["[output] thermo_computes", "STYLE"]),
        ("compute group", ["run", ini, "--set", "output.thermo_computes=t temp mobile"], {ini: good},
         ["[output] thermo_computes", "GROUP"]),
        ("compute words", ["run", ini, "--set", "output.thermo_computes=t temp"], {ini: good},
         ["[output] thermo_computes", "ID STYLE GROUP"]),
        ("compute ID twice", ["run", ini, "--set", "output.thermo_computes=t temp all; t ke all"], {ini: good},
         ["[output] thermo_computes", "twice"]),
        ("compute ID long", ["run", ini, "--set", "output.thermo_computes=" + "t" * 5000 + " temp all"], {ini: good},
         ["[output] thermo_computes"]),
        ("reduce input", ["run", ini, "--set", "output.thermo_computes=r reduce all max q"], {ini: good},
         ["[output] thermo_computes", "reduce's inputs"]),
        ("reduce of itself", ["run", ini, "--set", "output.thermo_computes=r reduce all max c_r"], {ini: good},
         ["[output] thermo_computes", "reduce's c_ID"]),
        ("reduce column huge", ["run", ini, "--set", "output.thermo_computes=q orientorder/atom all; r reduce all max "
                                "c_q[99999999999999999999]"], {ini: good}, ["[output] thermo_computes", "c_ID[k]"]),
        ("orientorder NaN cutoff", ["run", ini, "--set", "output.thermo_computes=q orientorder/atom all cutoff nan"],
         {ini: good}, ["[output] thermo_computes", "orientorder/atom's keywords"]),
        ("orientorder degree", ["run", ini, "--set", "output.thermo_computes=q orientorder/atom all degrees 2 4 99"],
         {ini: good}, ["[output] thermo_computes", "from 0 to 12"]),
        ("orientorder degrees short", ["run", ini, "--set", "output.thermo_computes=q orientorder/atom all degrees 3 4"],
         {ini: good}, ["[output] thermo_computes", "orientorder/atom's keywords"]),
        ("compute column", ["run", ini, "--set", "output.thermo_computes=t temp all", "--set",
                            "output.thermo_columns=step c_t[0]"], {ini: good}, ["[output] thermo_columns", "c_t[0]"]),
        ("message dollar", ["run", ini, "--set", "run.message=\"cost: $5\""], {ini: good}, ["[run] message", "$$"]),
        ("message formula first", ["run", ini, "--set", "run.message=\"$(pe)\""], {ini: good},
         ["[run] message", "before the first run"]),
        ("end formula unclosed", ["run", ini, "--set", "output.end_message=\"$(pe\""], {ini: good},
         ["[output] end_message", "'$'"]),
        ("end formula format", ["run", ini, "--set", "output.end_message=\"$(pe:%d)\""], {ini: good},
         ["[output] end_message", "format"]),
        ("end formula keyword", ["run", ini, "--set", "output.end_message=\"$(nosuch*2)\""], {ini: good},
         ["[output] end_message", "nosuch"]),
        ("group region NaN", ["run", ini, "--set", "system.groups=g block 0 nan 0 1 0 1"], {ini: good}, ["[system] groups", "a region is"]),
        ("group region overflow", ["run", ini, "--set", "system.groups=g sphere 0 0 0 1e999"], {ini: good}, ["[system] groups", "a region is"]),
        ("group region words", ["run", ini, "--set", "system.groups=g sphere 1 1 1 -1"], {ini: good}, ["[system] groups", "a region is"]),
        ("delete_atoms region", ["run", ini, "--set", "system.delete_atoms=ball 1 1 1 1"], {ini: good}, ["[system] delete_atoms", "expected regions"]),
        ("delete every atom", ["run", ini, "--set", "system.delete_atoms=block -1e20 1e20 -1e20 1e20 -1e20 1e20"], {ini: good},
         ["[system] delete_atoms", "every atom"]),
        ("velocity edit", ["run", ini, "--set", "system.velocity_edits=spin all 1"], {ini: good}, ["[system] velocity_edits", "'spin all 1'"]),
        ("velocity ramp", ["run", ini, "--set", "system.velocity_edits=ramp all vx 0 1 y 2 2"], {ini: good},
         ["[system] velocity_edits", "CLO and CHI apart"]),
        ("set_types of a type group", ["run", ini, "--set", "system.groups=g type A", "--set", "system.set_types=group g B"],
         {ini: good.replace("cells = 4 4 4", "cells = 4 4 4\nspecies = A B\ncomposition = 0.5 0.5")}, ["[system] set_types", "group of types"]),
        ("fire key", ["run", ini, "--set", "run.ensemble=minimize", "--set", "run.min_style=fire", "--set",
                      "run.fire=dtgrow -1"], {ini: good}, ["[run] fire", "'dtgrow -1'"]),
        ("thermo formula", ["run", ini, "--set", "output.thermo_columns=step pe v_x", "--set", "output.thermo_variables=x=(pe+)"],
         {ini: good}, ["thermo_variables"]),
        ("unknown backend", ["run", ini, "--backend", "tpu"], {ini: good}, ["[run] backend", "not one of"]),
        ("tilt without a box", ["run", ini], {ini: good.replace("cells = 4 4 4", "cells = 4 4 4\ntilt = 1 0 0")}, ["[system] tilt", "only with box"]),
        ("truncated xyz", ["run", ini], with_input(f"5\n{XYZ_HEAD}\n{atoms4}\n"), [f"{xyz}:7", "the header says 5 atoms, the file has 4"]),
        ("non-numeric xyz", ["run", ini], with_input(f"4\n{XYZ_HEAD}\n{atoms4.replace('4 4 4', '4 four 4')}\n"), [f"{xyz}:4", "'four' is not a number"]),
        ("NaN coordinate", ["run", ini], with_input(f"4\n{XYZ_HEAD}\n{atoms4.replace('7 1 7', '7 nan 7')}\n"), [f"{xyz}:5", "not a finite number"]),
        ("atom outside box", ["run", ini], with_input(f"4\n{XYZ_HEAD}\n{atoms4.replace('1 7 4', '1 7 14')}\n"), [f"{xyz}:6", "outside the box"]),
        ("zero atoms", ["run", ini], with_input(f"0\n{XYZ_HEAD}\n"), [f"{xyz}:1", "zero atoms"]),
        ("wrong column count", ["run", ini], with_input(f"4\n{XYZ_HEAD}\n{atoms4.replace('Ar 4 4 4', 'Ar 4 4')}\n"), [f"{xyz}:4", "expected 4 columns"]),
        ("missing coordinate file", ["run", ini], {ini: "[system]\ninput = missing.xyz\n"}, ["missing.xyz", "cannot open"]),
        ("xyz without box", ["run", ini], with_input(f"4\nplain comment\n{atoms4}\n"), ["[system] box", "missing"]),
        ("one atom and a temperature", ["run", ini], with_input(f"1\n{XYZ_HEAD}\nAr 1 1 1\n", "temperature = 1\n"), ["[system] temperature", "one atom has no thermal motion"]),
        ("unwritable thermo file", ["run", ini], {ini: good.replace(f"{d}/thermo.csv", "/nonexistent-dir/t.csv")}, ["/nonexistent-dir/t.csv", "[output] thermo_file", "cannot create"]),
        ("trajectory suffix", ["run", ini, "--set", "output.trajectory=t.dcd"], {ini: good}, ["--set", "[output] trajectory", "expected a .h5/.h5md"]),
        ("bad checkpoint value", ["run", ini, "--set", "output.checkpoint=sometimes"], {ini: good}, ["--set", "[output] checkpoint"]),
        ("bad dump field", ["run", ini, "--set", "output.dump_fields=position charge"], {ini: good}, ["[output] dump_fields", "'charge'"]),
        ("restart file missing", ["run", ini, "--restart", os.path.join(d, "none.h5md")], {ini: good}, ["none.h5md", "--restart", "cannot open"]),
        ("restart not mdlite", ["run", ini, "--restart", xyz], {ini: good, xyz: "not hdf5\n"}, [xyz, "--restart"]),
        # sizes trusted from files, size arithmetic, memory
        ("huge xyz count", ["run", ini], with_input(f"99999999999999999\n{XYZ_HEAD}\n{atoms4}\n"), [f"{xyz}:1", "more than mdlite handles"]),
        ("count past the file", ["run", ini], with_input(f"1999999999\n{XYZ_HEAD}\n{atoms4}\n"), [f"{xyz}:7", "the header says 1999999999 atoms, the file has 4"]),
        ("count past the file (neighbors)", ["neighbors", xyz, "--cutoff", "1"], {xyz: f"2000000000\n{XYZ_HEAD}\n{atoms4}\n"}, [xyz, "the header says 2000000000 atoms, the file has 4"]),
        ("count over int64", ["run", ini], with_input(f"123456789012345678901234567890\n{XYZ_HEAD}\n{atoms4}\n"), [f"{xyz}:1", "number of atoms"]),
        ("lattice beyond memory", ["run", ini, "--set", "system.cells=750 750 750"], {ini: good}, ["[system] cells", "GiB", "available"]),
        ("lattice beyond 2^31 atoms", ["run", ini, "--set", "system.cells=4096 4096 4096"], {ini: good}, ["[system] cells", "more than mdlite handles"]),
        # empty values are missing values; special files; read errors; long lines
        ("empty input", ["run", ini], {ini: good.replace("lattice = fcc", "input =").replace("density = 0.8442\n", "").replace("cells = 4 4 4\n", "")}, ["[system] lattice", "missing"]),
        ("empty input by --set", ["run", ini, "--set", "system.input=", "--set", "system.lattice="], {ini: good}, ["[system] lattice", "missing"]),
        ("empty density", ["run", ini], {ini: good.replace("0.8442", "")}, ["[system] density", "missing"]),
        ("config is a directory", ["run", d], {}, [d, "is a directory"]),
        ("config is a device", ["run", "/dev/zero"], {}, ["/dev/zero", "not a regular file"]),
        ("config read error", ["run", "/proc/self/mem"], {}, ["/proc/self/mem", "read error"]),
        ("config with a NUL byte", ["run", ini], {ini: good + "[run]\x00\n"}, [f"{ini}:11", "NUL byte"]),
        ("input is a device", ["run", ini], {ini: "[system]\ninput = /dev/zero\n"}, ["/dev/zero", "not a regular file"]),
        ("input is a directory", ["run", ini], {ini: f"[system]\ninput = {d}\n"}, [d, "is a directory"]),
        ("neighbors on a device", ["neighbors", "/dev/zero", "--cutoff", "1"], {}, ["/dev/zero", "not a regular file"]),
        ("long line, bad value", ["run", ini], {ini: good + "; " + "c" * 5000 + "\n[run]\ntimestep = x" + "y" * 300 + "\n"}, [f"{ini}:13", "[run] timestep"]),
        ("xy error line", ["run", ini], {xy: "# a\n# b\n\n1 1\n3 30\n", ini: "[system]\ninput = points.xy\nbox = 10 10 10\ntemperature = 1\n"}, [f"{xy}:5", "outside the box"]),
        ("neighbors output is its input", ["neighbors", xy, "--cutoff", "1", "--output", f"{d}/./points.xy"], {xy: "0 0\n1 1\n"}, ["--output file", "input file"]),
        ("unknown command", ["frobnicate"], {}, ["unknown command"]),
        ("neighbors without cutoff", ["neighbors", xy], {xy: "0 0\n1 1\n"}, ["missing --cutoff"]),
        ("neighbors missing file", ["neighbors", os.path.join(d, "none.xy"), "--cutoff", "1"], {}, ["none.xy", "cannot open"]),
        ("neighbors non-numeric", ["neighbors", xy, "--cutoff", "2"], {xy: "0 0\n1 y\n"}, [f"{xy}:2", "'y' is not a number"]),
        # a key the input contradicts is refused, never ignored
        ("mass and a file's masses", ["run", ini], with_input(f"4\n{XYZ_HEAD.replace('pos:R:3', 'pos:R:3:mass:R:1')}\n" +
         "\n".join(line + " 39.9" for line in atoms4.split("\n")) + "\n", "temperature = 1\nmass = 2\n"),
         [f"{ini}:4", "[system] mass", "contradicts the masses in", "atoms.xyz"]),
        # a value that can never run is refused up front
        ("zero skin", ["run", ini, "--set", "neighbor.skin=0"], {ini: good}, ["--set", "[neighbor] skin", "'0' must be > 0"]),
        # messages name the real source, key and value
        ("pair cutoff by --set", ["run", ini, "--set", "potential.pair.A.A=1 1 -3.5"], {ini: good},
         ["--set: [potential] pair.A.A", "'1 1 -3.5' must be > 0"]),
        # the potential's keys are its style's
        ("another style's key", ["run", ini, "--set", "potential.d0=1"], {ini: good},
         ["--set: [potential] d0", "a key of style morse", "style is lj"]),
        ("unknown style", ["run", ini, "--set", "potential.style=buck"], {ini: good},
         ["[potential] style", "'buck' is not one of lj|morse"]),
        ("Morse pair line of LJ's length", ["run", ini, "--set", "potential.style=morse", "--set",
         "potential.pair.A.A=1 1"], {ini: good}, ["[potential] pair.A.A", "expected d0 alpha r0 [cutoff] (style morse)"]),
        ("Morse without its keys", ["run", ini, "--set", "potential.style=morse"], {ini: good.replace("epsilon", ";")},
         ["[potential] d0", "missing", "pair A-A"]),
        ("Morse alpha of zero", ["run", ini, "--set", "potential.style=morse", "--set", "potential.alpha=0"], {ini: good},
         ["--set: [potential] alpha", "must be > 0"]),
        ("left-handed Lattice= (a negative edge)", ["run", ini], with_input("4\n" + XYZ_HEAD.replace('0 0 12"', '0 0 -12"') + f"\n{atoms4}\n"),
         [f"{xyz}:2", "Lattice=", "left-handed"]),
        ("Lattice= with a zero edge", ["run", ini], with_input("4\n" + XYZ_HEAD.replace('0 0 12"', '0 0 0"') + f"\n{atoms4}\n"),
         [f"{xyz}:2", "Lattice=", "degenerate"]),
        # bytes a reader would drop, frames it would pick silently, names it would pass on
        ("NUL byte in an atom line", ["run", ini], with_input(f"4\n{XYZ_HEAD}\n" + atoms4.replace("4 4 4", "4 4\x00 4") + "\n"),
         [f"{xyz}:4", "column 7", "NUL byte"]),
        ("NUL byte in an xy line", ["neighbors", xy, "--cutoff", "1"], {xy: "0 0\n1 1\x00 5\n"}, [f"{xy}:2", "NUL byte"]),
        ("two xyz frames", ["run", ini], with_input(f"4\n{XYZ_HEAD}\n{atoms4}\n4\n{XYZ_HEAD}\n{atoms4}\n"),
         [f"{xyz}:7", "a second frame starts here"]),
        ("species not UTF-8", ["run", ini], with_input(f"4\n{XYZ_HEAD}\n".encode() + atoms4.replace("Ar 4", "\xff\xfe 4", 1)
         .encode("latin-1") + b"\n"), [f"{xyz}:4", "'\\xff\\xfe' is not a species name"]),
        ("species with a control byte", ["run", ini], with_input(f"4\n{XYZ_HEAD}\n" + atoms4.replace("Ar 7", "A\x1br 7") + "\n"),
         [f"{xyz}:5", "'A\\x1br' is not a species name"]),
    ]


def main():
    binaries = [os.path.abspath(b) for b in sys.argv[1:]]
    d = workdir("bad-input")
    n = 0
    for binary in binaries:
        for name, argv, files, expect in cases(d):
            for path, text in files.items():
                write(path, text)
            p = run([binary] + argv, check=False, cwd=d)
            err = p.stderr
            if p.returncode != 2:
                fail(f"{os.path.basename(binary)}: {name}: exit {p.returncode}, expected 2\n{err}")
            for e in expect:
                if e not in err:
                    fail(f"{os.path.basename(binary)}: {name}: message lacks '{e}':\n{err}")
            for bad in ("AddressSanitizer", "runtime error", "LeakSanitizer"):
                if bad in err:
                    fail(f"{os.path.basename(binary)}: {name}: sanitizer report:\n{err}")
            for path in files:
                os.remove(path)
            n += 1
    print(f"{n} bad-input cases exit 2 with a message naming the file, line or key ({len(binaries)} binaries)")


if __name__ == "__main__":
    main()
