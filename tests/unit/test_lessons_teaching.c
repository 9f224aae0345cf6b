/* SPDX-License-Identifier: MIT */
/* test_lessons_teaching.c: the teaching rules of the lessons that a program
 * can check, on the real lessons in lessons/, taken in order:
 *  - every lesson says which kernel it needs (:kernel:), and that version is
 *    at least what its live steps use (NSpid 4.1, the nsfs ioctls 4.9 and
 *    4.11, pid_for_children 4.12, clone3 set_tid 5.5, ...);
 *  - a term is defined where the lessons first use it: the first block, in
 *    lesson order, that mentions the term also holds its definition;
 *  - no step, check, hint or solution waits a fixed time (a fractional
 *    `sleep` outside a polling loop): a loaded classroom machine breaks them;
 *  - a check never looks for a file answer with an unquoted glob-able read;
 *  - every check is made of named conditions (commit 0c5fca5): it uses `need` or
 *    `await` at least once, and never compares with test "$(a)" = "$(b)",
 *    which holds when both are empty (`same` does not). Lessons still listed
 *    in TUTOR_UNCONVERTED_LESSONS (shell/tutor/tutor_unconverted.h) are
 *    reported, not failed, until they are converted.
 * Each rule has a negative control: the same function run on a small lesson
 * written to break it must report it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lesson/lesson.h"
#include "tutor/tutor_unconverted.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct lesson *lessons;
static size_t lesson_count;

static const char *source_path(const char *rel)
{
    static char path[4096];
    const char *src = getenv("PIDNS_TUTOR_SRC");
    snprintf(path, sizeof(path), "%s/%s", src ? src : ".", rel);
    return path;
}

static int load(void **state)
{
    (void)state;
    char err[1024];
    if (lesson_load_dir(source_path("lessons"), &lessons, &lesson_count, err, sizeof(err)) != 0) {
        print_message("%s\n", err);
        return -1;
    }
    return 0;
}

static int unload(void **state)
{
    (void)state;
    lesson_free_all(lessons, lesson_count);
    return 0;
}

/* "4.11" -> 4011; -1 when it is not MAJOR.MINOR. */
static int version_number(const char *v)
{
    int major, minor, used = 0;
    if (v == NULL || sscanf(v, "%d.%d%n", &major, &minor, &used) != 2 || v[used] != '\0')
        return -1;
    return major * 1000 + minor;
}

/* What a lesson's live steps use, and the kernel each thing needs (from the
 * manual pages: proc(5), ioctl_ns(2), namespaces(7), clone(2)). Found in the
 * commands, checks, solutions, expected output and the code it shows. */
static const struct {
    const char *needle;
    const char *kernel;
} features[] = {
    {.needle = "NSpid", .kernel = "4.1"},
    {.needle = "NS_GET_PARENT", .kernel = "4.9"},
    {.needle = "NS_GET_USERNS", .kernel = "4.9"},
    {.needle = "No space left on device", .kernel = "4.9"},
    {.needle = "ENOSPC (", .kernel = "4.9"},
    {.needle = "CLONE_NEWPID, owner uid", .kernel = "4.11"}, /* NS_GET_NSTYPE's answer shown */
    {.needle = "--tree=parent", .kernel = "4.11"},           /* lsns needs NSTYPE and OWNER_UID */
    {.needle = "ns/pid_for_children", .kernel = "4.12"},
    {.needle = "set_tid", .kernel = "5.5"},
    {.needle = "pidfd_send_signal", .kernel = "5.1"},
    {.needle = "CLONE_PIDFD", .kernel = "5.2"},
    {.needle = "pidfd_open", .kernel = "5.3"},
    {.needle = "pidns_pidfd --join", .kernel = "5.8"}, /* setns() on a pidfd */
    {.needle = "PIDFD_GET_PID_NAMESPACE: pid:", .kernel = "6.11"},
    {.needle = "PIDFD_GET_INFO: pid", .kernel = "6.13"},
    {.needle = "P_PIDFD", .kernel = "5.4"},
    {.needle = "SO_PEERPIDFD", .kernel = "6.5"},
    {.needle = "SCM_PIDFD", .kernel = "6.5"},
    {.needle = "PIDFD_INFO_EXIT", .kernel = "6.15"},
};

static int block_is_live(const struct lesson_block *b)
{
    return b->type == LESSON_RUN || b->type == LESSON_EXPECT || b->type == LESSON_CODE ||
           b->type == LESSON_EXERCISE;
}

static int mentions(const struct lesson_block *b, const char *needle)
{
    if (b->text != NULL && strstr(b->text, needle) != NULL)
        return b->type != LESSON_EXERCISE;
    return (b->check != NULL && strstr(b->check, needle) != NULL) ||
           (b->solution != NULL && strstr(b->solution, needle) != NULL);
}

/* Prints and counts the features a lesson uses beyond its :kernel:. */
static int kernel_shortfalls(const struct lesson *l)
{
    int have = version_number(l->kernel), bad = 0;
    if (have < 0) {
        print_message("%s: no valid :kernel: line (have '%s')\n", l->id,
                      l->kernel ? l->kernel : "");
        return 1;
    }
    for (size_t f = 0; f < sizeof features / sizeof features[0]; f++) {
        int used = 0; /* in a step whose own [kernel=X.Y] does not cover it either */
        for (size_t s = 0; s < l->step_count && !used; s++) {
            int step_has = version_number(l->steps[s].kernel);
            for (size_t b = 0; b < l->steps[s].block_count && !used; b++)
                used = block_is_live(&l->steps[s].blocks[b]) &&
                       mentions(&l->steps[s].blocks[b], features[f].needle) &&
                       version_number(features[f].kernel) > (step_has > have ? step_has : have);
        }
        if (used) {
            print_message("%s: :kernel: %s, but it uses %s (Linux %s)\n", l->id, l->kernel,
                          features[f].needle, features[f].kernel);
            bad++;
        }
    }
    return bad;
}

static void test_every_lesson_states_a_kernel_that_covers_what_it_runs(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < lesson_count; i++)
        bad += kernel_shortfalls(&lessons[i]);
    assert_int_equal(bad, 0);
}

/* A word match: the term, not part of a longer word ("lab" is not "label"). */
static const char *find_word(const char *text, const char *term)
{
    size_t n = strlen(term);
    for (const char *p = text; (p = strcasestr(p, term)) != NULL; p++) {
        int before = p == text || !isalnum((unsigned char)p[-1]);
        int after = !isalnum((unsigned char)p[n]);
        if (before && after)
            return p;
    }
    return NULL;
}

/* Every text of a lesson's own that a learner reads in a block. The code
 * shown comes from the examples, whose comments are theirs to word. */
static int block_says(const struct lesson_block *b, const char *term)
{
    if (b->type == LESSON_CODE)
        return 0;
    if (b->text != NULL && find_word(b->text, term))
        return 1;
    for (size_t c = 0; c < b->choice_count; c++)
        if (find_word(b->choices[c].text, term) || find_word(b->choices[c].explanation, term))
            return 1;
    for (size_t h = 0; h < b->hint_count; h++)
        if (find_word(b->hints[h].text, term))
            return 1;
    return b->solution != NULL && find_word(b->solution, term);
}

/* Terms a newcomer cannot be expected to know, and words of their
 * definition: where the lessons first say the term, they must explain it. */
static const struct {
    const char *term;
    const char *definition;
} terms[] = {
    {.term = "lab", .definition = "*lab*: a private corner"},
    {.term = "user namespace", .definition = "*user namespace* of their own"},
    {.term = "mount namespace", .definition = "A *mount namespace* is"},
    {.term = "propagated", .definition = "mounts may still be *propagated*"},
    {.term = "--rbind", .definition = "*bind mount*"},
    {.term = "umount -l", .definition = "(lazy)"},
    {.term = "nsenter", .definition = "runs COMMAND as a new process inside"},
    {.term = "level", .definition = "counts levels as the kernel does"},
    {.term = "zombie", .definition = "Until then the process is a zombie"},
    {.term = "subreaper", .definition = "a *child subreaper*, a process that"},
    {.term = "PR_SET_PDEATHSIG", .definition = "asks the kernel for a signal when its parent dies"},
    {.term = "pid_for_children", .definition = "names the namespace where that process's next"},
    {.term = "setns", .definition = "the caller stays, its next children go into"},
    {.term = "owning user namespace", .definition = "the owning user\nnamespace is the one"},
    {.term = "fdinfo", .definition = "procfs offers a small text file"},
    {.term = "ns_last_pid",
     .definition = "shows where the kernel's ordinary\nPID allocation stands"},
    {.term = "parent_pid", .definition = "as a shell keeps `$!`"},
    {.term = "chain_pid", .definition = "as a shell keeps `$!`"},
    {.term = "grace period", .definition = "The wait is the *grace period*: the time a program"},
    {.term = "keeper_pid", .definition = "as a shell keeps `$!`"},
    {.term = "SO_PEERCRED",
     .definition = "a socket option\nthat says which process is at the other end"},
    {.term = "tr_pid", .definition = "as a shell keeps `$!`"},
    {.term = "pause container",
     .definition = "*pause container* (a tiny program the pod starts first"},
    {.term = "CLONE_PARENT", .definition = "give the new process the caller's parent"},
    {.term = "fork bomb", .definition = "A *fork bomb* is a program that forks without end"},
    {.term = "cgroup", .definition = "a *cgroup* is a group of processes"},
};

/* The first block of the lessons (in order) that says term; NULL if none. */
static const struct lesson_block *first_use(const struct lesson *ls, size_t count, const char *term,
                                            const char **where)
{
    for (size_t i = 0; i < count; i++)
        for (size_t s = 0; s < ls[i].step_count; s++)
            for (size_t b = 0; b < ls[i].steps[s].block_count; b++)
                if (block_says(&ls[i].steps[s].blocks[b], term)) {
                    *where = ls[i].id;
                    return &ls[i].steps[s].blocks[b];
                }
    return NULL;
}

/* Prints and counts the terms used before (or without) their definition. */
static int undefined_terms(const struct lesson *ls, size_t count)
{
    int bad = 0;
    for (size_t t = 0; t < sizeof terms / sizeof terms[0]; t++) {
        const char *where = NULL;
        const struct lesson_block *b = first_use(ls, count, terms[t].term, &where);
        if (b == NULL)
            continue;
        /* The definition's words may be wrapped differently: compare with
         * every run of blanks as one space. */
        char want[256], have[8192];
        size_t n = 0;
        for (const char *p = terms[t].definition; *p && n + 1 < sizeof want; p++)
            if (!isspace((unsigned char)*p) || (n > 0 && want[n - 1] != ' '))
                want[n++] = isspace((unsigned char)*p) ? ' ' : *p;
        want[n] = '\0';
        n = 0;
        for (const char *p = b->text ? b->text : ""; *p && n + 1 < sizeof have; p++)
            if (!isspace((unsigned char)*p) || (n > 0 && have[n - 1] != ' '))
                have[n++] = isspace((unsigned char)*p) ? ' ' : *p;
        have[n] = '\0';
        if (strstr(have, want) == NULL) {
            print_message("%s:%d: first use of '%s' does not define it (\"%s\" expected)\n", where,
                          b->line, terms[t].term, terms[t].definition);
            bad++;
        }
    }
    return bad;
}

static void test_every_term_is_defined_where_it_is_first_used(void **state)
{
    (void)state;
    assert_int_equal(undefined_terms(lessons, lesson_count), 0);
}

/* A fractional `sleep` is a guess at how long something takes, unless it
 * is the pause of a loop that polls for the event (`do ... sleep 0.05`) or
 * a short-lived process started in the background (`sleep 0.1 &`). */
static int fixed_waits_in(const char *id, int line, const char *commands)
{
    int bad = 0;
    if (commands == NULL)
        return 0;
    const char *start = commands;
    while (*start) {
        const char *end = strchr(start, '\n');
        size_t len = end ? (size_t)(end - start) : strlen(start);
        char text[2048];
        snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text ? len : sizeof text - 1),
                 start);
        for (char *p = text; (p = strstr(p, "sleep ")) != NULL; p += 6) {
            size_t span = strspn(p + 6, "0123456789.");
            int fractional = span > 1 && memchr(p + 6, '.', span) != NULL;
            const char *next = p + 6 + span + strspn(p + 6 + span, " ");
            if (next[0] == '&' && next[1] != '&')
                fractional = 0; /* started in the background: a payload, not a wait */
            char saved = *p;
            *p = '\0';
            int in_loop = strstr(text, "do ") != NULL;
            *p = saved;
            if (fractional && !in_loop) {
                print_message("%s:%d: a fixed wait: %s\n", id, line, text);
                bad++;
            }
        }
        start += len + (end != NULL);
    }
    return bad;
}

static int fixed_waits(const struct lesson *l)
{
    int bad = 0;
    for (size_t s = 0; s < l->step_count; s++)
        for (size_t b = 0; b < l->steps[s].block_count; b++) {
            const struct lesson_block *k = &l->steps[s].blocks[b];
            if (k->type == LESSON_RUN)
                bad += fixed_waits_in(l->id, k->line, k->text);
            bad += fixed_waits_in(l->id, k->line, k->check);
            bad += fixed_waits_in(l->id, k->line, k->solution);
            for (size_t h = 0; h < k->hint_count; h++)
                bad += fixed_waits_in(l->id, k->line, k->hints[h].when);
        }
    return bad;
}

static void test_no_step_check_or_solution_waits_a_fixed_time(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < lesson_count; i++)
        bad += fixed_waits(&lessons[i]);
    assert_int_equal(bad, 0);
}

/* A file answer read into a variable and used unquoted in a path can be a
 * glob ("*") that matches the right file among others: checks that read
 * /answer or /adopter must first insist on a plain number. */
static int glob_able_answers(const struct lesson *l)
{
    int bad = 0;
    for (size_t s = 0; s < l->step_count; s++)
        for (size_t b = 0; b < l->steps[s].block_count; b++) {
            const char *c = l->steps[s].blocks[b].check;
            if (c != NULL && strstr(c, "=$(cat /") != NULL &&
                strstr(c, "grep -qx '[0-9][0-9]*'") == NULL) {
                print_message(
                    "%s:%d: the check uses a file answer without making sure it is a number\n",
                    l->id, l->steps[s].blocks[b].line);
                bad++;
            }
        }
    return bad;
}

static void test_file_answers_are_numbers_before_they_are_used(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < lesson_count; i++)
        bad += glob_able_answers(&lessons[i]);
    assert_int_equal(bad, 0);
}

/* Does text use the word (a command name: at the start of a line or after
 * a blank, ;, & | or (, and followed by a blank)? */
static int uses_command(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p != NULL; p = strstr(p + 1, word))
        if ((p == text || strchr(" \t\n;&|(", p[-1]) != NULL) && (p[n] == ' ' || p[n] == '\t'))
            return 1;
    return 0;
}

/* Does a line of text compare "$(a)" = "$(b)"? */
static int compares_substitutions(const char *text)
{
    for (const char *line = text; line != NULL && *line != '\0';) {
        size_t len = strcspn(line, "\n");
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)len, line);
        const char *first = strstr(buf, "\"$(");
        if (first != NULL && strstr(first, "\" = \"$(") != NULL)
            return 1;
        line += len + (line[len] == '\n');
    }
    return 0;
}

/* The checks of l that are not made of named conditions, each said. */
static int unnamed_checks(const struct lesson *l)
{
    int bad = 0;
    for (size_t s = 0; s < l->step_count; s++)
        for (size_t b = 0; b < l->steps[s].block_count; b++) {
            const struct lesson_block *k = &l->steps[s].blocks[b];
            if (k->check == NULL)
                continue;
            if (!uses_command(k->check, "need") && !uses_command(k->check, "await")) {
                print_message("%s:%d: the check names no condition (no need or await)\n", l->id,
                              k->line);
                bad++;
            } else if (compares_substitutions(k->check)) {
                print_message("%s:%d: the check compares \"$(...)\" = \"$(...)\": use same\n",
                              l->id, k->line);
                bad++;
            }
        }
    return bad;
}

static int lesson_unconverted(int number)
{
    char key[16];
    const char *strict = getenv("PIDNS_TUTOR_STRICT_CHECKS");
    snprintf(key, sizeof key, " %d ", number);
    return (strict == NULL || strcmp(strict, "1") != 0) &&
           strstr(TUTOR_UNCONVERTED_LESSONS, key) != NULL;
}

static void test_every_check_is_made_of_named_conditions(void **state)
{
    (void)state;
    int bad = 0, waiting = 0;
    for (size_t i = 0; i < lesson_count; i++) {
        int n = unnamed_checks(&lessons[i]);
        if (lesson_unconverted(lessons[i].number))
            waiting += n;
        else
            bad += n;
    }
    if (waiting > 0)
        print_message("(%d check(s) above are in lessons not converted yet: not failed; "
                      "tutor_unconverted.h lists them)\n",
                      waiting);
    assert_int_equal(bad, 0);
}

/* --- negative controls: each rule reports a lesson written to break it --- */

static const char bad_lesson[] = "= Bad\n"
                                 ":summary: breaks every rule\n"
                                 ":kernel: 3.8\n"
                                 ":minutes: 1\n"
                                 "\n"
                                 "== One\n"
                                 "\n"
                                 "Type commands in the lab, then look at a zombie.\n"
                                 "\n"
                                 "[.run]\n"
                                 "----\n"
                                 "grep NSpid /proc/self/status; sleep 0.5\n"
                                 "----\n"
                                 "\n"
                                 "[.exercise]\n"
                                 "====\n"
                                 "Write a number.\n"
                                 "\n"
                                 "[.check]\n"
                                 "----\n"
                                 "n=$(cat /answer) && test -e /proc/$n\n"
                                 "----\n"
                                 "\n"
                                 "[.hint]\n"
                                 "Type it.\n"
                                 "\n"
                                 "[.solution]\n"
                                 "----\n"
                                 "echo 1 > /answer\n"
                                 "----\n"
                                 "====\n";

static void test_the_rules_catch_a_lesson_that_breaks_them(void **state)
{
    (void)state;
    struct lesson l;
    char err[512];
    assert_int_equal(lesson_parse_string(bad_lesson, "99-bad.adoc", ".", &l, err, sizeof err), 0);
    assert_int_equal(kernel_shortfalls(&l), 1);  /* NSpid on 3.8 */
    assert_int_equal(undefined_terms(&l, 1), 2); /* "lab" and "zombie" undefined */
    assert_int_equal(fixed_waits(&l), 1);        /* sleep 0.5 */
    assert_int_equal(glob_able_answers(&l), 1);  /* $(cat /answer) unchecked */
    free(l.kernel);
    l.kernel = NULL;
    assert_int_equal(kernel_shortfalls(&l), 1); /* no :kernel: at all */
    lesson_free(&l);
}

static void test_the_named_conditions_rule_catches_old_checks(void **state)
{
    (void)state;
    struct lesson l;
    char err[512];
    assert_int_equal(lesson_parse_string(bad_lesson, "99-bad.adoc", ".", &l, err, sizeof err), 0);
    assert_int_equal(unnamed_checks(&l), 1); /* no need, no await */
    lesson_free(&l);
    assert_int_equal(compares_substitutions("need x true\ntest \"$(cat /a)\" = \"$(cat /b)\""), 1);
    assert_int_equal(compares_substitutions("need \"x\" same \"$(cat /a)\" \"$(cat /b)\""), 0);
    assert_int_equal(uses_command("x=1; need \"it holds\" true", "need"), 1);
    assert_int_equal(uses_command("needed=1; echo need", "need"), 0);
    assert_int_equal(uses_command("  await \"it came\" $p grep -q x out", "await"), 1);
}

static void test_a_polling_loop_is_not_a_fixed_wait(void **state)
{
    (void)state;
    assert_int_equal(fixed_waits_in("x", 1, "until test -e /f; do kill -0 1; sleep 0.05; done"), 0);
    assert_int_equal(fixed_waits_in("x", 1, "pidns_unshare --launch sleep 600"), 0);
    assert_int_equal(fixed_waits_in("x", 1, "o=$( (sleep 0.1 & echo $!) )"), 0);
    assert_int_equal(fixed_waits_in("x", 1, "kill 1; sleep 0.3; echo"), 1);
    assert_int_equal(fixed_waits_in("x", 1, "kill 1; sleep 0.3 && echo"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_lesson_states_a_kernel_that_covers_what_it_runs),
        cmocka_unit_test(test_every_term_is_defined_where_it_is_first_used),
        cmocka_unit_test(test_no_step_check_or_solution_waits_a_fixed_time),
        cmocka_unit_test(test_file_answers_are_numbers_before_they_are_used),
        cmocka_unit_test(test_the_rules_catch_a_lesson_that_breaks_them),
        cmocka_unit_test(test_a_polling_loop_is_not_a_fixed_wait),
        cmocka_unit_test(test_every_check_is_made_of_named_conditions),
        cmocka_unit_test(test_the_named_conditions_rule_catches_old_checks),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
