/* SPDX-License-Identifier: MIT */
/* pty_drive.c: drives a program through a pseudo-terminal as a person at a
 * keyboard would, for the end-to-end tests of the guided shell. Works with
 * no terminal of its own (CI).
 *
 *   pty_drive [-t SECONDS] [-w COLUMNS] [-o TRANSCRIPT] SCRIPT -- COMMAND [ARGS...]
 *
 * SCRIPT holds one action a line:
 *   send TEXT      type TEXT (escapes: \n \r \t \e \\ \xHH; ^C is \x03, ^D \x04)
 *   expect TEXT    wait until the screen output since the last expect holds
 *                  TEXT (escape sequences and \r removed before comparing)
 *   absent TEXT    the output since the last expect must not hold TEXT
 *   sleep MS       wait MS milliseconds (reading output meanwhile)
 *   hangup         close the terminal, as when a window or an ssh link goes
 *                  (the program gets SIGHUP; its output is lost from then on)
 *   shell CMD      run CMD with /bin/sh meanwhile (to look at the kernel's
 *                  state from outside); the script fails if it exits non-zero
 *   exit STATUS    wait for the program to end with that exit status
 *   # ...          a comment
 * On failure it says which line failed and shows the output, and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *seen; /* cleaned output since the last expect */
static size_t seen_len;
static FILE *transcript;
static int master = -1;
static pid_t child;
static int timeout_ms = 15000;

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Appends output, dropping ESC sequences and control characters. */
static void take(const char *buf, size_t n)
{
    static int in_escape;
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        if (in_escape == 1) {
            in_escape = c == '[' || c == ']' ? 2 : 0;
            continue;
        }
        if (in_escape == 2) {
            if ((c >= '@' && c <= '~' && c != '[') || c == '\a')
                in_escape = 0;
            continue;
        }
        if (c == '\033') {
            in_escape = 1;
            continue;
        }
        if (c == '\b' && seen_len > 0) { /* readline moving back over a character */
            seen[--seen_len] = '\0';
            continue;
        }
        if ((unsigned char)c < 0x20 && c != '\n' && c != '\t')
            continue; /* \r, the bell, ... */
        seen = realloc(seen, seen_len + 2);
        seen[seen_len++] = c;
        seen[seen_len] = '\0';
    }
}

/* Reads what the program prints for up to ms milliseconds; 0 at its end. */
static int pump(int ms)
{
    char buf[4096];
    struct pollfd p = {master, POLLIN, 0};
    if (master == -1) /* hung up: nothing more to read */
        return 0;
    int rc = poll(&p, 1, ms);
    if (rc <= 0)
        return 1;
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0)
        return 0;
    if (transcript != NULL) { /* at once: a test may wait for a line in it */
        fwrite(buf, 1, (size_t)n, transcript);
        fflush(transcript);
    }
    take(buf, (size_t)n);
    return 1;
}

static void unescape(const char *in, char *out, size_t *len)
{
    size_t n = 0;
    for (const char *s = in; *s != '\0'; s++) {
        if (*s != '\\' || s[1] == '\0') {
            out[n++] = *s;
            continue;
        }
        s++;
        switch (*s) {
        case 'n':
            out[n++] = '\n';
            break;
        case 'r':
            out[n++] = '\r';
            break;
        case 't':
            out[n++] = '\t';
            break;
        case 'e':
            out[n++] = '\033';
            break;
        case 'x': {
            unsigned v = 0;
            sscanf(s + 1, "%2x", &v);
            out[n++] = (char)v;
            s += 2;
            break;
        }
        default:
            out[n++] = *s;
        }
    }
    *len = n;
}

static int fail(int line, const char *what)
{
    fprintf(stderr, "pty_drive: script line %d: %s\n--- output since the last expect:\n%s\n---\n",
            line, what, seen != NULL ? seen : "");
    if (child > 0)
        kill(child, SIGKILL);
    return 1;
}

static int wait_exit(int line, int want)
{
    long end = now_ms() + timeout_ms;
    int status;
    while (now_ms() < end) {
        if (!pump(50))
            usleep(50000);
        pid_t r = waitpid(child, &status, WNOHANG);
        if (r == child) {
            while (pump(50) && seen_len < (1u << 20)) {
            }
            child = -1;
            int got = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            if (got != want) {
                char msg[96];
                snprintf(msg, sizeof msg, "exit status %d, expected %d", got, want);
                return fail(line, msg);
            }
            return 0;
        }
    }
    return fail(line, "the program did not end in time");
}

static int act(int line, char *cmd, char *arg)
{
    char text[4096];
    size_t len;

    if (strcmp(cmd, "send") == 0) {
        unescape(arg, text, &len);
        if (write(master, text, len) != (ssize_t)len)
            return fail(line, "cannot write to the terminal");
        return 0;
    }
    if (strcmp(cmd, "expect") == 0) {
        long end = now_ms() + timeout_ms;
        while (seen == NULL || strstr(seen, arg) == NULL) {
            if (now_ms() > end || !pump(100)) {
                char msg[4200];
                snprintf(msg, sizeof msg, "did not see \"%s\"", arg);
                return fail(line, msg);
            }
        }
        /* Forget up to the end of the match: the next expect looks further on. */
        size_t keep = seen_len - (size_t)(strstr(seen, arg) + strlen(arg) - seen);
        memmove(seen, seen + seen_len - keep, keep + 1);
        seen_len = keep;
        return 0;
    }
    if (strcmp(cmd, "absent") == 0) {
        if (seen != NULL && strstr(seen, arg) != NULL) {
            char msg[4200];
            snprintf(msg, sizeof msg, "saw \"%s\"", arg);
            return fail(line, msg);
        }
        return 0;
    }
    if (strcmp(cmd, "sleep") == 0) {
        long end = now_ms() + atol(arg);
        while (now_ms() < end && pump((int)(end - now_ms()))) {
        }
        return 0;
    }
    if (strcmp(cmd, "hangup") == 0) {
        close(master);
        master = -1;
        return 0;
    }
    if (strcmp(cmd, "shell") == 0) {
        int status = system(arg);
        if (status != 0) {
            char msg[4200];
            snprintf(msg, sizeof msg, "shell command failed (status %d): %s", status, arg);
            return fail(line, msg);
        }
        return 0;
    }
    if (strcmp(cmd, "exit") == 0)
        return wait_exit(line, atoi(arg));
    return fail(line, "unknown action");
}

int main(int argc, char **argv)
{
    int opt;
    struct winsize ws = {30, 100, 0, 0};

    while ((opt = getopt(argc, argv, "+t:o:w:")) != -1) {
        if (opt == 'w')
            ws.ws_col = (unsigned short)atoi(optarg);
        else if (opt == 't')
            timeout_ms = atoi(optarg) * 1000;
        else if (opt == 'o')
            transcript = fopen(optarg, "w");
        else
            return 2;
    }
    if (argc - optind < 3 || strcmp(argv[optind + 1], "--") != 0) {
        fprintf(stderr, "usage: pty_drive [-t SECONDS] [-o FILE] SCRIPT -- COMMAND [ARGS...]\n");
        return 2;
    }
    FILE *script = fopen(argv[optind], "r");
    if (script == NULL) {
        perror(argv[optind]);
        return 2;
    }
    child = forkpty(&master, NULL, NULL, &ws);
    if (child == -1) {
        perror("forkpty");
        return 2;
    }
    if (child == 0) {
        execvp(argv[optind + 2], argv + optind + 2);
        perror(argv[optind + 2]);
        _exit(127);
    }
    char line[4200];
    int number = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, script) != NULL) {
        number++;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *space = strchr(line, ' ');
        char *arg = space != NULL ? space + 1 : line + strlen(line);
        if (space != NULL)
            *space = '\0';
        rc = act(number, line, arg);
    }
    fclose(script);
    if (child > 0) { /* the script did not wait for the end: do not leave it running */
        kill(child, SIGHUP);
        waitpid(child, NULL, 0);
    }
    if (transcript != NULL)
        fclose(transcript);
    free(seen);
    return rc;
}
