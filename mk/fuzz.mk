# mk/fuzz.mk: libFuzzer targets for the lesson parser and the shell's
# command-line parsing (tests/fuzz/fuzz_*.c), built with clang and
# ASan+UBSan into $(O)/fuzz/ (included by the Makefile).
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
# Per run: a hang is an input slower than 10 s; inputs are mutated up to 16 KiB
# (the corpus replay still feeds its larger seeds whole); leaks fail.
FUZZ_RUN_FLAGS     := -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1
# Flags of a fuzzing run (not of a replay) of target $$name, in the shell loops.
FUZZ_MUTATE_FLAGS  := -max_len=16384 $$(test -f tests/fuzz/$$name.dict && \
	echo -dict=tests/fuzz/$$name.dict) -artifact_prefix=$(FUZZ_O)/crash-$$name-
# UBSan reports stop the process (-fno-sanitize-recover) with a stack trace.
FUZZ_ENV           := UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

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

$(FUZZ_O)/obj/%.o: shell/%.c | fuzz-probe
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
	@for name in $(FUZZ_NAMES); do \
		echo "check-fuzz: $$name: replaying tests/fuzz/corpus/$$name"; \
		$(FUZZ_ENV) $(FUZZ_O)/fuzz_$$name $(FUZZ_RUN_FLAGS) \
			tests/fuzz/corpus/$$name/* > $(FUZZ_O)/replay-$$name.log 2>&1 || { \
			tail -40 $(FUZZ_O)/replay-$$name.log; \
			echo "check-fuzz: FAIL: $$name: a corpus file crashes (log: $(FUZZ_O)/replay-$$name.log)"; \
			exit 1; }; \
		rm -rf $(FUZZ_O)/check-corpus/$$name && mkdir -p $(FUZZ_O)/check-corpus/$$name; \
		echo "check-fuzz: $$name: fuzzing for at most $(FUZZ_CHECK_SECONDS) s / $(FUZZ_CHECK_RUNS) runs"; \
		$(FUZZ_ENV) $(FUZZ_O)/fuzz_$$name $(FUZZ_RUN_FLAGS) $(FUZZ_MUTATE_FLAGS) \
			-max_total_time=$(FUZZ_CHECK_SECONDS) -runs=$(FUZZ_CHECK_RUNS) \
			$(FUZZ_O)/check-corpus/$$name tests/fuzz/corpus/$$name \
			> $(FUZZ_O)/check-$$name.log 2>&1 || { \
			tail -40 $(FUZZ_O)/check-$$name.log; \
			echo "check-fuzz: FAIL: $$name: reproducer in $(FUZZ_O)/crash-$$name-*; add it to tests/fuzz/corpus/$$name once fixed"; \
			exit 1; }; \
		echo "check-fuzz: $$name: ok: $$(grep -E '^#[0-9]+' $(FUZZ_O)/check-$$name.log | tail -1 | \
			sed 's/ *lim:.*exec/, exec/; s/ rss:.*//')"; \
	done

fuzz: fuzz-build
	@for name in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ_O)/corpus/$$name; \
		echo "fuzz: $$name for $(FUZZ_SECONDS) s (new inputs: $(FUZZ_O)/corpus/$$name)"; \
		$(FUZZ_ENV) $(FUZZ_O)/fuzz_$$name $(FUZZ_RUN_FLAGS) $(FUZZ_MUTATE_FLAGS) \
			-max_total_time=$(FUZZ_SECONDS) \
			$(FUZZ_O)/corpus/$$name tests/fuzz/corpus/$$name || exit 1; \
	done

CHECK_EXTRA += check-fuzz

-include $(FUZZ_OBJS:.o=.d) $(patsubst $(O)/%,$(O)/obj/%.d,$(FUZZ_TARGETS))
