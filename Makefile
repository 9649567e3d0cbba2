# ipctax - "The IPC Tax", re-run in C as a literate, reproducible paper.
# `make help` lists the targets. QUICK=1 shrinks the measurement (fewer bars
# and rounds) for CI and smoke runs; the paper it weaves says so on its first
# page.

SHELL := /bin/bash
.DELETE_ON_ERROR:
.SECONDARY:
.SUFFIXES:
.DEFAULT_GOAL := all

CC ?= cc
# The floating-point rules of kernel-spec.md: no fused multiply-add, no
# fast-math; everything else is ordinary optimisation.
CFLAGS_FP := -ffp-contract=off -fno-fast-math
CFLAGS ?= -O2 -g
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -pthread -Wall -Wextra $(CFLAGS_FP) $(CFLAGS)
# zlib: the page's packer compresses with it, and the report reads the
# compressed files of kept runs through it.
LDLIBS := -lcsv -lnettle -ljansson -lz -lm

BUILD := build
# Building and weaving measure nothing, so they use every CPU; `make paper`
# builds everything this way before its first measurement.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
CHAPTERS := $(sort $(wildcard paper/[0-9]*.md))
# The commit the programs are built from, "-dirty" when a source differs
# from it; a new run in data/, or a fresh weave in site/ and figures/, is
# not a source: `make paper` installs its run and then weaves, and a
# commit that turned dirty there rebuilt every versioned program, so the
# weave's summary no longer matched the kept runs' summaries the plan had
# kept (each is keyed by the program's digest) and made them all again.
OUTPUTS_EXCLUDED := ':(exclude)site' ':(exclude)data' ':(exclude,glob)figures/*.svg' \
                    ':(exclude,glob)figures/*.pdf' ':(exclude,glob)figures/*.csv'
COMMIT := $(shell c=$$(git describe --always 2>/dev/null) || c=unknown; \
  if [ "$$c" = unknown ] || git diff --quiet HEAD -- . $(OUTPUTS_EXCLUDED) 2>/dev/null; \
  then echo $$c; else echo $$c-dirty; fi)
# The release a reader cites: CITATION.cff's version, the one place it is
# kept; every program's --version prints it beside the commit.
RELEASE := $(shell sed -n 's/^version: *"\{0,1\}\([^"]*\)"\{0,1\} *$$/\1/p' CITATION.cff 2>/dev/null)
PYTHON := /usr/bin/python3

.PHONY: all help paper test check weave figures compare tangle check-tangle measure clean register-chunks \
        unit-tests check-cff check-spec check-woven check-browser check-sanitize \
        check-valgrind check-packages check-python check-bibtex check-data-readme unused-values \
        check-registration check-weave-failure check-provenance check-layers check-steps check-order check-publish check-reproduction check-any-text \
        check-index check-when \
        fuzz install-python FORCE
FORCE:

help:
	@echo "make paper      install what is missing, build, measure, plot, weave site/"
	@echo "make test       unit tests (also sanitized), valgrind, Python, browser, tangle, citation"
	@echo "make check      the fast tier: the quick unit tests and the tangle (under a minute)"
	@echo "make check-python  the numba kernel, the Python client and worker (tests/python)"
	@echo "make install-python  copy the Python client where python3 finds it (PREFIX=DIR),"
	@echo "                or pip-install it into a virtual environment (VENV=DIR)"
	@echo "make weave      re-weave site/ (page, paper.pdf, book.pdf, values.csv) and figures/"
	@echo "                from data/ without measuring; a failed weave changes nothing"
	@echo "make compare    this run beside the published one, from the kept summaries: the"
	@echo "                results, the claims (the changed first, and why), what to run next"
	@echo "make reproduction  keep data/ as reproductions/ID (ID=, BY=, CONDITIONS=) and as"
	@echo "                one file to send, build/reproduction-ID.tar"
	@echo "make receive FILE=...  check such a file and keep the run in it in reproductions/"
	@echo "make check-spec the numpy oracle against data/sweep.csv"
	@echo "make fuzz       libFuzzer on every target (FUZZ_SECONDS each); records data/fuzz.csv"
	@echo "make tangle     regenerate code/ and figures/*.gp from paper/"
	@echo "make check-woven  fail unless site/ and figures/ are what paper/ and data/ weave"
	@echo "make check-bibtex the page's BibTeX through bibtex, no warning allowed"
	@echo "make check-weave-failure  a weave that fails leaves site/ and figures/ as they were"
	@echo "make check-publish  a publication onto a full disk leaves site/ and figures/ whole"
	@echo "make check-reproduction  make reproduction and make receive on hostile input"
	@echo "make check-any-text  text of any characters from a kept run weaves into the PDF"
	@echo "make check-provenance  the weave refuses numbers whose provenance is wrong,"
	@echo "                and .when values outside the sets their families declare"
	@echo "make check-index  the book's index of identifiers links where each is defined and used"
	@echo "make check-data-readme  data/README.md describes every file and column of data/"
	@echo "make check-layers  every file and library uses only the layers below it"
	@echo "make check-steps  every function body the book shows is at most 40 lines"
	@echo "make check-order  every C file the book presents shows its entry point first"
	@echo "make unused-values  values and tables the summarizer writes and no chapter uses:"
	@echo "                published unread, or computed for nobody (fails)"
	@echo "make clean      remove build/"
	@echo "QUICK=1         a reduced job (smoke test), for paper and measure"

# --- Debian packages ---------------------------------------------------------
# Each list is what one kind of target runs; tests/check_packages.py proves
# that every program and Python module `make paper` runs comes from one of
# the packages it installs (or from an essential package).
BUILD_DEBS := build-essential git libcsv-dev nettle-dev libjansson-dev zlib1g-dev
MEASURE_DEBS := python3-numpy python3-numba valgrind strace libcmocka-dev
WEAVE_DEBS := pandoc gnuplot-nox fonts-dejavu-core texlive-latex-recommended \
              texlive-latex-extra texlive-fonts-recommended lmodern
PAPER_DEBS := $(BUILD_DEBS) $(MEASURE_DEBS) $(WEAVE_DEBS)
TEST_DEBS := $(BUILD_DEBS) $(MEASURE_DEBS) python3-jsonschema python3-ruamel.yaml \
             pandoc chromium chromium-driver python3-selenium texlive-binaries texlive-base \
             python3-venv python3-pip python3-setuptools python3-wheel
FUZZ_DEBS := clang libclang-rt-14-dev

# Installs what is missing when run as root; otherwise prints the one command.
define ensure-debs
@command -v dpkg-query >/dev/null || { echo "not a Debian system: install $(1) yourself"; exit 0; }; \
missing=""; \
for p in $(1); do \
  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
  if [ "$$(id -u)" = 0 ]; then \
    echo "installing:$$missing"; \
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
  else \
    echo "missing Debian packages; run:"; echo "  sudo apt-get install$$missing"; exit 1; \
  fi; \
fi
endef

.PHONY: deps-paper deps-test deps-fuzz
deps-paper:
	$(call ensure-debs,$(PAPER_DEBS))
deps-test:
	$(call ensure-debs,$(TEST_DEBS))
deps-fuzz:
	$(call ensure-debs,$(FUZZ_DEBS))

# --- Tangle ------------------------------------------------------------------
# code/ is committed; the tangler is built from its own committed source and
# the command-line module every program shares, and nettle for --hashes.
# It is not rebuilt for each commit (everything is re-tangled when it is), so
# its --version names no commit.
TANGLE_SRC := code/tools/tangle.c code/util/options.c code/util/error.c
$(BUILD)/tangle: $(TANGLE_SRC) code/util/options.h code/util/error.h $(BUILD)/release.txt
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(DEFS_util/options) -Icode -o $@ $(TANGLE_SRC) -lnettle

tangle: $(BUILD)/tangle
	$(BUILD)/tangle --stray code $(CHAPTERS)

check-tangle: $(BUILD)/tangle
	$(BUILD)/tangle --check --stray code $(CHAPTERS)
	@echo "check-tangle: code/ and figures/*.gp are exactly what paper/ says"

# Every compile step first brings code/ up to date with the chapters; the
# tangler rewrites only files whose text changed, so make rebuilds only those.
$(BUILD)/tangled.stamp: $(CHAPTERS) $(BUILD)/tangle
	$(BUILD)/tangle --stray code $(CHAPTERS)
	@touch $@

# --- Build: one rule set, instantiated per variant -----------------------------
# code/ holds one folder per layer; each layer is a static library that may
# use only the layers USES_<layer> names (all of them, not only the next):
# util (errors, clock, options, statistics, CSV writing, names) below all;
# the kernel; the schema (the files of data/ and the architecture table);
# the wire; and on top the engine, the harness and the report, none of which
# may use another. Every program and test links its own layers and the
# layers those use, no others, and `make check-layers` holds every file and
# library to its layer (tests/check_layers.py).
LAYERS := util kernel schema wire engine harness report
USES_util :=
USES_kernel := util
USES_schema := util
USES_wire := kernel util
USES_engine := wire kernel util
USES_harness := schema wire kernel util
USES_report := schema kernel util
# The order a linker needs: a library before the ones it uses.
LINK_ORDER := report harness engine wire schema kernel util
# The libraries of the layers $(2) and what they use, in link order, in variant $(1).
libs_for = $(foreach L,$(LINK_ORDER),$(if $(filter $(L),$(2) $(foreach U,$(2),$(USES_$(U)))),$(1)/lib$(L).a))

MAINS := code/engine/engine.c code/harness/bench.c code/report/summary.c code/tools/kernel.c \
         code/tools/record.c code/tools/datapackage.c code/tools/pack.c code/tools/publish.c
layer_src = $(filter-out $(MAINS),$(wildcard code/$(1)/*.c))
# Each program: its main object and the layers it is built on.
PROGRAMS := ipctax-engine ipctax-bench ipctax-summary ipctax-kernel ipctax-record \
            ipctax-datapackage ipctax-pack ipctax-publish
MAIN_ipctax-engine := engine/engine
MAIN_ipctax-bench := harness/bench
MAIN_ipctax-summary := report/summary
MAIN_ipctax-kernel := tools/kernel
MAIN_ipctax-record := tools/record
MAIN_ipctax-datapackage := tools/datapackage
MAIN_ipctax-pack := tools/pack
MAIN_ipctax-publish := tools/publish
LAYERS_ipctax-engine := engine
LAYERS_ipctax-bench := harness
LAYERS_ipctax-summary := report
LAYERS_ipctax-kernel := kernel
LAYERS_ipctax-record := schema
LAYERS_ipctax-datapackage := schema
LAYERS_ipctax-pack := util
LAYERS_ipctax-publish := util
# Each test program (tests/*.c with a main): the layers it tests, or that
# its shared headers use (testengine.h judges results with the harness's gate).
TEST_LAYERS_test_analysis := report harness
TEST_LAYERS_test_bench := report harness
TEST_LAYERS_test_calibrate := report
TEST_LAYERS_test_client := wire
TEST_LAYERS_test_cli := harness
TEST_LAYERS_test_data := kernel
TEST_LAYERS_test_data_checks := report harness
TEST_LAYERS_test_engine := engine harness
TEST_LAYERS_test_frame := engine
TEST_LAYERS_test_fuzz_options_regressions := engine
TEST_LAYERS_test_fuzz_regressions := engine
TEST_LAYERS_test_fuzz_shm_regressions := engine
TEST_LAYERS_test_harness := report harness
TEST_LAYERS_test_kernel := kernel
TEST_LAYERS_test_kernel_tuned := kernel
TEST_LAYERS_test_load := wire
TEST_LAYERS_test_reproductions := report harness
TEST_LAYERS_test_roofline := report harness
TEST_LAYERS_test_serialization := wire
TEST_LAYERS_test_shm := harness
TEST_LAYERS_test_stream := kernel
TEST_LAYERS_test_summary := report harness
TEST_LAYERS_test_tangle := util
TEST_LAYERS_drive_engine := wire

# The commit goes into machine.c; a stamp that changes only with the commit
# keeps every other object from rebuilding.
$(BUILD)/commit.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(COMMIT)' | cmp -s - $@ || echo '$(COMMIT)' > $@

# The release, likewise: only the options module, which prints it, rebuilds.
$(BUILD)/release.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(RELEASE)' | cmp -s - $@ || echo '$(RELEASE)' > $@

# An archive also follows the list of its layer's sources, rewritten only
# when it changes: the object of a new file is missing, and a missing
# object (.SECONDARY) alone would not remake an archive newer than the rest.
define LAYER_LIB
$(1)/obj/$(2).sources: FORCE
	@mkdir -p $$(@D)
	@echo '$(call layer_src,$(2))' | cmp -s - $$@ || echo '$(call layer_src,$(2))' > $$@
$(1)/lib$(2).a: $(patsubst code/%.c,$(1)/obj/%.o,$(call layer_src,$(2))) $(1)/obj/$(2).sources
	@rm -f $$@
	ar rcs $$@ $$(filter %.o,$$^)
endef

# $(1) the variant's directory, $(2) its compiler, $(3) its extra flags, $(4) a program.
define PROGRAM
$(1)/$(4): $(1)/obj/$(MAIN_$(4)).o $(call libs_for,$(1),$(LAYERS_$(4)))
	$(2) $(CFLAGS_ALL) $(3) -o $$@ $$^ $(LDLIBS) $(LDLIBS_$(4))
endef

# $(1) the variant's directory, $(2) its compiler, $(3) its extra flags, $(4) a test.
define TEST_PROGRAM
$(1)/tests/$(4): tests/$(4).c $(wildcard tests/*.h) $(call libs_for,$(1),$(TEST_LAYERS_$(4)))
	@mkdir -p $$(@D)
	$(2) $(CFLAGS_ALL) $(3) -Icode -o $$@ $$< $(call libs_for,$(1),$(TEST_LAYERS_$(4))) -lcmocka $(LDLIBS)
endef

# $(1) the variant's directory, $(2) its compiler, $(3) its extra flags.
define VARIANT
$(1)/obj/%.o: code/%.c $(BUILD)/tangled.stamp
	@mkdir -p $$(@D)
	$(2) $(CFLAGS_ALL) $(3) $$(DEFS_$$*) -Icode -MMD -MP -c -o $$@ $$<
$(1)/obj/harness/machine.o: $(BUILD)/commit.txt
$(1)/obj/engine/engine.o: $(BUILD)/commit.txt
$(1)/obj/util/options.o: $(BUILD)/release.txt
$(foreach L,$(LAYERS),$(eval $(call LAYER_LIB,$(1),$(L))))
$(foreach P,$(PROGRAMS),$(eval $(call PROGRAM,$(1),$(2),$(3),$(P))))
$(foreach T,$(patsubst tests/%.c,%,$(wildcard tests/test_*.c)),$(eval $(call TEST_PROGRAM,$(1),$(2),$(3),$(T))))
-include $$(shell find $(1)/obj -name '*.d' 2>/dev/null)
endef

# The kernel's functions start on a cache line in every binary, so that its
# hot loops sit at the same offset within a line in the harness and in the
# engine (paper/76-layout.md). Flags per object: DEFS_<layer>/<file>.
KERNEL_OBJS := $(patsubst code/%.c,%,$(wildcard code/kernel/*.c))
$(foreach o,$(KERNEL_OBJS),$(eval DEFS_$(o) = -falign-functions=64))
# Definitions one object needs beyond the flags: DEFS_<layer>/<file>.
DEFS_util/options = -DIPCTAX_RELEASE='"$(or $(RELEASE),unreleased)"'
DEFS_harness/machine = -DIPCTAX_CFLAGS='"$(CFLAGS_ALL)"' -DIPCTAX_COMMIT='"$(shell cat $(BUILD)/commit.txt)"'
# Every program's --version names the commit: only its main object rebuilds.
VERSIONED_MAINS := harness/bench engine/engine report/summary tools/kernel tools/record \
                   tools/datapackage tools/pack tools/publish
$(foreach m,$(VERSIONED_MAINS),$(eval DEFS_$(m) = -DIPCTAX_COMMIT='"$$(shell cat $(BUILD)/commit.txt)"'))
$(VERSIONED_MAINS:%=$(BUILD)/obj/%.o): $(BUILD)/commit.txt

SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_FLAGS := -O1 $(SANITIZE) -fsanitize=fuzzer-no-link
ASAN := $(BUILD)/asan
FUZZ := $(BUILD)/fuzz
$(eval $(call VARIANT,$(BUILD),$(CC),))
$(eval $(call VARIANT,$(ASAN),$(CC),$(SANITIZE)))
$(eval $(call VARIANT,$(FUZZ),clang,$(FUZZ_FLAGS)))

# Engines whose kernel is linked 0, 16, 32 and 48 bytes past a cache line,
# without the alignment above: the layout measurement's code shifts.
CODE_SHIFTS := 0 16 32 48
SHIFT := $(BUILD)/shift
SHIFT_KERNEL_OBJS := $(KERNEL_OBJS:%=$(SHIFT)/obj/%.o)
$(SHIFT)/obj/%.o: code/%.c $(BUILD)/tangled.stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Icode -c -o $@ $<
$(SHIFT)/pad%.o:
	@mkdir -p $(@D)
	printf '.text\n.balign 64\n.globl ipctax_code_shift\nipctax_code_shift:\n.skip %d, 0xcc\n.section .note.GNU-stack,"",@progbits\n' $* \
	  | $(CC) -c -x assembler -o $@ -
$(BUILD)/ipctax-engine-shift%: $(BUILD)/obj/engine/engine.o $(SHIFT)/pad%.o $(SHIFT_KERNEL_OBJS) \
  $(BUILD)/libengine.a $(BUILD)/libwire.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)
SHIFT_ENGINES := $(CODE_SHIFTS:%=$(BUILD)/ipctax-engine-shift%)

all: $(BUILD)/ipctax-bench $(BUILD)/ipctax-summary $(BUILD)/ipctax-engine $(BUILD)/ipctax-kernel \
     $(BUILD)/ipctax-record $(BUILD)/ipctax-datapackage $(BUILD)/ipctax-pack \
     $(BUILD)/ipctax-publish $(SHIFT_ENGINES)

clean:
	rm -rf $(BUILD)

# --- Tests -------------------------------------------------------------------
TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
# The fuzz replays compile their target and the seeds into the test.
FUZZ_COMMON := tests/fuzz/seeds.c tests/fuzz/shm_ops.h tests/fuzz/replay.h
$(BUILD)/tests/test_fuzz_regressions $(ASAN)/tests/test_fuzz_regressions: \
  tests/fuzz/fuzz_request.c $(FUZZ_COMMON)
$(BUILD)/tests/test_fuzz_shm_regressions $(ASAN)/tests/test_fuzz_shm_regressions: \
  tests/fuzz/fuzz_shm.c $(FUZZ_COMMON)
$(BUILD)/tests/test_fuzz_options_regressions $(ASAN)/tests/test_fuzz_options_regressions: \
  tests/fuzz/fuzz_options.c $(FUZZ_COMMON)

# Runs the test programs $(1) with the environment $(2), each to its end,
# and names every one that failed, not only the first; $(3) names the tier.
define run-tests
	@failed=""; for t in $(1); do echo "== $$t"; \
	  $(2) IPCTAX_ROOT=$(CURDIR) IPCTAX_PROVENANCE=$(abspath $(PROVENANCE)) $$t \
	    || failed="$$failed $${t##*/}"; done; \
	if [ -n "$$failed" ]; then echo "$(3): these test programs failed:$$failed"; exit 1; fi
endef

unit-tests: $(TESTS:%=$(BUILD)/tests/%) $(BUILD)/tangle all
	$(call run-tests,$(TESTS:%=$(BUILD)/tests/%),,unit-tests)
	@echo "unit-tests: every unit test passed"

# The fast tier: the unit tests that need neither an engine under load nor
# seconds of measuring (the slow ones below), and the tangle; no sanitizer,
# valgrind, browser or weave. Under a minute once the tree is built; `make
# test` runs everything.
SLOW_TESTS := test_bench test_engine test_kernel_tuned test_load test_reproductions test_shm
CHECK_TESTS := $(filter-out $(SLOW_TESTS),$(TESTS))
check: check-tangle check-steps check-order $(CHECK_TESTS:%=$(BUILD)/tests/%) all
	$(call run-tests,$(CHECK_TESTS:%=$(BUILD)/tests/%),,check)
	@echo "check: the fast tier passed ($(words $(CHECK_TESTS)) test programs and the tangle;" \
	      "make test runs everything)"

# The unit tests again with AddressSanitizer and UndefinedBehaviorSanitizer;
# any report fails. The load test runs the sanitized engine with its memory
# bounds off, because a sanitizer's quarantine keeps freed memory resident.
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
check-sanitize: $(TESTS:%=$(ASAN)/tests/%) $(ASAN)/ipctax-engine all $(BUILD)/tangle
	$(call run-tests,$(TESTS:%=$(ASAN)/tests/%),$(ASAN_ENV) \
	  IPCTAX_ENGINE=$(CURDIR)/$(ASAN)/ipctax-engine IPCTAX_LOAD_MEMORY_BOUNDS=0,check-sanitize)
	@echo "check-sanitize: every unit test passed under ASan and UBSan"

# The citation file against its schema and the paper's rules (both licences,
# dated after the data), and the addresses it alone configures, woven into
# the tags and the boxes with and without them (tests/check_citation.py).
CFF_SCHEMA := tests/vendor/cff-schema-1.2.0.json
check-cff:
	$(PYTHON) tests/check_cff.py CITATION.cff $(CFF_SCHEMA)
	$(PYTHON) -B tests/check_citation.py CITATION.cff

# The registered claims (paper/claims-registered.csv) are exactly what the
# registration's commit (paper/registration.csv) held as paper/claims.csv.
REGISTERED_AT = $(shell awk -F, '$$1=="commit"{print $$2}' paper/registration.csv)
check-registration:
	@if ! git rev-parse --git-dir >/dev/null 2>&1; then \
	  echo "check-registration: not a git checkout; the registration cannot be checked"; exit 1; fi
	@git show $(REGISTERED_AT):paper/claims.csv | cmp -s - paper/claims-registered.csv || { \
	  echo "check-registration: paper/claims-registered.csv is not paper/claims.csv as of" \
	       "$(REGISTERED_AT)"; exit 1; }
	@git show $(REGISTERED_AT):paper/registered-chunks.csv | cmp -s - paper/registered-chunks.csv || { \
	  echo "check-registration: paper/registered-chunks.csv is not as registered at" \
	       "$(REGISTERED_AT)"; exit 1; }
	@echo "check-registration: the registered claims are those of $(REGISTERED_AT)"

# Every file includes, and every library needs, only the layers its unit may
# use (USES_<layer>, LAYERS_<program>, TEST_LAYERS_<test> above); a header of
# a higher layer included, or a symbol only a higher library defines, fails
# with the file and line or the two libraries (tests/check_layers.py, nm).
comma := ,
empty :=
space := $(empty) $(empty)
layer_closure = $(subst $(space),$(comma),$(strip $(sort $(1) $(foreach U,$(1),$(USES_$(U))))))
LAYER_UNITS = $(foreach L,$(LAYERS),$(L):$(subst $(space),$(comma),$(strip $(USES_$(L))))) \
  code/tools/kernel.c:$(call layer_closure,$(LAYERS_ipctax-kernel)) \
  code/tools/record.c:$(call layer_closure,$(LAYERS_ipctax-record)) code/tools/tangle.c:util \
  code/tools/datapackage.c:$(call layer_closure,$(LAYERS_ipctax-datapackage)) \
  code/tools/pack.c:$(call layer_closure,$(LAYERS_ipctax-pack)) \
  code/tools/publish.c:$(call layer_closure,$(LAYERS_ipctax-publish)) \
  $(foreach T,$(TESTS) drive_engine,tests/$(T).c:$(call layer_closure,$(TEST_LAYERS_$(T))))
check-layers: $(foreach L,$(LAYERS),$(BUILD)/lib$(L).a)
	$(PYTHON) tests/check_layers.py $(BUILD) $(LAYER_UNITS)

# A function over 40 lines is told as named steps inside its body, as the
# book tells serve_frames; a body the book shows longer stops the build
# (tests/check_steps.py, which tests itself first).
check-steps:
	@$(PYTHON) -B tests/check_steps.py --self-test
	@$(PYTHON) -B tests/check_steps.py $(CHAPTERS)

# Each C file the book presents shows its entry point right after its
# skeleton, then the helpers it uses (tests/check_order.py, which tests
# itself first).
check-order:
	@$(PYTHON) -B tests/check_order.py $(CHAPTERS)

# The schema of data/ as a Frictionless Data Package (paper/90-appendix-report.md),
# and data/README.md against it: every file and column the schema names is
# described there, and every file of data/ is one the schema names.
$(BUILD)/datapackage.json: $(BUILD)/ipctax-datapackage
	$(BUILD)/ipctax-datapackage > $@.tmp && mv $@.tmp $@
check-data-readme: $(BUILD)/datapackage.json
	$(PYTHON) tests/check_data_readme.py data $(BUILD)/datapackage.json

# The engine under valgrind serves echo, sweeps, the stateful opcodes and
# bad frames (tests/drive_engine.c), then stops on SIGTERM; any error, or any
# definitely or indirectly lost byte, fails.
check-valgrind: $(BUILD)/ipctax-engine $(BUILD)/tests/drive_engine
	tests/check_valgrind.sh $(BUILD)/ipctax-engine $(BUILD)/tests/drive_engine $(BUILD)/valgrind

# The Python side (paper/37-numba.md, paper/58-python-client.md): the numba
# kernel against the C one, the client and the worker against a real engine.
# Debian's numpy and numba are /usr/bin/python3's; -B and
# PYTHONDONTWRITEBYTECODE keep __pycache__ out of code/ and tests/. The last
# line says how many tests ran and names any that were skipped, and why.
PY_TEST_LOG := $(BUILD)/check-python.log
check-python: $(BUILD)/ipctax-engine $(BUILD)/ipctax-bench $(BUILD)/datapackage.json
	@mkdir -p $(BUILD)
	@PYTHONDONTWRITEBYTECODE=1 IPCTAX_ROOT=$(CURDIR) IPCTAX_ENGINE=$(CURDIR)/$(BUILD)/ipctax-engine \
	  IPCTAX_BENCH=$(CURDIR)/$(BUILD)/ipctax-bench \
	  $(PYTHON) -B -m unittest discover -s tests/python -v 2>&1 | tee $(PY_TEST_LOG); \
	  status=$${PIPESTATUS[0]}; \
	  ran=$$(grep -E '^Ran [0-9]+ tests?' $(PY_TEST_LOG)); \
	  verdict=$$(grep -E '^(OK|FAILED)' $(PY_TEST_LOG) | tail -1); \
	  skipped=$$(grep -oE "skipped '[^']*'" $(PY_TEST_LOG) | sort -u | paste -sd ';' -); \
	  if [ $$status = 0 ]; then \
	    echo "check-python: $$ran, $$verdict$${skipped:+ - $$skipped}"; \
	  else echo "check-python: FAILED: $$ran, $$verdict (see $(PY_TEST_LOG))"; exit 1; fi

# The Python client, for use outside the tree (README.md). With VENV=DIR it is
# a package (code/python/pyproject.toml) that pip installs into the virtual
# environment DIR, made first if it is not there; --system-site-packages lets
# it see Debian's numpy and setuptools, so the install is offline
# (--no-index, --no-build-isolation). pip builds in the folder it is given,
# so it is given a copy in build/, and code/ gets no build files.
# Without VENV: PEP 668 forbids pip into Debian's python3, not a file copied
# into a site directory that it already searches: the user's own by default,
# $(PREFIX)/lib/python3.X/dist-packages with PREFIX (on Debian's path for
# PREFIX=/usr/local; elsewhere add it to PYTHONPATH). One file, not a .pth
# naming code/python: that folder also holds worker.py and kernel_numba.py,
# whose names would shadow others' modules.
PY_VERSION = $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PY_SITE = $(if $(PREFIX),$(PREFIX)/lib/python$(PY_VERSION)/dist-packages,$(shell $(PYTHON) -m site --user-site))
PY_PACKAGE := $(BUILD)/python-package
install-python:
ifdef VENV
	@rm -rf $(PY_PACKAGE) && mkdir -p $(PY_PACKAGE)
	cp code/python/ipctax_client.py code/python/pyproject.toml $(PY_PACKAGE)/
	@[ -x '$(VENV)/bin/pip' ] || $(PYTHON) -m venv --system-site-packages '$(VENV)'
	'$(VENV)/bin/pip' install --quiet --no-build-isolation --no-index $(PY_PACKAGE)
	@echo "install-python: ipctax_client into the virtual environment $(VENV) (import ipctax_client)"
else
	install -D -m 0644 code/python/ipctax_client.py $(PY_SITE)/ipctax_client.py
	@echo "install-python: $(PY_SITE)/ipctax_client.py (import ipctax_client)"
endif

test: deps-test check-tangle check-layers check-steps check-order unit-tests check-sanitize check-valgrind check-cff check-python \
      check-browser check-bibtex check-data-readme check-registration check-weave-failure \
      check-publish check-reproduction check-any-text check-when check-provenance check-index
	@echo "test: every check passed"

# --- Measure -----------------------------------------------------------------
# The harness writes a whole run into a staging folder, and the load test,
# valgrind and the numpy oracle add their files to it; their raw key-value
# output goes beside it, not into it. Then `ipctax-summary --install` carries
# over data/'s files that are not of a run (README.md, original.csv,
# fuzz.csv), writes the run's manifest, checks the staged folder exactly as
# the weave will read it, and only then exchanges it with data/ in one rename
# (paper/90-appendix-report.md, "The manifest"): a failed or interrupted run
# leaves data/ as it was, and data/ is never a mixture of two runs. The
# previous data/ is kept in build/data.previous.
ifdef QUICK
BENCH_ARGS ?= --bars 20000 --rounds 6 --scale 0.1
else
BENCH_ARGS ?=
endif
STAGE := $(BUILD)/run
STAGE_KV := $(BUILD)/run-kv

PLAN := $(BUILD)/plan/units.txt     # the plan's rule is below, after the kept runs' stamp

measure: all $(BUILD)/tests/test_load $(BUILD)/tests/drive_engine $(PLAN)
	@rm -rf $(STAGE) $(STAGE_KV) && mkdir -p $(STAGE) $(STAGE_KV)
	$(BUILD)/ipctax-bench --out $(STAGE) $$(sed 's/^./--units &/' $(PLAN)) $(BENCH_ARGS)
	IPCTAX_ROOT=$(CURDIR) IPCTAX_LOAD_OUT=$(STAGE_KV)/load.kv $(BUILD)/tests/test_load
	$(BUILD)/ipctax-record $(STAGE)/load.csv < $(STAGE_KV)/load.kv
	VALGRIND_OUT=$(STAGE_KV)/valgrind.kv tests/check_valgrind.sh $(BUILD)/ipctax-engine \
	  $(BUILD)/tests/drive_engine $(BUILD)/valgrind
	$(BUILD)/ipctax-record $(STAGE)/valgrind.csv < $(STAGE_KV)/valgrind.kv
	$(PYTHON) tests/reference/spec_numpy.py $(STAGE)/sweep.csv \
	  "$$(awk -F, '$$1=="bars"{print $$2}' $(STAGE)/run.csv)" $(STAGE_KV)/oracle.kv
	$(BUILD)/ipctax-record $(STAGE)/oracle.csv < $(STAGE_KV)/oracle.kv
	$(BUILD)/ipctax-summary --install $(STAGE) data
	@rm -rf $(BUILD)/data.previous $(STAGE_KV) && mv $(STAGE) $(BUILD)/data.previous
	@echo "measure: data/ replaced, whole, by the run just made (the previous one is in $(BUILD)/data.previous)"

check-spec:
	$(PYTHON) tests/reference/spec_numpy.py data/sweep.csv \
	  "$$(awk -F, '$$1=="bars"{print $$2}' data/run.csv)"

# --- Weave -------------------------------------------------------------------
# Dates inside PDFs come from SOURCE_DATE_EPOCH, by default the time of the
# measurement, so weaving the same data twice gives the same bytes.
PDF_EPOCH = $${SOURCE_DATE_EPOCH:-$$(awk -F, '$$1=="date_epoch"{print $$2}' data/machine.csv)}
WOVEN := $(BUILD)/woven
DATA_FILES = $(wildcard data/*.csv)
FIGURE_SCRIPTS := $(wildcard figures/*.gp)
# Where each number comes from, as one table (paper/90-appendix-report.md,
# "Where each number comes from"): paper/provenance.csv's rows, which every
# chapter relies on, then the rows of each chapter's provenance blocks, in
# the order of CHAPTERS; the tangler gathers them, and stops on a row of
# another width than the header's, naming its chapter and line. Every
# reader of the table (values.lua, chunks.lua, the checks, test_analysis)
# reads this one, so it is made with the programs.
PROVENANCE := $(WOVEN)/provenance.csv
$(PROVENANCE): $(BUILD)/tangle paper/provenance.csv $(CHAPTERS)
	@mkdir -p $(@D)
	@$(BUILD)/tangle --provenance paper/provenance.csv $(CHAPTERS) > $@.new || { rm -f $@.new; exit 1; }
	@mv $@.new $@
all: $(PROVENANCE)
WEAVE_INPUTS := paper/metadata.yaml $(CHAPTERS) paper/references.bib $(PROVENANCE) \
                CITATION.cff $(wildcard paper/filters/*.lua paper/web/* paper/latex/*)

# A weave is written whole into a staging folder, site/ and figures/ as
# they will be, and published only when every part of it was made: a weave
# that fails or is interrupted before that leaves the previous site/ and
# figures/ as they were (each file is then replaced by a rename, so none is
# ever half written). WEAVE_SITE and WEAVE_FIGURES say where it publishes;
# the weave's own test points them elsewhere (check-weave-failure).
STAGE_WEAVE := $(BUILD)/weave
STAGED_SITE := $(STAGE_WEAVE)/site
STAGED_FIGURES := $(STAGE_WEAVE)/figures
WEAVE_SITE ?= site
WEAVE_FIGURES ?= figures
FIGURE_NAMES := $(notdir $(FIGURE_SCRIPTS:.gp=))
STAGED_FIGURE_FILES := $(FIGURE_NAMES:%=$(STAGED_FIGURES)/%.svg) \
                       $(FIGURE_NAMES:%=$(STAGED_FIGURES)/%.pdf) $(STAGED_FIGURES)/data.stamp
STAGED_SITE_FILES := $(STAGED_SITE)/index.html $(STAGED_SITE)/paper.pdf \
                     $(STAGED_SITE)/book.pdf $(STAGED_SITE)/values.csv $(STAGED_SITE)/files.stamp

# The published run is data/ as committed (git HEAD); it is summarized on
# its own and compared with whatever data/ holds now, which after `make
# paper` is this machine's run. A clone without git history compares the
# data with itself. Its summary is kept in build/published/ and made again
# only when what it is made from changed: the published data (git's id of
# HEAD's data/, or data/'s manifest without git), the summarizer, the
# registry. An older layout that the summarizer cannot read leaves a summary
# with no values, kept like any other, and the comparison says so.
PUBLISHED := $(BUILD)/published
PUBLISHED_STAMP := $(BUILD)/published.stamp
REGISTRY_FILES := $(wildcard paper/claims*.csv paper/deviations.csv paper/registration.csv \
  paper/registered-chunks.csv)
$(PUBLISHED_STAMP): FORCE
	@mkdir -p $(@D)
	@id=$$(git rev-parse -q --verify 'HEAD:data' 2>/dev/null || sha256sum < data/manifest.csv); \
	echo "$$id" | cmp -s - $@ || echo "$$id" > $@
$(PUBLISHED)/woven/values.csv: $(PUBLISHED_STAMP) $(BUILD)/ipctax-summary $(REGISTRY_FILES)
	@rm -rf $(PUBLISHED) && mkdir -p $(PUBLISHED)/woven
	@if git ls-files --error-unmatch data/machine.csv >/dev/null 2>&1; then \
	  git archive HEAD data | tar -x -C $(PUBLISHED); else cp -r data $(PUBLISHED)/; fi
	@$(BUILD)/ipctax-summary $(PUBLISHED)/data $(PUBLISHED)/woven >/dev/null 2>&1 || { \
	  echo "note: the published data/ could not be fully summarized (an older layout?)"; \
	  [ -s $@ ] || echo "key,value" > $@; }
# What reproductions/ holds, as one stamp that changes when a kept run does:
# the names, lengths and times of its entries as find lists them. A kept
# run's folder is named by whoever made it, so its name is only ever data
# here, never a word of a rule: a colon in it made every target fail
# ("multiple target patterns"), a space stopped the weave.
REPRODUCTIONS_STAMP := $(BUILD)/reproductions.stamp
# Each kept run's summary, kept by the plan and read back by the weave
# while the run, the claims and the summary program are unchanged.
KEPT_SUMMARIES := $(BUILD)/kept
$(REPRODUCTIONS_STAMP): FORCE
	@mkdir -p $(@D)
	@find reproductions -printf '%P %s %T@\n' 2>/dev/null | sort > $@.new; \
	cmp -s $@.new $@ && rm -f $@.new || mv -f $@.new $@
# The plan (paper/90-appendix-report.md, "The plan"): the units each row
# needs for the claims resting on it, from the kept runs' intervals; made
# again only when they, the claims or the summary change. It names only the
# rows whose units differ from the rounds' default, so it may be empty.
$(PLAN): $(BUILD)/ipctax-summary $(REPRODUCTIONS_STAMP) paper/claims.csv
	@mkdir -p $(@D)
	@echo "plan: the kept runs' intervals, claim by claim (a second or two a kept run, once)"
	$(BUILD)/ipctax-summary --kept-summaries $(KEPT_SUMMARIES) --plan reproductions $(@D) \
	  > $@.new && mv $@.new $@
	@echo "plan: $$(cat $@ | sed 's/^$$/every row at its default/')"

# Every chunk's digest, for the chunks the registration holds
# (paper/registered-chunks.csv): the summary stops on one that changed
# without a deviation naming its new digest.
CHUNK_HASHES := $(BUILD)/chunk-hashes.csv
$(CHUNK_HASHES): $(BUILD)/tangle $(CHAPTERS)
	@{ echo chunk,sha256; $(BUILD)/tangle --hashes $(CHAPTERS); } > $@.new && mv $@.new $@

# The digests of the registered chunks as the chapters have them now:
# run only when registering (paper/registration.csv's commit moves with it).
register-chunks: $(CHUNK_HASHES)
	@awk -F, 'NR == FNR { h[$$1] = $$2; next } FNR == 1 { print; next } \
	  { if (!($$2 in h)) { print "register-chunks: no chunk " $$2 > "/dev/stderr"; exit 1 } \
	    print $$1 "," $$2 "," h[$$2] }' $(CHUNK_HASHES) paper/registered-chunks.csv \
	  > paper/registered-chunks.csv.new && mv paper/registered-chunks.csv.new paper/registered-chunks.csv
	@echo "register-chunks: paper/registered-chunks.csv holds the chapters' digests now"

$(WOVEN)/values.csv: $(BUILD)/ipctax-summary $(DATA_FILES) $(REPRODUCTIONS_STAMP) \
  $(REGISTRY_FILES) $(CHUNK_HASHES) $(PUBLISHED)/woven/values.csv
	$(BUILD)/ipctax-summary --reproductions reproductions --kept-summaries $(KEPT_SUMMARIES) \
	  --chunk-hashes $(CHUNK_HASHES) data $(WOVEN) $(PUBLISHED)/woven

# The comparison of the last summary, made again only if what it reads
# changed: the kept runs' summaries are kept too (paper/96-reproductions.md),
# so this takes seconds once data/ has been summarized.
compare: all
	@$(MAKE) --no-print-directory $(WOVEN)/values.csv >/dev/null
	@cat $(WOVEN)/compare.txt

# The project's address: CITATION.cff's repository-code, the one place it
# is kept (paper/filters/reader.lua reads it there for the page and the
# PDFs), or nothing while the project has none.
PROJECT_ADDRESS := $(shell sed -n 's/^repository-code: *"\{0,1\}\([^"]*\)"\{0,1\} *$$/\1/p' CITATION.cff 2>/dev/null)
define say-where-to-send
	if [ -n "$(PROJECT_ADDRESS)" ]; then \
	  echo "  Send it to the project at $(PROJECT_ADDRESS) (attach it to an issue, or as its"; \
	  echo "  README says), with a line on the machine and the conditions."; \
	else \
	  echo "  This copy names no address to send it to: CITATION.cff has no repository-code"; \
	  echo "  yet. Send it to whoever gave you the repository."; \
	fi
endef

# A run of this machine kept beside the published one (paper/96-reproductions.md):
# reproductions/ID/, ID from the machine and the date unless ID= says;
# BY= who made it (git's user.name unless said), CONDITIONS= how (a load on
# purpose, say). data/ is not changed, an ID that exists is refused, and the
# kept run is also written as one file to send, build/reproduction-ID.tar.
# ID=, BY= and CONDITIONS= reach the program through its environment, taken
# as written ($(value ...)), never through a shell's parsing: an
# apostrophe, a dollar or a quote is kept, and nothing in them runs.
.PHONY: reproduction receive
reproduction: export IPCTAX_ID := $(value ID)
reproduction: export IPCTAX_BY := $(value BY)
reproduction: export IPCTAX_CONDITIONS := $(value CONDITIONS)
reproduction: $(BUILD)/ipctax-summary
	@by=$${IPCTAX_BY:-$$(git config user.name 2>/dev/null)}; \
	out=$$($(BUILD)/ipctax-summary --reproduction data reproductions --id "$$IPCTAX_ID" \
	  --by "$$by" --conditions "$$IPCTAX_CONDITIONS" --pack $(BUILD)) || exit 1; \
	{ read -r dir; read -r file; read -r kind; } <<< "$$out"; \
	echo "reproduction: the run in data/ is kept as $$dir ($$kind)"; \
	case "$$kind" in reduced*) echo "  A reduced run is kept apart from the full runs in the paper's tables.";; esac; \
	echo "reproduction: and as one file to send: $$file ($$(du -k "$$file" | cut -f1) KB)"; \
	$(say-where-to-send); \
	echo "  The project adds it with: make receive FILE=$${file##*/}"; \
	echo "make weave sets it beside the others here, claim by claim."

# The other side: a file that `make reproduction` wrote, checked (every
# member, every file against the manifest, every check a run gets) and
# kept as reproductions/ID; refused, naming the file, when any check fails.
receive: export IPCTAX_FILE := $(value FILE)
receive: $(BUILD)/ipctax-summary
	@if [ -z "$$IPCTAX_FILE" ]; then \
	  echo "receive: name the file: make receive FILE=path/to/reproduction-ID.tar"; exit 2; fi
	@dir=$$($(BUILD)/ipctax-summary --receive "$$IPCTAX_FILE" reproductions) || exit 1; \
	echo "receive: $$IPCTAX_FILE is whole; its run is kept as $$dir"; \
	echo "  make weave sets it beside the others; git add \"$$dir\" && git commit publishes it."

# Figure scripts set no terminal: the same script draws the page's SVG and
# the paper's PDF. The font is named, and comes from fonts-dejavu-core, so
# the figures are the same bytes whatever other fonts a machine has.
#
# Text is printed as written (noenhanced): most of a figure's text is names
# from data/ (per_bar_unix, batch_tcp) and titles, where an underscore or a
# caret is a character, not a subscript or a superscript. What enhanced text
# was used for, powers of ten on a log axis, the preamble gives every script
# without it: `@LOG_X` (likewise LOG_Y, LOG_X2, LOG_Y2) labels the decades
# 10⁻¹², ..., 10¹² in Unicode superscripts (DejaVu Sans has them), in place
# of `set format x "10^{%T}"`; sup(n) is the function behind it.
FIGURE_FONT := DejaVu Sans
GNUPLOT_PREAMBLE := set encoding utf8; \
  supd(d) = word('⁰ ¹ ² ³ ⁴ ⁵ ⁶ ⁷ ⁸ ⁹', d + 1); \
  sup(n) = n < 0 ? '⁻'.sup(-n) : (n < 10 ? supd(n) : sup(int(n / 10)).supd(n % 10)); \
  LOG_X = \"set format x ''; set for [k=-12:12] xtics add (sprintf('10%s', sup(k)) 10.0**k)\"; \
  LOG_Y = \"set format y ''; set for [k=-12:12] ytics add (sprintf('10%s', sup(k)) 10.0**k)\"; \
  LOG_X2 = \"set format x2 ''; set for [k=-12:12] x2tics add (sprintf('10%s', sup(k)) 10.0**k)\"; \
  LOG_Y2 = \"set format y2 ''; set for [k=-12:12] y2tics add (sprintf('10%s', sup(k)) 10.0**k)\"
GNUPLOT := gnuplot -e "DATA='data'; WOVEN='$(WOVEN)'; $(GNUPLOT_PREAMBLE)"
$(STAGED_FIGURES)/%.svg: figures/%.gp $(WOVEN)/values.csv
	@mkdir -p $(@D)
	$(GNUPLOT) -e "set terminal svg size 760,440 dynamic noenhanced mouse font '$(FIGURE_FONT),13' \
	  background rgb 'white'; set output '$@'" $<
# cairo stamps each PDF with the time it was drawn and ignores
# SOURCE_DATE_EPOCH; the stamp is rewritten, at the same length, to the
# measurement's time, so the same data gives the same bytes.
# A figure's height in the PDFs: 8.8 cm unless it says otherwise; those
# with few rows or points are shorter, so Part I keeps its page bound.
PDF_FIGURE_HEIGHT = $(or $(PDF_FIGURE_HEIGHT_$(1)),8.8cm)
PDF_FIGURE_HEIGHT_roofline := 6cm
PDF_FIGURE_HEIGHT_breakeven := 7cm
PDF_FIGURE_HEIGHT_model := 7cm
PDF_FIGURE_HEIGHT_echo := 7.5cm
$(STAGED_FIGURES)/%.pdf: figures/%.gp $(WOVEN)/values.csv
	@mkdir -p $(@D)
	$(GNUPLOT) -e "set terminal pdfcairo size 15cm,$(call PDF_FIGURE_HEIGHT,$*) noenhanced font '$(FIGURE_FONT),9'; \
	  set output '$@'" $<
	stamp=$$(date -u -d "@$(PDF_EPOCH)" +%Y%m%d%H%M%S) && \
	  perl -pi -e "s/\/CreationDate \(D:\d{14}Z\)/\/CreationDate (D:$${stamp}Z)/" $@

# Each figure's data, committed beside it: the files of the summary that
# its script plots (WOVEN."/NAME.csv"), as figures/NAME.csv. The files of
# data/ it plots are in data/ already. figures.lua finds both the same way,
# in the script, and links them under the figure.
FIGURE_DATA_RE := WOVEN\.["'"'"']/[A-Za-z0-9_.-]+\.csv
$(STAGED_FIGURES)/data.stamp: $(FIGURE_SCRIPTS) $(WOVEN)/values.csv
	@mkdir -p $(@D)
	@for f in $$(grep -ohE "$(FIGURE_DATA_RE)" $(FIGURE_SCRIPTS) | sed 's,.*/,,' | sort -u); do \
	  cp $(WOVEN)/$$f $(@D)/$$f || exit 1; done
	@touch $@

# The commit the weave's sources come from: the last commit that changed
# anything but data/ and the woven outputs (site/, the figures' SVG, PDF
# and data), so that committing a fresh weave or a new run does not change
# it; "-dirty" only when those sources differ from it. The data is named
# apart: the commit it was measured at (machine.commit) and, when data/ is
# as committed, the commit that committed it, or else "not committed" (a
# reader's own run after `make paper`). The page and the PDFs cite both.
WEAVE_SOURCES := . $(OUTPUTS_EXCLUDED)
WEAVE_COMMIT := $(shell c=$$(git log -1 --format=%H -- $(WEAVE_SOURCES) 2>/dev/null | cut -c1-12); \
  if [ -z "$$c" ]; then echo unknown; \
  else git diff --quiet HEAD -- $(WEAVE_SOURCES) 2>/dev/null && echo $$c || echo $$c-dirty; fi)
DATA_STATE := $(shell c=$$(git log -1 --format=%H -- data 2>/dev/null | cut -c1-12); \
  if [ -z "$$c" ]; then echo "not committed"; \
  elif git diff --quiet HEAD -- data 2>/dev/null && \
       [ -z "$$(git ls-files --others --exclude-standard -- data 2>/dev/null)" ]; then \
    echo "committed in $$c"; else echo "not committed"; fi)
# The published data's state, for the citation of a copy woven from a
# reader's own run, which cites the published version (reader.lua).
PUBLISHED_DATA := $(shell c=$$(git log -1 --format=%H -- data 2>/dev/null | cut -c1-12); \
  [ -n "$$c" ] && echo "committed in $$c")

# The headers whose functions and types the book's index of identifiers
# lists (paper/filters/index.lua), as tangled.
INDEXED_HEADERS = $(sort $(wildcard code/*/*.h))
# IPCTAX_EDITION (paper/filters/edition.lua): "book", everything, or
# "paper", Part I and its references alone. IPCTAX_FIGURES: the folder the
# figures are read from, the weave's own (FIGURES_READ; the browser check
# reads the committed ones).
FIGURES_READ = $(STAGED_FIGURES)
#
# Each chapter is read on its own into $(WOVEN)/ast/ and the first filter
# joins them (paper/filters/chapters.lua says why: pandoc reads the chapters
# as one text far more slowly than one by one); pandoc itself is given only
# the metadata and WEAVE_EXTRA, a chapter a test adds.
CHAPTER_ASTS := $(CHAPTERS:paper/%.md=$(WOVEN)/ast/%.json)
$(WOVEN)/ast/%.json: paper/%.md
	@mkdir -p $(@D)
	pandoc $< --from markdown --to json -o $@
PANDOC = IPCTAX_WOVEN=$(WOVEN) IPCTAX_PROVENANCE=$(PROVENANCE) IPCTAX_WEAVE_COMMIT=$(WEAVE_COMMIT) \
  IPCTAX_DATA_STATE="$(DATA_STATE)" IPCTAX_PUBLISHED_DATA="$(PUBLISHED_DATA)" \
  IPCTAX_FIGURES=$(FIGURES_READ) \
  IPCTAX_CHAPTER_ASTS="$(CHAPTER_ASTS)" \
  IPCTAX_DATA_FILES="$(sort $(DATA_FILES))" IPCTAX_HEADERS="$(INDEXED_HEADERS)" \
  pandoc paper/metadata.yaml $(WEAVE_EXTRA) \
  --from markdown --number-sections --resource-path=. \
  --lua-filter paper/filters/chapters.lua --lua-filter paper/filters/index.lua \
  --lua-filter paper/filters/reader.lua \
  --lua-filter paper/filters/values.lua --lua-filter paper/filters/crossref.lua \
  --lua-filter paper/filters/chunks.lua --lua-filter paper/filters/edition.lua \
  --citeproc --bibliography paper/references.bib \
  --lua-filter paper/filters/figures.lua --lua-filter paper/filters/head.lua
# Math as MathML: the page stays one file and needs no script for it. The
# filters put everything else the page needs into it (figures, style sheet,
# scripts), so no --self-contained pass is needed: that pass parses the
# whole page again and writes every quote in the code as an entity.
PANDOC_HTML = $(PANDOC) --to html5 --standalone --toc --toc-depth 2 --mathml

# pandoc writes the page whole; ipctax-pack then packs Parts II and III
# into it, gzipped (paper/97-appendix-page.md), so that the one offline
# file stays under its size cap.
$(STAGED_SITE)/index.html: $(WEAVE_INPUTS) $(CHAPTER_ASTS) $(WOVEN)/values.csv \
                           $(STAGED_FIGURE_FILES) $(BUILD)/ipctax-pack
	@mkdir -p $(@D) $(WOVEN)
	$(PANDOC_HTML) -o $(WOVEN)/index.whole.html
	$(BUILD)/ipctax-pack $(WOVEN)/index.whole.html $@

# The values the page's numbers are read from, published beside it: a
# number's panel names its key in this file.
$(STAGED_SITE)/values.csv: $(WOVEN)/values.csv
	@mkdir -p $(@D)
	cp $< $@

# What the page links to travels with it, so that site/ served on its own
# (or copied anywhere) keeps every link: the data it was woven from
# (site/data/, with data/README.md), every table's file (site/tables/) and
# every figure's data (site/figures/). In git they cost nothing more: the
# same bytes are one object, whichever folder holds them.
define site-files
	@rm -rf $(1)/data $(1)/tables $(1)/figures && mkdir -p $(1)/data $(1)/tables $(1)/figures
	@cp data/*.csv data/README.md $(1)/data/
	@cp $(WOVEN)/tables/*.csv $(1)/tables/
	@for f in $$(grep -ohE "$(FIGURE_DATA_RE)" $(FIGURE_SCRIPTS) | sed 's,.*/,,' | sort -u); do \
	  cp $(WOVEN)/$$f $(1)/figures/$$f || exit 1; done
endef
$(STAGED_SITE)/files.stamp: $(WOVEN)/values.csv $(DATA_FILES) $(FIGURE_SCRIPTS)
	$(call site-files,$(STAGED_SITE))
	@touch $@

# The PDFs: pandoc writes the LaTeX of each edition, and pdflatex runs in
# build/woven/latex until the cross-references have settled (the .aux, .toc
# and .out files are the same after a run as before it): the contents and
# the page references move the pages, so this takes more runs than
# pandoc's own PDF step makes. More than LATEX_RUNS runs is an error. The
# log stays there (EDITION.log) for a reader who asks.
#
# book.pdf is the whole book, its contents listing parts and chapters (one
# page; the page's sidebar also lists sections). paper.pdf is Part I with
# its references, for a reviewer: the same title, abstract and boxes, no
# contents, at most PAPER_MAX_PAGES pages (the weave fails past that); its
# links into the program open book.pdf at the chunk or section.
LATEX_DIR := $(WOVEN)/latex
LATEX_RUNS := 8
# Part I in one sitting: at most sixteen pages. It opens on its claims;
# the claims' reasons, the across-runs table, two figures, a table and the
# histories of earlier versions live in the book, which Part I links to.
# A copy woven from another run than the published one (a reader's, or
# CI's reduced run) also carries its comparison with the published run,
# a box and a wider claims table, and may take one page more.
PAPER_MAX_PAGES := 16
PAPER_MAX_PAGES_OTHER_RUN := 17
# ... and at most this many words of prose, tables, figures and captions
# apart (paper/filters/edition.lua counts them into paper-words.txt).
# A copy of another run carries its comparison with the published run
# and the reader's boxes, as it may carry a page more.
PAPER_MAX_WORDS := 8000
PAPER_MAX_WORDS_OTHER_RUN := 8400
PDFLATEX := pdflatex -interaction=nonstopmode -halt-on-error -output-directory=$(LATEX_DIR)
LATEX_OPTIONS := --to latex --standalone -H paper/latex/preamble.tex \
  -V geometry:a4paper,margin=2cm -V fontsize=10pt -V colorlinks=true -V linkcolor=blue
LATEX_OPTIONS_book := --toc --toc-depth 1
LATEX_OPTIONS_paper :=

$(LATEX_DIR)/%.tex: $(WEAVE_INPUTS) $(CHAPTER_ASTS) $(WOVEN)/values.csv $(STAGED_FIGURE_FILES)
	@mkdir -p $(@D)
	IPCTAX_EDITION=$* $(PANDOC) $(LATEX_OPTIONS) $(LATEX_OPTIONS_$*) -o $@

$(STAGED_SITE)/%.pdf: $(LATEX_DIR)/%.tex
	@mkdir -p $(@D)
	@export SOURCE_DATE_EPOCH="$(PDF_EPOCH)" FORCE_SOURCE_DATE=1; \
	rm -f $(LATEX_DIR)/$*.aux $(LATEX_DIR)/$*.toc $(LATEX_DIR)/$*.out; prev=; \
	for run in $$(seq 1 $(LATEX_RUNS)); do \
	  echo "pdflatex $(LATEX_DIR)/$*.tex (run $$run)"; \
	  $(PDFLATEX) $(LATEX_DIR)/$*.tex > /dev/null 2>&1 || { \
	    grep -A12 '^!' $(LATEX_DIR)/$*.log | head -40; exit 1; }; \
	  sum=$$(cat $(LATEX_DIR)/$*.aux $(LATEX_DIR)/$*.toc $(LATEX_DIR)/$*.out \
	         2>/dev/null | md5sum); \
	  if [ "$$sum" = "$$prev" ]; then break; fi; prev=$$sum; \
	  if [ $$run = $(LATEX_RUNS) ]; then \
	    echo "pdflatex: the references did not settle in $(LATEX_RUNS) runs"; exit 1; fi; \
	done
	@pages=$$(sed -n 's/^Output written on .*(\([0-9]*\) pages\?,.*/\1/p' $(LATEX_DIR)/$*.log); \
	echo "$*.pdf: $$pages pages"; \
	most=$(PAPER_MAX_PAGES); \
	grep -q '^compare.same_run,yes$$' $(WOVEN)/values.csv || most=$(PAPER_MAX_PAGES_OTHER_RUN); \
	if [ "$*" = paper ] && [ "$${pages:-999}" -gt $$most ]; then \
	  echo "paper.pdf: $$pages pages, more than $$most"; exit 1; fi
	@if [ "$*" = paper ]; then tests/check_table_pages.sh $(LATEX_DIR)/paper.aux; fi
	@if [ "$*" = paper ] && grep -q 'Overfull \\hbox.*in alignment' $(LATEX_DIR)/paper.log; then \
	  echo "paper.pdf: a table is wider than the page (Overfull \\hbox in an alignment):"; \
	  grep -A1 'Overfull \\hbox.*in alignment' $(LATEX_DIR)/paper.log; exit 1; fi
	@if [ "$*" = paper ]; then words=$$(cat $(WOVEN)/paper-words.txt 2>/dev/null); \
	  echo "paper.pdf: $${words:-no count of} words of prose"; \
	  most=$(PAPER_MAX_WORDS); \
	  grep -q '^compare.same_run,yes$$' $(WOVEN)/values.csv || most=$(PAPER_MAX_WORDS_OTHER_RUN); \
	  if [ "$${words:-999999}" -gt $$most ]; then \
	    echo "paper.pdf: more than $$most words of prose"; exit 1; fi; fi
	@if grep -q 'Overfull \\vbox.*while \\output is active' $(LATEX_DIR)/$*.log; then \
	  echo "$*.pdf: a page overflowed its foot (Overfull \\vbox in the output routine):"; \
	  grep -A2 'Overfull \\vbox.*while \\output is active' $(LATEX_DIR)/$*.log; exit 1; fi
	cp $(LATEX_DIR)/$*.pdf $@

# Publishes the staged site and figures together, all or nothing
# (paper/98-appendix-publish.md): every file is copied beside its place
# and flushed, and only when every copy of both folders is whole are they
# renamed into place; a full disk leaves both as they were, and no copy.
PUBLISH_SITE = $(STAGED_SITE) $(WEAVE_SITE) html,pdf,csv \
  $(STAGED_SITE)/data $(WEAVE_SITE)/data csv,md $(STAGED_SITE)/tables $(WEAVE_SITE)/tables csv \
  $(STAGED_SITE)/figures $(WEAVE_SITE)/figures csv
PUBLISH_FIGURES = $(STAGED_FIGURES) $(WEAVE_FIGURES) svg,pdf,csv

# Weaving always starts from data/: the summary, the figures and the site
# are rebuilt even when make's timestamps would say they are current.
weave: all
	@rm -rf $(STAGE_WEAVE) $(WOVEN)/values.csv
	$(MAKE) --no-print-directory -j$(JOBS) $(STAGED_FIGURE_FILES) $(STAGED_SITE_FILES)
	$(BUILD)/ipctax-publish $(PUBLISH_SITE) $(PUBLISH_FIGURES)
	@echo "weave: $(WEAVE_SITE)/ and $(WEAVE_FIGURES)/ replaced by the weave in $(STAGE_WEAVE)"

# Only the figures, drawn and published the same way.
figures: all
	@rm -rf $(STAGED_FIGURES) $(WOVEN)/values.csv
	$(MAKE) --no-print-directory $(STAGED_FIGURE_FILES)
	$(BUILD)/ipctax-publish $(PUBLISH_FIGURES)

# A weave that fails late (a chapter asks for a value data/ lacks, here a
# chapter added for the test) must leave the site and the figures it would
# have replaced as they were. The test publishes into folders of its own.
WEAVE_FAILURE := $(BUILD)/weave-failure
check-weave-failure: all
	@rm -rf $(WEAVE_FAILURE) && mkdir -p $(WEAVE_FAILURE)/site $(WEAVE_FAILURE)/figures
	@for f in site/index.html site/paper.pdf figures/echo.svg; do \
	  echo "the previous $$f" > $(WEAVE_FAILURE)/$$f; done
	@printf '# A chapter that fails\n\nIt asks for [no.such.value]{.num}.\n' \
	  > $(WEAVE_FAILURE)/broken.md
	@if $(MAKE) --no-print-directory weave WEAVE_SITE=$(WEAVE_FAILURE)/site \
	     WEAVE_FIGURES=$(WEAVE_FAILURE)/figures WEAVE_EXTRA=$(WEAVE_FAILURE)/broken.md \
	     > $(WEAVE_FAILURE)/log 2>&1; then \
	  echo "check-weave-failure: the weave of a broken chapter succeeded"; exit 1; fi
	@grep -q 'no.such.value' $(WEAVE_FAILURE)/log || { \
	  echo "check-weave-failure: the weave failed, but not on the broken chapter:"; \
	  tail -20 $(WEAVE_FAILURE)/log; exit 1; }
	@for f in site/index.html site/paper.pdf figures/echo.svg; do \
	  [ "$$(cat $(WEAVE_FAILURE)/$$f 2>/dev/null)" = "the previous $$f" ] || { \
	    echo "check-weave-failure: a failed weave changed or removed $$f"; exit 1; }; done
	@n=$$(find $(WEAVE_FAILURE)/site $(WEAVE_FAILURE)/figures -type f | wc -l); [ "$$n" = 3 ] || { \
	  echo "check-weave-failure: a failed weave added files"; exit 1; }
	@echo "check-weave-failure: a weave that fails leaves the previous site/ and figures/ in place"

# Text no author wrote (a kept run's conditions, a machine's name), with
# characters the PDF's fonts lack or a character cut in two, weaves into
# the PDF through values.lua and the preamble (tests/check_any_text.py).
check-any-text: $(PROVENANCE)
	IPCTAX_PROVENANCE=$(PROVENANCE) $(PYTHON) -B tests/check_any_text.py

# A sentence a .when leaves out asks for no value, so that an older kept run
# weaves without the measurements made after it (tests/check_when.py).
check-when: $(PROVENANCE)
	IPCTAX_PROVENANCE=$(PROVENANCE) $(PYTHON) -B tests/check_when.py

# make reproduction and make receive as a contributor and a maintainer run
# them, in scratch copies (tests/check_reproduction.sh): hostile folder
# names, quotes in what they are given, the file sent and a tampered one.
check-reproduction: $(BUILD)/ipctax-summary
	tests/check_reproduction.sh . $(BUILD)/reproduction-check

# Publishing onto a disk that fills half-way changes nothing published and
# leaves no copy behind (tests/check_publish.sh, on a tmpfs of its own).
check-publish: $(BUILD)/ipctax-publish
	tests/check_publish.sh $(BUILD)/ipctax-publish $(BUILD)/publish-check

# What the summarizer computes and no chapter uses: the keys of values.csv
# that the last weave's used-keys.txt (values.lua) lacks, counted as
# published (a family of the table of provenance describes them) or computed
# for nobody (listed; a failure), and the tables no chapter shows
# (tests/unused_values.py). test_analysis holds every value a whole run
# gives to a family, without a weave.
unused-values: $(PROVENANCE)
	@test -s $(WOVEN)/used-keys.txt || { echo "unused-values: weave first (make weave)"; exit 1; }
	@$(PYTHON) -B tests/unused_values.py $(WOVEN) $(PROVENANCE)

# The committed site/ and figures/ must be what the committed paper/ and
# data/ weave, byte for byte (CI runs this on a clean clone).
check-woven: weave
	@git diff --quiet -- site figures && \
	  [ -z "$$(git ls-files --others --exclude-standard -- site figures)" ] || { \
	  git status --short -- site figures; \
	  echo "check-woven: site/ or figures/ differ from what paper/ and data/ weave;" \
	       "run make weave and commit them"; exit 1; }
	@echo "check-woven: site/ and figures/ are exactly what paper/ and data/ weave"

# Before anything is measured: every program and module the recipes run must
# come from a package this target installs (tests/check_packages.py).
check-packages:
	$(PYTHON) tests/check_packages.py $(PAPER_DEBS)

# It ends with the comparison of the run just made with the published one
# (paper/90-appendix-report.md): the results, the claims (the changed ones
# first, with the figures that explain them) and the command to run next.
# Ctrl-C says, by the stage it stopped, what was kept: a run reaches data/
# and a weave site/ only whole, so an interrupted stage left them as they
# were.
paper: deps-paper
	@stage=build; \
	trap 'echo; case $$stage in \
	  build) echo "paper: interrupted while building; nothing was measured, and data/ and site/ are as they were.";; \
	  measure) echo "paper: interrupted while measuring; data/ and site/ are as they were (the unfinished run in $(STAGE) is not kept).";; \
	  weave) echo "paper: interrupted while weaving; data/ holds the new run (the previous one is in $(BUILD)/data.previous), and site/ and figures/ are as they were: make weave finishes.";; \
	esac; exit 130' INT TERM; \
	t0=$$(date +%s); \
	$(MAKE) --no-print-directory check-packages && \
	$(MAKE) --no-print-directory -j$(JOBS) all $(BUILD)/tests/test_load $(BUILD)/tests/drive_engine && \
	t1=$$(date +%s) && stage=measure && $(MAKE) --no-print-directory $(PLAN) && \
	t2=$$(date +%s) && $(MAKE) --no-print-directory measure && \
	t3=$$(date +%s) && stage=weave && $(MAKE) --no-print-directory weave && \
	t4=$$(date +%s) && \
	echo "paper: built in $$((t1 - t0)) s, planned in $$((t2 - t1)) s," \
	  "measured in $$((t3 - t2)) s, woven in $$((t4 - t3)) s"
	@echo "paper: site/index.html, site/paper.pdf and site/book.pdf woven from data/"
	@! grep -q '^FAILED.*precondition' $(WOVEN)/claims.txt || { \
	  echo "paper: preconditions that failed (every verdict rests on them):"; \
	  grep '^FAILED.*precondition' $(WOVEN)/claims.txt | sed 's/^/  /'; }
	@echo
	@cat $(WOVEN)/compare.txt

# --- Browser check -------------------------------------------------------------
# Weaves the page into build/ from the committed figures (the checkout is not
# touched) and reads it as a reader would, in headless Chromium: no console
# errors, nothing fetched, interactive figures, folding chunks, every in-page
# link resolving, the page's weight, its layout at 1280 and 390 pixels, and
# the contrast of its text in the light and the dark scheme. Debian's
# chromium and chromedriver, driven by Debian's python3-selenium (so
# /usr/bin/python3). See tests/browser/.
# The page's values.csv is copied beside it, as the weave publishes it. The
# PDFs it checks (pages, parts) are the committed ones in site/, which
# check-woven holds to what the sources weave. Its values are the weave's
# own summary, beside the published run's, made only if it is not current.
TEST_PAGE := $(BUILD)/test-site/index.html
$(TEST_PAGE): FIGURES_READ = figures
$(TEST_PAGE): all $(CHAPTER_ASTS) FORCE
	@mkdir -p $(dir $(TEST_PAGE))
	@$(MAKE) --no-print-directory $(WOVEN)/values.csv
	$(PANDOC_HTML) -o $(TEST_PAGE:.html=.whole.html)
	$(BUILD)/ipctax-pack $(TEST_PAGE:.html=.whole.html) $(TEST_PAGE)
	cp $(WOVEN)/values.csv $(dir $(TEST_PAGE))values.csv
	$(call site-files,$(dir $(TEST_PAGE)))

check-browser: $(TEST_PAGE)
	$(PYTHON) tests/browser/check_page.py $(TEST_PAGE)
	PAPER_MAX_PAGES=$(PAPER_MAX_PAGES) $(PYTHON) -B tests/check_pdf.py site/paper.pdf site/book.pdf site/index.html

# The table of provenance's checks (values.lua, chunks.lua): a right table
# weaves; a key without a family, a file or column data/ lacks, or a chunk
# no block defines stops the weave; a family a chapter's block declares is
# gathered into the table, and a row of the wrong width stops the build,
# naming its chapter and line (tests/check_provenance.py).
check-provenance: all
	@$(MAKE) --no-print-directory $(WOVEN)/values.csv
	IPCTAX_TANGLE=$(BUILD)/tangle $(PYTHON) -B tests/check_provenance.py $(WOVEN)

# The book's index of identifiers (paper/filters/index.lua): a small book
# woven to HTML and LaTeX lists each exported function and type with the
# chunk that defines it and those that use it; one that no chunk defines
# stops the weave (tests/check_index.py).
check-index:
	$(PYTHON) -B tests/check_index.py

# The BibTeX of the "Cite this paper" box, as the weave wrote it, through
# bibtex with the standard styles: any warning fails.
check-bibtex: $(TEST_PAGE)
	$(PYTHON) tests/check_bibtex.py $(WOVEN)/citation.bib

# --- Fuzzing -------------------------------------------------------------------
# libFuzzer, one target after another: the request path (fuzz_request), the
# shared-memory channel against a second process (fuzz_shm) and the engine's
# command line (fuzz_options). Each is built from the fuzz variant of the
# engine's libraries with -fsanitize=fuzzer, grows a fresh corpus from its
# generated seeds for FUZZ_SECONDS, and adds its figures to data/fuzz.csv as
# TARGET.KEY rows. A run that finds a crash stops, keeps the input in
# build/fuzz/crashes/TARGET-*, and records nothing. FUZZ_TARGETS=shm runs one
# target and keeps the other targets' rows of data/fuzz.csv as they were.
# fuzz_shm spends most of its time asleep in the channel's own timeouts (a
# millisecond each, the least an engine's option allows), so it runs as
# FUZZ_PROCESSES_shm processes under libFuzzer's -fork, which share one
# corpus; the other targets keep one core busy on their own.
FUZZ_SECONDS ?= 300
# What every target is built from: the engine's layers and the fuzz
# sources. Each record names them with their digest, and the summary marks
# the record stale when they have changed since (data/fuzz.csv, sources).
FUZZ_SOURCES := code/util code/kernel code/wire code/engine tests/fuzz
FUZZ_ALL_TARGETS := request shm options
FUZZ_TARGETS ?= $(FUZZ_ALL_TARGETS)
FUZZ_ARGS := -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
FUZZ_PROCESSES_request := 1
FUZZ_PROCESSES_shm := 6
FUZZ_PROCESSES_options := 1

$(FUZZ)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/shm_ops.h $(call libs_for,$(FUZZ),engine)
	clang $(CFLAGS_ALL) -O1 $(SANITIZE) -fsanitize=fuzzer -Icode -o $@ $< \
	  $(call libs_for,$(FUZZ),engine) $(LDLIBS)

$(BUILD)/make-seeds: tests/fuzz/seeds.c tests/fuzz/shm_ops.h $(call libs_for,$(BUILD),wire)
	$(CC) $(CFLAGS_ALL) -Icode -o $@ $< $(call libs_for,$(BUILD),wire) $(LDLIBS)

fuzz: deps-fuzz
	$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=$(FUZZ)/fuzz_%) $(BUILD)/make-seeds \
	  $(BUILD)/ipctax-record
	rm -rf $(FUZZ)/runs
	mkdir -p $(FUZZ)/runs $(FUZZ)/crashes
	for t in $(FUZZ_TARGETS); do \
	  run=$(FUZZ)/runs/$$t; mkdir -p $$run/seeds $$run/corpus; \
	  $(BUILD)/make-seeds $$t $$run/seeds || exit 1; \
	  p=1; for kv in $(foreach t,$(FUZZ_ALL_TARGETS),$(t)=$(FUZZ_PROCESSES_$(t))); do \
	    [ "$${kv%%=*}" = "$$t" ] && p=$${kv#*=}; done; \
	  fork=; [ "$$p" -gt 1 ] && fork=-fork=$$p; \
	  $(FUZZ)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ARGS) $$fork \
	    -artifact_prefix=$(FUZZ)/crashes/$$t- $$run/corpus $$run/seeds 2>&1 | tee $$run/log; \
	  if [ $${PIPESTATUS[0]} != 0 ]; then \
	    echo "fuzz: $$t found a crash; the input is in $(FUZZ)/crashes/"; exit 1; fi; \
	  tests/fuzz/record.sh $$t $$run/log $$run/seeds tests/fuzz/regressions/$$t \
	    "$(FUZZ_ARGS)" $$p "$(FUZZ_SOURCES)" > $$run/rows || exit 1; \
	done
	for t in $(FUZZ_ALL_TARGETS); do \
	  if [ -f $(FUZZ)/runs/$$t/rows ]; then cat $(FUZZ)/runs/$$t/rows; \
	  else tail -n +2 data/fuzz.csv 2>/dev/null | grep "^$$t\." || true; fi; \
	done > $(FUZZ)/runs/fuzz.rows
	$(BUILD)/ipctax-record data/fuzz.csv < $(FUZZ)/runs/fuzz.rows
	@echo "fuzz: no crash in $(FUZZ_SECONDS) s for each of $(FUZZ_TARGETS); data/fuzz.csv updated"

$(BUILD)/tests/drive_engine: tests/drive_engine.c $(call libs_for,$(BUILD),$(TEST_LAYERS_drive_engine))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Icode -o $@ $< $(call libs_for,$(BUILD),$(TEST_LAYERS_drive_engine)) $(LDLIBS)
