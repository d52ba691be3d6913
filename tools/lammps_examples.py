#!/usr/bin/env python3
"""The sweep of LAMMPS's own example scripts: those whose physics is mdlite's, each run as written by
mdlite and by `lmp`, each in a copy of its folder. A script is in the sweep when every `pair_style` it
names is lj/cut, morse, eam, eam/alloy or eam/fs (an accelerator suffix such as /opt is the same
style), its atom_style is atomic, and it has no bonds or angles, charges, kspace, molecule templates,
rigid bodies, restart files or partitions.

For each script it reports: taken (mdlite runs it) or mdlite's first refusal (command and line);
where mdlite runs it, whether lmp does, and the worst thermo difference over the steps both print
(relative, with LAMMPS's floors of lammps_diff.py), with the last step through which every value
agrees to 1e-10 (after it chaos may part the two trajectories).

usage: lammps_examples.py MDLITE [--examples DIR] [--lmp LMP] [--jobs J] [--timeout S]
                                 [--only SUBSTR] [--markdown FILE] [--keep DIR]
                                 [--backend cpu|gpu] [--against lmp|cpu] [--lmp-check]
--lmp-check asks `lmp -skiprun` of each script mdlite refuses whether this LAMMPS build takes its
commands at all (a style of a package it was built without, a client/server command).
--backend gpu runs mdlite on the GPU; --against cpu compares it with mdlite's CPU backend instead of
lmp (where no lmp is: the GPU machines), its tolerance 1e-10 (double) or 1e-4 (mixed precision).
Exit 0 when every script ends in a verdict, 1 when one crashed (an exit other than 0, 1 with a reason
or 2 naming file and line), mdlite runs one that lmp refuses, or mdlite and lmp differ at the first
thermo row; 77 without the examples or lmp.
"""
import argparse
import concurrent.futures
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lammps_diff import lammps_rows, floor  # noqa: E402  (the thermo parser and floors)

EXAMPLES = "/usr/share/lammps/examples"
POTENTIALS = "/usr/share/lammps/potentials"
STYLES = re.compile(r"^(lj/cut|morse|eam(/alloy|/fs)?)(/(opt|omp|gpu|kk|intel))?$")
EXCLUDED = {"bond_style", "angle_style", "dihedral_style", "improper_style", "kspace_style", "read_restart",
            "partition", "molecule"}
TOL = 1e-10
SKIP = 77


def commands(text):
    """The script's commands as word lists (comments and continuations removed, no variables)."""
    text = re.sub(r"&\s*\n", " ", text)
    return [line.split("#")[0].split() for line in text.splitlines() if line.split("#")[0].split()]


def in_sweep(text):
    cmds = commands(text)
    pairs = [c for c in cmds if c[0] == "pair_style"]
    if not pairs or not all(len(c) > 1 and STYLES.match(c[1]) for c in pairs):
        return False
    if any(c[0] == "atom_style" and c[1:2] != ["atomic"] for c in cmds):
        return False
    if any(c[0] in EXCLUDED for c in cmds):
        return False
    if any(c[0] == "fix" and len(c) > 3 and ("rigid" in c[3] or c[3] == "poems") for c in cmds):
        return False
    return not any(c[0] == "set" and "charge" in c for c in cmds)


def find_scripts(root):
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if name.startswith("in.") and os.path.isfile(path):
                with open(path, errors="replace") as f:
                    if in_sweep(f.read()):
                        found.append(os.path.relpath(path, root))
    return sorted(found)


def copy_folder(root, script, dest):
    """The script's folder copied, with the potentials LAMMPS's examples reach by relative path."""
    shutil.copytree(os.path.join(root, os.path.dirname(script)), dest, symlinks=True)
    for name in os.listdir(POTENTIALS) if os.path.isdir(POTENTIALS) else []:
        target = os.path.join(dest, name)
        if os.path.lexists(target) and not os.path.exists(target):  # a link to ../../potentials
            os.remove(target)
        if not os.path.lexists(target):
            os.symlink(os.path.join(POTENTIALS, name), target)
    return os.path.join(dest, os.path.basename(script))


def run(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return "timeout", out, ""


REFUSAL = re.compile(r"mdlite: error: ([^:\s]+):(\d+): ([^:]+):")


def mdlite_verdict(rc, err):
    """taken / refused (with command, line) / stopped (exit 1 with a reason) / timeout / crash."""
    if rc == 0:
        return "taken", ""
    if rc == "timeout":
        return "timeout", ""
    m = REFUSAL.search(err)
    if rc == 2 and m:
        return "refused", f"`{m.group(3).strip()}` ({m.group(1)}:{m.group(2)})"
    if rc == 2 and "mdlite: error:" in err:
        return "refused", err.strip().splitlines()[-1][len("mdlite: error: "):][:80]
    if rc == 1 and err.strip():
        return "stopped", err.strip().splitlines()[-1][:80]
    return "crash", f"exit {rc}: {err.strip()[-80:]}"


def thermo_diff(lmp_out, md_out, units, tol=TOL):
    """(worst relative difference, last step agreeing to TOL, steps compared) over the steps and
    columns both print, or None when they share no row."""
    a, an = lammps_rows(lmp_out)
    b, bn = lammps_rows(md_out)
    worst, through, ncmp, agreeing = 0.0, None, 0, True
    for step in sorted(set(a) & set(b)):
        ok = True
        for ra, na, rb, nb in zip(a[step], an[step], b[step], bn[step]):
            for name, va in zip(na, ra):
                if name in nb and name not in ("CPU", "T/CPU", "S/CPU", "Step", "Elapsed", "Time"):
                    vb = rb[nb.index(name)]
                    d = abs(va - vb) / max(abs(va), floor(name, units))
                    worst = max(worst, d)
                    ok = ok and d <= tol
        ncmp += 1
        agreeing = agreeing and ok
        if agreeing:
            through = step
    return (worst, through, ncmp) if ncmp else None


def units_of(text):
    for c in commands(text):
        if c[0] == "units" and len(c) > 1:
            return c[1]
    return "lj"


def sweep_one(args, script, work):
    name = script.replace("/", "_")
    md_in = copy_folder(args.examples, script, os.path.join(work, name, "mdlite"))
    rc, out, err = run([args.mdlite, "run", os.path.basename(md_in), "--backend", args.backend],
                       os.path.dirname(md_in), args.timeout)
    verdict, why = mdlite_verdict(rc, err)
    row = {"script": script, "verdict": verdict, "why": why, "lmp": "", "diff": None}
    if verdict in ("taken", "stopped", "timeout"):
        lmp_in = copy_folder(args.examples, script, os.path.join(work, name, "lmp"))
        ref = ([args.mdlite, "run", os.path.basename(lmp_in), "--backend", "cpu"] if args.against == "cpu" else
               [args.lmp, "-in", os.path.basename(lmp_in), "-log", "none"])
        lrc, lout, lerr = run(ref, os.path.dirname(lmp_in), args.timeout)
        row["lmp"] = "runs" if lrc == 0 else ("timeout" if lrc == "timeout" else "fails")
        with open(os.path.join(args.examples, script), errors="replace") as f:
            row["diff"] = thermo_diff(lout, out, units_of(f.read()), args.tol)
    elif args.lmp_check:
        lmp_in = copy_folder(args.examples, script, os.path.join(work, name, "lmp"))
        _, lout, lerr = run([args.lmp, "-skiprun", "-in", os.path.basename(lmp_in), "-log", "none"],
                            os.path.dirname(lmp_in), args.timeout)
        m = re.search(r"ERROR: (Unrecognized \S+ style '[^']+'|Unknown command: \S+( \S+)?)", lout + lerr)
        row["lmp"] = f"lmp: {m.group(1)}" if m else ""
    if not args.keep:
        shutil.rmtree(os.path.join(work, name), ignore_errors=True)
    return row


def describe(row):
    if row["verdict"] != "taken":
        return row["verdict"], row["why"] + (f"; {row['lmp']}" if row["lmp"] else "")
    d = row["diff"]
    if row["lmp"] != "runs":
        return "taken", f"lmp {row['lmp']}"
    if d is None:
        return "taken", "no thermo row in common"
    worst, through, n = d
    return "taken", (f"{n} rows, worst {worst:.1e}" +
                     ("" if worst <= TOL else f", {TOL:.0e} through step {through}" if through is not None
                      else ", differs at the first row"))


def main():
    global TOL
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mdlite")
    ap.add_argument("--examples", default=EXAMPLES)
    ap.add_argument("--lmp", default=shutil.which("lmp") or "lmp")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--only", default="")
    ap.add_argument("--markdown")
    ap.add_argument("--keep")
    ap.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--against", choices=["lmp", "cpu"], default="lmp")
    ap.add_argument("--tol", type=float, default=1e-10)
    ap.add_argument("--lmp-check", action="store_true")
    args = ap.parse_args()
    TOL = args.tol
    args.mdlite = os.path.abspath(args.mdlite)
    if not os.path.isdir(args.examples) or (args.against == "lmp" and not shutil.which(args.lmp)):
        print("lammps_examples: no LAMMPS examples or lmp (Debian: lammps, lammps-examples)")
        return SKIP
    scripts = [s for s in find_scripts(args.examples) if args.only in s]
    work = args.keep or tempfile.mkdtemp(prefix="mdlite_examples_")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda s: sweep_one(args, s, work), scripts))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    lines = [f"| script | mdlite | detail |", "| --- | --- | --- |"]
    lines += [f"| {r['script']} | {describe(r)[0]} | {describe(r)[1]} |" for r in rows]
    counts = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    firsts = {}
    for r in rows:
        if r["verdict"] == "refused":
            cmd = r["why"].split("`")[1] if "`" in r["why"] else r["why"]
            firsts[cmd] = firsts.get(cmd, 0) + 1
    outside = sum(1 for r in rows if r["lmp"].startswith("lmp: "))
    summary = (f"{len(rows)} scripts, {datetime.date.today()}: " +
               ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) +
               (f" ({outside} of those refused need what this lmp lacks)" if args.lmp_check else "") +
               "\n\nfirst refusals: " +
               ", ".join(f"`{k}` {v}" for k, v in sorted(firsts.items(), key=lambda kv: -kv[1])))
    text = summary + "\n\n" + "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    bad = [r for r in rows if r["verdict"] == "crash" or (r["verdict"] == "taken" and r["lmp"] == "fails") or
           (r["diff"] and r["diff"][1] is None and r["diff"][0] > args.tol)]
    for r in bad:
        print(f"lammps_examples: {r['script']}: {describe(r)[1] if r['verdict'] != 'crash' else r['why']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
