# SPDX-License-Identifier: MIT
# mk/install.mk: make install / make uninstall (GNU conventions).
#
#   make PREFIX=/opt/pidns-tutor            build for that prefix
#   make install PREFIX=... DESTDIR=...     copy into $(DESTDIR)$(PREFIX)/...
#   make uninstall PREFIX=... DESTDIR=...   remove exactly what install copied
#
# Layout (defaults under PREFIX=/usr/local):
#   $(BINDIR)/pidns-tutor                the shell
#   $(LIBEXECDIR)/NAME                   each built example (the lab's PATH)
#   $(DATADIR)/examples/NAME.c           each example's source
#   $(DATADIR)/lessons/*.adoc            the lessons; they include
#                                        ../examples/NAME.c, which resolves
#                                        to the directory above
#   $(DATADIR)/exercises/NN-name/*.c     the coding exercises (the file as
#                                        given, solution.c, wrong-*.c), named
#                                        by the lessons as ../exercises/...
#   $(MANDIR)/man1/*.1                   pidns-tutor(1), one page per example
#   $(HTMLDIR)/...                       the guides, handbook, reference pages
#                                        (HTMLDIR defaults to DOCDIR)
#   $(BASHCOMPDIR)/pidns-tutor           bash completion
#
# The shell finds DATADIR and LIBEXECDIR through -DPIDNS_TUTOR_DATADIR and
# -DPIDNS_TUTOR_LIBEXECDIR, which are compiled in. So that a `make install
# PREFIX=X` after a plain `make` does not install a binary that looks under
# the old prefix, the objects depend on a stamp that changes with BUILD_DEFS.

INSTALL         ?= install
INSTALL_PROGRAM ?= $(INSTALL) -m 755
INSTALL_DATA    ?= $(INSTALL) -m 644
BASHCOMPDIR     ?= $(PREFIX)/share/bash-completion/completions
HTMLDIR         ?= $(DOCDIR)

BUILD_DEFS_STAMP := $(O)/build-defs.stamp
# Rewritten only when its content would change, so objects rebuild only then.
$(BUILD_DEFS_STAMP): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(BUILD_DEFS)' | cmp -s - $@ 2>/dev/null || printf '%s\n' '$(BUILD_DEFS)' >$@
.PHONY: FORCE
FORCE:
$(SHELL_OBJS) $(O)/obj/shell/main.o: $(BUILD_DEFS_STAMP)

INSTALL_EXAMPLES = $(EXAMPLES)
INSTALL_SOURCES  = $(EXAMPLE_SRCS)
INSTALL_LESSONS  = $(wildcard lessons/*.adoc)
INSTALL_EXERCISE_DIRS = $(notdir $(wildcard exercises/[0-9]*))
INSTALL_MAN1     = $(filter %.1,$(MAN_PAGES))
COMPLETION       := completions/pidns-tutor.bash

# Without asciidoctor, install what exists and say that the documentation was
# left out (make deps-check installs asciidoctor).
HAVE_ASCIIDOCTOR := $(shell command -v $(ASCIIDOCTOR) 2>/dev/null)
INSTALL_DOCS     = $(if $(HAVE_ASCIIDOCTOR),docs)

.PHONY: install uninstall
install: examples tutor $(INSTALL_DOCS)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) \
	    $(DESTDIR)$(DATADIR)/examples $(DESTDIR)$(DATADIR)/lessons \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(HTMLDIR)/man $(DESTDIR)$(HTMLDIR)/lessons \
	    $(DESTDIR)$(BASHCOMPDIR)
	$(if $(TUTOR),$(INSTALL_PROGRAM) $(TUTOR) $(DESTDIR)$(BINDIR)/pidns-tutor)
	$(if $(INSTALL_EXAMPLES),$(INSTALL_PROGRAM) $(INSTALL_EXAMPLES) $(DESTDIR)$(LIBEXECDIR)/)
	$(if $(INSTALL_SOURCES),$(INSTALL_DATA) $(INSTALL_SOURCES) $(DESTDIR)$(DATADIR)/examples/)
	$(if $(INSTALL_LESSONS),$(INSTALL_DATA) $(INSTALL_LESSONS) $(DESTDIR)$(DATADIR)/lessons/)
	for d in $(INSTALL_EXERCISE_DIRS); do \
	    $(INSTALL) -d $(DESTDIR)$(DATADIR)/exercises/$$d && \
	    $(INSTALL_DATA) exercises/$$d/*.c $(DESTDIR)$(DATADIR)/exercises/$$d/ || exit 1; done
ifneq ($(HAVE_ASCIIDOCTOR),)
	$(if $(INSTALL_MAN1),$(INSTALL_DATA) $(INSTALL_MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(INSTALL_DATA) $(GUIDE_HTML) $(HANDBOOK) $(HANDBOOK_PDF) $(DESTDIR)$(HTMLDIR)/
	$(if $(MAN_HTML),$(INSTALL_DATA) $(MAN_HTML) $(DESTDIR)$(HTMLDIR)/man/)
	$(if $(LESSON_HTML),$(INSTALL_DATA) $(LESSON_HTML) $(DESTDIR)$(HTMLDIR)/lessons/)
else
	@echo "install: $(ASCIIDOCTOR) is missing: man pages and HTML docs left out (make deps-check)"
endif
	$(INSTALL_DATA) $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/pidns-tutor

# Removes each installed file by name, then the directories that belong to
# pidns-tutor alone (never shared ones such as bin/ or man1/), if empty.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pidns-tutor $(DESTDIR)$(BASHCOMPDIR)/pidns-tutor
	rm -f $(addprefix $(DESTDIR)$(LIBEXECDIR)/,$(notdir $(INSTALL_EXAMPLES)))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/examples/,$(notdir $(INSTALL_SOURCES)))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/lessons/,$(notdir $(INSTALL_LESSONS)))
	for d in $(INSTALL_EXERCISE_DIRS); do \
	    for f in exercises/$$d/*.c; do rm -f $(DESTDIR)$(DATADIR)/$$f; done; \
	    [ ! -d $(DESTDIR)$(DATADIR)/exercises/$$d ] || rmdir $(DESTDIR)$(DATADIR)/exercises/$$d; done
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(INSTALL_MAN1)))
	rm -f $(addprefix $(DESTDIR)$(HTMLDIR)/,$(notdir $(GUIDE_HTML) $(HANDBOOK) $(DOCS_O)/handbook.pdf))
	rm -f $(addprefix $(DESTDIR)$(HTMLDIR)/man/,$(notdir $(MAN_HTML)))
	rm -f $(addprefix $(DESTDIR)$(HTMLDIR)/lessons/,$(notdir $(LESSON_HTML)))
	for d in $(HTMLDIR)/man $(HTMLDIR)/lessons $(HTMLDIR) $(DOCDIR) $(DATADIR)/examples \
	    $(DATADIR)/exercises $(DATADIR)/lessons $(DATADIR) $(LIBEXECDIR); do \
	    [ ! -d "$(DESTDIR)$$d" ] || rmdir "$(DESTDIR)$$d" 2>/dev/null || true; done
