/* tee.c: live, highlighted, captured output of the commands run in the lab.
 * See tee.h.
 */
#include "tee.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEE_CAPTURE_MAX (1u << 20)
#define TEE_LINE_MAX 8192
#define TEE_IDLE_MS 150 /* after the command ended: quiet this long = done */

struct tee {
    const struct render *render;
    int pipe_fds[2];    /* [0] read end (ours), [1] write end (the command's) */
    int stop_fds[2];    /* main thread -> copier: the command has ended */
    pthread_t thread;
    char *capture;
    size_t capture_len;
    char line[TEE_LINE_MAX + 1];
    size_t line_len;
};

static void write_all(int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n <= 0 && errno != EINTR)
            return;
        if (n > 0) {
            s += n;
            len -= (size_t)n;
        }
    }
}

/* Shows one piece of a line (a whole line, or what there is when output
 * pauses mid-line) highlighted. */
static void show(const struct render *r, const char *text, size_t len)
{
    char *copy = strndup(text, len);
    char *lit = copy != NULL ? render_highlight(r, copy) : NULL;
    int fd = fileno(r->out);

    if (lit != NULL)
        write_all(fd, lit, strlen(lit));
    else
        write_all(fd, text, len);
    free(lit);
    free(copy);
}

static void keep(struct tee *t, const char *data, size_t len)
{
    if (t->capture_len + len > TEE_CAPTURE_MAX)
        len = TEE_CAPTURE_MAX - t->capture_len;
    char *more = realloc(t->capture, t->capture_len + len + 1);
    if (more == NULL)
        return;
    t->capture = more;
    memcpy(t->capture + t->capture_len, data, len);
    t->capture_len += len;
    t->capture[t->capture_len] = '\0';
}

static void take(struct tee *t, const char *data, size_t len)
{
    keep(t, data, len);
    for (size_t i = 0; i < len; i++) {
        t->line[t->line_len++] = data[i];
        if (data[i] == '\n' || t->line_len == TEE_LINE_MAX) {
            show(t->render, t->line, t->line_len);
            t->line_len = 0;
        }
    }
}

static void flush_partial(struct tee *t)
{
    if (t->line_len > 0)
        show(t->render, t->line, t->line_len);
    t->line_len = 0;
}

/* Copies until end of file; after the stop signal, until the pipe has been
 * quiet for TEE_IDLE_MS (a background program may hold it open). */
static void *copier(void *arg)
{
    struct tee *t = arg;
    char buf[4096];
    int stopping = 0;

    for (;;) {
        struct pollfd fds[2] = {{t->pipe_fds[0], POLLIN, 0}, {t->stop_fds[0], POLLIN, 0}};
        int n = poll(fds, stopping ? 1 : 2, stopping ? TEE_IDLE_MS : 50);
        if (n == -1 && errno == EINTR)
            continue;
        if (n <= 0) {
            flush_partial(t);
            if (stopping || n == -1)
                break;
            continue;
        }
        if (!stopping && (fds[1].revents & POLLIN))
            stopping = 1;
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            ssize_t got = read(t->pipe_fds[0], buf, sizeof buf);
            if (got <= 0 && !(got == -1 && errno == EINTR))
                break;
            if (got > 0)
                take(t, buf, (size_t)got);
        }
    }
    flush_partial(t);
    return NULL;
}

struct tee *tee_start(const struct render *r)
{
    struct tee *t = calloc(1, sizeof *t);
    sigset_t all, old;

    if (t == NULL)
        return NULL;
    t->render = r;
    t->pipe_fds[0] = t->pipe_fds[1] = t->stop_fds[0] = t->stop_fds[1] = -1;
    if (pipe2(t->pipe_fds, O_CLOEXEC) == -1 || pipe2(t->stop_fds, O_CLOEXEC) == -1)
        goto fail;
    fflush(r->out);
    /* The thread takes no signals: Ctrl-C must reach the main thread (the lab). */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&t->thread, NULL, copier, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        return t;
    errno = rc;
fail:
    for (int i = 0; i < 2; i++) {
        if (t->pipe_fds[i] != -1)
            close(t->pipe_fds[i]);
        if (t->stop_fds[i] != -1)
            close(t->stop_fds[i]);
    }
    free(t);
    return NULL;
}

int tee_fd(const struct tee *t)
{
    return t->pipe_fds[1];
}

char *tee_finish(struct tee *t, int *keep_fd)
{
    close(t->pipe_fds[1]);
    write_all(t->stop_fds[1], "x", 1);
    pthread_join(t->thread, NULL);
    close(t->stop_fds[0]);
    close(t->stop_fds[1]);
    if (keep_fd != NULL)
        *keep_fd = t->pipe_fds[0];
    else
        close(t->pipe_fds[0]);
    char *out = t->capture != NULL ? t->capture : strdup("");
    free(t);
    return out;
}

struct tee_relay {
    int fds[16];
    size_t count;
};

int tee_relay_add(struct tee_relay **relay, int fd)
{
    if (*relay == NULL && (*relay = calloc(1, sizeof **relay)) == NULL)
        return -1;
    if ((*relay)->count == sizeof (*relay)->fds / sizeof (*relay)->fds[0])
        return -1;
    (*relay)->fds[(*relay)->count++] = fd;
    return 0;
}

size_t tee_relay_fds(const struct tee_relay *relay, int *fds, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; relay != NULL && i < relay->count && n < max; i++)
        fds[n++] = relay->fds[i];
    return n;
}

static void relay_forget(struct tee_relay *relay, int fd)
{
    for (size_t i = 0; i < relay->count; i++)
        if (relay->fds[i] == fd) {
            close(fd);
            relay->fds[i] = relay->fds[--relay->count];
            return;
        }
}

long tee_relay_pump(struct tee_relay **relay, const struct render *r, int fd)
{
    char buf[4096];
    ssize_t n;

    do
        n = read(fd, buf, sizeof buf - 1);
    while (n == -1 && errno == EINTR);
    if (n <= 0) {
        if (*relay != NULL)
            relay_forget(*relay, fd);
        return 0;
    }
    show(r, buf, (size_t)n);
    return n;
}

void tee_relay_close(struct tee_relay **relay, const struct render *r, int wait_ms)
{
    while (*relay != NULL && (*relay)->count > 0) {
        struct pollfd p = {(*relay)->fds[0], POLLIN, 0};
        if (poll(&p, 1, wait_ms) <= 0 || tee_relay_pump(relay, r, p.fd) == 0)
            relay_forget(*relay, p.fd);
    }
    free(*relay);
    *relay = NULL;
}
