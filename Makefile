# ablation: build the sealed virtual environment from the hashed lock and drive the evaluator.
# `make help` lists the targets; docs/reference/make.md explains them and their variables.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

# ---------------------------------------------------------------- variables
PYTHON      ?= python3
VENV        ?= .venv
DEV_VENV    ?= .venv-dev
RUNNER      ?= venv
IMAGE       ?= ablation:latest
BASE_IMAGE  ?= ablation-base:bookworm
# The Debian mirror for make base-image (a URL, a "deb ..." line or a sources file); empty:
# mmdebstrap's own default for the suite. The repository names no mirror.
DEBIAN_MIRROR ?=
WHEELHOUSE  := build/wheelhouse
IMAGE_ID    ?=
BASE_TARBALL ?=
IMAGE_SOURCE ?= ablation
# SOURCE_DATE_EPOCH of image builds: the commit time of HEAD unless given. Handed to
# tools/image.sh as EPOCH and never exported: `make archive` reads SOURCE_DATE_EPOCH
# for the bundle's mtimes, and a value made up here must not reach it.
BUILD_EPOCH := $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct HEAD 2>/dev/null))
IMAGE_ENV    = EPOCH="$(BUILD_EPOCH)" BASE_IMAGE="$(BASE_IMAGE)" IMAGE="$(IMAGE)" \
               DEBIAN_MIRROR="$(DEBIAN_MIRROR)" WHEELHOUSE="$(WHEELHOUSE)" \
               TOOL_PYTHON="$(DEV_VENV)/bin/python" IMAGE_SOURCE="$(IMAGE_SOURCE)"

EXAMPLE     := examples/prepared-input.json
INPUT       ?= $(EXAMPLE)
ifeq ($(INPUT),$(EXAMPLE))
INPUT_SHA256 ?= $(firstword $(file < $(EXAMPLE).sha256))
OUTPUT      ?= out/example.results.json
BUNDLE      ?= out/example.bundle.tar.gz
endif
INPUT_NAME  := $(patsubst %.json,%,$(patsubst %.json.gz,%,$(notdir $(INPUT))))
OUTPUT      ?= out/$(INPUT_NAME).results.json
BUNDLE      ?= out/$(INPUT_NAME).bundle.tar.gz
INPUT_SHA256 ?=
INPUT_GZIP_SHA256 ?=
EVIDENCE    ?=
SIGN_KEY    ?=
ATTEMPT_RECORD ?=
PRE_RUN_MANIFEST_SHA256 ?=

# Every variable a caller may set. One given on the command line that is not here
# (a typo such as INPT= or SIGNKEY=) stops make instead of silently using a default.
KNOWN_VARIABLES := INPUT INPUT_SHA256 INPUT_GZIP_SHA256 OUTPUT BUNDLE EVIDENCE SIGN_KEY PUBLIC_KEY \
                   RUNNER IMAGE IMAGE_ID IMAGE_SOURCE BASE_IMAGE BASE_TARBALL DEBIAN_MIRROR \
                   SOURCE_DATE_EPOCH PYTHON VENV DEV_VENV BENCH_ARGS UPGRADE MODULE \
                   EXPERIMENT PREP_DIR SHEET CASES_REVIEW FILE_ACCESS ALLOW_UNAVAILABLE STALENESS_REVIEW \
                   PRE_RUN_REVIEW ATTEMPT_RECORD PRE_RUN_MANIFEST_SHA256
UNKNOWN_VARIABLES := $(sort $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(filter-out $(KNOWN_VARIABLES),$(v)))))
ifneq ($(UNKNOWN_VARIABLES),)
$(error unknown $(if $(word 2,$(UNKNOWN_VARIABLES)),variables,variable) $(UNKNOWN_VARIABLES) on the command line; the known ones are: $(KNOWN_VARIABLES))
endif

LOCK_STAMP  := $(VENV)/.lock-installed
STAMP       := $(VENV)/.sealed
DEV_STAMP   := $(DEV_VENV)/.lock-installed
DIST        := build/dist
PKG_SOURCES := $(shell find ablation -type f -not -path '*/__pycache__/*' -not -name '*.pyc' 2>/dev/null | LC_ALL=C sort)
ARCH        := $(shell uname -m)
# Wheels for the image's interpreter: CPython 3.11 (Debian bookworm), glibc 2.36.
WHEEL_TAGS  := --only-binary=:all: --implementation cp --python-version 3.11 \
               --abi cp311 --abi abi3 --abi none \
               $(foreach v,36 35 34 33 32 31 30 29 28 27 26 25 24 23 22 21 20 19 18 17,--platform manylinux_2_$(v)_$(ARCH)) \
               --platform manylinux2014_$(ARCH) --platform linux_$(ARCH)

# How the ablation command runs: from the sealed .venv (RUNNER=venv), or inside
# the image (RUNNER=image), with no network, a read-only root, the input mounted
# read-only. The image ID is resolved once and the container runs by that ID, so
# the asserted digest (ABLATION_IMAGE_DIGEST) is the image that ran.
ifeq ($(RUNNER),image)
RUN_DEPS    := image-ready
IN          := /in/$(notdir $(INPUT))
OUT         := /out/$(notdir $(OUTPUT))
BUN         := /bundle/$(notdir $(BUNDLE))
ATT         := /out/$(notdir $(ATTEMPT_RECORD))
# --mount (unlike -v) refuses a missing source instead of creating it on the host.
mount        = --mount type=bind,source="$(abspath $(1))",target="$(2)"$(if $(3),$(comma)readonly)
comma       := ,
EVIDENCE_ARGS := $(foreach e,$(EVIDENCE),$(call mount,$(e),/evidence/$(notdir $(e)),ro)) \
                 $(if $(SIGN_KEY),$(call mount,$(SIGN_KEY),/keys/$(notdir $(SIGN_KEY)),ro))
EV_FLAGS    := $(foreach e,$(EVIDENCE),--evidence /evidence/$(notdir $(e))) \
               $(if $(SIGN_KEY),--sign-key /keys/$(notdir $(SIGN_KEY)))
# The command prints the container's paths of what it wrote; show the caller's.
SHOW_OUTPUT := | sed -e 's\#  $(OUT)$$\#  $(OUTPUT)\#' -e 's\#  $(BUN)$$\#  $(BUNDLE)\#'
PUBLIC_KEY_IN := /keys/$(notdir $(PUBLIC_KEY))
VERIFY_ARCHIVE_MOUNTS = $(call mount,$(BUNDLE),$(BUN),ro) $(if $(PUBLIC_KEY),$(call mount,$(PUBLIC_KEY),$(PUBLIC_KEY_IN),ro))
ABLATION     = image_id=$$(docker image inspect --format '{{.Id}}' "$(IMAGE)") && \
               docker run --rm --network none --read-only --user "$$(id -u):$$(id -g)" \
               -e ABLATION_IMAGE_DIGEST="$$image_id" \
               $(call mount,$(INPUT),$(IN),ro) $(1) "$$image_id"
else ifeq ($(RUNNER),venv)
RUN_DEPS    := $(STAMP) host-paths
IN          := $(INPUT)
OUT         := $(OUTPUT)
BUN         := $(BUNDLE)
ATT         := $(ATTEMPT_RECORD)
EVIDENCE_ARGS :=
SHOW_OUTPUT :=
EV_FLAGS    := $(foreach e,$(EVIDENCE),--evidence $(e)) $(if $(SIGN_KEY),--sign-key $(SIGN_KEY))
PUBLIC_KEY_IN := $(PUBLIC_KEY)
VERIFY_ARCHIVE_MOUNTS :=
# Under `env -i` and the product's own variables only: the sealed start refuses a loader variable
# such as LD_LIBRARY_PATH (exit 3), and a caller's ordinary environment should not stop `make run`.
PASSED_VARIABLES := $(foreach v,SOURCE_DATE_EPOCH ABLATION_IMAGE_DIGEST ABLATION_BASE_IMAGE,$(if $($(v)),$(v)="$($(v))"))
ABLATION     = env -i $(PASSED_VARIABLES) $(VENV)/bin/ablation
else
$(error RUNNER must be venv or image, not '$(RUNNER)')
endif

HASH_FLAGS := $(if $(INPUT_SHA256),--input-sha256 $(INPUT_SHA256)) \
              $(if $(INPUT_GZIP_SHA256),--input-gzip-sha256 $(INPUT_GZIP_SHA256))
# The one-shot run (PREPARE.md §7): the marker run creates before it reads the input.
ATTEMPT_FLAGS := $(if $(ATTEMPT_RECORD),--attempt-record "$(ATT)") \
                 $(if $(PRE_RUN_MANIFEST_SHA256),--pre-run-manifest-sha256 $(PRE_RUN_MANIFEST_SHA256))

.PHONY: help test lint docs verify run archive bench clean-out verify-archive image base-image image-check image-ready host-paths \
        wheelhouse attempt-record-place venv dev-venv seal closure-check lock lock-check nix-lock clean mutate \
        prepare-check prepare-sheet prepare-capture prepare-assemble prepare-freeze prepare-check-freeze prepare-example \
        FORCE

# ---------------------------------------------------------------- help
help: ## show the targets and variables
	@echo "usage: make <target> [INPUT=prepared.json] [INPUT_SHA256=<hex>] [OUTPUT=out/x.results.json] [BUNDLE=out/x.bundle.tar.gz]"
	@echo
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'
	@echo
	@echo "variables: INPUT (default $(EXAMPLE), hash from $(EXAMPLE).sha256), INPUT_SHA256,"
	@echo "  INPUT_GZIP_SHA256, OUTPUT (default out/<input name>.results.json), BUNDLE, EVIDENCE, SIGN_KEY,"
	@echo "  RUNNER=venv|image (image: run inside $(IMAGE) with --network none --read-only),"
	@echo "  IMAGE, BASE_IMAGE (default $(BASE_IMAGE)), BASE_TARBALL (base-image from a kept tarball),"
	@echo "  IMAGE_ID (image-check), SOURCE_DATE_EPOCH (image builds; default: commit time of HEAD),"
	@echo "  PYTHON (default python3), ATTEMPT_RECORD (run once: the marker run creates before reading INPUT;"
	@echo "  needs INPUT_SHA256; with RUNNER=image it must be in OUTPUT's folder), PRE_RUN_MANIFEST_SHA256"
	@echo "preparation (docs/preparation.md): EXPERIMENT (prepare-check, prepare-sheet, prepare-capture),"
	@echo "  SHEET (prepare-sheet; outside PREP_DIR), PREP_DIR, CASES_REVIEW, FILE_ACCESS=strace|asserted (no default),"
	@echo "  ALLOW_UNAVAILABLE (case ids separated by spaces) (prepare-capture), STALENESS_REVIEW (prepare-assemble),"
	@echo "  PRE_RUN_REVIEW, SIGN_KEY, ATTEMPT_RECORD (prepare-freeze), PUBLIC_KEY, OUTPUT (prepare-check-freeze:"
	@echo "  --results only when OUTPUT is given on the command line); prepare-example needs none"

# ---------------------------------------------------------------- the two environments
# The development environment: tests, benchmarks, linters, the build backend and pip-compile,
# exactly the pins of requirements-dev.lock (re-made when that lock changes).
$(DEV_STAMP): requirements-dev.lock
	rm -rf $(DEV_VENV)
	$(PYTHON) -m venv $(DEV_VENV)
	$(DEV_VENV)/bin/python -m pip install --quiet --require-hashes --no-deps -r requirements-dev.lock
	touch $@

dev-venv: $(DEV_STAMP) ## build .venv-dev from requirements-dev.lock (make test does it when needed)

# The sealed runtime, step 1: a venv without pip holding exactly the runtime lock's pins,
# installed by the development environment's pip (--python), bytecode left to sealing.
$(LOCK_STAMP): requirements.lock | $(DEV_STAMP)
	rm -rf $(VENV)
	$(PYTHON) -m venv --without-pip $(VENV)
	$(DEV_VENV)/bin/python -m pip --python $(VENV)/bin/python install --quiet --no-compile \
	  --require-hashes --no-deps -r requirements.lock
	touch $@

# Step 2: the package's wheel, built by the development environment from the checkout as it is,
# installed the same way; then sealed: lock copy, bytecode, isolated console script, closure
# manifest with the source revision, the checkout's HEAD (-dirty unless the installed package
# files are that commit's; tools/seal.py, docs/decisions/0017-source-revision.md).
define install_package
	rm -rf build/lib build/bdist.* ablation.egg-info $(DIST)
	$(DEV_VENV)/bin/python -m pip wheel --quiet --no-deps --no-build-isolation --no-cache-dir -w $(DIST) .
	$(DEV_VENV)/bin/python -m pip --python $(VENV)/bin/python install --quiet --no-compile --no-deps \
	  --force-reinstall $(DIST)/ablation-*.whl
endef
SEAL_VENV := $(VENV)/bin/python -I -B tools/seal.py --lock requirements.lock --source .

# The commit the checkout is at (empty outside a git checkout), rewritten only when it changes:
# a new commit re-seals .venv, so that its identity names the commit it was sealed at. git reads
# with no system or user configuration and no optional locks (the index is never rewritten).
SOURCE_HEAD := build/source-head
$(SOURCE_HEAD): FORCE
	@mkdir -p $(@D)
	@head=$$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_OPTIONAL_LOCKS=0 \
	  git rev-parse --verify --quiet 'HEAD^{commit}' 2>/dev/null || true); \
	[ -f $@ ] && [ "$$(cat $@)" = "$$head" ] || printf '%s\n' "$$head" >$@
FORCE:

$(STAMP): $(LOCK_STAMP) pyproject.toml tools/seal.py $(PKG_SOURCES) $(SOURCE_HEAD) | $(DEV_STAMP)
	$(install_package)
	@# The stamp exists before sealing, so the sealed inventory of the venv's folder lists it (a file made
	@# after sealing would be refused as unlisted); if sealing fails, .DELETE_ON_ERROR removes it again.
	touch $@
	$(SEAL_VENV)

venv: $(STAMP) ## build the sealed .venv from requirements.lock (the other targets do it when needed)

closure-check: $(STAMP) ## check .venv against its closure manifest from outside Python (awk + sha256sum)
	tools/closure-check.sh $(VENV)

seal: $(LOCK_STAMP) | $(DEV_STAMP) ## re-install the checkout's package into .venv and re-seal it (e.g. after a system update)
	$(install_package)
	touch $(STAMP)
	$(SEAL_VENV) || { rm -f $(STAMP); exit 1; }

# ---------------------------------------------------------------- everyday targets
test: $(STAMP) $(DEV_STAMP) ## run the test suite against the checkout (.venv-dev/bin/python -m pytest)
	$(DEV_VENV)/bin/python -m pytest

lint: $(DEV_STAMP) ## ruff check, ruff format --check, mypy (strict) of ablation tests benchmarks tools examples; size limits
	$(DEV_VENV)/bin/ruff check ablation tests benchmarks tools examples
	$(DEV_VENV)/bin/ruff format --check ablation tests benchmarks tools examples
	$(DEV_VENV)/bin/mypy
	$(DEV_VENV)/bin/python tools/sizecheck.py

docs: $(DEV_STAMP) ## regenerate docs/reference/cli.md from the parsers (make test checks it)
	$(DEV_VENV)/bin/python tools/helpdoc.py --write

verify: $(RUN_DEPS) ## blind pre-run check of INPUT: everything run checks, no ranking or metrics
	$(call ABLATION) verify --input "$(IN)" $(HASH_FLAGS)

# "<file> already exists" and how to go on: always a new path; make clean-out only for a file in out/.
refused = echo "make $(1): $(2) already exists; $(3) are never overwritten." >&2; \
	  echo "make $(1): to $(1) again, give a new path: make $(1) $(4)=<a new path>$(if $(filter out/%,$(2)),; or delete every result and bundle in out/: make clean-out)" >&2

run: attempt-record-place $(RUN_DEPS) ## evaluate INPUT into OUTPUT (never overwrites; prints "<sha256>  OUTPUT"; ATTEMPT_RECORD= for one shot)
	@if [ -e "$(OUTPUT)" ] || [ -L "$(OUTPUT)" ]; then $(call refused,run,$(OUTPUT),results,OUTPUT); exit 1; fi
	@mkdir -p "$(dir $(OUTPUT))"
	$(call ABLATION,$(call mount,$(dir $(OUTPUT)),/out)) run --input "$(IN)" $(HASH_FLAGS) --output "$(OUT)" $(ATTEMPT_FLAGS) $(SHOW_OUTPUT)

# RUNNER=image: only OUTPUT's folder is writable in the container, so the attempt marker must be there.
attempt-record-place:
	@$(if $(and $(filter image,$(RUNNER)),$(ATTEMPT_RECORD)),[ "$(abspath $(dir $(ATTEMPT_RECORD)))" = "$(abspath $(dir $(OUTPUT)))" ] || { \
	  echo "make run: ATTEMPT_RECORD '$(ATTEMPT_RECORD)' is not in OUTPUT's folder '$(dir $(OUTPUT))'; with RUNNER=image only that folder is writable: put the marker there (freeze --attempt-record names it)" >&2; exit 2; },true)

archive: $(RUN_DEPS) ## bundle INPUT, OUTPUT and the evidence into BUNDLE (.tar.gz; never overwrites)
	@if [ ! -f "$(OUTPUT)" ]; then \
	  echo "make archive: $(OUTPUT) does not exist; run 'make run' first (same INPUT/OUTPUT)" >&2; exit 1; fi
	@if [ -e "$(BUNDLE)" ] || [ -L "$(BUNDLE)" ]; then $(call refused,archive,$(BUNDLE),bundles,BUNDLE); exit 1; fi
	@mkdir -p "$(dir $(BUNDLE))"
	$(call ABLATION,$(call mount,$(dir $(OUTPUT)),/out,ro) $(call mount,$(dir $(BUNDLE)),/bundle) $(EVIDENCE_ARGS)) \
	  archive --input "$(IN)" --results "$(OUT)" --bundle "$(BUN)" $(EV_FLAGS) $(SHOW_OUTPUT)

verify-archive: $(RUN_DEPS) ## re-check BUNDLE and recompute its result (PUBLIC_KEY=<pem> checks the signature)
	@[ -f "$(BUNDLE)" ] || { echo "make verify-archive: BUNDLE '$(BUNDLE)' is not a file" >&2; exit 2; }
	@$(if $(PUBLIC_KEY),[ -f "$(PUBLIC_KEY)" ] || { echo "make verify-archive: PUBLIC_KEY '$(PUBLIC_KEY)' is not a file" >&2; exit 2; })
	$(call ABLATION,$(VERIFY_ARCHIVE_MOUNTS)) verify-archive "$(BUN)" $(if $(PUBLIC_KEY),--public-key "$(PUBLIC_KEY_IN)")

bench: $(STAMP) $(DEV_STAMP) ## run benchmarks/bench.py (development environment; times the sealed .venv)
	$(DEV_VENV)/bin/python benchmarks/bench.py $(BENCH_ARGS)

mutate: $(DEV_STAMP) ## mutation testing (mutmut), module by module; MODULE=ablation/metrics.py for one; report: build/mutation/report.md
	nice -n 15 $(DEV_VENV)/bin/python tools/mutate.py $(if $(MODULE),--module $(MODULE))

clean-out: ## delete out/ (results and bundles written by run and archive)
	rm -rf out

clean: clean-out ## delete out/, .venv, .venv-dev and build/ (wheelhouse included)
	rm -rf $(VENV) $(DEV_VENV) build ablation.egg-info

# ---------------------------------------------------------------- preparation (PREPARE.md §2)
# ablation-prepare runs on the host, from the sealed .venv, whatever RUNNER says: preparation
# needs the host's git (and, to capture, node and SCI). Nothing here invents a default for
# EXPERIMENT, PREP_DIR, SHEET or a review file: a target that needs one refuses without it (exit 2).
PREPARE     := $(VENV)/bin/ablation-prepare
comma       := ,
required     = @[ -n "$($(2))" ] || { echo "make $(1): give $(2)=<$(3)>" >&2; exit 2; }

prepare-check: $(STAMP) ## check EXPERIMENT before anything runs and print its SHA-256 (ablation-prepare check)
	$(call required,prepare-check,EXPERIMENT,experiment file .toml)
	$(PREPARE) check "$(EXPERIMENT)"

prepare-sheet: $(STAMP) ## write the case-review sheet of EXPERIMENT to SHEET (outside PREP_DIR; never overwrites)
	$(call required,prepare-sheet,EXPERIMENT,experiment file .toml)
	$(call required,prepare-sheet,SHEET,new sheet file .md$(comma) outside PREP_DIR)
	@if [ -n "$(PREP_DIR)" ]; then case "$(abspath $(SHEET))" in "$(abspath $(PREP_DIR))"/*) \
	  echo "make prepare-sheet: SHEET '$(SHEET)' lies inside PREP_DIR '$(PREP_DIR)', which stays empty until capture" >&2; \
	  exit 2;; esac; fi
	@mkdir -p "$(dir $(SHEET))"
	$(PREPARE) sheet cases "$(EXPERIMENT)" --out "$(SHEET)"

# Naming this target is the explicit act: it passes --execute-owners itself. FILE_ACCESS has no
# default (strace: --file-access-trace strace; asserted: --assert-no-index-access). --resume and
# --retry STEP --reason TEXT are deliberate acts on one preparation: ablation-prepare only.
prepare-capture: $(STAMP) ## run the pinned owners once for EXPERIMENT into PREP_DIR (CASES_REVIEW, FILE_ACCESS)
	$(call required,prepare-capture,EXPERIMENT,experiment file .toml)
	$(call required,prepare-capture,PREP_DIR,preparation directory: absent or empty)
	$(call required,prepare-capture,CASES_REVIEW,cases review .toml)
	$(call required,prepare-capture,FILE_ACCESS,strace or asserted)
	@case "$(FILE_ACCESS)" in strace|asserted) ;; *) \
	  echo "make prepare-capture: FILE_ACCESS must be strace or asserted, not '$(FILE_ACCESS)'" >&2; exit 2;; esac
	$(PREPARE) capture "$(EXPERIMENT)" --dir "$(PREP_DIR)" --cases-review "$(CASES_REVIEW)" --execute-owners \
	  $(if $(filter strace,$(FILE_ACCESS)),--file-access-trace strace,--assert-no-index-access)$(if \
	  $(strip $(ALLOW_UNAVAILABLE)), --allow-unavailable-structural $(foreach c,$(ALLOW_UNAVAILABLE),"$(c)"))

# The staleness review binds to PREP_DIR/staleness-sheet.md; --gzip and --supersedes OLD_D are
# ablation-prepare only (a deliberate act on one preparation, never a target's default).
prepare-assemble: $(STAMP) ## build PREP_DIR/prepared.json from the capture, checked blind (STALENESS_REVIEW)
	$(call required,prepare-assemble,PREP_DIR,preparation directory capture filled)
	$(call required,prepare-assemble,STALENESS_REVIEW,staleness review .toml)
	$(PREPARE) assemble --dir "$(PREP_DIR)" --staleness-review "$(STALENESS_REVIEW)"

# Prints "<sha256>  prepared.json": what a preregistration cites and make run INPUT_SHA256= takes.
prepare-freeze: $(STAMP) ## freeze PREP_DIR with PRE_RUN_REVIEW (SIGN_KEY, ATTEMPT_RECORD optional); print the input's hash
	$(call required,prepare-freeze,PREP_DIR,assembled preparation directory)
	$(call required,prepare-freeze,PRE_RUN_REVIEW,pre-run review .toml)
	$(PREPARE) freeze --dir "$(PREP_DIR)" --pre-run-review "$(PRE_RUN_REVIEW)"$(if \
	  $(ATTEMPT_RECORD), --attempt-record "$(ATTEMPT_RECORD)")$(if $(SIGN_KEY), --sign-key "$(SIGN_KEY)")

# --results only when OUTPUT is given on the command line: the default OUTPUT of make run is never used here.
prepare-check-freeze: $(STAMP) ## re-check the frozen PREP_DIR (PUBLIC_KEY; OUTPUT=<results> checks the run)
	$(call required,prepare-check-freeze,PREP_DIR,frozen preparation directory)
	$(PREPARE) check-freeze --dir "$(PREP_DIR)"$(if $(PUBLIC_KEY), --public-key "$(PUBLIC_KEY)")$(if \
	  $(filter command line,$(origin OUTPUT)), --results "$(OUTPUT)")

# The newcomer's first look: check, sheet, capture (stand-ins), assemble, freeze, check-freeze, verify, run.
# Moves an earlier run (build/prepare-example/chain and the fixed work_root) into build/prepare-example/moved/.
prepare-example: $(STAMP) ## the whole preparation of examples/prepare with the stand-ins, then verify and run it once
	$(PYTHON) examples/prepare/run_example.py --venv "$(VENV)"

# ---------------------------------------------------------------- lock
lock: $(DEV_STAMP) ## re-lock requirements.in and requirements-dev.in (needs PyPI; UPGRADE=1 to upgrade)
	tools/relock.sh

lock-check: $(DEV_STAMP) ## offline checks of both locks, then re-compile and compare (needs PyPI)
	$(DEV_VENV)/bin/python tools/lockcheck.py
	tools/relock.sh --check

nix-lock: $(DEV_STAMP) ## regenerate nix/requirements-lock.nix from requirements.lock (needs the package index)
	$(DEV_VENV)/bin/python tools/nixlock.py

# ---------------------------------------------------------------- container image
# The wheelhouse: every pin of the lock for the image's Python, downloaded on the host
# and checked against the lock's hashes; the image build itself has no network.
$(WHEELHOUSE)/.complete: requirements.lock | $(DEV_STAMP)
	rm -rf $(WHEELHOUSE)
	$(DEV_VENV)/bin/python -m pip download --quiet --require-hashes --no-deps $(WHEEL_TAGS) \
	  -r requirements.lock -d $(WHEELHOUSE)
	touch $@

wheelhouse: $(WHEELHOUSE)/.complete ## download the lock's wheels for the image (CPython 3.11, glibc 2.36)

base-image: ## deterministic Debian root tarball (build/base/) and base image BASE_IMAGE (root; network, or BASE_TARBALL=)
	BASE_TARBALL="$(BASE_TARBALL)" $(IMAGE_ENV) tools/image.sh $(if $(BASE_TARBALL),base-import,base)

image: $(WHEELHOUSE)/.complete ## build IMAGE reproducibly (buildah, timestamps = SOURCE_DATE_EPOCH), load it into Docker, print its ID
	$(IMAGE_ENV) tools/image.sh image

image-check: $(WHEELHOUSE)/.complete ## rebuild from the working tree and compare with IMAGE_ID=sha256:... (exit 0 match, 3 mismatch)
	@[ -n "$(IMAGE_ID)" ] || { echo "make image-check: give the image to compare: IMAGE_ID=sha256:<64 hex>" >&2; exit 2; }
	$(IMAGE_ENV) tools/image.sh check "$(IMAGE_ID)"

# Before anything runs: the files the command reads exist on the host, as files or folders.
host-paths:
	@[ -f "$(INPUT)" ] || { echo "make: INPUT '$(INPUT)' is not a file" >&2; exit 2; }
	@$(if $(SIGN_KEY),[ -f "$(SIGN_KEY)" ] || { echo "make: SIGN_KEY '$(SIGN_KEY)' is not a file" >&2; exit 2; })
	@$(foreach e,$(EVIDENCE),[ -e "$(e)" ] || { echo "make: EVIDENCE '$(e)' is neither a file nor a folder" >&2; exit 2; };) true

# RUNNER=image: the host paths, a reachable Docker daemon, the image.
image-ready: host-paths
	@err=$$(docker info --format '{{.ServerVersion}}' 2>&1 >/dev/null) || { \
	  echo "make: Docker daemon not reachable: $$(printf '%s' "$$err" | head -n 1)" >&2; exit 1; }
	@docker image inspect "$(IMAGE)" >/dev/null 2>&1 || { \
	  echo "make: image $(IMAGE) not found; build it with 'make base-image image' (or give IMAGE=<id>)" >&2; exit 1; }
