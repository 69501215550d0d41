"""The cluster's settings, its Lua scripts and the names of its keys and channels in Redis."""

from __future__ import annotations

LEASE_TTL = 1.0
"""Seconds a lease lives in Redis unless renewed (a killed owner's rooms wait this long)."""
TICK = 0.2
"""Seconds between two renewals of the leases and two looks for rooms without an owner."""
MARGIN = 0.2
"""An owner stops writing this many seconds before its lease could expire in Redis."""
GRACE_TICKS = 2
"""A room its rendezvous worker has not taken after this many ticks is taken by anyone."""
FORWARD_TIMEOUT = 5.0
"""Seconds a forwarded command waits for the owner's answer."""
ROUTE_FOR = 3.0
"""Seconds a command looks for the room's owner (a takeover takes about ``LEASE_TTL``)."""
CLAIM_BATCH = 16
"""Most rooms a worker is taking over at a time (each is reloaded from the database)."""
LOOP_STALL = 30.0
"""Seconds after which a worker whose event loop has not run stops renewing its leases."""

REDIS_CONNECTIONS = 64
"""Most connections a worker opens to Redis (its subscription apart)."""
MAX_BATCH = 256
"""Most messages a worker sends to Redis in one pipeline."""
OWNER_CACHE = 10.0
"""Seconds a worker believes the owner it read for a room, or that published its last move:
never for a write (the owner checks its lease); a forward to a dead owner finds nobody
listening and one to a worker that gave the room up is answered ``moved``, and then the
sender reads the lease again at once."""
DRAIN_WAIT = 2.0
"""Seconds a stopping worker waits for a room's command in progress before it gives the room up."""
STOP_WAIT = 2.0
"""Seconds a stopping worker waits for each of its cluster tasks and its renewal thread."""
HANDOFF_AFTER = 1.0
"""Seconds a room's owner has had none of the room's people connected while another live
worker had them, steadily the same one, before it hands the room over to that worker."""
HANDOFF_AGAIN = 10.0
"""Seconds after a room came to a worker by a handoff before that worker may hand it on
(no ping-pong of a room whose people move about)."""
HANDOFF_BATCH = 16
"""Most rooms a worker is handing over at a time."""

NO_REDIS = "the server cannot reach Redis right now; nothing changed, try again"

ACQUIRE = """
if redis.call('exists', KEYS[1]) == 1 then return 0 end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], ARGV[1] .. ':' .. token, 'px', ARGV[2])
return token
"""
RENEW = """
local renewed = {}
for i, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[i + 1] then renewed[i] = redis.call('pexpire', key, ARGV[1])
  else renewed[i] = 0 end
end
return renewed
"""
"""Renew the leases KEYS whose values are still ARGV[2..] (this worker's) for ARGV[1] ms:
1 for each renewed, 0 for each lost - every lease of a worker in one call."""
RENEW_CHUNK = 1000
"""Most leases renewed by one call of :data:`RENEW` (Redis runs nothing else meanwhile)."""
FREE = """
local free = {}
for _, code in ipairs(redis.call('smembers', KEYS[1])) do
  if redis.call('exists', ARGV[1] .. code) == 0 then free[#free + 1] = code end
end
return free
"""
"""The rooms of the set KEYS[1] that have no lease (key ARGV[1] .. CODE): only those cross
to the worker, not every room and its lease."""
RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""

HANDOFF = """
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
local token = redis.call('incr', KEYS[2])
local value = ARGV[2] .. ':' .. token
redis.call('set', KEYS[1], value, 'px', ARGV[3])
redis.call('incr', KEYS[4])
redis.call('publish', KEYS[3], cjson.encode({
  t = 'handoff', room = ARGV[4], ['from'] = ARGV[5], value = value, token = token, v = tonumber(ARGV[6])
}))
return token
"""
"""Hand the lease KEYS[1] over, if it is still ARGV[1] (this worker's), to the worker ARGV[2]
with a new fencing token (INCR KEYS[2]) for ARGV[3] ms, and tell that worker on its channel
KEYS[3] (room ARGV[4], from ARGV[5], at version ARGV[6]); count it in KEYS[4]. 0: the lease
was not this worker's any more (nothing changed)."""

OPEN_SOCKET = """
local total = tonumber(ARGV[2])
local t = redis.call('time')
local since = tonumber(t[1]) + tonumber(t[2]) / 1000000 - tonumber(ARGV[5])
local live = {}
for _, id in ipairs(redis.call('zrangebyscore', KEYS[2], since, '+inf')) do live[id] = true end
local counts = redis.call('hgetall', KEYS[1])
for i = 1, #counts, 2 do
  if counts[i] ~= ARGV[1] then
    if live[counts[i]] then total = total + tonumber(counts[i + 1])
    else redis.call('hdel', KEYS[1], counts[i]) end
  end
end
if total > tonumber(ARGV[3]) then return 0 end
redis.call('hset', KEYS[1], ARGV[1], ARGV[2])
redis.call('pexpire', KEYS[1], ARGV[4])
return 1
"""
"""One more socket of an address on worker ARGV[1] (which then has ARGV[2]), unless its
sockets on the workers seen in the last ARGV[5] s (the sorted set of heartbeats KEYS[2],
read here: a worker's own list of them may be a tick old and miss one that just started)
would be over ARGV[3]; the count of a worker not seen for that long (dead) goes."""
TAKE_ROOM = """
local t = redis.call('time')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('zremrangebyscore', KEYS[1], '-inf', now - 60)
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('zrange', KEYS[1], 0, 0, 'withscores')
  return tostring(60 - (now - tonumber(oldest[2])))
end
redis.call('zadd', KEYS[1], now, ARGV[2])
redis.call('pexpire', KEYS[1], 61000)
return ''
"""
"""A room opened by an address in the last minute (Redis's clock: one for all workers),
unless it opened ARGV[1] already; else the seconds until it may (a string: Lua numbers
would be cut to integers)."""
MISS = """
local t = redis.call('time')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local limit = tonumber(ARGV[1])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - 3600)
local before = redis.call('zcard', KEYS[1])
redis.call('zadd', KEYS[1], now, ARGV[2])
redis.call('zremrangebyrank', KEYS[1], 0, -limit - 1)
redis.call('pexpire', KEYS[1], 3601000)
if before < limit then return {'', before + 1} end
local oldest = redis.call('zrange', KEYS[1], 0, 0, 'withscores')
return {tostring(3600 - (now - tonumber(oldest[2]))), limit}
"""
"""A miss (ARGV[2], unique) in the sorted set KEYS[1] of the last hour's misses (Redis's
clock; the newest ARGV[1] kept): ``{'', count}`` if there were fewer than ARGV[1] before
it, else ``{seconds until there are, count}`` - the per-address and per-room misses of
every worker together (``misses_per_hour``, ``room_misses_per_hour``)."""
LOCKED = """
local t = redis.call('time')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('zremrangebyscore', KEYS[1], '-inf', now - 3600)
if redis.call('zcard', KEYS[1]) < tonumber(ARGV[1]) then return '' end
local oldest = redis.call('zrange', KEYS[1], 0, 0, 'withscores')
return tostring(3600 - (now - tonumber(oldest[2])))
"""
"""The seconds until the misses in KEYS[1] are fewer than ARGV[1] again ('' if they are)."""
TAKE = """
local t = redis.call('time')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local window = tonumber(ARGV[3])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - window)
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('zrange', KEYS[1], 0, 0, 'withscores')
  return tostring(window - (now - tonumber(oldest[2])))
end
redis.call('zadd', KEYS[1], now, ARGV[2])
redis.call('pexpire', KEYS[1], math.ceil(window * 1000) + 1000)
return ''
"""
"""One more event ARGV[2] (unique) in the sorted set KEYS[1] of the last ARGV[3] seconds
(Redis's clock), unless it holds ARGV[1] already; else the seconds until it may (a string).
``accounts_per_hour`` of every worker together (the sign-up of an account that could not
be made is taken out again: ZREM)."""
WAITING = """
local t = redis.call('time')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local window = tonumber(ARGV[2])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - window)
if redis.call('zcard', KEYS[1]) < tonumber(ARGV[1]) then return '' end
local oldest = redis.call('zrange', KEYS[1], 0, 0, 'withscores')
return tostring(window - (now - tonumber(oldest[2])))
"""
"""The seconds until the sorted set KEYS[1] holds fewer than ARGV[1] events of the last
ARGV[2] seconds ('' if it does): :data:`TAKE` without taking."""
SOCKETS_TTL = 86400
"""Seconds an address's socket counts live in Redis after its last new socket."""
RECENT = 60.0
"""Seconds after its last heartbeat that a worker's socket counts still count (and are
then dropped): longer than a heartbeat, which may lapse on a loaded machine."""


class Keys:
    """The names of a cluster's keys and channels: every one starts with its prefix, so
    several sets of workers (or tests) can share one Redis."""

    def __init__(self, prefix: str = "") -> None:
        self.ns = f"{prefix}spieltisch:"
        self.sweep = f"{self.ns}sweep"
        """The lease of the sweep of old rooms (one worker at a time)."""
        self.rooms = f"{self.ns}rooms"
        """The set of every unfinished room."""
        self.handoffs = f"{self.ns}handoffs"
        """The count of rooms handed over."""
        self.workers = f"{self.ns}workers"
        """The live workers (a sorted set of heartbeats)."""
        self.recent = f"{self.ns}recent"
        """The workers seen within :data:`RECENT` s."""

    def lease(self, code: str) -> str:
        return f"{self.ns}lease:{code}"

    def fence(self, code: str) -> str:
        return f"{self.ns}fence:{code}"

    def presence(self, code: str) -> str:
        return f"{self.ns}presence:{code}"

    def stand_in(self, code: str) -> str:
        return f"{self.ns}stand_in:{code}"

    def held(self, worker: str) -> str:
        return f"{self.ns}held:{worker}"

    def room_channel(self, code: str) -> str:
        return f"{self.ns}room:{code}"

    def worker_channel(self, worker: str) -> str:
        return f"{self.ns}worker:{worker}"

    @property
    def lobby_channel(self) -> str:
        """Something in the lobby changed (server/lobby.py): every worker reads it again."""
        return f"{self.ns}lobby"

    @property
    def accounts_channel(self) -> str:
        """An account was deleted on a worker: every worker updates its seats in the rooms
        it has in memory (server/account_api.py)."""
        return f"{self.ns}accounts"

    def sockets(self, address: str) -> str:
        return f"{self.ns}sockets:{address}"

    def rooms_by(self, address: str) -> str:
        return f"{self.ns}rooms_by:{address}"

    def misses(self, address: str) -> str:
        return f"{self.ns}misses:{address}"

    def room_misses(self, code: str) -> str:
        return f"{self.ns}room_misses:{code}"

    def signups(self, address: str) -> str:
        """The accounts an address made in the last hour (``accounts_per_hour``)."""
        return f"{self.ns}signups:{address}"
