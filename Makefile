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
ALL_CPPFLAGS = -D_GNU_SOURCE $(CPPFLAGS)
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
# default pager of `source` (without it, listings are printed directly).
DEB_RUN_PACKAGES = gcc make pkg-config libc6-dev libreadline-dev util-linux procps less
DEB_CHECK_PACKAGES = $(DEB_RUN_PACKAGES) libcmocka-dev asciidoctor tmux valgrind clang \
	ruby-rouge ruby-asciidoctor-pdf chromium poppler-utils \
	libclang-rt-dev man-db time hyperfine python3 strace gdb acl

.PHONY: all examples tutor tests deps deps-check run check check-run check-layering check-ownership \
	check-mutants check-spdx clean
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

$(O)/obj/shell/%.o: shell/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(DEPFLAGS) -Ishell $(BUILD_DEFS) $(READLINE_CFLAGS) $(ALL_CFLAGS) -c -o $@ $<

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
	@sh tests/deps.sh $(DEB_RUN_PACKAGES)

deps-check:
	@sh tests/deps.sh $(DEB_CHECK_PACKAGES)

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
# leaks, which must fail it (tests/ownership.sh).
#
# First everything is built, CHECK_JOBS at a time (the sanitizer build, the
# fuzzers, the documentation); then the parts run side by side, CHECK_JOBS
# at a time, the longest first, each one's output printed whole when it
# ends (tests/check-parts.sh); every part runs even if another fails, and
# the end says what failed. CHECK_JOBS=1 runs them one after another.
CHECK_JOBS ?= 2
CHECK_PARTS = check-ownership check-layering check-spdx $(CHECK_EXTRA)
CHECK_LONGEST = check-ownership check-asan check-valgrind check-mutants
CHECK_ORDER = $(foreach p,$(CHECK_LONGEST),$(filter $(p),$(CHECK_PARTS))) \
	$(filter-out $(CHECK_LONGEST),$(CHECK_PARTS))
check-run: all
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) $(CHECK_BUILD)
	@MAKE="$(MAKE)" sh tests/check-parts.sh $(CHECK_JOBS) $(CHECK_ORDER)

# No file of shell/ includes a header of a higher layer (tests/layering.sh),
# and no two files call each other, directly or round a circle
# (tests/call_circles.sh, on the objects); each check first catches a
# planted breach.
check-layering: $(LIBTUTOR) $(O)/obj/shell/main.o
	@sh tests/layering.sh --self-test
	@sh tests/layering.sh
	@sh tests/call_circles.sh --self-test
	@sh tests/call_circles.sh $(O)/obj/shell $(SHELL_OBJS) $(O)/obj/shell/main.o

# Every file says its licence on an SPDX line, MIT-0 in examples/ and
# exercises/ (tools/spdx.sh, which lists the exempt files and why); the
# check first catches a planted file without its line and a wrong licence.
# `sh tools/spdx.sh --fix` adds the missing lines.
check-spdx:
	@O=$(O) sh tools/spdx.sh --self-test
	@O=$(O) sh tools/spdx.sh

check-ownership: all
	@O=$(O) sh tests/ownership.sh

# Deliberate faults planted in a scratch copy: the tests must catch each.
check-mutants: all
	@O=$(O) sh tests/mutants.sh

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
# outside make check.
include mk/shell.mk
include mk/docs.mk
include mk/install.mk
include mk/fuzz.mk
include mk/hardening.mk
include mk/bench.mk
include mk/fresh.mk
include mk/dist.mk
