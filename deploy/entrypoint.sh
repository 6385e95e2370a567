#!/bin/sh
# The image's entrypoint: one image serves every process kind of Boxed In, named by the first
# argument (the Helm chart passes it as the container's args):
#
#   docker run IMAGE gateway|engine|ai|stats|worker|matchmaker
#   docker run IMAGE boxedin replay -      # any `boxedin` sub-command
#
# Settings come from the environment (BOXEDIN_*, see the README). The worker also reads
# BOXEDIN_WORKER_CONCURRENCY (processes in its pool, default 2) and BOXEDIN_WORKER_LOG_LEVEL
# (Celery's own log level, default WARNING).
set -eu

usage() {
    echo "usage: IMAGE gateway|engine|ai|stats|worker|matchmaker [ARGS...] | boxedin COMMAND..." >&2
}

if [ "$#" -eq 0 ]; then
    usage
    exit 64
fi

kind=$1
shift
case "$kind" in
    gateway)
        exec python -m boxedin.gateway "$@" ;;
    engine)
        exec python -m boxedin.engine.service "$@" ;;
    ai)
        exec python -m boxedin.ai.service "$@" ;;
    stats)
        exec python -m boxedin.stats "$@" ;;
    matchmaker)
        exec python -m boxedin.matchmaker "$@" ;;
    worker)
        # As `boxedin up` starts it: one task at a time per process (Expert's tasks expire in
        # seconds), no gossip, mingle or heartbeats between workers.
        exec python -m celery -A boxedin.ai.tasks worker \
            --concurrency "${BOXEDIN_WORKER_CONCURRENCY:-2}" \
            --prefetch-multiplier 1 --pool prefork \
            --loglevel "${BOXEDIN_WORKER_LOG_LEVEL:-WARNING}" \
            --without-gossip --without-mingle --without-heartbeat "$@" ;;
    boxedin)
        exec boxedin "$@" ;;
    -h|--help|help)
        usage
        exit 0 ;;
    *)
        echo "entrypoint: unknown process kind '$kind'" >&2
        usage
        exit 64 ;;
esac
