# SPDX-License-Identifier: MIT
# pidns-tutor: build, test, run.
#
#   make          build the examples, the shell and the tests under build/
#   make run      install the packages running needs, build the examples and the
#                 shell (not the tests), start the tutorial
#   make check    install every build and test package, build all, run every test
#                 (the parts side by side: CHECK_JOBS=1 for one after another)
#
# Everything built goes under $(O) (default build/). New files need no edit here:
# examples/*.c, shell/*/*.c, tests/unit/test_*.c and tests/integration/test_*.c
# are picked up by wildcard. Each object's header dependencies are written by
# the compiler (-MMD -MP) into a .d file beside it.

VERSION   := 0.1.0
O         ?= build
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
DATADIR   ?= $(PREFIX)/share/pidns-tutor
LIBEXECDIR ?= $(PREFIX)/libexec/pidns-tutor
MANDIR    ?= $(PREFIX)/share/man
DOCDIR    ?= $(PREFIX)/share/doc/pidns-tutor

CC        ?= cc
CFLAGS    ?= -O2 -g
WARNINGS  := -Wall -Wextra -Werror
# SANITIZE=1 builds with ASan+UBSan (use a separate O=, e.g. make O=build/asan SANITIZE=1).
ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
PKG_CONFIG ?= pkg-config
# Recursive (=) so that they are looked up when used, after `make deps` has run.
READLINE_CFLAGS = $(shell $(PKG_CONFIG) --cflags readline 2>/dev/null | sed 's/-D_XOPEN_SOURCE=[0-9]*//')
READLINE_LIBS   = $(shell $(PKG_CONFIG) --libs readline 2>/dev/null || echo -lreadline)
CMOCKA_CFLAGS   = $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS     = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

ALL_CFLAGS = -std=gnu11 $(WARNINGS) $(CFLAGS) $(SAN_FLAGS)
# $(O)/gen holds the headers the build writes (GEN_HEADERS, below).
ALL_CPPFLAGS = -D_GNU_SOURCE -I$(O)/gen $(CPPFLAGS)
# Every object records the headers it read (foo.d beside foo.o), so a change
# to a header rebuilds exactly what includes it; -MP keeps a deleted header
# from breaking the build.
DEPFLAGS = -MMD -MP
# A program built straight from its .c keeps its .d under $(O)/obj/ (so no
# glob over the programs' folder meets it).
BIN_DEPFILE = $(O)/obj/$(@:$(O)/%=%).d
BIN_DEPFLAGS = $(DEPFLAGS) -MF $(BIN_DEPFILE) -MT $@
ALL_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS)

EXAMPLE_SRCS := $(wildcard examples/*.c)
EXAMPLES     := $(patsubst examples/%.c,$(O)/examples/%,$(EXAMPLE_SRCS))
# shell/main.c on top, each part of the tutor in its own folder (docs/design.adoc).
SHELL_SRCS   := $(wildcard shell/*/*.c)
SHELL_OBJS   := $(patsubst shell/%.c,$(O)/obj/shell/%.o,$(SHELL_SRCS))
LIBTUTOR     := $(O)/libtutor.a
# Headers the build writes from shell/*/*.sh (sh_to_c, below).
GEN_HEADERS  := $(O)/gen/cmd/export_runtime_sh.h $(O)/gen/tutor/tutor_conditions_sh.h
TUTOR        := $(if $(wildcard shell/main.c),$(O)/pidns-tutor)
TESTLIB_SRCS := $(wildcard tests/lib/*.c)
TESTLIB_OBJS := $(patsubst tests/lib/%.c,$(O)/obj/tests/lib/%.o,$(TESTLIB_SRCS))
UNIT_TESTS   := $(patsubst tests/unit/%.c,$(O)/tests/unit/%,$(wildcard tests/unit/test_*.c))
INTEG_TESTS  := $(patsubst tests/integration/%.c,$(O)/tests/integration/%,$(wildcard tests/integration/test_*.c))
TEST_HELPERS := $(patsubst tests/helpers/%.c,$(O)/tests/helpers/%,$(wildcard tests/helpers/*.c))

BUILD_DEFS = -DPIDNS_TUTOR_VERSION='"$(VERSION)"' \
	-DPIDNS_TUTOR_DATADIR='"$(DATADIR)"' \
	-DPIDNS_TUTOR_LIBEXECDIR='"$(LIBEXECDIR)"'

# Debian/Ubuntu packages: what building and running the tutorial needs, and
# what the tests, docs, hardening and benchmarks need on top. less is the
# default pager of `source` (without it, listings are printed directly);
# strace is traced with in lesson 28 (without it, those two commands say so).
DEB_RUN_PACKAGES = gcc make pkg-config libc6-dev libreadline-dev util-linux procps less strace
DEB_CHECK_PACKAGES = $(DEB_RUN_PACKAGES) libcmocka-dev asciidoctor tmux valgrind clang \
	ruby-rouge ruby-asciidoctor-pdf chromium poppler-utils \
	libclang-rt-dev man-db time hyperfine python3 gdb acl shellcheck clang-format

.PHONY: all examples tutor tests deps deps-check run check check-run check-layering check-ownership \
	check-mutants check-spdx check-sh check-headers check-format format check-quick clean \
	check-examples new-example
# Keep objects made by pattern rules (make would delete them as intermediates).
.SECONDARY:
all: examples tutor tests

examples: $(EXAMPLES)
tutor: $(TUTOR)
tests: $(UNIT_TESTS) $(INTEG_TESTS) $(TEST_HELPERS)

# Each example is one self-contained file: it builds exactly as a reader would
# build a copy of it (cc -o x x.c), plus our warnings (and CPPFLAGS, empty
# unless given: a package build passes -D_FORTIFY_SOURCE there).
$(O)/examples/%: examples/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

$(O)/obj/shell/%.o: shell/%.c | $(GEN_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(DEPFLAGS) -Ishell $(BUILD_DEFS) $(READLINE_CFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# Shell text the tutor writes out is kept in .sh files, checked as shell
# (make check-sh), and turned into C here, as git builds command-list.h:
# shell/DIR/foo.sh becomes $(O)/gen/DIR/foo_sh.h (included as "DIR/foo_sh.h",
# so tools/layering.sh sees its folder) defining the string FOO_SH. The lines of
# foo.sh down to its first empty line (its licence and what it is) are left
# out; a line "#@ NAME" stands for the string macro NAME (defined by a header
# included before); every other line is a string literal ending in \n.
define sh_to_c
@mkdir -p $(@D)
@name=$$(basename $@ .h | tr a-z A-Z); { \
	echo "/* Generated from $< by the Makefile (sh_to_c): edit $<. */"; \
	echo "#define $$name \\"; \
	sed -e '1,/^$$/d' -e 's/\\/\\\\/g' -e 's/"/\\"/g' \
	    -e '/^#@ [A-Z_]*$$/{' -e 's/^#@ \(.*\)/    \1 \\/' -e b -e '}' \
	    -e 's/^/    "/' -e 's/$$/\\n" \\/' $<; \
	echo '    ""'; } >$@.new && mv $@.new $@
endef
$(O)/gen/cmd/export_runtime_sh.h: shell/cmd/export_runtime.sh
	$(sh_to_c)
$(O)/gen/tutor/tutor_conditions_sh.h: shell/tutor/tutor_conditions.sh
	$(sh_to_c)

$(LIBTUTOR): $(SHELL_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(TUTOR): $(O)/obj/shell/main.o $(LIBTUTOR)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(READLINE_LIBS)

$(O)/obj/tests/lib/%.o: tests/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(DEPFLAGS) -Ishell -Itests/lib $(CMOCKA_CFLAGS) $(ALL_CFLAGS) -c -o $@ $<

TEST_LINK = $(CC) $(ALL_CPPFLAGS) $(BIN_DEPFLAGS) -Ishell -Itests/lib $(CMOCKA_CFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) \
	-o $@ $< $(TESTLIB_OBJS) $(LIBTUTOR) $(CMOCKA_LIBS) $(READLINE_LIBS) -lutil

$(O)/tests/unit/%: tests/unit/%.c $(TESTLIB_OBJS) $(LIBTUTOR)
	@mkdir -p $(@D) $(dir $(BIN_DEPFILE))
	$(TEST_LINK)

$(O)/tests/integration/%: tests/integration/%.c $(TESTLIB_OBJS) $(LIBTUTOR)
	@mkdir -p $(@D) $(dir $(BIN_DEPFILE))
	$(TEST_LINK)

# Small programs the tests and benchmarks drive (a pty driver, a sandbox
# launcher, a lab holder); they may use the shell's modules.
$(O)/tests/helpers/%: tests/helpers/%.c $(LIBTUTOR)
	@mkdir -p $(@D) $(dir $(BIN_DEPFILE))
	$(CC) $(ALL_CPPFLAGS) $(BIN_DEPFLAGS) -Ishell $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIBTUTOR) $(READLINE_LIBS) -lutil

# Install what is missing with apt-get as root; otherwise print the command.
deps:
	@sh tools/deps.sh $(DEB_RUN_PACKAGES)

deps-check:
	@sh tools/deps.sh $(DEB_CHECK_PACKAGES)

# Running needs the examples and the shell only: the tests (and cmocka, which
# they need) are built by make check or make tests.
run: deps
	@$(MAKE) --no-print-directory examples tutor
	$(O)/pidns-tutor

# Tests: deps first, then a fresh make so pkg-config sees the installed packages.
check: deps-check
	@$(MAKE) --no-print-directory check-run

# mk/*.mk fragments add their own steps (docs, sanitizers, valgrind, fuzz) to
# CHECK_EXTRA, and what those steps build to CHECK_BUILD. The suite runs
# beside two tutors it did not start, which must survive it, then on planted
# leaks, which must fail it (tools/ownership.sh).
#
# First everything is built, CHECK_JOBS at a time (the sanitizer build, the
# fuzzers); then the parts run side by side, CHECK_JOBS at a time, the
# longest first, each one's output printed whole when it ends
# (tools/check-parts.sh); every part runs even if another fails, and the end
# says what failed. CHECK_JOBS=1 runs them one after another. Three at a
# time on two cores: the suite (check-ownership, about 450 s) and the docs
# (docs-check: the reference run of every lesson, about 220 s) mostly wait
# on the lessons' sleeps (50-60 CPU-seconds of the docs' 220 s), and
# check-asan computes beside them.
CHECK_JOBS ?= 3
CHECK_PARTS = check-ownership check-layering check-spdx check-sh check-headers check-format \
	check-examples $(CHECK_EXTRA)
CHECK_LONGEST = check-ownership check-asan docs-check check-mutants check-valgrind
CHECK_ORDER = $(foreach p,$(CHECK_LONGEST),$(filter $(p),$(CHECK_PARTS))) \
	$(filter-out $(CHECK_LONGEST),$(CHECK_PARTS))
check-run: all
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) $(CHECK_BUILD)
	@MAKE="$(MAKE)" sh tools/check-parts.sh $(CHECK_JOBS) $(CHECK_ORDER)

# No file of shell/ includes a header of a higher layer (tools/layering.sh),
# and no two files call each other, directly or round a circle
# (tools/call_circles.sh, on the objects); each check first catches a
# planted breach.
check-layering: $(LIBTUTOR) $(O)/obj/shell/main.o
	@sh tools/layering.sh --self-test
	@sh tools/layering.sh
	@sh tools/call_circles.sh --self-test
	@sh tools/call_circles.sh $(O)/obj/shell $(SHELL_OBJS) $(O)/obj/shell/main.o

# make check-quick: the edit loop's check (SQLite's veryquick), in at most 2
# minutes on 2 cores: every unit and integration test, every e2e script but
# those of QUICK_SKIP, and the cheap checks of the tree (headers, layering);
# first, the runner's self-test (planted e2e scripts counted right);
# not the docs, sanitizers, valgrind, fuzzers, mutants or ownership, which
# make check runs. A new e2e script is quick until it is listed here. Left
# out, each with its time on a loaded 2-core machine (load 7-9) alone beside
# the others, from `O=build sh tests/run-tests.sh PATTERN`:
#   lessons_auto_all     every lesson --auto (117-190 s)
#   learner_verdicts     the verdict of every kind of step (97 s idle)
#   lessons_export       every lesson exported and run (57 s idle)
#   lessons_export_route every lesson's route exported (50 s idle)
#   lessons_wrong_attempts  wrong attempts at every lesson (35 s idle)
#   learner_real_lessons the real lessons driven through (32 s idle)
#   host_readonly        --auto all as nobody, read-only host (185 s)
#   learner_wrong_first  (149 s), learner_straight (70 s),
#   learner_resume (62 s): whole lessons at a terminal
#   test_docs, test_handbook, test_install: build the docs (400+ s)
#   classroom_limits     lessons 8, 14, 16 and 1 under ulimit -u (195 s)
QUICK_SKIP = lessons_auto_all learner_verdicts lessons_export lessons_export_route \
	lessons_wrong_attempts learner_real_lessons host_readonly learner_wrong_first \
	learner_straight learner_resume test_docs test_handbook test_install classroom_limits
QUICK_E2E = $(filter-out $(patsubst %,tests/e2e/%.sh,$(QUICK_SKIP)),$(wildcard tests/e2e/*.sh))
#
# The runners mostly wait (30 CPU-seconds in 60-150 s of wall time), so four
# run at a time (QUICK_JOBS); the two that failed once beside others run
# alone after them, as in the whole suite (TEST_SERIAL in tests/run-tests.sh
# says which and why).
QUICK_JOBS ?= 4
check-quick: all check-headers
	@O=$(O) sh tests/run-tests.sh --self-test
	@t0=$$(date +%s); O=$(O) TEST_JOBS=$${TEST_JOBS:-$(QUICK_JOBS)} \
	sh tests/run-tests.sh tests/unit/ tests/integration/ $(QUICK_E2E); \
	rc=$$?; echo "check-quick: tests in $$(($$(date +%s) - t0)) s (the goal: at most 120)"; exit $$rc

# Every file says its licence on an SPDX line, MIT-0 in examples/ and
# exercises/ (tools/spdx.sh, which lists the exempt files and why); the
# check first catches a planted file without its line and a wrong licence.
# `sh tools/spdx.sh --fix` adds the missing lines.
check-spdx:
	@O=$(O) sh tools/spdx.sh --self-test
	@O=$(O) sh tools/spdx.sh

# Every C file is laid out as .clang-format says (tools/format.sh, which
# first catches a planted file laid out by hand); `make format` rewrites the
# files that differ. Skipped, with its reason, under another clang-format
# major version than the tree's (14, Debian 12's).
check-format:
	@sh tools/format.sh --self-test
	@sh tools/format.sh
format:
	@sh tools/format.sh --fix

# Every example has what docs/hacking.adoc lists beside its source (its man
# page, recorded session, rows in the index, README, bad-input table, a test,
# valgrind and memory cases, a lesson), or an allowance with its reason
# (tools/examples.sh); the check first catches a planted example with its
# source only and an existing one with companions taken away.
# `make new-example NAME=x` makes the first files of example x from
# templates and lists what is still missing.
check-examples:
	@sh tools/examples.sh --self-test
	@sh tools/examples.sh
new-example:
	@sh tools/examples.sh --new "$(NAME)"

# The shell text the tutor writes out, as shell: the .sh sources of
# GEN_HEADERS, and every lesson exported to a scratch directory, each with
# sh -n and shellcheck (tools/check-sh.sh, which lists the codes left off
# for exported scripts and why); it first catches a planted syntax error and
# a planted finding.
check-sh: $(TUTOR)
	@O=$(O) sh tools/check-sh.sh --self-test
	@O=$(O) sh tools/check-sh.sh

# Each header of shell/ compiles alone, first in a file, with our warnings
# (as git's check-headers): it includes what it uses. Each one's check is a
# stamp under $(O)/obj/hdr, so only changed headers are compiled again. A
# planted header that uses pid_t without <sys/types.h> must fail first.
HEADERS       := $(wildcard shell/*/*.h)
HEADER_CHECKS := $(patsubst shell/%.h,$(O)/obj/hdr/%.ok,$(HEADERS))
HEADER_CC = $(CC) $(ALL_CPPFLAGS) -Ishell $(BUILD_DEFS) $(READLINE_CFLAGS) $(ALL_CFLAGS) -fsyntax-only -xc
$(O)/obj/hdr/%.ok: shell/%.h | $(GEN_HEADERS)
	@mkdir -p $(@D)
	@$(HEADER_CC) -include $< /dev/null && touch $@
check-headers: $(HEADER_CHECKS)
	@mkdir -p $(O)/obj/hdr
	@printf 'struct hdr_control { pid_t pid; };\n' >$(O)/obj/hdr/control.h
	@if $(HEADER_CC) -include $(O)/obj/hdr/control.h /dev/null 2>/dev/null; then \
		echo "check-headers: FAIL: a planted header without its include compiles"; exit 1; fi
	@echo "check-headers: control: a planted header without its include fails"
	@echo "check-headers: $(words $(HEADERS)) headers of shell/ compile alone"

check-ownership: all
	@O=$(O) sh tests/run-tests.sh --self-test
	@O=$(O) sh tools/ownership.sh

# Deliberate faults planted in a scratch copy: the tests must catch each.
check-mutants: all
	@O=$(O) sh tools/mutants.sh

CHECK_EXTRA += check-mutants

clean:
	rm -rf $(O)

# The header dependencies written by -MMD (absent before the first build).
DEPFILES := $(patsubst %.o,%.d,$(SHELL_OBJS) $(O)/obj/shell/main.o $(TESTLIB_OBJS)) \
	$(patsubst $(O)/%,$(O)/obj/%.d,$(UNIT_TESTS) $(INTEG_TESTS) $(TEST_HELPERS))
-include $(DEPFILES)

# The fragments, in a fixed order: install.mk uses docs.mk's man pages;
# bench.mk orders the benchmarks shell.mk registers; the check steps are
# started in the order of CHECK_LONGEST, then in the order the fragments add
# them to CHECK_EXTRA (the docs, the fuzzers, then the sanitizers and
# valgrind). fresh.mk's check-fresh runs make check on a fresh Debian root,
# outside make check; kernels.mk's check-kernels runs the lessons and tests on
# Debian 12's kernel in qemu, outside make check too.
include mk/shell.mk
include mk/docs.mk
include mk/install.mk
include mk/fuzz.mk
include mk/hardening.mk
include mk/bench.mk
include mk/fresh.mk
include mk/kernels.mk
include mk/dist.mk
