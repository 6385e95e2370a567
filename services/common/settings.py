"""Settings of every service, from the environment (prefix BOXEDIN_), with working defaults for
one machine. REDIS_URL is also read without the prefix."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .keys import Keys
from .networks import parse_networks


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BOXEDIN_", extra="ignore")

    # Redis holds every game and is Celery's broker. Empty: `boxedin up` starts a local one.
    redis_url: str = Field(
        default="redis://127.0.0.1:6379/0",
        validation_alias=AliasChoices("BOXEDIN_REDIS_URL", "REDIS_URL"),
    )
    # Connections each process keeps to Redis, and how long a caller waits for a free one.
    redis_max_connections: int = Field(default=512, ge=8)
    redis_pool_wait_seconds: float = 5.0
    # Every key this installation writes starts with this, so tests and installations that
    # share one Redis never touch each other's keys.
    key_prefix: str = "boxedin:"

    # The engine replicas: a comma list of host:port, or a name resolved to all its addresses (a
    # headless Service), again every engine_resolve_seconds; each game's calls go to one of them
    # (boxedin.common.engine_router).
    engine_address: str = "127.0.0.1:50051"
    engine_resolve_seconds: float = Field(default=10.0, gt=0)
    # "partition": each game's calls to its replica; "round_robin": every call to the next live
    # replica in turn (as before issue 32, kept as the baseline `boxedin bench replicas` measures).
    engine_routing: Literal["partition", "round_robin"] = "partition"
    # True: a caller's actions go over one long-lived stream to each replica (Engine.ActBatches,
    # boxedin.common.act_line); False: a unary Act call each (as before issue 32, the baseline
    # `boxedin bench grpc` measures).
    engine_act_stream: bool = True
    # The engine's action port (boxedin.common.act_socket): the same actions as frames on a plain
    # connection, which costs each side far less than gRPC's stream. 0: a port the system picks
    # (callers learn it from GetActPort); -1: none, and callers use the stream.
    engine_act_port: int = Field(default=0, ge=-1, le=65535)
    # True: a caller's actions go to a replica's action port when it has one (else the stream).
    engine_act_socket: bool = True
    # The games an engine process keeps decoded (and their last states): an action on one of them
    # skips reading and replaying it. Fewer than the games in play on the replica, and their
    # actions, coming round in turn, each find theirs gone (5,000 Classic games with 2,048: 1,030
    # reads per 1,000 actions). About 30 KB each.
    engine_game_copies: int = Field(default=8192, ge=1)
    ai_address: str = "127.0.0.1:50052"
    stats_address: str = "127.0.0.1:50053"
    matchmaker_address: str = "127.0.0.1:50054"
    # The gateway serves its Prometheus /metrics here, apart from its public port (an Ingress
    # exposes that one); 0: not served.
    gateway_metrics_port: int = 9100
    engine_metrics_port: int = 9101
    ai_metrics_port: int = 9102
    worker_metrics_port: int = 9103
    stats_metrics_port: int = 9104
    matchmaker_metrics_port: int = 9105

    # Where every process serves its Prometheus /metrics: loopback on one machine, all
    # interfaces (0.0.0.0) inside a pod.
    metrics_host: str = "127.0.0.1"
    # Celery's broker and results: the Redis URL unless set (a Redis Cluster cannot be Celery's
    # broker: give a plain Redis here then).
    celery_broker_url: str = ""
    # The Redis at redis_url is a node of a Redis Cluster: the services speak redis-py's cluster
    # client (every Lua script touches one slot; see boxedin.common.keys).
    redis_cluster: bool = False

    gateway_host: str = "127.0.0.1"
    gateway_port: int = 8000
    # The built web client the gateway serves at /.
    web_dist: str = "web/dist"
    # Where the web client finds this machine's Same Wi-Fi app (`boxedin lan`), which `boxedin up`
    # starts beside the gateway; empty (as in a cluster): the Same Wi-Fi tab says how to start it.
    lan_url: str = ""

    # Expert's playouts: the time a turn may take, and how long its Celery tasks may wait.
    expert_budget_seconds: float = 0.7
    celery_task_expiry_seconds: float = 5.0
    # Set to false to make Expert evaluate in-process only (no worker pool); reviews then run
    # in the AI service itself.
    use_celery: bool = True
    # A review's estimated turns: the playouts' time each (more than Expert thinks in play).
    review_estimate_seconds: float = 1.0
    # Reviews' turns go to the Celery analysis queue, which a worker of its own serves
    # (`boxedin up` starts one); false: the AI service analyses them itself, one at a time.
    review_on_workers: bool = False

    # Pauses between the AI's moves, by AI speed setting.
    ai_pause_normal_seconds: float = 0.6
    ai_pause_fast_seconds: float = 0.15

    # Partitions of the work streams and deadline sets (a game's keys share its partition's
    # hash tag, for Redis Cluster). Must not change while games are stored.
    work_partitions: int = Field(default=16, ge=1, le=1024)
    # How often each engine replica looks for deadlines that fell due.
    deadline_poll_seconds: float = 0.2
    # A computer turn taken by an AI replica that has not touched it for this long (the
    # replica died) is taken over by another.
    ai_claim_idle_seconds: float = 2.0
    # A finished game read by a stats replica that died before counting it is taken over
    # after this long.
    stats_claim_idle_seconds: float = 30.0
    # Computer turns one AI replica plays at once.
    ai_concurrent_turns: int = 200

    # Online games (the rule book, "Playing Online"): the move limit of Find Match games, and how
    # long a player who is away has to come back. Shortened only by tests.
    move_limit_seconds: int = Field(default=120, ge=1)
    online_grace_seconds: int = Field(default=90, ge=1)
    # Gateways vouch for their players' connections to online games (and keep their Find Match
    # places) every online_keep_seconds; a connected player nobody vouched for in
    # online_lease_seconds (their gateway died) is away from then on.
    online_keep_seconds: float = Field(default=10.0, gt=0)
    online_lease_seconds: float = Field(default=30.0, gt=0)
    # A player whose last connection to an online game closed is away only once this long passed
    # without a new one: a device that reconnects at once (or keeps reconnecting) commits no
    # change of presence, so one flapping connection cannot move the game's seq on and on.
    online_settle_seconds: float = Field(default=1.0, ge=0)
    # Wrong guesses at room codes in any minute (a sliding window), per device and per client
    # address, so room codes cannot be found by trying. Only wrong guesses count: a friend with
    # the right code is refused only once their address (a household or a school shares one)
    # made its whole ceiling of wrong guesses, which bounds a guesser who changes devices.
    join_tries_per_device: int = Field(default=10, ge=1)
    join_tries_per_address: int = Field(default=100, ge=1)

    # One client must not hurt the others (docs/protocol.md, Limits). Frames waiting to go out to
    # one connection (the most a reconnect's catch-up sends at once is updates_kept), and how long
    # a frame may wait for the client to read before the connection is dropped.
    send_queue_frames: int = Field(default=1024, ge=16)
    send_stall_seconds: float = Field(default=5.0, gt=0)
    # Each connection's credits (lila-ws's model): frame_credits frames at once, refilled at
    # frame_credits_per_second. A frame beyond them is refused (too_fast); a connection that keeps
    # on until it owes frame_credits more is closed. A person never comes near either; the burst
    # is a whole game's moves (Expert's board: about 300), so that an automated player (boxedin
    # load, the tests) can play a game at its own pace on one connection.
    frame_credits: int = Field(default=500, ge=1)
    frame_credits_per_second: float = Field(default=20.0, gt=0)
    # Websockets open at once from one client address, on each gateway replica (a school or a
    # carrier's NAT puts many players behind one address).
    # They count from the TCP accept, so connections that never finish their HTTP headers count
    # too (docs/protocol.md, Limits, Budgets per address).
    connections_per_address: int = Field(default=1000, ge=1)
    # The client address of every per-address limit and log line (boxedin.gateway.forwarded):
    # the TCP peer's, unless the peer is in one of these networks (comma-separated CIDRs: the
    # Ingress controller's pods, a load balancer). From them the header below is believed, read
    # from the right past every trusted hop. Empty (the default): no proxy is trusted, and every
    # forwarded header is ignored, loopback's too: a local proxy must be named (127.0.0.1/32).
    trusted_proxies: str = ""
    # The one header the trusted proxies append the client to (nginx, the ingress-nginx
    # controller and most load balancers: X-Forwarded-For); the other one is never read, as a
    # client may send it and no proxy appends to it.
    client_address_header: Literal["x-forwarded-for", "forwarded"] = "x-forwarded-for"
    # Of those, at most this many idle (no frame but ping for idle_after_seconds): a new
    # connection closes the one idle longest beyond it, and takes its place at the cap.
    idle_connections_per_address: int = Field(default=100, ge=1)
    idle_after_seconds: float = Field(default=60.0, gt=0)
    # New connections from one address: a burst, then so many a second; a connection closed for
    # its flood (4429) costs its address address_too_fast_cost of them, so a client that
    # reconnects after each close is refused before any work is done for it.
    address_connects_burst: int = Field(default=200, ge=1)
    address_connects_per_second: float = Field(default=20.0, gt=0)
    address_too_fast_cost: int = Field(default=200, ge=0)
    # Frames and actions from one address, across all its connections: a burst, then so many a
    # second. A household or a school behind one NAT stays far below; a flood spread over many
    # sockets is cut off. The actions' burst is a few seconds of their rate: each action is work
    # for the engine and Redis, and ten addresses spending a burst of 1000 at once took the other
    # players' p99 past 200 ms (`boxedin abuse --kinds actions --addresses 10`).
    address_frames_burst: int = Field(default=1000, ge=1)
    address_frames_per_second: float = Field(default=100.0, gt=0)
    address_actions_burst: int = Field(default=100, ge=1)
    address_actions_per_second: float = Field(default=30.0, gt=0)
    # A connection's HTTP request headers (the websocket handshake's too) must be in within this.
    header_timeout_seconds: float = Field(default=5.0, gt=0)
    # File descriptors kept free for /healthz and new players' first connections: when the
    # gateway holds all but these, an address that holds several connections gets no more.
    descriptor_reserve: int = Field(default=200, ge=16)
    # A connection that has not said hello this long after opening is closed, and so is one that
    # sent no frame this long (the web client pings every 10 s, even from a background tab).
    hello_timeout_seconds: float = Field(default=10.0, gt=0)
    # A connection that stopped answering (a phone that lost its network without a word) is
    # noticed: the gateway pings a client silent this long at the websocket level and closes one
    # that has not answered within ws_ping_timeout_seconds, 20 s after its last sign of life at most.
    ws_ping_interval_seconds: float = Field(default=10.0, gt=0)
    ws_ping_timeout_seconds: float = Field(default=10.0, gt=0)
    idle_timeout_seconds: float = Field(default=120.0, gt=0)
    # Pages of other origins allowed to open /ws besides the gateway's own host: a comma-separated
    # list such as "https://play.example.org,https://example.org", or "*" for any.
    allowed_origins: str = ""

    # Updates of a game kept for clients that reconnect.
    updates_kept: int = 500
    log_level: str = "INFO"
    # Seconds a stopping server lets running calls finish.
    shutdown_grace_seconds: float = 5.0
    # A gateway told to stop (SIGTERM) drains (boxedin.gateway.drain): it refuses new websockets
    # and tells each client to reconnect after a delay of its own, spread evenly over this many
    # seconds so the other gateways are not hit by every client at once; what is still connected
    # DRAIN_MARGIN_SECONDS after the spread is closed (1012), then shutdown_grace_seconds apply.
    drain_spread_seconds: float = Field(default=10.0, ge=0)

    # The operator's page /ops on the gateway opens with this token (from a Kubernetes Secret);
    # empty: /ops is off. In production the gateway refuses to start without one.
    ops_token: str = ""
    production: bool = False

    # Health that follows the work (boxedin.common.progress): a loop a service owns that has not
    # gone round for max(health_stall_min_seconds, health_stall_factor × its interval) makes the
    # service not ready; health_liveness_factor times longer, not alive (it is restarted).
    health_stall_factor: float = Field(default=5.0, gt=0)
    health_stall_min_seconds: float = Field(default=10.0, gt=0)
    health_liveness_factor: float = Field(default=6.0, ge=1)
    # Redis out of reach for no longer than this keeps a service ready (a blip: clients say
    # "reconnecting"); longer, it is taken out of its Service until Redis is back.
    redis_blip_seconds: float = Field(default=10.0, ge=0)
    # Where a stall of the event loop (50 ms or more) spent its time: its stack is logged
    # (boxedin.common.stalls; for measurements: looking costs about 1 ms of CPU a second). The
    # stalls are counted by cause whether or not (boxedin_event_loop_stalls_total).
    stall_stacks: bool = False
    # Test-only controls, refused in production: while the file test_freeze_file exists and names
    # a loop (one name a line), that loop's rounds block (boxedin.common.progress).
    test_controls: bool = False
    test_freeze_file: str = ""
    # The services take calls only from each other: each call carries its service's name and an
    # HMAC of it under this shared secret (from a Kubernetes Secret; boxedin.common.service_auth).
    # Every service refuses to start without one; `boxedin up` makes one for its run.
    service_secret: str = Field(default="", repr=False)

    @model_validator(mode="after")
    def _a_catch_up_fits_the_send_queue(self) -> Settings:
        # A reconnecting client is sent every update it missed at once: up to updates_kept.
        if self.send_queue_frames <= self.updates_kept:
            raise ValueError(
                f"send_queue_frames ({self.send_queue_frames}) must be more than updates_kept ({self.updates_kept}): "
                "a reconnect's catch-up queues that many frames at once"
            )
        return self

    @field_validator("trusted_proxies")
    @classmethod
    def _trusted_proxies_are_networks(cls, value: str) -> str:
        parse_networks(value)
        return value

    @model_validator(mode="after")
    def _no_test_controls_in_production(self) -> Settings:
        if self.production and (self.test_controls or self.test_freeze_file):
            raise ValueError("BOXEDIN_TEST_CONTROLS and BOXEDIN_TEST_FREEZE_FILE are for tests: refused in production")
        return self

    @property
    def celery_url(self) -> str:
        return self.celery_broker_url or self.redis_url

    def keys(self) -> Keys:
        return Keys(self.key_prefix, self.work_partitions)


@cache
def settings() -> Settings:
    return Settings()


def default(name: str) -> Any:
    """A setting's default as ``Settings`` declares it: what code that takes the setting from
    elsewhere (the launcher's options, limits made without settings) starts from, so that each
    default is written once."""
    return Settings.model_fields[name].default


def port_of(address: str) -> int:
    """The port of a ``host:port`` address."""
    return int(address.rsplit(":", 1)[1])
