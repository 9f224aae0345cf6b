/* pidns_orphan.c: who adopts a process whose parent dies inside a PID
 * namespace: the namespace's own init, or a child subreaper.
 *
 * When a process dies, the kernel gives its children a new parent. Inside a
 * PID namespace that new parent is the namespace's init (PID 1 there), never
 * the host's init: the namespace looks after its own orphans, and its init
 * must collect their exit status with wait(). A process can volunteer for
 * the job instead, for its own descendants: after
 * prctl(PR_SET_CHILD_SUBREAPER, 1) orphans below it are re-parented to it
 * (the nearest living subreaper wins), not to init.
 *
 * Processes (PIDs inside the new namespace):
 *   init 1 -- parent 2 -- orphan 3          (scenario 1: no subreaper)
 *   init 1 -- subreaper 4 -- parent 5 -- orphan 6   (scenario 2)
 * Each orphan asks for a signal when its parent dies (PR_SET_PDEATHSIG); by
 * the time the signal arrives the kernel has already re-parented it, so
 * getppid() then names the new parent.
 *
 * Build: cc -o pidns_orphan pidns_orphan.c
 * Run:   sudo ./pidns_orphan            (or: unshare -r ./pidns_orphan)
 * Prints, e.g.:
 *   [no subreaper] orphan PID 3: parent PID 2 died; new parent PID 1
 *                  -> re-parented to this namespace's init
 *   [subreaper]    orphan PID 6: parent PID 5 died; new parent PID 4
 *                  -> re-parented to the subreaper, not to init
 * Exit status: 0 done, 1 a call failed, 2 bad usage, 77 skipped (needs
 * CAP_SYS_ADMIN; the subreaper needs Linux 3.4).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (1024 * 1024)
#define EXIT_SKIPPED 77

static const char *prog = "pidns_orphan";
static int in_child;       /* set after fork/clone: leave with _exit() */
static volatile pid_t init_pid; /* for on_terminate() */

/* The one error path: "program: what failed: why", then leave. */
__attribute__((noreturn)) static void die(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
    if (in_child)
        _exit(EXIT_FAILURE);
    exit(EXIT_FAILURE);
}

static pid_t fork_or_die(void)
{
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t pid = fork();
    if (pid == -1)
        die("fork");
    if (pid == 0)
        in_child = 1;
    return pid;
}

/* The "PPid:" of /proc/self/status: the parent as the namespace of the
 * procfs mounted at /proc sees it (normally the parent namespace). */
static long proc_status_ppid(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (f == NULL)
        die("fopen /proc/self/status");
    char line[256];
    long ppid = -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "PPid: %ld", &ppid) == 1)
            break;
    fclose(f);
    return ppid;
}

/* --- the orphan ------------------------------------------------------ */

/* Runs in the grandchild: tells its parent it is ready, waits for the
 * parent's death, then reports who adopted it. */
static void orphan_main(const char *label, int ready_fd, pid_t subreaper)
{
    pid_t parent = getppid();
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    if (sigprocmask(SIG_BLOCK, &usr1, NULL) == -1)
        die("sigprocmask");
    // tag::pdeathsig[]
    /* Signal me when my parent dies; the re-parenting is done by then. */
    if (prctl(PR_SET_PDEATHSIG, SIGUSR1) == -1)
        die("prctl(PR_SET_PDEATHSIG)");
    if (write(ready_fd, "r", 1) != 1)
        die("write ready");
    close(ready_fd);
    if (sigwaitinfo(&usr1, NULL) == -1)
        die("sigwaitinfo");
    pid_t adopter = getppid();
    // end::pdeathsig[]
    printf("%-14s orphan PID %ld: parent PID %ld died; new parent PID %ld\n", label,
           (long)getpid(), (long)parent, (long)adopter);
    if (adopter == 1)
        printf("%-14s -> re-parented to this namespace's init\n", "");
    else if (adopter == subreaper)
        printf("%-14s -> re-parented to the subreaper, not to init\n", "");
    else
        printf("%-14s -> re-parented to PID %ld\n", "", (long)adopter);
    printf("%-14s    /proc/self/status, the parent namespace's view: PPid: %ld\n", "",
           proc_status_ppid());
    _exit(0);
}

/* Runs in the process that will be the adopter (init, or the subreaper):
 * forks a parent, which forks the orphan and dies once it is ready. Then
 * reaps both and says which it reaped. */
static void make_orphan(const char *label, pid_t subreaper)
{
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) == -1)
        die("pipe2");
    pid_t parent = fork_or_die();
    if (parent == 0) {
        pid_t orphan = fork_or_die();
        if (orphan == 0) {
            close(ready[0]);
            orphan_main(label, ready[1], subreaper);
        }
        close(ready[1]);
        char byte;
        if (read(ready[0], &byte, 1) != 1)
            die("read ready");
        printf("%-14s parent PID %ld of orphan PID %ld exits now\n", label, (long)getpid(),
               (long)orphan);
        fflush(NULL);
        _exit(0);
    }
    close(ready[0]);
    close(ready[1]);
    pid_t reaped[2];
    for (int i = 0; i < 2; i++)
        if ((reaped[i] = wait(NULL)) == -1)
            die("wait");
    printf("%-14s PID %ld reaped PID %ld (its child) and PID %ld (the adopted orphan)\n", label,
           (long)getpid(), (long)(reaped[0] == parent ? reaped[0] : reaped[1]),
           (long)(reaped[0] == parent ? reaped[1] : reaped[0]));
}

/* --- init (PID 1 of the new namespace) ------------------------------- */

static int init_main(void *arg)
{
    (void)arg;
    in_child = 1;
    signal(SIGINT, SIG_DFL); /* the program's handler is not init's */
    signal(SIGTERM, SIG_DFL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the program */
        die("prctl(PR_SET_PDEATHSIG)");
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        die("sigprocmask");
    make_orphan("[no subreaper]", 0);

    pid_t subreaper = fork_or_die();
    if (subreaper == 0) {
        // tag::subreaper[]
        /* From now on, orphans below this process come to it, not to init. */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1 && errno == EINVAL) {
            printf("%s: skipped: the subreaper needs Linux 3.4\n", prog);
            fflush(NULL);
            _exit(EXIT_SKIPPED);
        }
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
            die("prctl(PR_SET_CHILD_SUBREAPER)");
            // end::subreaper[]
        printf("%-14s PID %ld made itself a child subreaper\n", "[subreaper]", (long)getpid());
        make_orphan("[subreaper]", getpid());
        fflush(NULL);
        _exit(0);
    }
    int status;
    if (waitpid(subreaper, &status, 0) == -1)
        die("waitpid subreaper");
    fflush(NULL);
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}

/* --- the program in the parent namespace ----------------------------- */

/* Ctrl-C or SIGTERM: init has no handler, so it would ignore them; end the
 * namespace with SIGKILL, which works from the parent namespace. */
static void on_terminate(int sig)
{
    if (init_pid > 0)
        kill(init_pid, SIGKILL);
    while (wait(NULL) > 0)
        ;
    _exit(128 + sig);
}

static void parse_args(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s\n"
               "Shows that an orphan in a PID namespace is adopted by the namespace's\n"
               "init, or by a child subreaper when there is one.\n"
               "Needs CAP_SYS_ADMIN (root, or: unshare -r %s).\n",
               prog, prog);
        exit(EXIT_SUCCESS);
    }
    if (argc != 1) {
        fprintf(stderr, "%s: unexpected argument '%s'; it takes none (try --help)\n", prog,
                argv[1]);
        exit(2);
    }
}

static void set_termination(int how)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigprocmask(how, &set, NULL) == -1)
        die("sigprocmask");
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    struct sigaction sa = {.sa_handler = on_terminate};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) == -1 || sigaction(SIGTERM, &sa, NULL) == -1)
        die("sigaction");
    char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        die("mmap stack");
    /* No Ctrl-C between clone() and remembering init's PID. The children
     * inherit the blocked mask and the handler; init resets both. */
    set_termination(SIG_BLOCK);
    fflush(NULL);
    pid_t init = clone(init_main, stack + STACK_SIZE, CLONE_NEWPID | SIGCHLD, NULL);
    if (init == -1 && errno == EPERM) {
        printf("%s: skipped: needs CAP_SYS_ADMIN to create a PID namespace "
               "(run as root, or: unshare -r)\n", prog);
        exit(EXIT_SKIPPED);
    }
    if (init == -1)
        die("clone(CLONE_NEWPID)");
    init_pid = init;
    printf("init of the new namespace: PID 1 inside, PID %ld here\n", (long)init);
    set_termination(SIG_UNBLOCK);
    int status;
    if (waitpid(init, &status, 0) == -1)
        die("waitpid init");
    munmap(stack, STACK_SIZE);
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}
