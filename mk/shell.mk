# SPDX-License-Identifier: MIT
# mk/shell.mk: targets of the guided shell (included by the Makefile).
#   make bench-shell     start-up/quit time against unshare -m true, cost per
#                        guided step, peak RSS (part of make bench, mk/bench.mk)
#   make commands-doc    regenerate docs/commands.adoc from the command table
BENCH_EXTRA += bench-shell

.PHONY: bench-shell commands-doc
bench-shell: $(TUTOR) $(EXAMPLES)
	@$(BENCH_ENV) sh tests/bench/shell.sh

commands-doc: $(TUTOR)
	$(TUTOR) --commands-adoc > docs/commands.adoc
