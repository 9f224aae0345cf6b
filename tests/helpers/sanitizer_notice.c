/* SPDX-License-Identifier: MIT */
/* sanitizer_notice.c: makes the sanitizer runtime write to its log, on
 * purpose, for tests/hardening/asan_logs_nobody.sh.
 *
 *   sanitizer_notice
 *
 * Built with SANITIZE=1 (make check-asan's build), it prints a stack trace
 * through __sanitizer_print_stack_trace(), which the runtime writes to its
 * report file (log_path.EXE.PID) like any notice: the file is opened at that
 * moment, so a log directory the caller cannot write to ends the program
 * with the runtime's "Can't open file" and status 1, as it ended an
 * instrumented example run as nobody. Exits 0 once written. Built without
 * the sanitizers it has no runtime to ask: it says so and exits 77.
 */
#include <stdio.h>

void __sanitizer_print_stack_trace(void) __attribute__((weak));

int main(void)
{
    if (__sanitizer_print_stack_trace == NULL) {
        fprintf(stderr, "sanitizer_notice: not built with the sanitizers (make SANITIZE=1)\n");
        return 77;
    }
    __sanitizer_print_stack_trace();
    return 0;
}
