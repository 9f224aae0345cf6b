/* SPDX-License-Identifier: MIT */
/* test_render.c: every rendering rule. Colour decided by terminal, NO_COLOR
 * and --no-color; width from the terminal, $COLUMNS or 80; word wrapping at
 * widths 20..200 without splitting words or UTF-8 characters; highlighting
 * of PIDs in context, pid:[N] links and /procN paths; escape sequences only
 * for colour (never cursor movement); annotations. A pseudo-terminal stands
 * in for the learner's terminal. */
#include "testlib.h"
#include "render/render.h"

#include <errno.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Our own prose with long and short words, two paragraphs and a list. */
static const char *const prose =
    "A process has one PID in each PID namespace from its own up to the root "
    "namespace. The kernel shows all of them in the NSpid line of "
    "/proc/PID/status, outermost first, so one line answers the question of "
    "which number a process has where.\n"
    "\n"
    "Inside a new namespace the first process gets PID 1 and becomes that "
    "namespace's init: supercalifragilisticexpialidocious-length words stay "
    "whole, even when they are wider than the terminal itself, which happens.\n";

static const char *const utf8_prose =
    "Namensräume für Prozesse: jeder Prozeß hat eine PID je Ebene. "
    "Les espaces de noms PID imbriqués donnent à chaque processus plusieurs "
    "numéros. 名前空間 の 中 では 最初 の プロセス が PID 1 に なる 🙂 ok. "
    "e\xcc\x81t\xc3\xa9 na\xc3\xafve co\xc3\xb6perate.";

/* Runs fn with NO_COLOR set to value (NULL: unset), restoring it after. */
static void with_no_color(const char *value)
{
    if (value == NULL)
        unsetenv("NO_COLOR");
    else
        setenv("NO_COLOR", value, 1);
}

struct pty {
    int master, slave;
    FILE *out;
};

static void open_pty(struct pty *p, unsigned short cols)
{
    struct winsize ws = {.ws_row = 24, .ws_col = cols};
    if (openpty(&p->master, &p->slave, NULL, NULL, &ws) == -1) {
        print_message("SKIP: no pseudo-terminal to stand in for a terminal: %s\n", strerror(errno));
        skip();
    }
    p->out = fdopen(p->slave, "w");
    assert_non_null(p->out);
}

static void close_pty(struct pty *p)
{
    fclose(p->out);
    close(p->master);
}

static void test_colour_only_on_a_terminal_without_no_color(void **state)
{
    (void)state;
    struct render r;
    struct pty p;
    open_pty(&p, 100);
    with_no_color(NULL);
    render_init(&r, p.out, 0);
    assert_int_equal(r.colour, 1);
    render_init(&r, p.out, 1); /* --no-color */
    assert_int_equal(r.colour, 0);
    with_no_color("1");
    render_init(&r, p.out, 0);
    assert_int_equal(r.colour, 0);
    with_no_color(""); /* set but empty: the convention says ignore it */
    render_init(&r, p.out, 0);
    assert_int_equal(r.colour, 1);
    with_no_color(NULL);
    FILE *file = tmpfile();
    render_init(&r, file, 0);
    assert_int_equal(r.colour, 0);
    fclose(file);
    close_pty(&p);
}

static void test_width_from_terminal_then_columns_then_80(void **state)
{
    (void)state;
    struct render r;
    struct pty p;
    open_pty(&p, 123);
    setenv("COLUMNS", "90", 1);
    render_init(&r, p.out, 0);
    assert_int_equal(r.width, 123); /* the terminal wins over $COLUMNS */
    close_pty(&p);
    open_pty(&p, 0); /* a terminal that does not know its size */
    render_init(&r, p.out, 0);
    assert_int_equal(r.width, 90);
    close_pty(&p);
    FILE *file = tmpfile();
    render_init(&r, file, 0);
    assert_int_equal(r.width, 90);
    setenv("COLUMNS", "5", 1);
    render_init(&r, file, 0);
    assert_int_equal(r.width, 20); /* at least 20 */
    setenv("COLUMNS", "abc", 1);
    render_init(&r, file, 0);
    assert_int_equal(r.width, 80);
    unsetenv("COLUMNS");
    render_init(&r, file, 0);
    assert_int_equal(r.width, 80);
    fclose(file);
}

static void test_display_width_counts_columns_not_bytes(void **state)
{
    (void)state;
    assert_int_equal(render_display_width("abc", 3), 3);
    assert_int_equal(render_display_width("\xc3\xa9", 2), 1);         /* é */
    assert_int_equal(render_display_width("\xe5\x90\x8d", 3), 2);     /* 名, wide */
    assert_int_equal(render_display_width("e\xcc\x81", 3), 1);        /* e + combining acute */
    assert_int_equal(render_display_width("\xf0\x9f\x99\x82", 4), 2); /* emoji */
    assert_int_equal(render_display_width("\xff\xc3", 2), 2);         /* not UTF-8: a cell a byte */
    assert_int_equal(render_display_width("\xc3\xa9", 1), 1);         /* cut short */
}

/* Words of text in order, blanks collapsed, for comparing input and output. */
static char *words_of(const char *text)
{
    char *copy = strdup(text), *out = calloc(1, strlen(text) + 2);
    assert_non_null(out);
    for (char *w = strtok(copy, " \t\n"); w != NULL; w = strtok(NULL, " \t\n")) {
        strcat(out, w);
        strcat(out, " ");
    }
    free(copy);
    return out;
}

static int is_valid_utf8(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = c < 0x80             ? 1
                     : (c & 0xe0) == 0xc0 ? 2
                     : (c & 0xf0) == 0xe0 ? 3
                     : (c & 0xf8) == 0xf0 ? 4
                                          : 0;
        if (len == 0 || i + len > n)
            return 0;
        for (size_t k = 1; k < len; k++)
            if (((unsigned char)s[i + k] & 0xc0) != 0x80)
                return 0;
        i += len;
    }
    return 1;
}

/* Checks one wrapping: the words are the input's, in order; every line fits
 * (or is a single word too long to fit); no line could have taken the next
 * word (greedy); each line is whole UTF-8; every non-empty line is indented. */
static void check_wrap(const char *text, int width, int indent)
{
    char *wrapped = render_wrap(text, width, indent);
    assert_non_null(wrapped);
    char *want = words_of(text), *got = words_of(wrapped);
    assert_string_equal(got, want);
    free(want);
    free(got);
    for (const char *line = wrapped;;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl != NULL ? (size_t)(nl - line) : strlen(line);
        int w = render_display_width(line, n);
        if (!is_valid_utf8(line, n))
            fail_msg("width %d: a line splits a character: %.*s", width, (int)n, line);
        if (n > 0) {
            for (int i = 0; i < indent; i++)
                assert_int_equal(line[i], ' ');
            int single_word = memchr(line + indent, ' ', n - (size_t)indent) == NULL;
            if (w > width && !single_word)
                fail_msg("width %d: line of %d columns: %.*s", width, w, (int)n, line);
            assert_true(line[n - 1] != ' '); /* no trailing blanks */
        }
        if (nl == NULL)
            break;
        const char *next = nl + 1;
        if (n > 0 && *next != '\0' && *next != '\n') { /* greedy, within a paragraph */
            const char *word = next + strspn(next, " ");
            int next_width = render_display_width(word, strcspn(word, " \n"));
            if (w + 1 + next_width <= width)
                fail_msg("width %d: the next word fitted after: %.*s", width, (int)n, line);
        }
        line = next;
    }
    free(wrapped);
}

static void test_wrap_every_width_from_20_to_200(void **state)
{
    (void)state;
    for (int width = 20; width <= 200; width++) {
        check_wrap(prose, width, 0);
        check_wrap(prose, width, 4);
    }
}

static void test_wrap_utf8_never_splits_a_character(void **state)
{
    (void)state;
    for (int width = 20; width <= 200; width++)
        check_wrap(utf8_prose, width, 2);
    /* Ten two-byte words of 2 columns each: 29 columns, fits 30 although 49 bytes. */
    char *w = render_wrap("éé éé éé éé éé éé éé éé éé éé", 29, 0);
    assert_string_equal(w, "éé éé éé éé éé éé éé éé éé éé");
    free(w);
    w = render_wrap("名前 名前 名前", 10, 0); /* wide: 4 columns a word */
    assert_string_equal(w, "名前 名前\n名前");
    free(w);
}

static void test_wrap_keeps_paragraphs_newlines_and_long_words(void **state)
{
    (void)state;
    char *w = render_wrap("one two\nthree\n\nfour   five\n", 20, 0);
    assert_string_equal(w, "one two\nthree\n\nfour five\n");
    free(w);
    w = render_wrap("a bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb c", 20, 2);
    assert_string_equal(w, "  a\n  bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n  c");
    free(w);
    w = render_wrap("   \n\t\n", 20, 4); /* blank lines print empty, without the indent */
    assert_string_equal(w, "\n\n");
    free(w);
    w = render_wrap("", 20, 0);
    assert_string_equal(w, "");
    free(w);
}

static void test_wrap_indent_and_hanging_indent(void **state)
{
    (void)state;
    char *w = render_wrap("a b c", 20, 4);
    assert_string_equal(w, "    a b c");
    free(w);
    /* A line's own leading blanks are kept for its continuation lines. */
    w = render_wrap("  - the first item of a list wraps under itself", 20, 0);
    assert_string_equal(w, "  - the first item\n  of a list wraps\n  under itself");
    free(w);
    /* An indent wider than the width: one word a line, never lost. */
    w = render_wrap("x y", 10, 30);
    assert_string_equal(w, "                              x\n                              y");
    free(w);
}

/* Replaces the value escapes by { } so expectations stay readable. */
static char *marked(const char *s)
{
    char *out = calloc(1, strlen(s) + 1), *o = out;
    assert_non_null(out);
    while (*s != '\0') {
        if (strncmp(s, "\033[1;33m", 7) == 0) {
            *o++ = '{';
            s += 7;
        } else if (strncmp(s, "\033[0m", 4) == 0) {
            *o++ = '}';
            s += 4;
        } else {
            *o++ = *s++;
        }
    }
    return out;
}

static const char *const highlight_cases[][2] = {
    {"PID returned by clone(): 27656", "PID returned by clone(): {27656}"},
    {"childFunc(): PID  = 1", "childFunc(): PID  = {1}"},
    {"ChildFunc(): PPID = 0", "ChildFunc(): PPID = {0}"},
    {"Pid:\t1", "Pid:\t{1}"},
    {"PPid:\t0", "PPid:\t{0}"},
    {"NSpid:\t27660\t5\t1", "NSpid:\t{27660}\t{5}\t{1}"},
    {"readlink /proc/27655/ns/pid", "readlink /proc/{27655}/ns/pid"},
    {"pid:[4026532412]", "{pid:[4026532412]}"},
    {"mnt -> mnt:[4026531841]", "mnt -> {mnt:[4026531841]}"},
    {"Mounting procfs at /proc2", "Mounting procfs at {/proc2}"},
    {"# ls -d /proc4/[1-9]*", "# ls -d {/proc4}/[1-9]*"},
    {"/proc0/1/status:Name: sleep", "{/proc0}/{1}/status:Name: sleep"},
    {"the child is PID 1 in its namespace", "the child is PID {1} in its namespace"},
    {"getpid() = 7", "getpid() = {7}"},
    /* no context, no highlight */
    {"  PID  PPID STAT CMD", "  PID  PPID STAT CMD"},
    {"27655 27090 T    ./pidns_init_sleep", "27655 27090 T    ./pidns_init_sleep"},
    {"# ./multi_pidns 5", "# ./multi_pidns 5"},
    {"PIDs 1 and 2", "PIDs 1 and 2"},
    {"pid 42abc", "pid 42abc"},
    {"/procfs /proc/self /proc2x", "/procfs /proc/self /proc2x"},
    {"rapid 5", "rapid 5"},
    {"stupid = 3", "stupid = 3"},
    {"child_pid = 27656", "child_pid = {27656}"},
    {"TracerPid:\t0", "TracerPid:\t{0}"},
    {"getppid() returned 0", "getppid() returned 0"},
    {"anon:[12]", "anon:[12]"},
    {"", ""},
};

static void test_highlight_values_in_context(void **state)
{
    (void)state;
    struct render on = {stdout, 80, 1};
    for (size_t i = 0; i < sizeof highlight_cases / sizeof highlight_cases[0]; i++) {
        char *h = render_highlight(&on, highlight_cases[i][0]);
        char *m = marked(h);
        if (strcmp(m, highlight_cases[i][1]) != 0)
            fail_msg("\"%s\" -> \"%s\", wanted \"%s\"", highlight_cases[i][0], m,
                     highlight_cases[i][1]);
        free(m);
        free(h);
    }
}

static void test_highlight_without_colour_changes_nothing(void **state)
{
    (void)state;
    struct render off = {stdout, 80, 0};
    for (size_t i = 0; i < sizeof highlight_cases / sizeof highlight_cases[0]; i++) {
        char *h = render_highlight(&off, highlight_cases[i][0]);
        assert_string_equal(h, highlight_cases[i][0]);
        free(h);
    }
}

/* Runs a render call into a memory buffer and returns what it printed. */
#define CAPTURE(text_var, colour_on, width_cols, call)                                             \
    do {                                                                                           \
        size_t size_;                                                                              \
        FILE *out_ = open_memstream(&(text_var), &size_);                                          \
        assert_non_null(out_);                                                                     \
        struct render r = {out_, (width_cols), (colour_on)};                                       \
        call;                                                                                      \
        fclose(out_);                                                                              \
    } while (0)

/* Every escape sequence is SGR (ESC [ digits ; ... m): colour, never cursor
 * movement, clearing or titles. */
static void assert_only_sgr(const char *s)
{
    for (const char *e = strchr(s, '\033'); e != NULL; e = strchr(e + 1, '\033')) {
        size_t n = strspn(e + 2, "0123456789;");
        if (e[1] != '[' || e[2 + n] != 'm')
            fail_msg("escape that is not a colour: %.10s", e + 1);
    }
}

static void test_text_styles_wrap_and_reset_every_line(void **state)
{
    (void)state;
    char *text;
    CAPTURE(text, 0, 30, render_text(&r, RENDER_PLAIN, prose));
    char *want = render_wrap(prose, 30, 0);
    want[strlen(want) - 1] = '\0'; /* the trailing newline is render_text's own */
    assert_int_equal(strncmp(text, want, strlen(want)), 0);
    assert_string_equal(text + strlen(want), "\n");
    assert_null(strchr(text, '\033'));
    free(want);
    free(text);
    CAPTURE(text, 0, 20,
            render_text(&r, RENDER_NOTE, "27656 is the child's PID in your namespace"));
    assert_string_equal(text, "  27656 is the\n  child's PID in\n  your namespace\n");
    free(text);
    CAPTURE(text, 1, 80, render_text(&r, RENDER_GOOD, "check passed\nPID = 1"));
    assert_string_equal(text, "\033[32mcheck passed\033[0m\n"
                              "\033[32mPID = \033[1;33m1\033[0m\033[32m\033[0m\n");
    assert_only_sgr(text);
    free(text);
    CAPTURE(text, 1, 80, render_text(&r, RENDER_NOTE, "in its own it is 1."));
    assert_string_equal(text, "\033[36m  in its own it is \033[1;33m1\033[0m\033[36m.\033[0m\n");
    free(text);
}

static void test_output_is_not_wrapped_and_cannot_move_the_cursor(void **state)
{
    (void)state;
    char *text;
    const char *ps = "    PID    PPID S LEVEL PIDNS              NSPID          NAME";
    CAPTURE(text, 0, 20, render_text(&r, RENDER_OUTPUT, ps));
    assert_int_equal(strncmp(text, ps, strlen(ps)), 0); /* columns kept on one line */
    free(text);
    CAPTURE(text, 1, 80,
            render_text(&r, RENDER_OUTPUT,
                        "a\033[2J\033[Hb\rc\x7f\xc2\x9b"
                        "d\n"));
    assert_string_equal(text, "a^[[2J^[[Hb^Mc^??d\033[0m\n");
    assert_only_sgr(text);
    free(text);
    CAPTURE(text, 0, 80, render_text(&r, RENDER_OUTPUT, "tab\tkept"));
    assert_string_equal(text, "tab\tkept\n");
    free(text);
    CAPTURE(text, 0, 80, render_textf(&r, RENDER_PLAIN, "%s %d", "PID", 27656));
    assert_string_equal(text, "PID 27656\n");
    free(text);
}

/* A copy of s without its escape sequences (what the terminal shows). */
static char *visible(const char *s)
{
    char *out = strdup(s), *o = out;
    for (const char *p = s; *p != '\0'; p++) {
        if (*p == '\033') {
            p += 1 + strspn(p + 2, "0123456789;") + 1;
            continue;
        }
        *o++ = *p;
    }
    *o = '\0';
    return out;
}

static void test_a_table_keeps_its_columns_when_it_wraps(void **state)
{
    (void)state;
    const char *cells[] = {"lesson N|NAME",
                           "start or resume a lesson",
                           "ns PID",
                           "show a process's namespace links, as readlink shows them",
                           "run EXAMPLE [ARGS...]",
                           "run a bundled example in the lab"};
    char *text;
    CAPTURE(text, 0, 100, render_table(&r, RENDER_PLAIN, 2, cells, 3, 2));
    assert_string_equal(text,
                        "  lesson N|NAME          start or resume a lesson\n"
                        "  ns PID                 show a process's namespace links, as readlink "
                        "shows them\n"
                        "  run EXAMPLE [ARGS...]  run a bundled example in the lab\n");
    free(text);
    /* Narrower: the last column wraps under itself (25 columns in). */
    CAPTURE(text, 0, 60, render_table(&r, RENDER_PLAIN, 2, cells, 3, 2));
    assert_string_equal(text, "  lesson N|NAME          start or resume a lesson\n"
                              "  ns PID                 show a process's namespace links,\n"
                              "                         as readlink shows them\n"
                              "  run EXAMPLE [ARGS...]  run a bundled example in the lab\n");
    free(text);
    /* Too narrow for two columns: each summary below its synopsis. */
    CAPTURE(text, 0, 40, render_table(&r, RENDER_PLAIN, 2, cells, 3, 2));
    assert_string_equal(text, "  lesson N|NAME\n      start or resume a lesson\n"
                              "  ns PID\n      show a process's namespace links,\n"
                              "      as readlink shows them\n"
                              "  run EXAMPLE [ARGS...]\n      run a bundled example in the lab\n");
    free(text);
    /* In colour the terminal shows the same columns. */
    char *plain;
    CAPTURE(plain, 0, 60, render_table(&r, RENDER_NOTE, 2, cells, 3, 2));
    CAPTURE(text, 1, 60, render_table(&r, RENDER_NOTE, 2, cells, 3, 2));
    assert_only_sgr(text);
    char *seen = visible(text);
    assert_string_equal(seen, plain);
    free(seen);
    free(plain);
    free(text);
}

static void test_command_prompt_and_continuation(void **state)
{
    (void)state;
    char *text;
    CAPTURE(text, 0, 20, render_command(&r, "#", "readlink /proc/27656/ns/pid"));
    assert_string_equal(text, "# readlink /proc/27656/ns/pid\n"); /* never wrapped */
    free(text);
    CAPTURE(text, 0, 80, render_command(&r, NULL, "echo one\necho two"));
    assert_string_equal(text, "$ echo one\n> echo two\n");
    free(text);
    CAPTURE(text, 1, 80, render_command(&r, "$", "ls /proc2"));
    assert_string_equal(text, "\033[1m$ ls \033[1;33m/proc2\033[0m\033[1m\033[0m\n");
    free(text);
}

static void test_code_listing_numbers_aligned(void **state)
{
    (void)state;
    char *text;
    CAPTURE(text, 0, 80, render_code(&r, "int main(void)\n{\n\treturn 0;\n}\n", 9));
    assert_string_equal(text, " 9  int main(void)\n"
                              "10  {\n"
                              "11          return 0;\n"
                              "12  }\n");
    free(text);
    CAPTURE(text, 1, 80, render_code(&r, "x", 1));
    assert_string_equal(text, "\033[2m1\033[0m  x\n");
    free(text);
}

static void test_notes_relate_the_values(void **state)
{
    (void)state;
    char *n = render_note_clone_pid(27656, 1);
    assert_string_equal(n, "27656 is the child's PID in your namespace; in its own it is 1.");
    free(n);
    n = render_note_clone_pid(300, 300);
    assert_string_equal(n, "300 is the child's PID in your namespace, and the child sees the "
                           "same number for itself.");
    free(n);
    /* Levels as the kernel counts them: the lab is at level 1. */
    n = render_note_nspid("sleep", (pid_t[]){9, 5, 4, 3, 2, 1}, 6, 1);
    assert_string_equal(n, "sleep has 6 PIDs, one in each namespace from the lab's (level 1) down "
                           "to its own (level 6): 9 in the lab's, 5 at level 2, 4 at level 3, 3 "
                           "at level 4, 2 at level 5 and 1 in its own.");
    free(n);
    n = render_note_nspid("sleep", (pid_t[]){27656, 1}, 2, 1);
    assert_string_equal(n, "sleep has 2 PIDs, one in each namespace from the lab's (level 1) down "
                           "to its own (level 2): 27656 in the lab's and 1 in its own.");
    free(n);
    n = render_note_nspid("bash", (pid_t[]){3193}, 1, 1);
    assert_string_equal(n, "bash has one PID, 3193: it lives in the lab's namespace (level 1).");
    free(n);
    assert_null(render_note_nspid("none", NULL, 0, 1));
}

/* On random lines built from the pieces highlighting looks at, colour only
 * ever adds escape pairs: with them removed the text is unchanged; and
 * wrapping keeps the words, whatever the width and indent. */
static void test_random_lines_keep_their_text(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "PID",
        "Pid:\t",
        "NSpid:",
        " ",
        "\t",
        "\n",
        "1",
        "27656",
        "pid:[",
        "]",
        "/proc",
        "2",
        "/",
        "=",
        ":",
        "\xc3\xa9",
        "\xe5\x90\x8d",
        "\xff",
        "returned by clone()",
        "PPid",
        "x",
        "mnt:[12]",
        "\n\n",
        "child_pid",
        "_",
    };
    struct render on = {stdout, 80, 1};
    srand(4242);
    for (int round = 0; round < 5000; round++) {
        char line[600] = "";
        for (int i = rand() % 40; i > 0; i--)
            strcat(line, pieces[rand() % (int)(sizeof pieces / sizeof pieces[0])]);
        char *h = render_highlight(&on, line), *plain = calloc(1, strlen(h) + 1), *o = plain;
        for (const char *p = h; *p != '\0';) {
            if (strncmp(p, "\033[1;33m", 7) == 0)
                p += 7;
            else if (strncmp(p, "\033[0m", 4) == 0)
                p += 4;
            else
                *o++ = *p++;
        }
        if (strcmp(plain, line) != 0)
            fail_msg("highlighting changed \"%s\" into \"%s\"", line, plain);
        free(plain);
        free(h);
        char *wrapped = render_wrap(line, 20 + rand() % 181, rand() % 10);
        char *want = words_of(line), *got = words_of(wrapped);
        assert_string_equal(got, want);
        free(want);
        free(got);
        free(wrapped);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_colour_only_on_a_terminal_without_no_color),
        cmocka_unit_test(test_width_from_terminal_then_columns_then_80),
        cmocka_unit_test(test_display_width_counts_columns_not_bytes),
        cmocka_unit_test(test_wrap_every_width_from_20_to_200),
        cmocka_unit_test(test_wrap_utf8_never_splits_a_character),
        cmocka_unit_test(test_wrap_keeps_paragraphs_newlines_and_long_words),
        cmocka_unit_test(test_wrap_indent_and_hanging_indent),
        cmocka_unit_test(test_highlight_values_in_context),
        cmocka_unit_test(test_highlight_without_colour_changes_nothing),
        cmocka_unit_test(test_text_styles_wrap_and_reset_every_line),
        cmocka_unit_test(test_output_is_not_wrapped_and_cannot_move_the_cursor),
        cmocka_unit_test(test_a_table_keeps_its_columns_when_it_wraps),
        cmocka_unit_test(test_command_prompt_and_continuation),
        cmocka_unit_test(test_code_listing_numbers_aligned),
        cmocka_unit_test(test_notes_relate_the_values),
        cmocka_unit_test(test_random_lines_keep_their_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
