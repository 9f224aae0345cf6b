/* SPDX-License-Identifier: MIT */
/* leftovers.c: lists (and with -k kills) the processes a test run left.
 *
 *   leftovers [-k] NAME=VALUE
 *
 * The test runners mark every process they start with an environment entry
 * (tests/run-tests.sh: PIDNS_TUTOR_TEST_RUN=<a value unique to the run>),
 * which every child inherits through fork and exec, in whatever namespace it
 * ends up. A process whose /proc/PID/environ holds exactly that entry is one
 * of ours; any other (a learner's pidns-tutor, another user's container) is
 * never listed or touched, even if it runs a program of this build. The
 * environ file holds the environment the process was started with, so a
 * program that changes its own environment later still counts.
 *
 * Prints "process PID (NAME): COMMAND LINE" for each, and exits 1 if there
 * was any, 0 if none, 2 on a usage error. This program and its ancestors
 * (the runner that asks) are never listed.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a whole /proc/PID/FILE into buf (at most size - 1 bytes), NUL
 * terminated; returns the length, or -1. */
static ssize_t read_proc_file(const char *pid, const char *file, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/%s", pid, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return -1;
    size_t len = 0;
    ssize_t n;
    while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
        len += (size_t)n;
    close(fd);
    buf[len] = '\0';
    return (ssize_t)len;
}

/* Whether the NUL-separated environment holds the entry exactly. */
static bool holds_entry(const char *env, size_t len, const char *entry)
{
    for (size_t i = 0; i < len; i += strlen(env + i) + 1)
        if (strcmp(env + i, entry) == 0)
            return true;
    return false;
}

/* The parent of a process, from /proc/PID/stat (0 if unknown). */
static long parent_of(long pid)
{
    char name[32], stat[512];
    snprintf(name, sizeof name, "%ld", pid);
    if (read_proc_file(name, "stat", stat, sizeof stat) <= 0)
        return 0;
    char *paren = strrchr(stat, ')');
    return paren != NULL ? atol(paren + 4) : 0;
}

static bool is_ancestor_of_us(long pid)
{
    for (long p = getpid(); p > 1; p = parent_of(p))
        if (p == pid)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    bool kill_them = argc == 3 && strcmp(argv[1], "-k") == 0;
    const char *entry = argv[argc - 1];
    if (argc != 2 + kill_them || strchr(entry, '=') == NULL || entry[0] == '=') {
        fprintf(stderr, "usage: leftovers [-k] NAME=VALUE\n");
        return 2;
    }
    static char env[1 << 17];
    char cmdline[512], stat[512];
    int found = 0;
    DIR *dir = opendir("/proc");
    if (dir == NULL) {
        perror("leftovers: /proc");
        return 2;
    }
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        ssize_t len = read_proc_file(e->d_name, "environ", env, sizeof env);
        long pid = atol(e->d_name);
        if (len <= 0 || !holds_entry(env, (size_t)len, entry) || is_ancestor_of_us(pid))
            continue;
        ssize_t n = read_proc_file(e->d_name, "cmdline", cmdline, sizeof cmdline);
        for (ssize_t i = 0; i + 1 < n; i++)
            if (cmdline[i] == '\0')
                cmdline[i] = ' ';
        char name[64] = "?";
        if (read_proc_file(e->d_name, "stat", stat, sizeof stat) > 0)
            sscanf(stat, "%*d (%63[^)]", name);
        printf("process %ld (%s): %s\n", pid, name, n > 0 ? cmdline : "");
        if (kill_them)
            kill((pid_t)pid, SIGKILL);
        found++;
    }
    closedir(dir);
    return found > 0;
}
