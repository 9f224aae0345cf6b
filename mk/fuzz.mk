# SPDX-License-Identifier: MIT
# mk/fuzz.mk: libFuzzer targets for the lesson parser and the shell's
# command-line parsing (tests/fuzz/fuzz_*.c), built with clang and
# ASan+UBSan into $(O)/fuzz/ (included by the Makefile); tests/hardening/fuzz.sh
# runs them.
#
#   make fuzz         each target for FUZZ_SECONDS (default 300); new inputs
#                     go to $(O)/fuzz/corpus/NAME, crashes to $(O)/fuzz/crash-*
#   make check-fuzz   replays every file of tests/fuzz/corpus/NAME, then fuzzes
#                     each target briefly (FUZZ_CHECK_SECONDS, FUZZ_CHECK_RUNS);
#                     any crash, leak, hang or UB fails (run by make check)
#
# The shell's sources are compiled again here with clang and the fuzzing
# flags (the gcc-built libtutor.a has no coverage instrumentation); a fuzz
# target links only the objects it needs from $(O)/fuzz/libtutor-fuzz.a.

FUZZ_CC            ?= clang
FUZZ_SECONDS       ?= 300
FUZZ_CHECK_SECONDS ?= 15
FUZZ_CHECK_RUNS    ?= 200000
FUZZ_O             := $(O)/fuzz
FUZZ_NAMES         := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS       := $(patsubst %,$(FUZZ_O)/fuzz_%,$(FUZZ_NAMES))
FUZZ_OBJS          := $(patsubst shell/%.c,$(FUZZ_O)/obj/%.o,$(SHELL_SRCS))
FUZZ_LIB           := $(FUZZ_O)/libtutor-fuzz.a
FUZZ_EXAMPLE_STUBS := $(FUZZ_O)/examples
FUZZ_SAN           := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
FUZZ_CFLAGS        := -std=gnu11 $(WARNINGS) -g -O1 $(FUZZ_SAN)
FUZZ_DEFS          := -DFUZZ_LESSONS_DIR='"$(abspath lessons)"' \
	-DFUZZ_EXAMPLE_SRC_DIR='"$(abspath examples)"' \
	-DFUZZ_EXAMPLES_DIR='"$(abspath $(FUZZ_EXAMPLE_STUBS))"'

.PHONY: fuzz fuzz-build check-fuzz fuzz-probe
fuzz-build: fuzz-probe $(FUZZ_TARGETS) $(FUZZ_EXAMPLE_STUBS)

# A compiler that cannot build a fuzzer is a failure with its reason, not a
# skip; it is checked before anything is compiled.
fuzz-probe:
	@mkdir -p $(FUZZ_O)
	@printf '%s\n' '#include <stdint.h>' '#include <stddef.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
		> $(FUZZ_O)/probe.c
	@$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $(FUZZ_O)/probe $(FUZZ_O)/probe.c \
		2> $(FUZZ_O)/probe.log || { \
		echo "fuzz: FAIL: '$(FUZZ_CC)' cannot build a libFuzzer target:"; \
		sed 's/^/    /' $(FUZZ_O)/probe.log | head -5; \
		echo "    (make deps-check installs clang and libclang-rt-dev; or set FUZZ_CC=clang-NN)"; \
		exit 1; }

$(FUZZ_O)/obj/%.o: shell/%.c | fuzz-probe $(GEN_HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CPPFLAGS) $(DEPFLAGS) -Ishell $(BUILD_DEFS) $(READLINE_CFLAGS) $(FUZZ_CFLAGS) \
		-fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) | fuzz-probe
	@mkdir -p $(dir $(BIN_DEPFILE))
	$(FUZZ_CC) $(ALL_CPPFLAGS) $(BIN_DEPFLAGS) -Ishell $(FUZZ_DEFS) $(FUZZ_CFLAGS) -fsanitize=fuzzer \
		-o $@ $< $(FUZZ_LIB) $(READLINE_LIBS) -lutil

# `run` and `source` complete example names from the built examples: empty
# executable stubs stand for them, so the fuzzer needs no example built.
$(FUZZ_EXAMPLE_STUBS): $(EXAMPLE_SRCS)
	@mkdir -p $@
	@for src in $(EXAMPLE_SRCS); do \
		stub=$@/$$(basename $$src .c); : > $$stub && chmod 755 $$stub; done
	@touch $@

check-fuzz: fuzz-build
	@O=$(O) sh tests/hardening/fuzz.sh check $(FUZZ_CHECK_SECONDS) $(FUZZ_CHECK_RUNS)

fuzz: fuzz-build
	@O=$(O) sh tests/hardening/fuzz.sh long $(FUZZ_SECONDS)

CHECK_EXTRA += check-fuzz
CHECK_BUILD += fuzz-build

-include $(FUZZ_OBJS:.o=.d) $(patsubst $(O)/%,$(O)/obj/%.d,$(FUZZ_TARGETS))
