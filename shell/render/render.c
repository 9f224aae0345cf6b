/* SPDX-License-Identifier: MIT */
/* render.c: the terminal side of the shell. Word wrapping to the width,
 * colour only where it belongs, highlighting of the values a learner should
 * notice. No cursor movement and no redraws: every line is printed once, so
 * scrollback, `script` transcripts and screen readers see the session as is.
 *
 * Pure parts (wrapping, highlighting, annotations) take no terminal state
 * other than the colour flag and are unit-tested in tests/unit/test_render.c.
 */
#include "render/render.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define RENDER_MIN_WIDTH 20
#define RENDER_RESET "\033[0m"
#define RENDER_VALUE_ON "\033[1;33m" /* bold yellow */

/* SGR sequences per style; PLAIN and OUTPUT are left in the terminal's own
 * colours (output is the kernel's text, shown as it is). */
static const char *const style_on[] = {
    [RENDER_PLAIN] = "",         [RENDER_HEADING] = "\033[1;4m",   [RENDER_COMMAND] = "\033[1m",
    [RENDER_OUTPUT] = "",        [RENDER_NOTE] = "\033[36m",       [RENDER_GOOD] = "\033[32m",
    [RENDER_BAD] = "\033[1;31m", [RENDER_VALUE] = RENDER_VALUE_ON,
};

static int parse_columns(const char *s)
{
    if (s == NULL || *s == '\0')
        return 0;
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    return errno == 0 && *end == '\0' && n > 0 && n <= 10000 ? (int)n : 0;
}

void render_init(struct render *r, FILE *out, int no_colour)
{
    int fd = fileno(out);
    const char *no_color_env = getenv("NO_COLOR");
    struct winsize ws;

    r->out = out;
    r->colour =
        fd != -1 && isatty(fd) && !no_colour && (no_color_env == NULL || no_color_env[0] == '\0');
    r->width = 0;
    if (fd != -1 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        r->width = ws.ws_col;
    if (r->width == 0)
        r->width = parse_columns(getenv("COLUMNS"));
    if (r->width == 0)
        r->width = 80;
    if (r->width < RENDER_MIN_WIDTH)
        r->width = RENDER_MIN_WIDTH;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Highlighting: where a value starts and ends is decided by its context, so
 * that "PID  = 1" lights up 1 but "PID PPID STAT" and "multi_pidns 5" do not.
 * on/off are the escape sequences around a value (off also restores the
 * line's own style). */
struct highlighter {
    FILE *out;
    const char *on;
    const char *off;
    int every_number; /* notes: our own sentences, where each number is a value */
};

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static void emit_value(const struct highlighter *h, const char *s, size_t n)
{
    fputs(h->on, h->out);
    fwrite(s, 1, n, h->out);
    fputs(h->off, h->out);
}

/* "pid:[4026532412]" and the other namespace link forms: length, or 0. */
static size_t match_ns_link(const char *s)
{
    static const char *const types[] = {"cgroup", "ipc",  "mnt",  "net",
                                        "pid",    "time", "user", "uts"};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        size_t n = strlen(types[t]);
        if (strncmp(s, types[t], n) != 0 || s[n] != ':' || s[n + 1] != '[' || !is_digit(s[n + 2]))
            continue;
        size_t j = n + 2;
        while (is_digit(s[j]))
            j++;
        return s[j] == ']' ? j + 1 : 0;
    }
    return 0;
}

/* "/proc2" (a mount point) and the PID in "/proc/27656" or "/proc2/1":
 * writes them and returns the length consumed, or 0 when s is no such path. */
static size_t highlight_proc_path(const struct highlighter *h, const char *s)
{
    if (strncmp(s, "/proc", 5) != 0)
        return 0;
    size_t i = 5;
    while (is_digit(s[i]))
        i++;
    if (is_word_char(s[i])) /* /procfs, /proc2x */
        return 0;
    if (i > 5)
        emit_value(h, s, i);
    else
        fwrite(s, 1, i, h->out);
    if (s[i] == '/' && is_digit(s[i + 1])) {
        size_t j = i + 1;
        while (is_digit(s[j]))
            j++;
        if (!is_word_char(s[j])) {
            fputc('/', h->out);
            emit_value(h, s + i + 1, j - i - 1);
            return j;
        }
    }
    return i;
}

/* After a word ending in "pid" (PID, Pid, PPid, NSpid, child_pid, getpid):
 * where its number starts, or 0. Forms: "PID 1", "PID  = 1", "Pid:\t1", and a
 * short phrase before a colon, "PID returned by clone(): 27656". *list is set
 * when a separator was seen, so "NSpid:\t27660\t5\t1" takes every number. */
static size_t pid_value_start(const char *s, size_t word_len, int *list)
{
    size_t k = word_len;
    while (is_blank(s[k]))
        k++;
    if (s[k] != ':' && s[k] != '=') {
        size_t p = word_len;
        while (p < word_len + 40 && ((s[p] >= 'a' && s[p] <= 'z') || is_blank(s[p]) ||
                                     s[p] == '(' || s[p] == ')' || s[p] == '_'))
            p++;
        if (s[p] == ':' || s[p] == '=')
            k = p;
    }
    *list = s[k] == ':' || s[k] == '=';
    if (*list) {
        k++;
        while (is_blank(s[k]))
            k++;
    } else if (k == word_len) {
        return 0; /* "PIDs", "pid," : no number follows */
    }
    return is_digit(s[k]) ? k : 0;
}

/* A word naming a PID: pid itself, words ending in Pid or PID (PPid,
 * TracerPid), in _pid (child_pid), and NSpid, ppid, getpid, getppid; not
 * "rapid" or "stupid". */
static int is_pid_word(const char *s, size_t w)
{
    static const char *const prefixes[] = {"", "p", "ns", "get", "getp"};
    if (w < 3 || strncasecmp(s + w - 3, "pid", 3) != 0)
        return 0;
    if (s[w - 3] == 'P' || (w > 3 && s[w - 4] == '_'))
        return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (w - 3 == strlen(prefixes[i]) && strncasecmp(s, prefixes[i], w - 3) == 0)
            return 1;
    return 0;
}

static size_t highlight_pid_context(const struct highlighter *h, const char *s)
{
    size_t w = 0;
    while (is_word_char(s[w]))
        w++;
    if (!is_pid_word(s, w))
        return 0;
    int list;
    size_t k = pid_value_start(s, w, &list), end = k;
    while (is_digit(s[end]))
        end++;
    if (k == 0 || is_word_char(s[end]))
        return 0;
    fwrite(s, 1, k, h->out);
    for (;;) {
        emit_value(h, s + k, end - k);
        size_t next = end;
        while (list && is_blank(s[next]))
            next++;
        if (next == end || !is_digit(s[next]))
            return end;
        size_t after = next;
        while (is_digit(s[after]))
            after++;
        if (is_word_char(s[after]))
            return end;
        fwrite(s + end, 1, next - end, h->out);
        k = next;
        end = after;
    }
}

static void highlight_to(const struct highlighter *h, const char *line)
{
    for (size_t i = 0, n; line[i] != '\0';) {
        int word_start = i == 0 || !is_word_char(line[i - 1]);
        if (word_start && (n = match_ns_link(line + i)) > 0) {
            emit_value(h, line + i, n);
        } else if (line[i] == '/' && (n = highlight_proc_path(h, line + i)) > 0) {
        } else if (word_start && is_word_char(line[i])) {
            n = highlight_pid_context(h, line + i);
            if (n == 0) { /* an ordinary word: copied whole, never re-entered */
                int digits = 1;
                while (is_word_char(line[i + n]))
                    digits &= is_digit(line[i + n++]);
                if (digits && h->every_number)
                    emit_value(h, line + i, n);
                else
                    fwrite(line + i, 1, n, h->out);
            }
        } else {
            fputc(line[i], h->out);
            n = 1;
        }
        i += n;
    }
}

char *render_highlight(const struct render *r, const char *line)
{
    if (!r->colour)
        return strdup(line);
    char *result = NULL;
    size_t size;
    struct highlighter h = {open_memstream(&result, &size), RENDER_VALUE_ON, RENDER_RESET, 0};
    if (h.out == NULL)
        return NULL;
    highlight_to(&h, line);
    if (fclose(h.out) != 0) {
        free(result);
        return NULL;
    }
    return result;
}

/* A copy of text that cannot move the cursor or change the terminal: control
 * characters other than tab and newline become caret notation (ESC is "^["),
 * C1 controls (U+0080..U+009F) become "?". One trailing newline is dropped,
 * as every render_* call ends its own line. */
static char *sanitize(const char *text)
{
    char *result = NULL;
    size_t size, n = strlen(text);
    FILE *out = open_memstream(&result, &size);
    if (out == NULL)
        return NULL;
    if (n > 0 && text[n - 1] == '\n')
        n--;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
            fputc('^', out);
            fputc(c == 0x7f ? '?' : c + '@', out);
        } else if (c == 0xc2 && i + 1 < n && (unsigned char)text[i + 1] >= 0x80 &&
                   (unsigned char)text[i + 1] <= 0x9f) {
            fputc('?', out);
            i++;
        } else {
            fputc(c, out);
        }
    }
    if (fclose(out) != 0) {
        free(result);
        return NULL;
    }
    return result;
}

/* Prints each line of text in style, highlighted (in a NOTE every number),
 * each line closed with a
 * reset so a page break or Ctrl-C never leaves the terminal coloured.
 * prefix (may be NULL) precedes the first line, cont the others. */
static void print_lines(const struct render *r, enum render_style style, const char *text,
                        const char *prefix, const char *cont)
{
    const char *on = style_on[style];
    char off[32];
    snprintf(off, sizeof off, "%s%s", RENDER_RESET, on);
    struct highlighter h = {r->out, RENDER_VALUE_ON, off, style == RENDER_NOTE};
    for (const char *line = text, *nl; line != NULL; line = nl != NULL ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        char *copy = strndup(line, nl != NULL ? (size_t)(nl - line) : strlen(line));
        const char *lead = line == text ? prefix : cont;
        if (copy == NULL)
            break;
        if (r->colour && (copy[0] != '\0' || lead != NULL)) {
            fprintf(r->out, "%s%s", on, lead != NULL ? lead : "");
            highlight_to(&h, copy);
            fputs(RENDER_RESET, r->out);
        } else {
            fprintf(r->out, "%s%s", lead != NULL ? lead : "", copy);
        }
        fputc('\n', r->out);
        free(copy);
    }
}

/* OUTPUT and COMMAND are shown as they are (columns of ps must not be
 * re-flowed; the terminal folds over-long lines itself); the other styles are
 * wrapped to the width, NOTE indented by two columns. */
void render_text(const struct render *r, enum render_style style, const char *text)
{
    char *clean = sanitize(text != NULL ? text : "");
    if (clean == NULL) {
        fprintf(r->out, "%s\n", text != NULL ? text : "");
        return;
    }
    char *body = clean;
    if (style != RENDER_OUTPUT && style != RENDER_COMMAND)
        body = render_wrap(clean, r->width, style == RENDER_NOTE ? 2 : 0);
    print_lines(r, style, body != NULL ? body : clean, NULL, NULL);
    if (body != clean)
        free(body);
    free(clean);
    fflush(r->out);
}

void render_textf(const struct render *r, enum render_style style, const char *fmt, ...)
{
    va_list ap;
    char *text;
    va_start(ap, fmt);
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n == -1)
        return;
    render_text(r, style, text);
    free(text);
}

/* Writes a cell padded with spaces to width columns. */
static void write_padded(FILE *out, const char *cell, int width)
{
    int w = render_display_width(cell, strlen(cell));
    fprintf(out, "%s%*s", cell, width > w ? width - w : 0, "");
}

/* Writes the last cell of a row wrapped to room columns, every line after
 * the first margin columns in (the first goes on where the row is). */
static void write_hanging(FILE *out, const char *cell, int room, int margin)
{
    char *wrapped = render_wrap(cell, room, 0);
    const char *text = wrapped != NULL ? wrapped : cell;
    for (const char *line = text, *nl; line != NULL; line = nl != NULL ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (line != text)
            fprintf(out, "\n%*s", margin, "");
        fwrite(line, 1, nl != NULL ? (size_t)(nl - line) : strlen(line), out);
    }
    free(wrapped);
}

static void write_table(FILE *out, int width, int indent, const char *const *cells, size_t rows,
                        size_t columns)
{
    int widths[16] = {0}, lead = indent;
    size_t last = columns - 1;
    for (size_t c = 0; c < last; c++) {
        for (size_t i = 0; i < rows; i++) {
            const char *cell = cells[i * columns + c];
            int w = render_display_width(cell, strlen(cell));
            widths[c] = w > widths[c] ? w : widths[c];
        }
        lead += widths[c] + 2;
    }
    int stacked = width - lead < RENDER_TABLE_MIN;
    for (size_t i = 0; i < rows; i++) {
        const char *const *row = cells + i * columns;
        fprintf(out, "%*s", indent, "");
        for (size_t c = 0; c < last; c++) {
            if (stacked && c + 1 == last) /* no blanks at the end of a line */
                fputs(row[c], out);
            else
                write_padded(out, row[c], widths[c] + 2);
        }
        if (stacked && last > 0)
            fprintf(out, "\n%*s", indent + 4, "");
        if (stacked)
            write_hanging(out, row[last], width - indent - 4, indent + 4);
        else
            write_hanging(out, row[last], width - lead, lead);
        fputc('\n', out);
    }
}

void render_table(const struct render *r, enum render_style style, int indent,
                  const char *const *cells, size_t rows, size_t columns)
{
    char *text = NULL;
    size_t size;
    if (columns == 0 || columns > 16 || rows == 0)
        return;
    FILE *out = open_memstream(&text, &size);
    if (out == NULL)
        return;
    write_table(out, r->width, indent > 0 ? indent : 0, cells, rows, columns);
    if (fclose(out) == 0) {
        char *clean = sanitize(text); /* drops the table's last newline */
        print_lines(r, style, clean != NULL ? clean : text, NULL, NULL);
        free(clean);
    }
    free(text);
    fflush(r->out);
}

/* Lines after the first get the shell's own continuation prompt, "> ". */
void render_command(const struct render *r, const char *prompt, const char *command)
{
    char first[64];
    snprintf(first, sizeof first, "%s ", prompt != NULL && prompt[0] != '\0' ? prompt : "$");
    char *clean = sanitize(command != NULL ? command : "");
    if (clean == NULL)
        return;
    print_lines(r, RENDER_COMMAND, clean, first, "> ");
    free(clean);
    fflush(r->out);
}

/* Expands tabs to the next multiple of 8 columns of the code itself, so a
 * listing lines up the same after its line-number column. */
static void write_code_line(FILE *out, const char *line, size_t n)
{
    int col = 0;
    for (size_t i = 0; i < n; i++) {
        if (line[i] == '\t') {
            int next = (col / 8 + 1) * 8;
            fprintf(out, "%*s", next - col, "");
            col = next;
        } else {
            fputc(line[i], out);
            if (((unsigned char)line[i] & 0xc0) != 0x80)
                col++;
        }
    }
}

/* "NN  code": numbers right-aligned to the widest one, two spaces, the line
 * as it is (never wrapped: code must stay copyable). Numbers are dim in
 * colour; the code keeps the terminal's colours. */
void render_code(const struct render *r, const char *code, int first_line)
{
    char *clean = sanitize(code != NULL ? code : "");
    if (clean == NULL)
        return;
    int lines = 1;
    for (const char *p = clean; *p != '\0'; p++)
        lines += *p == '\n';
    char digits[16];
    int width = snprintf(digits, sizeof digits, "%d", first_line + lines - 1);
    int number = first_line;
    for (const char *line = clean, *nl; line != NULL; line = nl != NULL ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        size_t n = nl != NULL ? (size_t)(nl - line) : strlen(line);
        if (r->colour)
            fprintf(r->out, "\033[2m%*d" RENDER_RESET "  ", width, number++);
        else
            fprintf(r->out, "%*d  ", width, number++);
        write_code_line(r->out, line, n);
        fputc('\n', r->out);
    }
    free(clean);
    fflush(r->out);
}
