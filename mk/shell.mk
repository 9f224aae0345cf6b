# mk/shell.mk: targets of the guided shell (included by the Makefile).
#   make bench-shell     start-up/quit time against unshare -m true, peak RSS
#   make commands-doc    regenerate docs/commands.adoc from the command table
# BENCH_EXTRA lists the benchmarks a `make bench` target can run.
BENCH_EXTRA += bench-shell

.PHONY: bench-shell commands-doc
bench-shell: $(TUTOR) $(EXAMPLES)
	@O=$(O) sh tests/bench/shell.sh

commands-doc: $(TUTOR)
	$(TUTOR) --commands-adoc > docs/commands.adoc
