# SPDX-License-Identifier: MIT
# mk/docs.mk: the documentation, built with asciidoctor into $(O)/docs/.
#
#   make docs        HTML guides, the lesson handbook (one page, and one page per
#                    lesson), the handbook as a PDF, the man pages (and an HTML
#                    rendering of each)
#   make docs-reference  re-record the reference run the lesson pages show
#                    (REFERENCE=0 make docs: no reference run, patterns alone)
#   make docs-check  the same, then every man page through `man -l` with
#                    groff warnings on: any warning fails (run by make check)
#
# Every document is built with --failure-level WARN, so a broken include, a
# missing tag or a bad cross reference fails the build instead of leaving a
# hole in the page. The handbook is built from the very lessons/*.adoc files
# the shell reads; their include::../examples/... lines resolve against the
# real example sources.

ASCIIDOCTOR ?= asciidoctor
DOCS_O      := $(O)/docs
ADOC_ATTRS  := -a pidns-tutor-version=$(VERSION) -a revnumber=$(VERSION) \
	-a mansource=pidns-tutor -a manmanual='pidns-tutor manual' \
	-a sectanchors -a nofooter -a webfonts! \
	-a bindir=$(BINDIR) -a libexecdir=$(LIBEXECDIR) -a datadir=$(DATADIR) \
	-a mandir=$(MANDIR) -a docdir=$(DOCDIR)
ADOC        = $(ASCIIDOCTOR) --failure-level WARN $(ADOC_ATTRS)
# asciidoctor writes the page even when it then fails on a warning: remove it,
# or the next make would take the broken page as up to date.
ADOC_TO     = $(ADOC) $(1) -o $@ $< || { rm -f $@; exit 1; }

GUIDE_SRCS  := $(wildcard docs/*.adoc)
GUIDE_HTML  := $(patsubst docs/%.adoc,$(DOCS_O)/%.html,$(GUIDE_SRCS))
# Man page sources are named NAME.SECTION.adoc (pidns-tutor.1.adoc).
MAN_SRCS    := $(wildcard docs/man/*.adoc)
MAN_PAGES   := $(patsubst docs/man/%.adoc,$(DOCS_O)/man/%,$(MAN_SRCS))
MAN_HTML    := $(patsubst docs/man/%.adoc,$(DOCS_O)/man/%.html,$(MAN_SRCS))
LESSON_SRCS := $(sort $(wildcard lessons/[0-9]*.adoc))
LESSON_HTML := $(patsubst lessons/%.adoc,$(DOCS_O)/lessons/%.html,$(LESSON_SRCS))
HANDBOOK    := $(DOCS_O)/handbook.html
ASCIIDOCTOR_PDF ?= asciidoctor-pdf
HANDBOOK_PDF := $(if $(shell command -v $(ASCIIDOCTOR_PDF) 2>/dev/null),$(DOCS_O)/handbook.pdf)
# Lessons and reference pages include example code: rebuild when it changes.
# The reference pages also quote recorded sessions (docs/samples/NAME.txt), and
# name the install paths, so they follow a change of PREFIX (install.mk stamp).
DOC_INCLUDES := $(wildcard examples/*.c docs/include/* docs/samples/*.txt) $(O)/build-defs.stamp
DOCS_ALL    := $(GUIDE_HTML) $(MAN_PAGES) $(MAN_HTML) $(LESSON_HTML) $(HANDBOOK) $(HANDBOOK_PDF)

.PHONY: docs docs-check docs-man-lint docs-samples
docs: $(DOCS_ALL)
	@[ -n "$(HANDBOOK_PDF)" ] || echo "docs: no PDF handbook: $(ASCIIDOCTOR_PDF) is not installed (make deps-check)"

$(DOCS_O)/%.html: docs/%.adoc $(DOC_INCLUDES)
	@mkdir -p $(@D)
	$(call ADOC_TO,-a toc=left)

$(DOCS_O)/man/%.html: docs/man/%.adoc $(DOC_INCLUDES)
	@mkdir -p $(@D)
	$(call ADOC_TO,)

# A manpage: NAME.SECTION from NAME.SECTION.adoc (the pattern has no dot in
# the target so it does not also match the .html rule above).
$(MAN_PAGES): $(DOCS_O)/man/%: docs/man/%.adoc $(DOC_INCLUDES)
	@mkdir -p $(@D)
	$(call ADOC_TO,-b manpage)

# Lesson pages and the handbook label each marked block (run, expect, hint...)
# with a small stylesheet, docs/include/docinfo.html, and go through the
# handbook extension (docs/handbook/handbook.rb): "Lesson N: Title", previous /
# contents / next links, highlighted code (rouge, when installed), folded
# answers, hints and solutions, and beside each expected pattern the output of
# a reference run of the lesson, recorded when the docs are built.
HANDBOOK_EXT   := docs/handbook/handbook.rb
HIGHLIGHT      := $(shell ruby -e 'require "rouge"' >/dev/null 2>&1 && echo -a source-highlighter=rouge)
REFERENCE      ?= 1
REF_DIR        := $(DOCS_O)/reference
REF_TRANSCRIPT := $(if $(filter 1,$(REFERENCE)),$(if $(TUTOR),$(REF_DIR)/transcript.txt))
LESSON_DOCINFO = -a docinfo=shared-head -a docinfodir=$(abspath docs/include)
LESSON_ADOC    = -r ./$(HANDBOOK_EXT) $(HIGHLIGHT) \
	$(if $(REF_TRANSCRIPT),-a handbook-reference=$(abspath $(REF_DIR)))
LESSON_DEPS    = $(HANDBOOK_EXT) docs/handbook/ns_picture.rb docs/include/docinfo.html $(REF_TRANSCRIPT)

$(DOCS_O)/lessons/%.html: lessons/%.adoc $(DOC_INCLUDES) $(LESSON_DEPS)
	@mkdir -p $(@D)
	$(call ADOC_TO,-a toc=left $(LESSON_DOCINFO) $(LESSON_ADOC))

# The reference run: every lesson through pidns-tutor --auto, in its private
# lab (about 15 s); a machine without a lab still gets its docs, without it.
$(REF_DIR)/transcript.txt: $(TUTOR) $(EXAMPLES) $(LESSON_SRCS) docs/handbook/capture-reference.sh
	@echo "docs: recording the reference run (pidns-tutor --auto all)"
	@sh docs/handbook/capture-reference.sh $(TUTOR) lessons $(REF_DIR)

.PHONY: docs-reference
docs-reference:
	rm -f $(REF_DIR)/transcript.txt
	@$(MAKE) --no-print-directory $(REF_DIR)/transcript.txt

# The handbook: every lesson, in order, as a chapter of one book. The master
# file is generated so that a new lesson needs no edit here; lessons are
# included by absolute path, and their own include:: lines resolve relative
# to the lesson file, as when the shell reads it.
$(DOCS_O)/handbook.adoc: $(LESSON_SRCS) mk/docs.mk
	@mkdir -p $(@D)
	@{ printf '= pidns-tutor: the lesson handbook\n:doctype: book\n:toc: left\n'; \
	   printf ':toclevels: 2\n:sectnums!:\n\n'; \
	   printf 'Every lesson of the tutorial, as the shell shows it, with the code it runs.\n'; \
	   printf 'The commands marked as steps run live in the shell (`pidns-tutor`);\n'; \
	   printf 'here they are printed so that you can read ahead or review.\n'; \
	   for f in $(abspath $(LESSON_SRCS)); do printf '\ninclude::%s[leveloffset=+1]\n' "$$f"; done; \
	   [ -n "$(LESSON_SRCS)" ] || printf '\nNo lessons were found in lessons/.\n'; \
	 } >$@.tmp && mv $@.tmp $@

$(HANDBOOK): $(DOCS_O)/handbook.adoc $(LESSON_SRCS) $(DOC_INCLUDES) $(LESSON_DEPS)
	$(call ADOC_TO,$(LESSON_DOCINFO) $(LESSON_ADOC))

# The same handbook as a PDF handout (asciidoctor-pdf, Debian's
# ruby-asciidoctor-pdf): title page, table of contents, folds printed open.
$(DOCS_O)/handbook.pdf: $(DOCS_O)/handbook.adoc $(LESSON_SRCS) $(DOC_INCLUDES) $(LESSON_DEPS) docs/handbook/pdf-theme.yml
	$(ASCIIDOCTOR_PDF) --failure-level WARN $(ADOC_ATTRS) $(LESSON_ADOC) \
	    -a pdf-themesdir=$(abspath docs/handbook) -a pdf-theme=pdf -a toc -a toclevels=1 \
	    -o $@ $< || { rm -f $@; exit 1; }

# man -l through man-db with groff's warnings enabled; stderr must stay empty.
docs-man-lint: $(MAN_PAGES)
	@for m in $(MAN_PAGES); do \
	    warn=$$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$$m" 2>&1 >/dev/null); \
	    if [ -n "$$warn" ]; then echo "docs: $$m: man -l warns:"; echo "$$warn"; exit 1; fi; \
	    LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$$m" | grep -q . || { echo "docs: $$m renders empty"; exit 1; }; \
	done; echo "docs: $(words $(MAN_PAGES)) man pages render without warnings"

# make check runs this as a part beside the test suite, whose docs tests
# (test_docs, test_handbook, test_install) build or copy $(DOCS_O) too: both
# hold $(O)/docs.lock while they do, so one waits for the other's build
# instead of writing the same pages at the same time.
docs-check:
	@mkdir -p $(O)
	@flock $(O)/docs.lock $(MAKE) --no-print-directory docs docs-man-lint
	@echo "docs: $(words $(DOCS_ALL)) documents built warning-free into $(DOCS_O)/"

# Re-records the sample sessions the reference pages show (needs root or user
# namespaces; runs in the sandbox, never on the host's root).
docs-samples: examples $(O)/tests/helpers/in_sandbox
	@O=$(O) sh docs/samples/capture.sh

CHECK_EXTRA += docs-check
