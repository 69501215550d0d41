"""Many workers on one database: room leases in Redis, forwarded commands, fan-out.

``spieltisch serve --redis redis://...`` makes a server one *worker* of
several that share a PostgreSQL database and a Redis server. Any worker
accepts any client for any room; the game stays a single serial owner's
(docs/deploy.md, "How the workers share the rooms"):

- **Ownership.** Exactly one worker owns a room at a time: it holds the room's
  *lease*, a Redis key ``lease:CODE`` whose value names the worker and a
  fencing token (``INCR fence:CODE``), set with ``SET NX PX`` and renewed by
  its owner every :data:`TICK` seconds - from a thread of its own
  (:class:`~spieltisch.server.cluster.leases.Renewer`, a synchronous Redis client), so that an event loop that
  falls behind under load does not let its leases lapse. The owner runs the
  room's bots and is the only one that appends to its action log. It stops
  writing as soon as it cannot be sure it still holds the lease
  (:meth:`Cluster.check_write`: last renewed ``lease_ttl - MARGIN`` s ago or
  longer), so a worker cut from Redis refuses moves (``unavailable``) instead
  of acknowledging them. A worker whose event loop is stuck for
  :data:`LOOP_STALL` s stops renewing, so its rooms go to the others. The primary
  key ``(room, idx)`` of the ``actions`` table is the last fence: two owners
  can never both store the same index of a log.
- **Takeover.** Every unfinished room is in the set ``rooms``; each worker
  looks twice a tick for rooms without a lease and takes those whose
  rendezvous hash picks it among the live workers (anyone takes a room left
  free for :data:`GRACE_TICKS` ticks), at most :data:`CLAIM_BATCH` rooms at a
  time, so that a worker that starts or comes back does not starve its event
  loop by taking every room at once. A killed worker's leases expire after
  ``lease_ttl`` s, so its rooms have a new owner, which reloads them from the
  database and starts their bots, within about ``lease_ttl + TICK`` s.
- **Forwarding.** A command reaching a worker that does not own the room is
  published to the owner's channel ``worker:ID``; the owner runs it through
  :meth:`Room.act <spieltisch.server.room.Room.act>` (the one command path, under the room's lock) and answers
  on the sender's channel - a move that was stored by its append on the room's
  channel, which names the request (``by``), so a forwarded move costs no
  message of its own back. A room nobody owns is taken by the worker that
  needs it. Everything a worker sends to Redis (forwards too) goes through one
  sender, in order, what queued up meanwhile in one pipeline.
- **Fan-out.** Every worker with a room in memory keeps a replica of it
  (seed and action log, replayed by the engine) and follows the room's
  channel ``room:CODE`` (every worker subscribes to the pattern ``room:*``
  and drops, unread, the messages of rooms it does not have). The owner publishes every durable append
  there; the other workers apply it to their replica and send their own
  connections their own views (so no view crosses Redis, only action texts).
  A worker that misses a message (a version gap, a reconnection) reloads the
  room from the database.
- **Presence.** Each worker publishes which seats are connected to it
  (``presence`` on the room's channel and the hash ``presence:CODE``), so the
  ``connected`` flags count every worker.

Every key and channel starts with the cluster's prefix, so several sets of
workers (or tests) can share one Redis.

The package, one module per concern:

- :mod:`~spieltisch.server.cluster.worker` - :class:`Cluster`, a worker: the
  :class:`~spieltisch.server.owner.Owner` of the rooms of its directory (leases,
  takeovers, fan-out, presence);
- :mod:`~spieltisch.server.cluster.leases` - a lease, and the thread that renews them;
- :mod:`~spieltisch.server.cluster.forward` - commands forwarded to a room's owner;
- :mod:`~spieltisch.server.cluster.handoff` - room affinity: handing a room over;
- :mod:`~spieltisch.server.cluster.sender` - the one sender to Redis;
- :mod:`~spieltisch.server.cluster.addresses` - per-address limits (and sign-ups) across the workers;
- :mod:`~spieltisch.server.cluster.keys` - settings, Lua scripts, key and channel names.

Only the wiring (:func:`spieltisch.server.app.create_app`) imports this package; the
room directory and the command path know the cluster only as an owner.
"""

from spieltisch.server.cluster.addresses import SharedAddresses, SharedSignups
from spieltisch.server.cluster.keys import (
    ACQUIRE,
    CLAIM_BATCH,
    HANDOFF_AFTER,
    LEASE_TTL,
    MARGIN,
    RENEW_CHUNK,
    TICK,
)
from spieltisch.server.cluster.worker import Cluster

__all__ = [
    "ACQUIRE",
    "CLAIM_BATCH",
    "HANDOFF_AFTER",
    "LEASE_TTL",
    "MARGIN",
    "RENEW_CHUNK",
    "TICK",
    "Cluster",
    "SharedAddresses",
    "SharedSignups",
]
