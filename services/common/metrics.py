"""The Prometheus figures an operator needs, defined once for every service."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.metrics import MetricWrapperBase


def at_zero(metric: MetricWrapperBase, *label_values: tuple[str, ...]) -> None:
    """Exports ``metric``'s children of these known label values at 0 before anything counts in
    them: a labelled counter with no child yet has no series, and its panel says "No data"
    rather than 0 (issue 28)."""
    for values in label_values:
        metric.labels(*values)


# A collection of the oldest generation walks every object the process holds: with thousands of
# games' states in memory it is a pause every call waits behind, which shows in the tail.
GC_PAUSE = Histogram(
    "boxedin_gc_pause_seconds",
    "Python garbage collection pauses, by generation",
    ["generation"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
# How late the event loop's watch woke (boxedin.common.stalls): what every callback waited then.
LOOP_LAG = Histogram(
    "boxedin_event_loop_lag_seconds",
    "How late the event loop ran a timer due every 20 ms",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
LOOP_STALLS = Counter(
    "boxedin_event_loop_stalls_total",
    "Event loop stalls of 50 ms or more, by cause (gc, busy: the loop's own work, starved: no CPU)",
    ["cause"],
)
RPC_LATENCY = Histogram("boxedin_rpc_seconds", "gRPC calls served, by method and status code", ["method", "code"])
GAMES_CREATED = Counter("boxedin_games_created_total", "Games started", ["mode", "opponent"])
ACTIONS = Counter("boxedin_actions_total", "Actions applied", ["action", "actor"])
ACTION_LATENCY = Histogram(
    "boxedin_action_seconds",
    "Time to load, check, apply and store one action",
    ["action"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
RULE_ERRORS = Counter("boxedin_refusals_total", "Actions and requests refused, by reason", ["reason"])
CAS_CONFLICTS = Counter("boxedin_cas_conflicts_total", "Actions that lost a race on the same game")
AI_THINK = Histogram(
    "boxedin_ai_think_seconds",
    "Time the AI took to choose a turn, by level",
    ["level"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.7, 0.8, 1.0, 2.0),
)
AI_TURNS = Counter("boxedin_ai_turns_total", "Computer turns played, by level", ["level"])
CELERY_FALLBACKS = Counter(
    "boxedin_expert_fallbacks_total", "Expert evaluations done in-process because no worker answered in time"
)
CELERY_TASKS = Counter("boxedin_expert_tasks_total", "Expert evaluation tasks, by outcome", ["outcome"])
WEBSOCKETS = Gauge("boxedin_websocket_connections", "Open websocket connections")
WEBSOCKET_FRAMES = Counter("boxedin_websocket_frames_total", "Client frames received, by type", ["type"])
DEADLINES_FIRED = Counter(
    "boxedin_deadlines_total", "Deadlines claimed by an engine replica, by what came of them", ["outcome"]
)
COMPUTER_TURNS_TAKEN = Counter(
    "boxedin_computer_turn_jobs_total", "Computer turns taken from the work streams, by how", ["how"]
)
STATS_COUNTED = Counter("boxedin_stats_games_counted_total", "Finished games counted, by opponent", ["against"])
STATS_LAG = Histogram(
    "boxedin_stats_lag_seconds",
    "Time from a game's end to its being counted in the statistics",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0),
)
GAMES_FINISHED = Counter(
    "boxedin_games_finished_total", "Games finished (played out or resigned)", ["mode", "opponent"]
)
GAMES_NOW = Gauge(
    "boxedin_games_now",
    "Games being played now, by mode: unfinished, and followed by a player's socket or (online) in its grace",
    ["mode"],
)
PLAYERS_ONLINE = Gauge("boxedin_players_online", "Players online: distinct devices connected over every gateway")
FIGURES_UPDATED = Gauge(
    "boxedin_figures_updated_timestamp_seconds", "When the presence and games figures were last worked out"
)
REDIS_UP = Gauge("boxedin_redis_up", "1 while this process reaches Redis, 0 when it cannot")
ROUND_TRIP = Histogram(
    "boxedin_round_trip_seconds",
    "An action's round trip in the gateway: frame received to its update sent, by action",
    ["action"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
CELERY_QUEUE = Gauge("boxedin_celery_queue_length", "Expert evaluation tasks waiting for a Celery worker")
CELERY_TASK_LATENCY = Histogram(
    "boxedin_expert_task_seconds",
    "An Expert evaluation task from sending to its answer",
    buckets=(0.05, 0.1, 0.25, 0.5, 0.7, 1.0, 2.0, 5.0),
)
REVIEW_QUEUE = Gauge("boxedin_review_queue_length", "Review turns waiting on the analysis queue for a Celery worker")
REVIEWS_STARTED = Counter(
    "boxedin_reviews_started_total", "Reviews of finished games started (asked for the first time)"
)
REVIEW_TURN_SECONDS = Histogram(
    "boxedin_review_turn_seconds",
    "One turn of a review, the analysis alone, by whether its figures are exact or estimated",
    ["kind"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.5, 5.0, 10.0, 30.0),
)
WORKERS_BUSY = Gauge("boxedin_celery_tasks_running", "Expert evaluation tasks a Celery worker is running now")
# Set by the AI service at start from BOXEDIN_USE_CELERY: the alerts expect Celery workers only
# where it is 1 (Celery off is a valid setting; Expert then thinks in the AI service).
EXPERT_POOL_ENABLED = Gauge(
    "boxedin_expert_pool_enabled", "1 when Expert spreads its playouts over the Celery workers (use_celery), else 0"
)
ONLINE_GAMES_STARTED = Counter(
    "boxedin_online_games_started_total", "Online games the matchmaker started, by mode and how the players met",
    ["mode", "via"],
)  # fmt: skip
FIND_MATCH_WAITING = Gauge(
    "boxedin_find_match_waiting", "Players waiting in Find Match by mode (0 or 1: at most one waits)", ["mode"]
)
PAIRING_TIME = Histogram(
    "boxedin_pairing_seconds",
    "Find Match: from a player's find_match frame to their game, as their gateway saw it",
    buckets=(0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300),
)
# The gateway's own refusals of a connection or a frame, by its limit (boxedin.gateway.limits,
# REFUSAL_REASONS): each reason is exported at zero from the start, so a rate over it is 0, not
# "No data", until the first one.
GATEWAY_REFUSALS = Counter(
    "boxedin_gateway_refusals_total",
    "Websockets and frames the gateway refused under its limits (docs/protocol.md, Limits), by reason",
    ["reason"],
)

# What can stall, measured by the engine, which writes the streams and the deadline sets: it
# still measures them while the AI or the stats service (their readers) is stopped.
COMPUTER_TURNS_WAITING = Gauge(
    "boxedin_computer_turns_waiting",
    "Computer turns no AI replica is playing: not yet read, or left by a replica that stopped, by partition",
    ["partition"],
)
COMPUTER_TURN_OLDEST_WAIT = Gauge(
    "boxedin_computer_turn_oldest_wait_seconds",
    "Age of the oldest computer turn no AI replica is playing (0 when none waits), by partition",
    ["partition"],
)
STATS_BACKLOG = Gauge(
    "boxedin_stats_backlog", "Finished games not yet counted in the statistics, by partition", ["partition"]
)
STATS_BACKLOG_OLDEST = Gauge(
    "boxedin_stats_backlog_oldest_seconds",
    "Age of the oldest finished game not yet counted in the statistics (0 when none waits), by partition",
    ["partition"],
)
STREAMS_MEASURED = Gauge(
    "boxedin_streams_measured_timestamp_seconds", "When the work and finished-games streams were last measured"
)
DEADLINE_LATENESS = Histogram(
    "boxedin_deadline_lateness_seconds",
    "How long after it fell due a deadline was claimed",
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
DEADLINE_LOOP_TICK = Gauge(
    "boxedin_deadline_loop_tick_timestamp_seconds", "When the deadline loop last read the deadline sets"
)
WEBSOCKET_CLOSES = Counter(
    "boxedin_websocket_closes_total",
    "Websocket connections ended, by close code (reset: the gateway dropped the TCP connection)",
    ["code"],
)
