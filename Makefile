# ipctax - "The IPC Tax", re-run in C as a literate, reproducible paper.
#
#   make paper   install what is missing, build, measure, plot, weave site/
#   make test    unit tests, tangle check, citation check
#   make weave   re-weave site/ from the committed data/ without measuring
#   make tangle  regenerate code/ from paper/*.md
#
# QUICK=1 shrinks the measurement (fewer bars and runs) for CI and smoke runs;
# the paper it weaves says so on its first page.

SHELL := /bin/bash
.DELETE_ON_ERROR:
.SECONDARY:
.SUFFIXES:

CC ?= cc
# The floating-point rules of kernel-spec.md: no fused multiply-add, no
# fast-math; everything else is ordinary optimisation.
CFLAGS_FP := -ffp-contract=off -fno-fast-math
CFLAGS ?= -O2 -g
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -pthread -Wall -Wextra $(CFLAGS_FP) $(CFLAGS)
LDLIBS := -lcsv -lnettle -ljansson -lm

BUILD := build
CHAPTERS := $(sort $(wildcard paper/[0-9]*.md))
COMMIT := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

# Programs (each a code/*.c with a main) and the library everything else forms.
PROGRAMS := bench summary engine
MAINS := $(PROGRAMS:%=code/%.c) code/tangle.c
LIB_SRC := $(filter-out $(MAINS),$(wildcard code/*.c))
LIB_OBJ := $(LIB_SRC:code/%.c=$(BUILD)/obj/%.o)
TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))

# --- Debian packages -------------------------------------------------------
PAPER_DEBS := build-essential pkg-config git libcsv-dev nettle-dev libjansson-dev pandoc gnuplot-nox \
              texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended lmodern
TEST_DEBS := $(PAPER_DEBS) libcmocka-dev python3-jsonschema python3-ruamel.yaml python3-numpy

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

.PHONY: all paper test weave figures compare tangle check-tangle measure deps-paper deps-test clean \
        unit-tests check-cff check-spec

all: $(BUILD)/ipctax-bench $(BUILD)/ipctax-summary $(BUILD)/ipctax-engine

deps-paper:
	$(call ensure-debs,$(PAPER_DEBS))
deps-test:
	$(call ensure-debs,$(TEST_DEBS))

# --- Tangle ----------------------------------------------------------------
# code/ is committed; the tangler is built from its own committed source.
$(BUILD)/tangle: code/tangle.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $<

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

# --- Build -----------------------------------------------------------------
# The commit goes into machine.c; a stamp that changes only with the commit
# keeps every other object from rebuilding.
$(BUILD)/commit.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(COMMIT)' | cmp -s - $@ || echo '$(COMMIT)' > $@
.PHONY: FORCE
FORCE:

$(BUILD)/obj/%.o: code/%.c $(BUILD)/tangled.stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(BUILD)/obj/machine.o: code/machine.c $(BUILD)/tangled.stamp $(BUILD)/commit.txt
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -DIPCTAX_CFLAGS='"$(CFLAGS_ALL)"' \
	  -DIPCTAX_COMMIT='"$(shell cat $(BUILD)/commit.txt)"' -MMD -MP -c -o $@ $<

$(BUILD)/ipctax-%: $(BUILD)/obj/%.o $(LIB_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

-include $(wildcard $(BUILD)/obj/*.d)

# --- Tests -----------------------------------------------------------------
$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB_OBJ) -lcmocka $(LDLIBS)

unit-tests: $(TESTS:%=$(BUILD)/tests/%) $(BUILD)/tangle
	@for t in $(TESTS:%=$(BUILD)/tests/%); do echo "== $$t"; IPCTAX_ROOT=$(CURDIR) $$t || exit 1; done

CFF_SCHEMA := tests/vendor/cff-schema-1.2.0.json
check-cff:
	/usr/bin/python3 tests/check_cff.py CITATION.cff $(CFF_SCHEMA)

test: deps-test check-tangle unit-tests check-cff check-browser

clean:
	rm -rf $(BUILD)

# --- Measure ---------------------------------------------------------------
ifdef QUICK
BENCH_ARGS ?= --bars 20000 --runs 3
else
BENCH_ARGS ?=
endif

# The harness writes data/; the numpy oracle then re-derives every
# combination independently and records whether all of them agree.
measure: all
	$(BUILD)/ipctax-bench --out data $(BENCH_ARGS)
	/usr/bin/python3 tests/reference/spec_numpy.py data/sweep.csv \
	  "$$(awk -F, '$$1=="bars"{print $$2}' data/machine.csv)" data/oracle.csv

check-spec:
	/usr/bin/python3 tests/reference/spec_numpy.py data/sweep.csv \
	  "$$(awk -F, '$$1=="bars"{print $$2}' data/machine.csv)"

# --- Weave -----------------------------------------------------------------
# Dates inside PDFs come from SOURCE_DATE_EPOCH, by default the time of the
# measurement, so weaving the same data twice gives the same bytes.
PDF_EPOCH = $${SOURCE_DATE_EPOCH:-$$(awk -F, '$$1=="date_epoch"{print $$2}' data/machine.csv)}
WOVEN := $(BUILD)/woven
DATA_FILES = $(wildcard data/*.csv)
FIGURE_SCRIPTS := $(wildcard figures/*.gp)
FIGURES := $(FIGURE_SCRIPTS:.gp=.svg) $(FIGURE_SCRIPTS:.gp=.pdf)
WEAVE_INPUTS := paper/metadata.yaml $(CHAPTERS) paper/references.bib CITATION.cff \
                $(wildcard paper/filters/*.lua paper/web/* paper/latex/*)

# The published run is data/ as committed (git HEAD); it is summarized on
# its own and compared with whatever data/ holds now, which after `make
# paper` is this machine's run. A clone without git history compares the
# data with itself.
PUBLISHED := $(BUILD)/published
$(WOVEN)/values.csv: $(BUILD)/ipctax-summary $(DATA_FILES)
	@rm -rf $(PUBLISHED) && mkdir -p $(PUBLISHED)
	@if git ls-files --error-unmatch data/machine.csv >/dev/null 2>&1; then \
	  git archive HEAD data | tar -x -C $(PUBLISHED); else cp -r data $(PUBLISHED)/; fi
	@$(BUILD)/ipctax-summary $(PUBLISHED)/data $(PUBLISHED)/woven >/dev/null 2>&1 || \
	  echo "note: the published data/ could not be fully summarized (an older layout?)"
	$(BUILD)/ipctax-summary data $(WOVEN) $(PUBLISHED)/woven

# This build's key figures beside the published run's, as a plain table.
compare: all
	@rm -f $(WOVEN)/values.csv
	@$(MAKE) --no-print-directory $(WOVEN)/values.csv >/dev/null
	@column -s, -t < $(WOVEN)/tables/compare.csv

# Figure scripts set no terminal: the same script draws the page's SVG and
# the paper's PDF.
GNUPLOT := gnuplot -e "DATA='data'; WOVEN='$(WOVEN)'"
figures/%.svg: figures/%.gp $(WOVEN)/values.csv
	$(GNUPLOT) -e "set terminal svg size 760,440 dynamic enhanced mouse font 'Helvetica,13' \
	  background rgb 'white'; set output '$@'" $<
# cairo stamps each PDF with the time it was drawn and ignores
# SOURCE_DATE_EPOCH; the stamp is rewritten, at the same length, to the
# measurement's time, so the same data gives the same bytes.
figures/%.pdf: figures/%.gp $(WOVEN)/values.csv
	$(GNUPLOT) -e "set terminal pdfcairo size 15cm,8.8cm enhanced font 'Helvetica,9'; \
	  set output '$@'" $<
	stamp=$$(date -u -d "@$(PDF_EPOCH)" +%Y%m%d%H%M%S) && \
	  perl -pi -e "s/\/CreationDate \(D:\d{14}Z\)/\/CreationDate (D:$${stamp}Z)/" $@

figures: $(FIGURES)

PANDOC := IPCTAX_WOVEN=$(WOVEN) pandoc paper/metadata.yaml $(CHAPTERS) \
  --from markdown --number-sections --resource-path=. \
  --lua-filter paper/filters/reader.lua \
  --lua-filter paper/filters/values.lua --lua-filter paper/filters/crossref.lua \
  --lua-filter paper/filters/chunks.lua \
  --citeproc --bibliography paper/references.bib \
  --lua-filter paper/filters/figures.lua

site/index.html: $(WEAVE_INPUTS) $(WOVEN)/values.csv $(FIGURES)
	@mkdir -p $(@D)
	$(PANDOC) --to html5 --standalone --self-contained --toc --toc-depth 2 \
	  --css paper/web/style.css -o $@

site/paper.pdf: $(WEAVE_INPUTS) $(WOVEN)/values.csv $(FIGURES)
	@mkdir -p $(@D)
	export SOURCE_DATE_EPOCH="$(PDF_EPOCH)" FORCE_SOURCE_DATE=1; \
	$(PANDOC) --to latex --pdf-engine=pdflatex -H paper/latex/preamble.tex \
	  -V geometry:a4paper,margin=2.2cm -V fontsize=10pt -V colorlinks=true \
	  -V linkcolor=blue -o $@

# Weaving always starts from data/: the summary, the figures and the site
# are rebuilt even when make's timestamps would say they are current.
weave: all
	@rm -f $(WOVEN)/values.csv site/index.html site/paper.pdf
	$(MAKE) --no-print-directory site/index.html site/paper.pdf

# The committed site/ and figures/ must be what the committed paper/ and
# data/ weave, byte for byte (CI runs this on a clean clone).
check-woven: weave
	@git diff --quiet -- site figures || { git diff --stat -- site figures; \
	  echo "check-woven: site/ or figures/ differ from what paper/ and data/ weave;" \
	       "run make weave and commit them"; exit 1; }
	@echo "check-woven: site/ and figures/ are exactly what paper/ and data/ weave"
.PHONY: check-woven

paper: deps-paper
	$(MAKE) --no-print-directory measure
	$(MAKE) --no-print-directory weave
	@echo "paper: site/index.html and site/paper.pdf woven from data/"
	@echo "paper: the claims, judged on this build's data:"
	@sed 's/^/  /' $(WOVEN)/claims.txt

# --- Browser check -----------------------------------------------------------
# Weaves site/index.html afresh from the sources and reads it as a reader
# would, in headless Chromium: no console errors, nothing fetched, inline and
# interactive figures (series toggles, values on hover), folding chunks,
# every in-page link resolving. Debian's chromium and chromedriver, driven by
# Debian's python3-selenium (so /usr/bin/python3). See tests/browser/.
BROWSER_DEBS := chromium chromium-driver python3-selenium
TEST_DEBS += $(BROWSER_DEBS)
.PHONY: check-browser
check-browser:
	$(call ensure-debs,$(BROWSER_DEBS))
	@rm -f site/index.html
	$(MAKE) --no-print-directory site/index.html
	/usr/bin/python3 tests/browser/check_page.py site/index.html

# --- Robustness: fuzzing, sanitizers, valgrind, load ---------------------------
# paper/86-robustness.md. `make test` runs the sanitized unit tests, the
# engine under valgrind, and (as a unit test) the load test; `make paper`
# records the load test's and valgrind's figures in data/; `make fuzz` runs
# libFuzzer for FUZZ_SECONDS and records its figures in data/fuzz.csv.
ROBUST_DEBS := valgrind libcmocka-dev
FUZZ_DEBS := clang libclang-rt-14-dev
TEST_DEBS += $(ROBUST_DEBS)
PAPER_DEBS += $(ROBUST_DEBS)
.PHONY: fuzz deps-fuzz check-sanitize check-valgrind measure-robustness

# test_load runs the engine; unit-tests must build it first.
unit-tests: $(BUILD)/ipctax-engine
$(BUILD)/tests/test_fuzz_regressions: tests/fuzz/fuzz_request.c tests/fuzz/seeds.c
test: check-sanitize check-valgrind
measure: measure-robustness

# The library, the engine and the unit tests again, with AddressSanitizer and
# UndefinedBehaviorSanitizer, in a tree of their own; any report fails.
ASAN := $(BUILD)/asan
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_OBJ := $(LIB_SRC:code/%.c=$(ASAN)/obj/%.o)
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

$(ASAN)/obj/%.o: code/%.c $(BUILD)/tangled.stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(SANITIZE) -MMD -MP -c -o $@ $<
-include $(wildcard $(ASAN)/obj/*.d)

$(ASAN)/ipctax-engine: $(ASAN)/obj/engine.o $(ASAN_OBJ)
	$(CC) $(CFLAGS_ALL) $(SANITIZE) -o $@ $^ $(LDLIBS)

$(ASAN)/tests/%: tests/%.c $(wildcard tests/*.h) $(ASAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(SANITIZE) -o $@ $< $(ASAN_OBJ) -lcmocka $(LDLIBS)
$(ASAN)/tests/test_fuzz_regressions: tests/fuzz/fuzz_request.c tests/fuzz/seeds.c

# The load test runs the sanitized engine; its memory bounds are off there,
# because a sanitizer's quarantine keeps freed memory resident.
check-sanitize: $(TESTS:%=$(ASAN)/tests/%) $(ASAN)/ipctax-engine $(BUILD)/ipctax-engine $(BUILD)/tangle
	@for t in $(TESTS:%=$(ASAN)/tests/%); do echo "== $$t (sanitized)"; \
	  $(ASAN_ENV) IPCTAX_ROOT=$(CURDIR) IPCTAX_ENGINE=$(CURDIR)/$(ASAN)/ipctax-engine \
	  IPCTAX_LOAD_MEMORY_BOUNDS=0 $$t || exit 1; done
	@echo "check-sanitize: every unit test passed under ASan and UBSan"

# The engine under valgrind serves echo, sweeps, the stateful opcodes and
# bad frames (tests/drive_engine.c), then stops on SIGTERM; any error, or any
# definitely or indirectly lost byte, fails.
$(BUILD)/tests/drive_engine: tests/drive_engine.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB_OBJ) $(LDLIBS)

check-valgrind: $(BUILD)/ipctax-engine $(BUILD)/tests/drive_engine
	tests/check_valgrind.sh $(BUILD)/ipctax-engine $(BUILD)/tests/drive_engine $(BUILD)/valgrind

# Figures for the paper: the load test's counts and valgrind's totals.
measure-robustness: $(BUILD)/tests/test_load $(BUILD)/ipctax-engine $(BUILD)/tests/drive_engine
	IPCTAX_ROOT=$(CURDIR) IPCTAX_LOAD_OUT=data/load.csv $(BUILD)/tests/test_load
	VALGRIND_OUT=data/valgrind.csv tests/check_valgrind.sh $(BUILD)/ipctax-engine \
	  $(BUILD)/tests/drive_engine $(BUILD)/valgrind

# libFuzzer: the library built with clang and coverage, the target linked
# with -fsanitize=fuzzer. A fresh corpus grows from the generated seeds; a
# run that finds a crash stops, keeps the input in build/fuzz/crashes/, and
# records nothing.
FUZZ_SECONDS ?= 300
FUZZ := $(BUILD)/fuzz
FUZZ_CFLAGS := $(CFLAGS_ALL) -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
               -fno-omit-frame-pointer
FUZZ_OBJ := $(LIB_SRC:code/%.c=$(FUZZ)/obj/%.o)
FUZZ_ARGS := -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

deps-fuzz:
	$(call ensure-debs,$(FUZZ_DEBS))

$(FUZZ)/obj/%.o: code/%.c $(BUILD)/tangled.stamp
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ)/fuzz_request: tests/fuzz/fuzz_request.c $(FUZZ_OBJ)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

$(FUZZ)/make-seeds: tests/fuzz/seeds.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

fuzz: deps-fuzz
	$(MAKE) --no-print-directory $(FUZZ)/fuzz_request $(FUZZ)/make-seeds
	rm -rf $(FUZZ)/seeds $(FUZZ)/corpus
	mkdir -p $(FUZZ)/seeds $(FUZZ)/corpus $(FUZZ)/crashes
	$(FUZZ)/make-seeds $(FUZZ)/seeds
	$(FUZZ)/fuzz_request -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ARGS) \
	  -artifact_prefix=$(FUZZ)/crashes/ $(FUZZ)/corpus $(FUZZ)/seeds 2>&1 | tee $(FUZZ)/log; \
	  test $${PIPESTATUS[0]} = 0
	tests/fuzz/record.sh $(FUZZ)/log $(FUZZ)/seeds tests/fuzz/regressions "$(FUZZ_ARGS)" \
	  > data/fuzz.csv.tmp && mv data/fuzz.csv.tmp data/fuzz.csv
	@echo "fuzz: no crash in $(FUZZ_SECONDS) s; data/fuzz.csv updated"
