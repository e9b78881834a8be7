# The sealed ablation image (PRODUCT.md "Sealed environment"), built by
# tools/image.sh with buildah (docs/explanation/image.md):
#
#   make base-image   # mmdebstrap minbase bookworm + python3, python3-venv -> build/base/, ablation-base:bookworm
#   make image        # stages build/image-context/ (wheelhouse, ablation wheel, lock, seal.py, source-tree), then
#                     # buildah bud --timestamp $SOURCE_DATE_EPOCH, loaded into Docker with the same ID
#   docker run --rm --network none --read-only <image id> identity
#
# The build context is build/image-context/, never the checkout: it is mounted
# read-only at /mnt (which the base has, so no mount point is created) for the
# one RUN step, so no file of it becomes a layer and its file modes (umask) and
# times cannot reach the image. Nothing here downloads: the
# wheels were fetched on the host and pip checks them against the lock's hashes.
#
# BASE_IMAGE defaults to the locally built Debian base, because no image registry
# is reachable where this was written; with a registry, pass an upstream image
# pinned by digest that has python3 and python3-venv. No "# syntax=" line: it
# would pull a frontend image.
ARG BASE_IMAGE=ablation-base:bookworm
FROM ${BASE_IMAGE}
ARG BASE_IMAGE
# Set by tools/image.sh; the history records them, so they must not vary by machine.
ARG BASE_IMAGE_ID=
ARG SOURCE_DATE_EPOCH
ARG CREATED
ARG REVISION
ARG SOURCE

# 1. /opt/ablation: a venv --without-pip holding only the lock's pins and the
#    ablation wheel, installed by a pip that lives outside it (a throwaway tools
#    venv from Debian's bundled pip wheel), hash-checked, from the mounted
#    wheelhouse only; no .pth file may remain.
# 2. bytecode: unchecked hash-based .pyc (no source mtime in them), then the seal
#    (lock copy, ablation's bytecode, closure manifest: tools/seal.py), whose source
#    revision compares the installed package with the commit the host listed in
#    source-tree (the image has no git; an empty file records null).
# 3. an unprivileged user; useradd dates its shadow entry from SOURCE_DATE_EPOCH.
RUN --mount=type=bind,target=/mnt \
    set -eu; \
    export SOURCE_DATE_EPOCH PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 \
        PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1; \
    python3 -m venv /tmp/tools; \
    python3 -m venv --without-pip /opt/ablation; \
    /tmp/tools/bin/python -m pip --python /opt/ablation/bin/python install --quiet --no-compile \
        --no-index --find-links /mnt/wheelhouse --require-hashes --no-deps \
        -r /mnt/requirements.lock; \
    /tmp/tools/bin/python -m pip --python /opt/ablation/bin/python install --quiet --no-compile \
        --no-index --no-deps /mnt/dist/ablation-*.whl; \
    rm -rf /tmp/tools; \
    site=$(/opt/ablation/bin/python -I -c 'import sysconfig; print(sysconfig.get_path("purelib"))'); \
    if find /opt/ablation -name '*.pth' | grep -q .; then \
        echo "image: .pth files in /opt/ablation: $(find /opt/ablation -name '*.pth')" >&2; exit 1; fi; \
    /opt/ablation/bin/python -I -m compileall -q -j 1 --invalidation-mode unchecked-hash "$site" >/dev/null; \
    /opt/ablation/bin/python -I -B /mnt/seal.py --lock /mnt/requirements.lock --environment container \
        --source-tree /mnt/source-tree; \
    groupadd --gid 10001 ablation; \
    useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin ablation

ENV PATH=/opt/ablation/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 \
    ABLATION_BASE_IMAGE="${BASE_IMAGE} ${BASE_IMAGE_ID}"

LABEL org.opencontainers.image.title="ablation" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.base.name="${BASE_IMAGE}" \
      io.ablation.base.image-id="${BASE_IMAGE_ID}" \
      io.ablation.source-date-epoch="${SOURCE_DATE_EPOCH}"

USER 10001:10001
WORKDIR /
ENTRYPOINT ["/opt/ablation/bin/ablation"]
CMD ["--help"]
