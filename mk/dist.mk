# SPDX-License-Identifier: MIT
# mk/dist.mk: the release tarball, its check, and the Debian package.
#
#   make dist        pidns-tutor-$(VERSION).tar.gz: the files git tracks (as
#                    they are in the work tree), under pidns-tutor-$(VERSION)/,
#                    owner root, dated by the last commit (same tree, same
#                    bytes); out of a git checkout, every file but the build's
#   make distcheck   that tarball unpacked where there is no .git, built out of
#                    tree (O= outside it, the sources read-only), the quick
#                    tests run there, installed into a staging DESTDIR and
#                    uninstalled: no file may be left (tests/dist/distcheck.sh)
#   make deb         the Debian package (debian/, dpkg-buildpackage -us -uc
#                    -b), then lintian on it; the .deb goes to DEB_OUT
#   make check-deb   the .deb installed on the fresh Debian 12 of check-fresh
#                    (root only): --auto all as root and as a learner, an
#                    exported lesson run as told, then purged; nothing may be
#                    left (tests/fresh/check-fresh.sh, FRESH_STEPS=deb)

DIST_NAME := pidns-tutor-$(VERSION)
DIST_TAR  := $(DIST_NAME).tar.gz
DEB_OUT   ?= $(O)/deb

.PHONY: dist distcheck deb check-deb
dist:
	@sh tests/dist/dist.sh $(DIST_NAME) $(DIST_TAR)

distcheck: dist
	@MAKE="$(MAKE)" sh tests/dist/distcheck.sh $(DIST_TAR) $(DIST_NAME)

# dpkg-buildpackage writes beside the source tree (..); the results are moved
# to DEB_OUT. debian/rules builds with this Makefile (PREFIX=/usr).
deb:
	@sh tests/dist/deb.sh $(DEB_OUT) $(VERSION)

check-deb: deb
	@FRESH_CACHE=$(FRESH_CACHE) FRESH_STEPS=deb FRESH_DEB=$(DEB_OUT)/pidns-tutor_$(VERSION)_$$(dpkg --print-architecture).deb \
	    sh tests/fresh/check-fresh.sh
