/* main.c: pidns-tutor, the guided shell of the PID namespace tutorial:
 * options, set up, run. Everything else lives in session.c and below.
 */
#include "cmd/commands.h"
#include "lab/doctor.h"
#include "lab/lab.h"
#include "session/session.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    OPT_NO_COLOR = CHAR_MAX + 1,
    OPT_DOCTOR,
    OPT_LESSONS,
    OPT_AUTO,
    OPT_USERNS,
    OPT_COMMANDS_ADOC
};

static void usage(void)
{
    printf("Usage: pidns-tutor [OPTIONS]\n"
           "An interactive tutorial on Linux PID namespaces: lessons that run real programs\n"
           "in a private lab on your own kernel, and leave nothing behind.\n\n"
           "Options:\n"
           "  --auto LESSON|all   run lessons unattended (every step and check); exit status\n"
           "                      non-zero if any failed\n"
           "  --lessons DIR       read the lessons from DIR\n"
           "  --doctor            check what this machine offers, and how to fix what is missing\n"
           "  --no-color          no colour (also when NO_COLOR is set)\n"
           "  --user-namespace    take the unprivileged route even as root\n"
           "  -h, --help          this help\n"
           "  -V, --version       the version\n\n"
           "With standard input not a terminal, commands are read one a line (no prompt);\n"
           "the exit status is non-zero if any failed. Inside, type `help`.\n");
}

/* Parses the options into o. Returns -1 to go on, or the exit status when
 * the option was all there was to do (--help, --version) or was wrong. */
static int parse_options(int argc, char **argv, struct session_options *o, int *doctor)
{
    static const struct option options[] = {
        {"auto", required_argument, NULL, OPT_AUTO},
        {"lessons", required_argument, NULL, OPT_LESSONS},
        {"doctor", no_argument, NULL, OPT_DOCTOR},
        {"no-color", no_argument, NULL, OPT_NO_COLOR},
        {"no-colour", no_argument, NULL, OPT_NO_COLOR},
        {"user-namespace", no_argument, NULL, OPT_USERNS},
        {"commands-adoc", no_argument, NULL, OPT_COMMANDS_ADOC}, /* for the docs */
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;

    opterr = 0; /* our own messages: getopt's would name the program by its full path */
    while ((c = getopt_long(argc, argv, "+:hV", options, NULL)) != -1) {
        if (c == OPT_AUTO)
            o->auto_lessons = optarg;
        else if (c == OPT_LESSONS)
            o->lessons_dir = optarg;
        else if (c == OPT_DOCTOR)
            *doctor = 1;
        else if (c == OPT_NO_COLOR)
            o->no_colour = 1;
        else if (c == OPT_USERNS)
            o->user_namespace = 1;
        else if (c == OPT_COMMANDS_ADOC) {
            command_write_adoc(stdout);
            return EXIT_SUCCESS;
        } else if (c == 'h') {
            usage();
            return EXIT_SUCCESS;
        } else if (c == 'V') {
            printf("pidns-tutor %s\n", PIDNS_TUTOR_VERSION);
            return EXIT_SUCCESS;
        } else {
            /* A short option is named by optopt (it may sit in a cluster,
             * "-Vq"); a long one by the word getopt just read. */
            char short_name[3] = {'-', (char)optopt, '\0'};
            int is_short = optopt > 0 && optopt < 128;
            fprintf(stderr,
                    "pidns-tutor: %s '%s'\n"
                    "Try 'pidns-tutor --help' for more information.\n",
                    c == ':' ? "missing argument to" : "unknown option",
                    is_short ? short_name : argv[optind - 1]);
            return EXIT_FAILURE;
        }
    }
    if (optind < argc) {
        fprintf(stderr,
                "pidns-tutor: unexpected argument '%s'\n"
                "Try 'pidns-tutor --help' for more information.\n",
                argv[optind]);
        return EXIT_FAILURE;
    }
    return -1;
}

/* Output that could not be written (a full disk, a closed standard output)
 * would otherwise end the session silently with status 1: say it, once. */
static int output_lost(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "pidns-tutor: could not write all of the output to standard output "
                    "(is it closed, or the disk full?)\n");
    return 1;
}

int main(int argc, char **argv)
{
    struct session_options o = {0};
    struct shell sh = {.program = "pidns-tutor", .lesson_index = -1};
    int doctor = 0;

    int done = parse_options(argc, argv, &o, &doctor);
    if (done >= 0)
        return output_lost() ? 1 : done;
    if (doctor) {
        struct lab_config config = {NULL, o.user_namespace, 0};
        int status = doctor_run(stdout, &config);
        return output_lost() ? 1 : status;
    }
    if (session_open(&sh, &o) == -1) {
        session_close(&sh);
        return 1;
    }
    int status = session_run(&sh, &o);
    int changed = session_close(&sh);
    int lost = output_lost();
    return status != 0 || changed || lost ? 1 : 0;
}
