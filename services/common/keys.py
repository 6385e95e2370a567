"""Every Redis key and channel Boxed In writes, named in one place.

The keys are laid out for Redis Cluster. A game's keys carry the hash tag of its partition
(``{p7}``), and so do the partition's work stream (computer turns to play) and deadline set:
every Lua script that commits a game touches one slot, and a consumer reads all N partitions.
The partition is a stable hash of the game id modulo N (``BOXEDIN_WORK_PARTITIONS``); N must
not change while games are stored, as a game's keys would then move.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass


def partition_of(game_id: str, partitions: int) -> int:
    """The partition a game belongs to: CRC-32 of its id, the same in every process."""
    return zlib.crc32(game_id.encode()) % partitions


@dataclass(frozen=True, slots=True)
class Keys:
    prefix: str
    partitions: int = 16

    def __post_init__(self) -> None:
        if "{" in self.prefix or "}" in self.prefix:
            raise ValueError("the key prefix must not contain { or }: they would move the hash tag")
        if not 1 <= self.partitions <= 1024:
            raise ValueError(f"the work partitions are 1 to 1024, not {self.partitions}")

    def tag(self, partition: int) -> str:
        return f"{{p{partition}}}"

    def game_tag(self, game_id: str) -> str:
        return self.tag(partition_of(game_id, self.partitions))

    # --- a game ------------------------------------------------------------------------------

    def game(self, game_id: str) -> str:
        """A hash: seq, the serialised game, its record (seats, clock, settings)."""
        return f"{self.prefix}{self.game_tag(game_id)}:game:{game_id}"

    def updates(self, game_id: str) -> str:
        """A stream of the game's updates, entry id ``seq-1``, for clients that catch up."""
        return f"{self.prefix}{self.game_tag(game_id)}:updates:{game_id}"

    def action_applied(self, game_id: str, digest: str) -> str:
        """The seq an action of the game made (a decimal number), for the same action sent
        again: written by the engine in the commit that applied it, kept a minute."""
        return f"{self.prefix}{self.game_tag(game_id)}:applied:{game_id}:{digest}"

    def action_refused(self, game_id: str, digest: str) -> str:
        """The refusal an action of the game met (the gateway's JSON), for the same action sent
        again (a minute)."""
        return f"{self.prefix}{self.game_tag(game_id)}:refused:{game_id}:{digest}"

    def channel(self, game_id: str) -> str:
        """The pub/sub channel the game's updates are published on as they are stored."""
        return f"{self.prefix}updates:{game_id}"

    @property
    def channel_prefix(self) -> str:
        return f"{self.prefix}updates:"

    def presence(self) -> str:
        """A hash: each gateway's count of connected devices, with the moment it lapses."""
        return f"{self.prefix}presence:gateways"

    def following(self, gateway: str) -> str:
        """A set: the games a gateway's sockets follow now, renewed with its presence report."""
        return f"{self.prefix}presence:following:{gateway}"

    def gateway_channel(self, gateway: str) -> str:
        """A gateway's own channel, which keeps its subscription open while it follows no game."""
        return f"{self.prefix}gateway:{gateway}"

    # --- a partition -------------------------------------------------------------------------

    def work(self, partition: int) -> str:
        """A stream of computer turns to play, read by the AI service's consumer group."""
        return f"{self.prefix}{self.tag(partition)}:work"

    def deadlines(self, partition: int) -> str:
        """A sorted set of deadlines (member ``game_id``), scored by due time in milliseconds."""
        return f"{self.prefix}{self.tag(partition)}:deadlines"

    def finished(self, partition: int) -> str:
        """A stream of finished games, read by the stats service's consumer group."""
        return f"{self.prefix}{self.tag(partition)}:finished"

    def finished_streams(self) -> list[str]:
        return [self.finished(p) for p in range(self.partitions)]

    def running(self, partition: int, mode: str) -> str:
        """A sorted set of the partition's unfinished games of one mode, scored by their last
        move (milliseconds): the games being played now."""
        return f"{self.prefix}{self.tag(partition)}:running:{mode}"

    def running_online(self, partition: int, mode: str) -> str:
        """The same for online games only: the online menu's "Games now"."""
        return f"{self.prefix}{self.tag(partition)}:running-online:{mode}"

    def work_streams(self) -> list[str]:
        return [self.work(p) for p in range(self.partitions)]

    def deadline_sets(self) -> list[str]:
        return [self.deadlines(p) for p in range(self.partitions)]

    # --- a device ----------------------------------------------------------------------------

    def device_token_key(self) -> str:
        """The key device tokens are signed with (boxedin.gateway.identity): one, never expiring."""
        return f"{self.prefix}device-token-key"

    def saved_game(self, device_hash: str) -> str:
        """The id of the device's saved game (the device named by the hash of its token)."""
        return f"{self.prefix}device:{device_hash}:saved"

    def online_game(self, device_hash: str) -> str:
        """The id of the device's running online game (the engine's)."""
        return f"{self.prefix}device:{device_hash}:online"

    # --- watching an online game ---------------------------------------------------------------

    def watch(self, watch_id: str) -> str:
        """The id of the online game a watch link leads to (the engine's)."""
        return f"{self.prefix}watch:{watch_id}"

    def game_watch(self, game_id: str) -> str:
        """The watch id of an online game, once a player asked for its link (the engine's)."""
        return f"{self.prefix}{self.game_tag(game_id)}:watch:{game_id}"

    def watchers(self, game_id: str) -> str:
        """A hash: each gateway's count of the sockets watching a game (the gateways')."""
        return f"{self.prefix}watchers:{game_id}"

    def watchers_channel(self) -> str:
        """Pub/sub channel naming a game whose count of watchers changed (its id as the message)."""
        return f"{self.prefix}watchers"

    # --- the matchmaker -------------------------------------------------------------------------
    # Every matchmaking key shares one hash tag, so each of its Lua scripts touches one slot.

    def waiting(self) -> str:
        """A hash: mode -> the one player waiting in it (Find Match)."""
        return f"{self.prefix}{{mm}}:waiting"

    def waiting_devices(self) -> str:
        """A hash: device hash -> the mode it waits in."""
        return f"{self.prefix}{{mm}}:waiting-devices"

    def room(self, code: str) -> str:
        """A hash: a room (its creator, mode, rule, state, when it expires)."""
        return f"{self.prefix}{{mm}}:room:{code}"

    def device_room(self, device_hash: str) -> str:
        """The code of the device's open room, while the room waits."""
        return f"{self.prefix}{{mm}}:device-room:{device_hash}"

    def join_tries(self, who: str) -> str:
        """A sorted set: a device's or an address's wrong guesses at room codes in the last
        minute, each scored by its moment."""
        return f"{self.prefix}{{mm}}:tries:{who}"

    def played(self, day: str) -> str:
        """A hash: mode -> online games started on that day (UTC, YYYYMMDD)."""
        return f"{self.prefix}{{mm}}:played:{day}"

    def matches_channel(self) -> str:
        """The channel the matchmaker publishes started online games on, for the gateways."""
        return f"{self.prefix}matches"

    # --- reviews ------------------------------------------------------------------------------

    def review(self, game_id: str) -> str:
        """A hash: a finished game's review (``boxedin.ai.review_work``): its record, how many
        turns, and each turn's figures as they are analysed. In the game's slot."""
        return f"{self.prefix}{self.game_tag(game_id)}:review:{game_id}"

    # --- statistics ---------------------------------------------------------------------------

    def stats_tag(self, device_hash: str) -> str:
        """A device's statistics keys share a hash tag of their own (a few hex digits of the
        device hash), so the Lua script that counts a game touches one slot."""
        return f"{{d{device_hash[:12]}}}"

    def stats(self, device_hash: str) -> str:
        """The device's statistics record (docs/stats-records.md)."""
        return f"{self.prefix}{self.stats_tag(device_hash)}:stats:{device_hash}"

    def stats_counted(self, device_hash: str) -> str:
        """The ids of the games counted for the device: a game is counted once."""
        return f"{self.prefix}{self.stats_tag(device_hash)}:stats-counted:{device_hash}"

    def stats_results(self, device_hash: str) -> str:
        """What each recently counted game meant (its leaderboard line, its achievements)."""
        return f"{self.prefix}{self.stats_tag(device_hash)}:stats-results:{device_hash}"

    def stats_reset_token(self, device_hash: str) -> str:
        return f"{self.prefix}{self.stats_tag(device_hash)}:stats-reset:{device_hash}"


def celery_prefix(prefix: str) -> str:
    """Celery's keys (its broker's queues, its results) start with this."""
    return f"{prefix}celery:"


# A finished game is kept a day (the engine's store), and its review with it.
FINISHED_GAME_TTL = 24 * 3600
# The Celery queue the reviews' turns go to, apart from Expert's in-play playouts.
ANALYSIS_QUEUE = "analysis"


def analysis_queue(prefix: str) -> str:
    """The list the analysis queue is kept in, whose length is the turns waiting."""
    return f"{celery_prefix(prefix)}{ANALYSIS_QUEUE}"


def celery_queue(prefix: str) -> str:
    """The list Celery's default queue is kept in, whose length is the work waiting."""
    return f"{celery_prefix(prefix)}celery"


# The AI service's consumer group on every work stream, and the stats service's on every
# finished-games stream.
AI_GROUP = "ai"
STATS_GROUP = "stats"
