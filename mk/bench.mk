# SPDX-License-Identifier: MIT
# mk/bench.mk: `make bench`, figures against what a user would otherwise run
# (docs/performance.adoc). Not a test: nothing here passes or fails on a
# figure, and `make check` does not run it.
#
#   make bench                 every benchmark in BENCH_EXTRA, then the tables
#                              in $(O)/bench/results.adoc (raw data beside it)
#   make bench BENCH_RUNS=50   more runs of each command (default 20; about
#                              two minutes on a 2-CPU machine)
#   make bench-multi           multi_pidns N true against unshare and the floor
#   make bench-memory          peak memory of each example
#
# Each mk/*.mk adds its benchmarks to BENCH_EXTRA (bench-shell: mk/shell.mk);
# a benchmark NAME-x writes $(O)/bench/x.adoc and x.csv. Root is needed for
# the nested unshare figures; as an ordinary user they are skipped, saying so.

BENCH_RUNS ?= 20
BENCH_OUT  := $(O)/bench
BENCH_ENV   = O=$(O) BENCH_RUNS=$(BENCH_RUNS) BENCH_OUT=$(BENCH_OUT)
BENCH_EXTRA += bench-multi bench-memory
# The order of the tables: the shell first, then the rest as registered.
BENCH_FIRST := bench-shell bench-multi bench-memory
BENCH_ORDER  = $(foreach b,$(BENCH_FIRST),$(filter $(b),$(BENCH_EXTRA))) \
	$(filter-out $(BENCH_FIRST),$(BENCH_EXTRA))
BENCH_FLOOR := $(O)/tests/helpers/bench_floor

.PHONY: bench bench-multi bench-memory
# deps-check first (hyperfine, python3, util-linux), then a fresh make, as
# for make check.
bench: deps-check
	@$(MAKE) --no-print-directory all $(BENCH_FLOOR)
	@mkdir -p $(BENCH_OUT)/raw
	@cut -d' ' -f1-3 /proc/loadavg >$(BENCH_OUT)/raw/load-start.txt
	@for t in $(BENCH_ORDER); do $(MAKE) --no-print-directory $$t || exit 1; done
	@cut -d' ' -f1-3 /proc/loadavg >$(BENCH_OUT)/raw/load-end.txt
	@python3 tests/bench/report.py assemble $(BENCH_OUT) $(BENCH_RUNS) \
		$(patsubst bench-%,%,$(BENCH_ORDER))

bench-multi: $(EXAMPLES) $(BENCH_FLOOR) $(O)/tests/helpers/in_sandbox
	@$(BENCH_ENV) sh tests/bench/multi_pidns.sh

bench-memory: $(EXAMPLES) $(O)/tests/helpers/in_sandbox
	@$(BENCH_ENV) sh tests/bench/memory.sh

# The floor is built as an example is (one file, no library), so that the
# comparison with multi_pidns is like for like.
$(BENCH_FLOOR): tests/helpers/bench_floor.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<
