# SPDX-License-Identifier: MIT
# mk/fresh.mk: the README's two commands on a really fresh machine.
#
#   make check-fresh                     a minimal Debian 12 root (debootstrap
#                                        --variant=minbase, plus make and git;
#                                        built once, cached in FRESH_CACHE), a
#                                        clone of HEAD in its /root/main, then
#                                        `make run` (typing quit) and `make
#                                        check` there, as root, no terminal
#   make check-fresh FRESH_STEPS=make-run   only make run, a quick look
#
# Needs root; runs in a private mount and PID namespace with an overlay of the
# cached root pivoted in, so the host's root is never written. Not part of
# make check (it runs make check itself); CI runs it after (.ci/run).
# See tests/fresh/check-fresh.sh.

FRESH_CACHE ?= /var/cache/pidns-tutor-fresh
FRESH_STEPS ?= make-run make-check

.PHONY: check-fresh
check-fresh:
	@FRESH_CACHE=$(FRESH_CACHE) FRESH_STEPS="$(FRESH_STEPS)" sh tests/fresh/check-fresh.sh
