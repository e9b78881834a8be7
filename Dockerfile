# The sealed ablation image (PRODUCT.md "Sealed environment").
#
#   make base-image   # debootstrap --variant=minbase bookworm + python3 python3-venv -> ablation-base:bookworm
#   make image        # downloads the lock's wheels to build/wheelhouse, then docker build --network none
#   docker run --rm --network none --read-only ablation:latest identity
#
# BASE_IMAGE defaults to the locally built Debian base, because no image registry
# is reachable where this was written; with a registry, pass an upstream image
# pinned by digest (e.g. --build-arg BASE_IMAGE=debian:bookworm-slim@sha256:<digest>
# after installing python3 and python3-venv in it). Nothing here downloads: the
# dependencies come from the wheelhouse, checked against the lock's hashes.
ARG BASE_IMAGE=ablation-base:bookworm
FROM ${BASE_IMAGE}
ARG BASE_IMAGE
# What the builder asserts about the base (the Makefile adds the base's image id).
ARG BASE_IMAGE_REF=${BASE_IMAGE}

COPY build/wheelhouse/ /tmp/build/wheelhouse/
COPY requirements.lock pyproject.toml /tmp/build/src/
COPY ablation/ /tmp/build/src/ablation/
COPY tools/seal.py /tmp/build/tools/seal.py

# 1. dependencies: exactly the lock's pins, hash-checked, from the wheelhouse only
# 2. the package itself (its build backend comes from step 1: --no-build-isolation)
# 3. seal: lock copy, bytecode compiled now, closure manifest (tools/seal.py)
# 4. an unprivileged user; the build folder goes
RUN set -eu; \
    export PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1; \
    python3 -m venv /opt/ablation; \
    /opt/ablation/bin/python -m pip install --no-index --find-links /tmp/build/wheelhouse \
        --require-hashes --no-deps -r /tmp/build/src/requirements.lock; \
    /opt/ablation/bin/python -m pip install --no-index --no-deps --no-build-isolation /tmp/build/src; \
    /opt/ablation/bin/python -I -B /tmp/build/tools/seal.py --lock /tmp/build/src/requirements.lock; \
    groupadd --gid 10001 ablation; \
    useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin ablation; \
    rm -rf /tmp/build

ENV PATH=/opt/ablation/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 \
    ABLATION_ENVIRONMENT=container \
    ABLATION_BASE_IMAGE=${BASE_IMAGE_REF}

USER 10001:10001
WORKDIR /
ENTRYPOINT ["ablation"]
CMD ["--help"]
