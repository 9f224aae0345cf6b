/* SPDX-License-Identifier: MIT */
/* main.c: pidns-tutor, the guided shell of the PID namespace tutorial:
 * options, set up, run. Everything else lives in session.c and below.
 */
#include "cmd/commands.h"
#include "lab/doctor.h"
#include "lab/lab.h"
#include "session/session.h"
#include "tutor/roster.h"

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
    OPT_COMMANDS_ADOC,
    OPT_ROSTER,
    OPT_PRESENT,
    OPT_CSV
};

static void usage(void)
{
    printf("Usage: pidns-tutor [OPTIONS]\n"
           "An interactive tutorial on Linux PID namespaces: lessons that run real programs\n"
           "in a private lab on your own kernel, and leave nothing behind.\n\n"
           "Options:\n"
           "  --auto LESSON|all   run lessons unattended (every step and check); exit status\n"
           "                      non-zero if any failed\n"
           "  --present LESSON    a lesson on a projector: Enter moves on, questions wait\n"
           "                      for the room's answer\n"
           "  --lessons DIR       read the lessons from DIR\n"
           "  --doctor            check what this machine offers, and how to fix what is missing\n"
           "  --no-color          no colour (also when NO_COLOR is set)\n"
           "  --user-namespace    take the unprivileged route even as root\n"
           "  --roster [PATH...]  the progress of every account (or of the homes, state\n"
           "                      directories or progress files named), one row each\n"
           "  --csv               the roster as CSV, for a spreadsheet\n"
           "  -h, --help          this help\n"
           "  -V, --version       the version\n\n"
           "With standard input not a terminal, commands are read one a line (no prompt);\n"
           "the exit status is non-zero if any failed. Inside, type `help`.\n");
}

/* Parses the options into o. Returns -1 to go on, or the exit status when
 * the option was all there was to do (--help, --version) or was wrong. */
static int parse_options(int argc, char **argv, struct session_options *o, int *doctor, int *roster)
{
    static const struct option options[] = {
        {"auto", required_argument, NULL, OPT_AUTO},
        {"lessons", required_argument, NULL, OPT_LESSONS},
        {"doctor", no_argument, NULL, OPT_DOCTOR},
        {"no-color", no_argument, NULL, OPT_NO_COLOR},
        {"no-colour", no_argument, NULL, OPT_NO_COLOR},
        {"user-namespace", no_argument, NULL, OPT_USERNS},
        {"present", required_argument, NULL, OPT_PRESENT},
        {"roster", no_argument, NULL, OPT_ROSTER},
        {"csv", no_argument, NULL, OPT_CSV},
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
        else if (c == OPT_PRESENT)
            o->present = optarg;
        else if (c == OPT_LESSONS)
            o->lessons_dir = optarg;
        else if (c == OPT_DOCTOR)
            *doctor = 1;
        else if (c == OPT_NO_COLOR)
            o->no_colour = 1;
        else if (c == OPT_USERNS)
            o->user_namespace = 1;
        else if (c == OPT_ROSTER || c == OPT_CSV)
            *roster |= c == OPT_ROSTER ? 1 : 2; /* bit 1: --csv */
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
    if (*roster != 0 && (*roster & 1) == 0) {
        fprintf(stderr, "pidns-tutor: --csv is for --roster (pidns-tutor --roster --csv)\n");
        return EXIT_FAILURE;
    }
    if (*roster != 0 && (*doctor || o->auto_lessons != NULL || o->present != NULL)) {
        fprintf(stderr, "pidns-tutor: --roster is a mode of its own: give it without %s\n",
                *doctor              ? "--doctor"
                : o->present != NULL ? "--present"
                                     : "--auto");
        return EXIT_FAILURE;
    }
    if (o->present != NULL && (*doctor || o->auto_lessons != NULL)) {
        fprintf(stderr, "pidns-tutor: --present is a mode of its own: give it without %s\n",
                *doctor ? "--doctor" : "--auto");
        return EXIT_FAILURE;
    }
    if (optind < argc && *roster == 0) {
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
    struct shell sh = {.program = "pidns-tutor"};
    int doctor = 0, roster = 0;

    int done = parse_options(argc, argv, &o, &doctor, &roster);
    if (done >= 0)
        return output_lost() ? 1 : done;
    if (roster) {
        int status = roster_main(argv + optind, argc - optind, o.lessons_dir, roster & 2);
        return output_lost() ? 1 : status;
    }
    if (doctor) {
        struct lab_config config = {NULL, o.user_namespace, 0, NULL, NULL};
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
