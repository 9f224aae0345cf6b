# SPDX-License-Identifier: MIT
# mk/hardening.mk: sanitizers and valgrind (both run by make check).
#
#   make check-asan       build everything with ASan+UBSan into build/asan
#                         (SANITIZE=1, same -Werror), run the unit,
#                         integration and shell end-to-end tests against it;
#                         any sanitizer report from any process fails
#   make check-valgrind   valgrind memcheck on scripted shell sessions (root
#                         and user-namespace routes, --auto) and on the
#                         examples: no error, no definite leak, in any of
#                         our processes, and no descriptor left open
#
# See tests/hardening/*.sh for what runs and why some parts cannot.

ASAN_O     ?= build/asan
VALGRIND_O ?= $(O)

.PHONY: check-asan check-valgrind asan-build
asan-build:
	@$(MAKE) --no-print-directory O=$(ASAN_O) SANITIZE=1 all
check-asan: asan-build
	@O=$(ASAN_O) sh tests/hardening/asan.sh

check-valgrind: all
	@O=$(VALGRIND_O) sh tests/hardening/valgrind.sh

# LeakSanitizer cannot run in the examples that exit with their
# pid_for_children moved, nor in a process that exits as PID 2 or more of a
# namespace whose procfs is not the one at /proc (pidns_mini_init's child
# when its command cannot be run, pidns_nsid --open inside a namespace; see
# tests/hardening/no_leak_check.c): in the sanitizer build only, they get
# detect_leaks=0 as a built-in default.
ifeq ($(SANITIZE),1)
NO_LEAK_CHECK_OBJ := $(O)/obj/tests/hardening/no_leak_check.o
NO_LEAK_CHECK_EXAMPLES := $(addprefix $(O)/examples/,pidns_unshare pidns_setns pidns_ancestry pidns_mini_init pidns_nsid)
$(NO_LEAK_CHECK_OBJ): tests/hardening/no_leak_check.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(NO_LEAK_CHECK_EXAMPLES): $(NO_LEAK_CHECK_OBJ)
$(NO_LEAK_CHECK_EXAMPLES): ALL_LDFLAGS += $(NO_LEAK_CHECK_OBJ)
endif

CHECK_EXTRA += check-asan check-valgrind
CHECK_BUILD += asan-build
