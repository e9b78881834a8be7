# ablation: build the sealed virtual environment from the hashed lock and drive the evaluator.
# `make help` lists the targets; README.md explains them.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

# ---------------------------------------------------------------- variables
PYTHON      ?= python3
VENV        ?= .venv
RUNNER      ?= venv
IMAGE       ?= ablation:latest
BASE_IMAGE  ?= ablation-base:bookworm
DEBIAN_MIRROR ?= http://deb.debian.org/debian
WHEELHOUSE  := build/wheelhouse

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

LOCK_STAMP  := $(VENV)/.lock-installed
STAMP       := $(VENV)/.sealed
PKG_SOURCES := $(shell find ablation -type f -not -path '*/__pycache__/*' -not -name '*.pyc' 2>/dev/null | LC_ALL=C sort)
ARCH        := $(shell uname -m)
# Wheels for the image's interpreter: CPython 3.11 (Debian bookworm), glibc 2.36.
WHEEL_TAGS  := --only-binary=:all: --implementation cp --python-version 3.11 \
               --abi cp311 --abi abi3 --abi none \
               $(foreach v,36 35 34 33 32 31 30 29 28 27 26 25 24 23 22 21 20 19 18 17,--platform manylinux_2_$(v)_$(ARCH)) \
               --platform manylinux2014_$(ARCH) --platform linux_$(ARCH)

# How the ablation command runs: from the sealed .venv (RUNNER=venv), or inside
# the image (RUNNER=image), with no network, a read-only root, the input mounted
# read-only, the image digest asserted from `docker image inspect`.
ifeq ($(RUNNER),image)
RUN_DEPS    := image-present
IN          := /in/$(notdir $(INPUT))
OUT         := /out/$(notdir $(OUTPUT))
BUN         := /bundle/$(notdir $(BUNDLE))
EVIDENCE_ARGS := $(foreach e,$(EVIDENCE),-v "$(abspath $(e)):/evidence/$(notdir $(e)):ro") \
                 $(if $(SIGN_KEY),-v "$(abspath $(SIGN_KEY)):/keys/$(notdir $(SIGN_KEY)):ro")
EV_FLAGS    := $(foreach e,$(EVIDENCE),--evidence /evidence/$(notdir $(e))) \
               $(if $(SIGN_KEY),--sign-key /keys/$(notdir $(SIGN_KEY)))
# The command prints the container's path of the output; show the caller's.
SHOW_OUTPUT := | sed -e 's\#  $(OUT)$$\#  $(OUTPUT)\#'
ABLATION     = docker run --rm --network none --read-only --user "$$(id -u):$$(id -g)" \
               -e ABLATION_IMAGE_DIGEST="$$(docker image inspect --format '{{.Id}}' $(IMAGE))" \
               -v "$(abspath $(INPUT)):$(IN):ro" $(1) $(IMAGE)
else ifeq ($(RUNNER),venv)
RUN_DEPS    := $(STAMP)
IN          := $(INPUT)
OUT         := $(OUTPUT)
BUN         := $(BUNDLE)
EVIDENCE_ARGS :=
SHOW_OUTPUT :=
EV_FLAGS    := $(foreach e,$(EVIDENCE),--evidence $(e)) $(if $(SIGN_KEY),--sign-key $(SIGN_KEY))
ABLATION     = PYTHONDONTWRITEBYTECODE=1 $(VENV)/bin/ablation
else
$(error RUNNER must be venv or image, not '$(RUNNER)')
endif

HASH_FLAGS := $(if $(INPUT_SHA256),--input-sha256 $(INPUT_SHA256)) \
              $(if $(INPUT_GZIP_SHA256),--input-gzip-sha256 $(INPUT_GZIP_SHA256))

.PHONY: help test verify run archive bench clean-out image base-image image-present wheelhouse \
        venv lock lock-check clean mutate

# ---------------------------------------------------------------- help
help: ## show the targets and variables
	@echo "usage: make <target> [INPUT=prepared.json] [INPUT_SHA256=<hex>] [OUTPUT=out/x.results.json] [BUNDLE=out/x.bundle.tar.gz]"
	@echo
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'
	@echo
	@echo "variables: INPUT (default $(EXAMPLE), hash from $(EXAMPLE).sha256), INPUT_SHA256,"
	@echo "  INPUT_GZIP_SHA256, OUTPUT (default out/<input name>.results.json), BUNDLE, EVIDENCE, SIGN_KEY,"
	@echo "  RUNNER=venv|image (image: run inside $(IMAGE) with --network none --read-only),"
	@echo "  IMAGE, BASE_IMAGE (default $(BASE_IMAGE)), PYTHON (default python3)"

# ---------------------------------------------------------------- the sealed .venv
# Step 1: a fresh venv with exactly the lock's hash-checked pins (re-made when the lock changes).
$(LOCK_STAMP): requirements.lock
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --require-hashes --no-deps -r requirements.lock
	touch $@

# Step 2: the package itself, non-editable, then sealed: lock copy, bytecode, closure manifest.
$(STAMP): $(LOCK_STAMP) pyproject.toml tools/seal.py $(PKG_SOURCES)
	rm -rf build/lib build/bdist.* ablation.egg-info
	$(VENV)/bin/python -m pip install --quiet --no-deps --no-build-isolation --force-reinstall --no-cache-dir .
	$(VENV)/bin/python -I -B tools/seal.py --lock requirements.lock
	touch $@

venv: $(STAMP) ## build .venv from the lock and install the sealed package (the other targets do it when needed)

# ---------------------------------------------------------------- everyday targets
test: $(STAMP) ## run the test suite against the checkout (.venv/bin/python -m pytest)
	$(VENV)/bin/python -m pytest

verify: $(RUN_DEPS) ## blind pre-run check of INPUT: everything run checks, no ranking or metrics
	$(call ABLATION) verify --input "$(IN)" $(HASH_FLAGS)

run: $(RUN_DEPS) ## evaluate INPUT into OUTPUT (never overwrites; prints "<sha256>  OUTPUT")
	@if [ -e "$(OUTPUT)" ] || [ -L "$(OUTPUT)" ]; then \
	  echo "make run: $(OUTPUT) already exists; results are never overwritten." >&2; \
	  echo "make run: to run again, remove it with 'make clean-out' (deletes out/), or write elsewhere: make run OUTPUT=out/another.results.json" >&2; \
	  exit 1; fi
	@mkdir -p "$(dir $(OUTPUT))"
	$(call ABLATION,-v "$(abspath $(dir $(OUTPUT))):/out") run --input "$(IN)" $(HASH_FLAGS) --output "$(OUT)" $(SHOW_OUTPUT)

archive: $(RUN_DEPS) ## bundle INPUT, OUTPUT and the evidence into BUNDLE (.tar.gz; never overwrites)
	@if [ ! -f "$(OUTPUT)" ]; then \
	  echo "make archive: $(OUTPUT) does not exist; run 'make run' first (same INPUT/OUTPUT)" >&2; exit 1; fi
	@if [ -e "$(BUNDLE)" ] || [ -L "$(BUNDLE)" ]; then \
	  echo "make archive: $(BUNDLE) already exists; remove it with 'make clean-out' or choose BUNDLE=..." >&2; exit 1; fi
	@mkdir -p "$(dir $(BUNDLE))"
	$(call ABLATION,-v "$(abspath $(dir $(OUTPUT))):/out:ro" -v "$(abspath $(dir $(BUNDLE))):/bundle" $(EVIDENCE_ARGS)) \
	  archive --input "$(IN)" --results "$(OUT)" --bundle "$(BUN)" $(EV_FLAGS)

bench: $(STAMP) ## run benchmarks/bench.py with the .venv interpreter
	$(VENV)/bin/python benchmarks/bench.py $(BENCH_ARGS)

mutate: $(STAMP) ## mutation testing (mutmut), module by module; MODULE=ablation/metrics.py for one; report: build/mutation/report.md
	nice -n 15 $(VENV)/bin/python tools/mutate.py $(if $(MODULE),--module $(MODULE))

clean-out: ## delete out/ (results and bundles written by run and archive)
	rm -rf out

clean: clean-out ## delete out/, .venv and build/ (wheelhouse included)
	rm -rf $(VENV) build ablation.egg-info

# ---------------------------------------------------------------- lock
lock: $(LOCK_STAMP) ## re-lock requirements.in into requirements.lock (needs PyPI; UPGRADE=1 to upgrade)
	tools/relock.sh

lock-check: $(LOCK_STAMP) ## offline lock checks, then re-compile and compare (needs PyPI)
	$(VENV)/bin/python tools/lockcheck.py
	tools/relock.sh --check

# ---------------------------------------------------------------- container image
# The wheelhouse: every pin of the lock for the image's Python, downloaded on the host
# and checked against the lock's hashes; the image build itself has no network.
$(WHEELHOUSE)/.complete: requirements.lock | $(LOCK_STAMP)
	rm -rf $(WHEELHOUSE)
	$(VENV)/bin/python -m pip download --quiet --require-hashes --no-deps $(WHEEL_TAGS) \
	  -r requirements.lock -d $(WHEELHOUSE)
	touch $@

wheelhouse: $(WHEELHOUSE)/.complete ## download the lock's wheels for the image (CPython 3.11, glibc 2.36)

base-image: ## build the base image BASE_IMAGE: debootstrap minbase bookworm + python3, python3-venv (root, network)
	@command -v debootstrap >/dev/null || { echo "make base-image: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
	rootfs=$$(mktemp -d /tmp/ablation-rootfs.XXXXXX); \
	trap 'rm -rf "$$rootfs"' EXIT; \
	debootstrap --variant=minbase --include=python3,python3-venv bookworm "$$rootfs" $(DEBIAN_MIRROR); \
	rm -rf "$$rootfs"/var/cache/apt/archives/*.deb "$$rootfs"/var/lib/apt/lists/* "$$rootfs"/var/log/*.log; \
	tar --numeric-owner -C "$$rootfs" -c . | docker import \
	  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
	  --change 'ENV LANG=C.UTF-8' \
	  --message 'debootstrap --variant=minbase --include=python3,python3-venv bookworm $(DEBIAN_MIRROR)' \
	  - $(BASE_IMAGE)
	docker image inspect --format '$(BASE_IMAGE) {{.Id}}' $(BASE_IMAGE)

image: $(WHEELHOUSE)/.complete ## build IMAGE from the Dockerfile (offline: docker build --network none) on BASE_IMAGE
	@docker image inspect $(BASE_IMAGE) >/dev/null 2>&1 || { \
	  echo "make image: base image $(BASE_IMAGE) not found; run 'make base-image' first (or BASE_IMAGE=<image>@sha256:...)" >&2; exit 1; }
	docker build --network none \
	  --build-arg BASE_IMAGE=$(BASE_IMAGE) \
	  --build-arg BASE_IMAGE_REF="$(BASE_IMAGE) $$(docker image inspect --format '{{.Id}}' $(BASE_IMAGE))" \
	  -t $(IMAGE) .
	docker image inspect --format '$(IMAGE) {{.Id}}' $(IMAGE)

image-present:
	@docker image inspect $(IMAGE) >/dev/null 2>&1 || { \
	  echo "make: image $(IMAGE) not found; run 'make base-image image' first" >&2; exit 1; }
