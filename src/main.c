/* mdlite's command line: run, neighbors, compare, convert, info, --help, --version. */
#define _POSIX_C_SOURCE 200809L
#include "mdlite.h"
#include "parallel/comm.h"
#include "config/config.h"
#include "cmd/neighbors_cmd.h"
#include "cmd/compare.h"
#include "config/ini.h"
#include "config/lammps_script.h"
#include "util/util.h"
#ifdef MDLITE_HAVE_GPU
#include "gpu/gpu.h"
#endif

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef MDLITE_VERSION
#define MDLITE_VERSION "unknown"
#endif

static const char *USAGE =
    "usage:\n"
    "  mdlite run CONFIG [--backend cpu|gpu] [--set section.key=value]... [--restart FILE.h5md]\n"
    "             [--profile TIMELINE.csv] [--overwrite] [--quiet] [-var NAME VALUE...]... [-in SCRIPT]\n"
    "  mdlite neighbors FILE --cutoff R [--backend cpu|gpu] [--method cell|brute|brute-atomic]\n"
    "                   [--layout transposed|row] [--list auto|plain|packed] [--outer-skin S]\n"
    "                   [--box LX LY [LZ]] [--output FILE [--overwrite]] [--repeat N]\n"
    "  mdlite compare CONFIG [--steps N]\n"
    "  mdlite convert SCRIPT [-var NAME VALUE...]...   (a LAMMPS input script as mdlite's INI, on stdout)\n"
    "  mdlite info\n"
    "  mdlite --help | --version\n"
    "\n"
    "compare runs CONFIG's initial state on both backends and prints the differences.\n"
    "CONFIG is an INI file ([system], [potential], [neighbor], [run], [output]; see input/ and\n"
    "docs/ for the keys) or a LAMMPS input script (docs/LAMMPS.md: the commands mdlite runs; -in SCRIPT\n"
    "names it as LAMMPS's -in does, -var NAME VALUE... defines an index variable as LAMMPS's -var does).\n"
    "An output file that exists is kept as #name.N# once the new one has content (--overwrite replaces it).\n"
    "Exit status: 0 success, 1 run-time failure, 2 bad usage or input.\n";

/* "mdlite run CONFIG --set ..." from argv (arguments with spaces quoted), cut to size. */
static void record_command(char *out, size_t size, int argc, char **argv)
{
    size_t k = (size_t)snprintf(out, size, "mdlite run");
    for (int i = 0; i < argc && k < size; i++)
        k += (size_t)snprintf(out + k, size - k, strpbrk(argv[i], " \t") ? " '%s'" : " %s", argv[i]);
}

/* LAMMPS's -var NAME VALUE ... (-v) at argv[i]: the values are the words up to the next one that
   begins with '-'; *i moves to the last. */
static int take_script_var(int argc, char **argv, int *i, lammps_script_vars *v)
{
    if (*i + 2 >= argc || argv[*i + 2][0] == '-') {
        mdl_error("%s: expected a variable name and at least one value", argv[*i]);
        return MDL_EINPUT;
    }
    int k = v->n++, from = *i + 2;
    v->name[k] = argv[*i + 1];
    v->values[k] = &argv[from];
    for (*i = from; *i + 1 < argc && argv[*i + 1][0] != '-'; (*i)++)
        ;
    v->nvalues[k] = *i - from + 1;
    return MDL_OK;
}

/* The room for argc variables. */
static int script_vars_init(lammps_script_vars *v, int argc)
{
    *v = (lammps_script_vars){0, calloc((size_t)argc + 1, sizeof(char *)), calloc((size_t)argc + 1, sizeof(char **)),
                              calloc((size_t)argc + 1, sizeof(int))};
    return v->name && v->values && v->nvalues ? MDL_OK : MDL_ERUN;
}

static void script_vars_free(lammps_script_vars *v)
{
    free(v->name), free(v->values), free(v->nvalues);
}

/* mdlite run: the config loaded and run through libmdlite. */
static int run_main(int argc, char **argv)
{
    const char *path = NULL;
    mdlite_run_options opt = {NULL, NULL, 0, 0};
    int nset = 0;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    if (!sets)
        return MDL_ERUN;
    char backend_set[64];
    lammps_script_vars vars;
    int rc = script_vars_init(&vars, argc);
    for (int i = 0; i < argc && rc == MDL_OK; i++) {
        if ((strcmp(argv[i], "-var") == 0 || strcmp(argv[i], "-v") == 0)) {
            rc = take_script_var(argc, argv, &i, &vars);
        } else if ((strcmp(argv[i], "-in") == 0 || strcmp(argv[i], "-i") == 0) && i + 1 < argc && !path) {
            path = argv[++i];
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            sets[nset++] = argv[++i];
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            snprintf(backend_set, sizeof backend_set, "run.backend=%s", argv[++i]);
            sets[nset++] = backend_set; /* applied last: the command line wins */
        } else if (strcmp(argv[i], "--quiet") == 0) {
            opt.quiet = 1;
        } else if (strcmp(argv[i], "--overwrite") == 0) {
            opt.overwrite = 1;
        } else if (strcmp(argv[i], "--restart") == 0 && i + 1 < argc) {
            opt.restart = argv[++i];
        } else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
            opt.profile = argv[++i];
        } else if (argv[i][0] == '-') {
            mdl_error("run: unknown option or missing value: %s\n%s", argv[i], USAGE);
            rc = MDL_EINPUT;
        } else if (!path) {
            path = argv[i];
        } else {
            mdl_error("run: more than one CONFIG (%s and %s)", path, argv[i]);
            rc = MDL_EINPUT;
        }
    }
    if (rc == MDL_OK && !path) {
        mdl_error("run: missing CONFIG\n%s", USAGE);
        rc = MDL_EINPUT;
    }
    /* --backend goes after every --set so that the flag wins */
    for (int i = 0; i < nset; i++)
        if (sets[i] == backend_set && i != nset - 1) {
            memmove(&sets[i], &sets[i + 1], (size_t)(nset - i - 1) * sizeof *sets);
            sets[nset - 1] = backend_set;
            break;
        }
    char command[2048];
    record_command(command, sizeof command, argc, argv);
    int *counts = calloc((size_t)vars.n + 1, sizeof *counts), nvalues = 0;
    const char **values = calloc((size_t)argc + 1, sizeof *values);
    for (int k = 0; counts && values && k < vars.n; k++)
        for (int j = 0; j < (counts[k] = vars.nvalues[k]); j++)
            values[nvalues++] = vars.values[k][j];
    const mdlite_load_options load = {nset, sets, vars.n, vars.name, counts, values, command, 1};
    mdlite_sim *sim = rc == MDL_OK ? mdlite_new() : NULL;
    if (rc == MDL_OK && (!sim || !counts || !values || mdlite_set_echo(sim, 1) != MDLITE_OK))
        rc = MDL_ERUN;
    if (rc == MDL_OK)
        rc = mdlite_load_file(sim, path, &load);
    if (rc == MDL_OK)
        rc = mdlite_run(sim, &opt);
    mdlite_free(sim);
    free(sets), free(counts), free(values);
    script_vars_free(&vars);
    return rc;
}

static int info_main(void)
{
    printf("mdlite %s\n", MDLITE_VERSION);
    printf("precision: CPU double\n");
    printf("OpenMP threads: %d (set OMP_NUM_THREADS or [run] threads)\n", omp_get_max_threads());
    printf("backends: cpu");
#ifdef MDLITE_HAVE_GPU
    printf(" gpu\n");
    printf("GPU precision: %s; CUDA architectures: %s\n", MDL_GPU_PRECISION_NAME, MDLITE_CUDA_ARCHS);
    gpu_print_devices(stdout);
#else
    printf("\nGPU backend: not in this build\n");
#endif
    printf("compiler: %s\n", __VERSION__);
    return MDL_OK;
}

/* Other tasks ready to run now (/proc/stat procs_running, less this process), the most of a few
   samples 2 ms apart; -1 when unknown. */
static int busy_tasks(void)
{
    int most = -1;
    for (int k = 0; k < 5; k++) {
        FILE *fp = fopen("/proc/stat", "r");
        char line[256];
        int running;
        while (fp && fgets(line, sizeof line, fp))
            if (sscanf(line, "procs_running %d", &running) == 1 && running - 1 > most)
                most = running - 1;
        if (fp)
            fclose(fp);
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    return most;
}

/* OpenMP threads that spin while they wait (libgomp's default) are fastest on an idle machine,
   and many times slower where other tasks want the cores. libgomp reads its wait policy once,
   before main, so on a busy machine mdlite runs itself again with OMP_WAIT_POLICY=passive
   (unless the user chose a policy). Measured in docs/PERFORMANCE.md, "Threads on a busy machine". */
static void wait_passively_when_busy(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT"))
        return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int busy = busy_tasks();
    if (busy < 0 || cores < 1 || busy < cores / 2 + (cores == 1))
        return;
    setenv("OMP_WAIT_POLICY", "passive", 1);
    setenv("MDLITE_BUSY_AT_START", "1", 1);
    execv("/proc/self/exe", argv); /* only returns on failure: then go on spinning */
}

/* mdlite convert SCRIPT [-var NAME VALUE...]: the INI that `mdlite run SCRIPT` runs, its paths
   absolute (it reads the same files wherever it is saved). */
static int convert_main(int argc, char **argv)
{
    const char *path = NULL;
    lammps_script_vars vars;
    int rc = script_vars_init(&vars, argc);
    for (int i = 0; i < argc && rc == MDL_OK; i++)
        if (!strcmp(argv[i], "-var") || !strcmp(argv[i], "-v"))
            rc = take_script_var(argc, argv, &i, &vars);
        else if ((!strcmp(argv[i], "-in") || !strcmp(argv[i], "-i")) && i + 1 < argc && !path)
            path = argv[++i];
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            rc = MDL_EINPUT;
    if (rc == MDL_OK && !path)
        rc = MDL_EINPUT;
    if (rc == MDL_EINPUT)
        mdl_error("usage: mdlite convert SCRIPT [-var NAME VALUE...]...");
    char *text = NULL, *ini;
    int *line_of, nlines;
    size_t len;
    if (rc == MDL_OK)
        rc = mdl_read_text(path, "script", (size_t)16 << 20, &text, &len);
    if (rc == MDL_OK && (!lammps_script_detect(text) || memchr(text, '\0', len))) {
        mdl_error("%s: not a LAMMPS input script (an INI file, or not text)", path);
        rc = MDL_EINPUT;
    }
    if (rc == MDL_OK && (rc = lammps_script_convert(path, text, vars.n ? &vars : NULL, &ini, &line_of, &nlines)) == MDL_OK) {
        fputs(ini, stdout);
        free(ini);
        free(line_of);
    }
    free(text);
    script_vars_free(&vars);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "run") == 0)
        wait_passively_when_busy(argv);
    if (argc < 2) {
        fputs(USAGE, stderr);
        return MDL_EINPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(USAGE, stdout);
        return MDL_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("mdlite %s\n", MDLITE_VERSION);
        return MDL_OK;
    }
    if (strcmp(cmd, "run") == 0) { /* under mpirun: one rank of a decomposed run */
        if (mdlite_init(&argc, &argv) != MDLITE_OK)
            return MDL_ERUN;
        return mdlite_finish(run_main(argc - 2, argv + 2));
    }
    if (strcmp(cmd, "neighbors") == 0 || strcmp(cmd, "compare") == 0) { /* one process only */
        if (comm_init(&argc, &argv) != MDL_OK)
            return MDL_ERUN;
        if (comm_size() > 1) {
            if (comm_rank() == 0)
                mdl_error("%s runs in one process; start it without mpirun (only run is decomposed)", cmd);
            return comm_end(MDL_EINPUT);
        }
        return comm_end(cmd[0] == 'n' ? neighbors_main(argc - 2, argv + 2) : compare_main(argc - 2, argv + 2));
    }
    if (strcmp(cmd, "info") == 0)
        return info_main();
    if (strcmp(cmd, "convert") == 0)
        return convert_main(argc - 2, argv + 2);
    mdl_error("unknown command '%s'\n%s", cmd, USAGE);
    return MDL_EINPUT;
}
