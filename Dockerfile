# Boxed In: one image for every process kind (gateway, engine, ai, stats, worker, matchmaker),
# chosen by the first argument (deploy/entrypoint.sh):
#
#   docker build -t boxedin:0.1.0 .
#   docker run --rm -p 8000:8000 -e BOXEDIN_REDIS_URL=redis://... boxedin:0.1.0 gateway
#
# Stages: `web` builds the browser client (web/dist), `build` installs the package into a
# virtual environment, generates the gRPC code and compiles the Cython modules (as
# scripts/setup and scripts/build-protos do on a developer's machine), and `runtime` is a slim
# image running as an unprivileged user (uid 10001) that writes nowhere but /tmp, so it runs
# with a read-only root filesystem.
#
# It builds with any builder, BuildKit or the classic one (no `# syntax` line, no `COPY --chmod`,
# no `RUN --mount`). The base images are pinned to exact releases; for builds that never change
# under you, pin their digests too, e.g.
#   docker build --build-arg PYTHON_IMAGE=python:3.11.11-slim-bookworm@sha256:DIGEST ...
# (`docker buildx imagetools inspect python:3.11.11-slim-bookworm` shows the digest).

ARG PYTHON_IMAGE=python:3.11.11-slim-bookworm
ARG NODE_IMAGE=node:20.18.1-bookworm-slim

# --- the web client: TypeScript built with Vite into web/dist ---------------------------------
FROM ${NODE_IMAGE} AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY web/ ./
RUN npm run build && test -f dist/index.html

# --- the Python package, its gRPC code and its compiled modules -------------------------------
FROM ${PYTHON_IMAGE} AS build
# A C compiler for the Cython modules (setup.py).
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH
RUN python -m venv /opt/venv && pip install --upgrade pip "setuptools>=69" wheel
WORKDIR /app
# The dependencies first (from pyproject.toml alone), so a change to the code does not
# reinstall them.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt
COPY setup.py README.md ./
COPY proto/ proto/
COPY services/ services/
# The package boxedin is the folder services/ (package-dir in pyproject.toml), installed in
# editable mode as scripts/setup does: the code stays at /app/services, where the generated
# gRPC package (boxedin.v1) and the compiled modules are found next to their sources (the
# plain-Python build of a compiled module reads its .py file from there).
RUN pip install --no-deps -e .
# scripts/build-protos, without the typed stubs (mypy's, not needed at run time).
RUN out=$(mktemp -d) \
    && python -m grpc_tools.protoc -I proto --python_out="$out" --grpc_python_out="$out" proto/boxedin/v1/*.proto \
    && rm -rf services/v1 \
    && mv "$out/boxedin/v1" services/v1 \
    && printf '"""Generated from proto/boxedin/v1 by scripts/build-protos; not committed."""\n' > services/v1/__init__.py \
    && rm -rf "$out"
# The Cython modules, compiled in place (scripts/setup); then drop the generated C sources and
# byte-compile everything, since the running image cannot write __pycache__.
RUN python setup.py build_ext --inplace \
    && find services -name '*.c' -delete \
    && python -m compileall -q --invalidation-mode unchecked-hash services
# Fails the build when a compiled module is missing or a process kind cannot import.
RUN cd /tmp && python -c "import boxedin.engine._core as core, boxedin.ai._playout as playout; \
assert core.__file__.endswith('.so') and playout.__file__.endswith('.so'), (core.__file__, playout.__file__); \
import boxedin.gateway.app, boxedin.engine.service.server, boxedin.ai.service.server, boxedin.stats.server, boxedin.ai.tasks"

# --- the image that runs ----------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS runtime
LABEL org.opencontainers.image.title="Boxed In" \
      org.opencontainers.image.description="Dots and Boxes service: gateway, engine, ai, stats, worker, matchmaker"
ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOME=/tmp \
    TMPDIR=/tmp \
    BOXEDIN_WEB_DIST=/app/web/dist \
    BOXEDIN_GATEWAY_HOST=0.0.0.0 \
    BOXEDIN_METRICS_HOST=0.0.0.0
# The service's user, by number (Kubernetes' runAsNonRoot can only check a numeric USER).
RUN groupadd --system --gid 10001 boxedin \
    && useradd --system --uid 10001 --gid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin boxedin
# Owned by root and read-only to the service's user.
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app/services /app/services
COPY --from=web /src/web/dist /app/web/dist
COPY deploy/entrypoint.sh /usr/local/bin/boxedin-entrypoint
RUN chmod 0755 /usr/local/bin/boxedin-entrypoint
WORKDIR /app
USER 10001:10001
# The gateway's HTTP (8000); the engine's, AI's, stats' and matchmaker's gRPC (50051-50054);
# every kind's Prometheus /metrics: gateway 9100, engine 9101, ai 9102, worker 9103, stats 9104,
# matchmaker 9105 (the README's settings table).
EXPOSE 8000 50051 50052 50053 50054 9100 9101 9102 9103 9104 9105
ENTRYPOINT ["/usr/local/bin/boxedin-entrypoint"]
CMD ["gateway"]
