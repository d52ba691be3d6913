/* Output files that never destroy data: identity comparison of paths, lock before truncation,
   GROMACS-style backups ("#name.N#") of files that already exist. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* flock */
#include "outfile.h"

#include "../util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The canonical form of a path whose file may not exist yet: realpath of its directory + name. */
static int canonical(const char *path, char *out, size_t size)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path + (slash == path)), path);
    else
        snprintf(dir, sizeof dir, ".");
    if (!realpath(dir, real))
        return -1;
    return snprintf(out, size, "%s/%s", real, name) >= (int)size ? -1 : 0;
}

/* The path a chain of symbolic links ends at (itself when it is none), also where the last
   link points at no file yet: what open(O_CREAT) would create. */
static int follow_links(const char *path, char *out, size_t size)
{
    if (snprintf(out, size, "%s", path) >= (int)size)
        return -1;
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        char target[PATH_MAX];
        if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
            return 0;
        ssize_t n = readlink(out, target, sizeof target - 1);
        if (n < 0)
            return -1;
        target[n] = '\0';
        const char *slash = strrchr(out, '/');
        if (target[0] == '/' || !slash) {
            if (snprintf(out, size, "%s", target) >= (int)size)
                return -1;
        } else {
            char joined[2 * PATH_MAX];
            snprintf(joined, sizeof joined, "%.*s%s", (int)(slash - out + 1), out, target);
            if (snprintf(out, size, "%s", joined) >= (int)size)
                return -1;
        }
    }
    return -1;
}

int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb)
        return 0;
    char la[PATH_MAX], lb[PATH_MAX], ca[2 * PATH_MAX], cb[2 * PATH_MAX];
    if (follow_links(a, la, sizeof la) || follow_links(b, lb, sizeof lb) || canonical(la, ca, sizeof ca) ||
        canonical(lb, cb, sizeof cb))
        return strcmp(a, b) == 0;
    return strcmp(ca, cb) == 0;
}

static int used(const mdl_named_path *p)
{
    return p->path && p->path[0];
}

/* An existing output is a regular file or /dev/null: a FIFO, a socket or a device would block a
   write (a FIFO opened read-write is its own reader) or take what a file should keep. */
static int output_kind_check(const mdl_named_path *o)
{
    struct stat st, null;
    if (stat(o->path, &st) != 0) { /* to be created: its folder must take it */
        char dir[PATH_MAX];
        const char *slash = strrchr(o->path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - o->path + (slash == o->path)) : 1,
                 slash ? o->path : ".");
        if (access(dir, W_OK | X_OK) != 0) {
            mdl_error("%s: %s: cannot create the file in %s: %s", o->path, o->role, dir, strerror(errno));
            return MDL_EINPUT;
        }
        return MDL_OK;
    }
    if (S_ISREG(st.st_mode))
        return MDL_OK;
    if (S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 && st.st_rdev == null.st_rdev)
        return MDL_OK;
    const char *kind = S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)" : S_ISDIR(st.st_mode) ? "a directory"
                     : S_ISSOCK(st.st_mode) ? "a socket" : "a device";
    mdl_error("%s: %s is %s: outputs are regular files (or /dev/null)", o->path, o->role, kind);
    return MDL_EINPUT;
}

int outputs_check(const mdl_named_path *inputs, int ninputs, const mdl_named_path *outputs, int noutputs,
                  int allow_out, int allow_in)
{
    for (int o = 0; o < noutputs; o++) {
        if (!used(&outputs[o]))
            continue;
        MDL_TRY(output_kind_check(&outputs[o]));
        for (int i = 0; i < ninputs; i++)
            if (used(&inputs[i]) && same_file(outputs[o].path, inputs[i].path) &&
                !(o == allow_out && i == allow_in)) {
                mdl_error("%s %s is also the %s (%s): an output must not overwrite an input", outputs[o].role,
                          outputs[o].path, inputs[i].role, inputs[i].path);
                return MDL_EINPUT;
            }
        for (int k = 0; k < o; k++)
            if (used(&outputs[k]) && same_file(outputs[o].path, outputs[k].path)) {
                mdl_error("%s %s is also the %s (%s): two outputs cannot share a file", outputs[o].role,
                          outputs[o].path, outputs[k].role, outputs[k].path);
                return MDL_EINPUT;
            }
    }
    return MDL_OK;
}

/* Opens path without truncating (creating it, with O_CREAT, where it does not exist) and locks
   it; MDL_EINPUT with a message when either fails, and then a file it created is removed. */
static int open_locked(const char *path, const char *role, int flags, int *fd_out)
{
    int created = 1, fd = open(path, O_RDWR | O_CLOEXEC | (flags & O_CREAT ? flags | O_EXCL : flags), 0644);
    if (fd < 0 && errno == EEXIST && !(flags & O_EXCL))
        created = 0, fd = open(path, O_RDWR | O_CLOEXEC | flags, 0644); /* existing, or behind a link */
    if (fd < 0) {
        mdl_error("%s: %s: cannot create the file: %s", path, role, strerror(errno));
        return MDL_EINPUT;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int busy = errno == EWOULDBLOCK;
        mdl_error("%s: %s: %s", path, role,
                  busy ? "the file is in use by another process (a run writing it, or a program reading it); "
                         "wait for it or choose another name"
                       : strerror(errno));
        if (created && (flags & O_CREAT))
            unlink(path);
        close(fd);
        return MDL_EINPUT;
    }
    *fd_out = fd;
    return MDL_OK;
}

/* "#name.N#" beside path, the first N in 1..99 not taken; else NULL, the reason. */
static const char *backup_name(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    struct stat st;
    for (int k = 1; k < 100; k++) {
        if (snprintf(out, size, "%.*s#%s.%d#", dirlen, path, path + dirlen, k) >= (int)size)
            return "the backup's name is too long";
        if (lstat(out, &st) != 0 && errno == ENOENT)
            return NULL;
    }
    return "the 99 backup names #name.1# to #name.99# are all taken";
}

int outfile_check_free(const char *path, const char *role)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return MDL_OK; /* none yet (or unreadable: the claim says why) */
    struct stat st;
    int busy = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    if (busy) {
        mdl_error("%s: %s: the file is in use by another process (a run writing it, or a program reading it); "
                  "wait for it or choose another name", path, role);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

int outfile_claim(mdl_outfile *o, const char *path, const char *role, int append, int overwrite)
{
    *o = (mdl_outfile){.role = role, .fd = -1, .overwrite = overwrite};
    if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path) {
        mdl_error("%s: %s: the path is longer than %zu characters", path, role, sizeof o->path - 1);
        return MDL_EINPUT;
    }
    if (append) {
        o->published = 1;
        return open_locked(path, role, O_CREAT, &o->fd);
    }
    MDL_TRY(outfile_check_free(path, role));
    struct stat st;
    char backup[PATH_MAX + 16];
    const char *why = NULL; /* an earlier file to be kept: a name for it, before anything is written */
    if (!overwrite && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (why = backup_name(path, backup, sizeof backup))) {
        mdl_error("%s: %s: the file exists and cannot be kept as a backup (%s); move it away or run with --overwrite",
                  path, role, why);
        return MDL_EINPUT;
    }
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    if (snprintf(o->temp, sizeof o->temp, "%.*s#%s.partial.%ld#", dirlen, path, path + dirlen, (long)getpid()) >=
        (int)sizeof o->temp) {
        mdl_error("%s: %s: the path is too long for its temporary name", path, role);
        return MDL_EINPUT;
    }
    unlink(o->temp); /* a run of this process id before, killed: its leftover */
    int rc = open_locked(o->temp, role, O_CREAT | O_EXCL, &o->fd);
    if (rc != MDL_OK)
        o->temp[0] = '\0';
    return rc;
}

const char *outfile_target(const mdl_outfile *o)
{
    return o->temp[0] ? o->temp : o->path;
}

int outfile_publish(mdl_outfile *o)
{
    if (o->published || !o->temp[0])
        return MDL_OK;
    struct stat st;
    if (!o->overwrite && stat(o->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        char backup[PATH_MAX + 16];
        const char *why = backup_name(o->path, backup, sizeof backup);
        if (!why && rename(o->path, backup) != 0)
            why = strerror(errno);
        if (why) {
            mdl_error("%s: %s: the file exists and cannot be kept as a backup (%s); the new one is %s", o->path,
                      o->role, why, o->temp);
            o->temp[0] = '\0';
            return MDL_ERUN;
        }
        fprintf(stderr, "mdlite: %s exists: kept as %s\n", o->path, backup);
    }
    if (rename(o->temp, o->path) != 0) {
        mdl_error("%s: %s: cannot give the file its name (%s); it is %s", o->path, o->role, strerror(errno), o->temp);
        o->temp[0] = '\0';
        return MDL_ERUN;
    }
    o->temp[0] = '\0';
    o->published = 1;
    return MDL_OK;
}

void outfile_release(mdl_outfile *o)
{
    if (o->temp[0])
        unlink(o->temp);
    o->temp[0] = '\0';
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
}

int outfile_write_whole(const char *path, const char *role, int overwrite, int (*write)(void *user, const char *name),
                        void *user)
{
    mdl_outfile o;
    int rc = outfile_claim(&o, path, role, 0, overwrite);
    if (rc == MDL_OK)
        rc = write(user, outfile_target(&o));
    if (rc == MDL_OK)
        rc = outfile_publish(&o);
    outfile_release(&o);
    return rc;
}
