/* SPDX-License-Identifier: MIT */
/* test_tutor.c: the guided flow of a step without a lab: explanation, code
 * with the example's line numbers, "predict, then run", exercises and quiz
 * questions (answered by a scripted learner, or automatically), the prompt,
 * finding lessons, and the notes that relate PIDs and pid:[...] links.
 */
#include "testlib.h"
#include "render/annotate.h"
#include "lesson/lesson.h"
#include "procfs/procfs.h"
#include "tutor/tutor.h"
#include "tutor/tutor_cursor.h"
#include "cmd/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fixture {
    struct shell sh;
    char *out;
    size_t out_len;
    const char *answers[8]; /* what the scripted learner types, in order */
    size_t next_answer;
};

static struct fixture *current;

static char *scripted_ask(struct shell *sh, const char *prompt)
{
    (void)sh;
    fprintf(current->sh.render.out, "%s", prompt);
    const char *a = current->answers[current->next_answer];
    if (a == NULL)
        return NULL;
    current->next_answer++;
    return strdup(a);
}

/* What a command typed at a question ran (the scripted prompt's lines). */
static char ran[256];

static int scripted_run_line(struct shell *sh, const char *line)
{
    (void)sh;
    snprintf(ran + strlen(ran), sizeof ran - strlen(ran), "[%s]", line);
    return SHELL_OK;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    char err[512];

    f->sh.program = "pidns-tutor";
    f->sh.render.out = open_memstream(&f->out, &f->out_len);
    f->sh.render.width = 200;
    f->sh.ask = scripted_ask;
    f->sh.progress.writable = 0;
    if (lesson_load_dir("tests/fixtures/shell/lessons", &f->sh.lessons, &f->sh.lesson_count, err,
                        sizeof err) == -1) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    current = f;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    fclose(f->sh.render.out);
    free(f->out);
    tutor_leave(&f->sh);
    lesson_free_all(f->sh.lessons, f->sh.lesson_count);
    progress_close(&f->sh.progress);
    free(f);
    return 0;
}

static const char *output(struct fixture *f)
{
    fflush(f->sh.render.out);
    return f->out;
}

static void test_prompt_shows_lesson_and_step(void **state)
{
    struct fixture *f = *state;
    char prompt[64];
    tutor_prompt(&f->sh, prompt, sizeof prompt);
    assert_string_equal(prompt, "pidns-tutor> ");
    tutor_enter(&f->sh, 0, 1);
    tutor_prompt(&f->sh, prompt, sizeof prompt);
    assert_string_equal(prompt, "pidns-tutor (1:2/2)> ");
    tutor_finish(&f->sh);
    tutor_prompt(&f->sh, prompt, sizeof prompt);
    assert_string_equal(prompt, "pidns-tutor (1:done)> ");
    tutor_leave(&f->sh);
    tutor_prompt(&f->sh, prompt, sizeof prompt);
    assert_string_equal(prompt, "pidns-tutor> ");
}

static void test_lessons_are_found_by_number_id_name_or_prefix(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(tutor_find_lesson(&f->sh, "1"), 0);
    assert_int_equal(tutor_find_lesson(&f->sh, "2"), 1);
    assert_int_equal(tutor_find_lesson(&f->sh, "01-tiny"), 0);
    assert_int_equal(tutor_find_lesson(&f->sh, "tiny"), 0);
    assert_int_equal(tutor_find_lesson(&f->sh, "sec"), 1);
    assert_int_equal(tutor_find_lesson(&f->sh, "0"), -1); /* "01-tiny", "02-second": ambiguous */
    assert_int_equal(tutor_find_lesson(&f->sh, "9"), -1);
    assert_int_equal(tutor_find_lesson(&f->sh, ""), -1);
}

static void test_step_shows_text_code_prediction_and_command_in_order(void **state)
{
    struct fixture *f = *state;
    f->sh.interactive = 1;
    f->answers[0] = "  HELLO ";
    f->answers[1] = NULL;
    f->next_answer = 0;
    tutor_enter(&f->sh, 0, 0);
    /* No lab here: the command cannot run, so the step reports a failure. */
    assert_int_equal(tutor_show_step(&f->sh), SHELL_ERROR);
    const char *out = output(f);
    const char *heading = strstr(out, "Lesson 1, step 1 of 2: Looking around");
    const char *text = strstr(out, "The lab is a private place");
    const char *code = strstr(out, "puts(\"hello\");");
    const char *predict = strstr(out, "Predict: What does the command print?");
    const char *right = strstr(out, "Right.");
    const char *command = strstr(out, "echo hello");
    assert_true(heading && text && code && predict && right && command);
    assert_true(heading < text && text < code && code < predict && predict < right &&
                right < command);
    /* The code keeps the line number puts() has in hello.c: 7. */
    const char *line = code;
    while (line > out && line[-1] != '\n')
        line--;
    assert_non_null(memmem(line, (size_t)(code - line), "7", 1));
}

static void test_quiz_explains_a_wrong_answer_then_accepts_the_right_one(void **state)
{
    struct fixture *f = *state;
    size_t before = f->out_len;
    f->sh.interactive = 1;
    f->answers[0] = "7";
    f->answers[1] = "1";
    f->answers[2] = "2";
    f->answers[3] = NULL;
    f->next_answer = 0;
    tutor_enter(&f->sh, 0, 1);
    assert_int_equal(tutor_show_step(&f->sh), SHELL_OK);
    const char *out = output(f) + before;
    assert_non_null(strstr(out, "Exercise: Make the directory /proc9"));
    assert_non_null(strstr(out, "then type `check`"));
    /* The quiz follows the exercise: it waits until the check passed. */
    assert_null(strstr(out, "Where does /proc9 live?"));
    assert_int_equal(f->next_answer, 0);
    assert_int_equal(tutor_show_debrief(&f->sh), SHELL_OK);
    out = output(f) + before;
    assert_non_null(strstr(out, "Type a number from 1 to 2"));
    const char *wrong = strstr(out, "Not 1.");
    const char *why = strstr(out, "No: the lab's root is private.");
    const char *right = strstr(out, "Answer 2 is right.");
    assert_true(wrong && why && right && wrong < why && why < right);
    assert_int_equal(f->next_answer, 3);
    assert_non_null(tutor_current_exercise(&f->sh));
}

/* A command typed at a question: one that only looks runs and the question
 * comes again; one that moves is left to the prompt loop and the step stops
 * there, unanswered; an answer that names no command stays an answer. */
static void test_a_command_at_a_question_runs_or_leaves_the_step(void **state)
{
    struct fixture *f = *state;
    size_t before = f->out_len;
    f->sh.interactive = 1;
    f->sh.question_line = command_question_line;
    f->sh.run_line = scripted_run_line;
    ran[0] = '\0';
    f->answers[0] = "help";
    f->answers[1] = "lesson 2";
    f->answers[2] = NULL;
    f->next_answer = 0;
    tutor_enter(&f->sh, 0, 0);
    assert_int_equal(tutor_show_step(&f->sh), SHELL_OK);
    const char *out = output(f) + before;
    assert_string_equal(ran, "[help]");
    assert_non_null(strstr(out, "(the question waits: running `help`)"));
    const char *again =
        strstr(strstr(out, "running `help`"), "Predict: What does the command print?");
    assert_non_null(again);
    assert_non_null(strstr(again, "(the question is left unanswered: running `lesson 2`)"));
    assert_null(strstr(out, "echo hello")); /* the step stopped before its command */
    assert_null(strstr(out, "Step stopped"));
    assert_null(strstr(out, "(Enter: next step"));
    char *pending = tutor_take_pending(&f->sh);
    assert_string_equal(pending, "lesson 2");
    free(pending);
    assert_null(tutor_pending(&f->sh));

    /* Ctrl-D (end of input) leaves the tutorial: a `quit` for the loop. */
    f->next_answer = 2;
    assert_int_equal(tutor_show_step(&f->sh), SHELL_OK);
    pending = tutor_take_pending(&f->sh);
    assert_string_equal(pending, "quit");
    free(pending);

    /* The debrief's quiz, answered by the start of a choice's text. */
    before = f->out_len;
    f->answers[0] = "in the LAB";
    f->answers[1] = NULL;
    f->next_answer = 0;
    tutor_enter(&f->sh, 0, 1);
    assert_int_equal(tutor_show_debrief(&f->sh), SHELL_OK);
    assert_non_null(strstr(output(f) + before, "Answer 2 is right."));
    assert_null(tutor_pending(&f->sh));
    f->sh.question_line = NULL;
    f->sh.run_line = NULL;
}

static void test_auto_mode_answers_itself(void **state)
{
    struct fixture *f = *state;
    size_t before = f->out_len;
    f->sh.auto_mode = 1;
    f->answers[0] = NULL;
    f->next_answer = 0;
    tutor_enter(&f->sh, 0, 1);
    assert_int_equal(tutor_show_step(&f->sh), SHELL_OK);
    assert_int_equal(tutor_show_debrief(&f->sh), SHELL_OK);
    const char *out = output(f) + before;
    assert_non_null(strstr(out, "Answer 2 is right."));
    assert_non_null(strstr(out, "Right: it vanishes with the lab."));
    assert_int_equal(f->next_answer, 0); /* nobody was asked */
    f->sh.auto_mode = 0;
}

/* A tree by hand: the lab's namespace with one child namespace holding an
 * init whose PID is 27656 as the lab sees it and 1 in its own. */
static void test_notes_relate_pids_and_namespace_links(void **state)
{
    (void)state;
    struct procfs_process lab_procs[1] = {{1, {.name = "keeper", .pid = 1, .nspid_count = 1}}};
    struct procfs_process child_procs[1] = {
        {27656, {.name = "pidns_init_sle", .pid = 27656, .nspid_count = 2, .nspid = {27656, 1}}}};
    struct procfs_pidns root = {
        .inode = 4026531836ULL, .level = 0, .members = lab_procs, .member_count = 1};
    struct procfs_pidns child = {.inode = 4026532412ULL,
                                 .level = 1,
                                 .parent = &root,
                                 .members = child_procs,
                                 .member_count = 1};
    struct procfs_pidns *children[] = {&child}, *all[] = {&root, &child};
    root.children = children;
    root.child_count = 1;
    struct procfs_tree tree = {&root, all, 2, 1, NULL}; /* the lab at level 1 */

    char *notes = annotate_output("PID returned by clone(): 27656\n"
                                  "pid:[4026532412]\npid:[4026531836]\n",
                                  &tree, 5);
    assert_non_null(strstr(notes, "pidns_init_sle has 2 PIDs"));
    assert_non_null(strstr(notes, "27656 in the lab's"));
    assert_non_null(strstr(notes, "from the lab's (level 1) down to its own (level 2)"));
    assert_non_null(strstr(notes, "and 1 in its own."));
    assert_non_null(strstr(notes, "pid:[4026532412] is a PID namespace at level 2, 1 level below"));
    assert_non_null(strstr(notes, "its init is pidns_init_sle"));
    assert_non_null(strstr(notes, "pid:[4026531836] is the lab's own PID namespace (level 1)"));
    free(notes);
    notes = annotate_output("PID 276560 and 127656 are other numbers\n", &tree, 5);
    assert_string_equal(notes, ""); /* whole numbers only */
    free(notes);
    /* /proc2/27656 is a PID of the namespace mounted at /proc2, not the lab's. */
    notes = annotate_output("/proc2/27656\n/proc12/27656/status:Name: sleep\n", &tree, 5);
    assert_string_equal(notes, "");
    free(notes);
    /* In an NSpid line only the first number is the lab's (27656 is not
     * named first here), and not even that one through another procfs. */
    notes = annotate_output("NSpid:\t9\t27656\t1\n", &tree, 5);
    assert_string_equal(notes, "");
    free(notes);
    notes = annotate_output("/proc4/3/status:NSpid:\t27656\t1\n", &tree, 5);
    assert_string_equal(notes, "");
    free(notes);
    notes = annotate_output("NSpid:\t27656\t1\n", &tree, 5);
    assert_non_null(strstr(notes, "27656 in the lab's"));
    free(notes);
    notes = annotate_output("/proc/27656/status\n", &tree, 5);
    assert_non_null(strstr(notes, "27656 in the lab's"));
    free(notes);
    notes = annotate_output("27656 pid:[4026532412] pid:[4026531836]", &tree, 1);
    assert_int_equal(strchr(notes, '\n') - notes + 1, (long)strlen(notes)); /* at most 1 */
    free(notes);
}

/* The step cursor: no lesson in a zeroed shell; the hints given and the
 * checks failed count per step, and a new step (or another failing
 * condition, for the hints) starts them again; a place tells whether a
 * command moved the cursor. */
static void test_cursor_counts_per_step_and_tells_a_move(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(tutor_lesson(&f->sh), -1);
    assert_false(tutor_finished(&f->sh));
    assert_null(tutor_pending(&f->sh));
    assert_int_equal(tutor_enter(&f->sh, 1, 0), 0);
    assert_int_equal(tutor_lesson(&f->sh), 1);
    assert_int_equal(tutor_hint_pick(&f->sh, "A", 3), 0);
    assert_int_equal(tutor_hint_pick(&f->sh, "A", 3), 1);
    assert_int_equal(tutor_hint_pick(&f->sh, "A", 2), 0); /* 2 % 2 */
    assert_int_equal(tutor_hint_pick(&f->sh, "B", 3), 0); /* another condition */
    assert_int_equal(tutor_hint_pick(&f->sh, "B", 3), 1);
    tutor_hints_restart(&f->sh);
    assert_int_equal(tutor_hint_pick(&f->sh, "B", 3), 0);
    assert_int_equal(tutor_hint_pick(&f->sh, NULL, 0), 0); /* no hint fits: none given */
    assert_int_equal(tutor_check_failed(&f->sh), 1);
    assert_int_equal(tutor_check_failed(&f->sh), 2);
    struct tutor_place place = tutor_place(&f->sh);
    assert_true(tutor_stayed(&f->sh, place));
    tutor_step_cut(&f->sh);
    assert_true(tutor_new_step(&f->sh, 1)); /* the step before was cut short */
    assert_false(tutor_new_step(&f->sh, 1));
    assert_false(tutor_stayed(&f->sh, place)); /* moved to step 2 */
    assert_int_equal(tutor_check_failed(&f->sh), 1);
    assert_int_equal(tutor_hint_pick(&f->sh, "B", 3), 0);
    place = tutor_place(&f->sh);
    tutor_step_shown(&f->sh);
    assert_false(tutor_stayed(&f->sh, place)); /* the step was shown again */
    place = tutor_place(&f->sh);
    tutor_finish(&f->sh);
    assert_false(tutor_stayed(&f->sh, place));
    tutor_leave(&f->sh);
    assert_int_equal(tutor_lesson(&f->sh), -1);
    assert_null(f->sh.cursor);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prompt_shows_lesson_and_step),
        cmocka_unit_test(test_cursor_counts_per_step_and_tells_a_move),
        cmocka_unit_test(test_lessons_are_found_by_number_id_name_or_prefix),
        cmocka_unit_test(test_step_shows_text_code_prediction_and_command_in_order),
        cmocka_unit_test(test_quiz_explains_a_wrong_answer_then_accepts_the_right_one),
        cmocka_unit_test(test_a_command_at_a_question_runs_or_leaves_the_step),
        cmocka_unit_test(test_auto_mode_answers_itself),
        cmocka_unit_test(test_notes_relate_pids_and_namespace_links),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
