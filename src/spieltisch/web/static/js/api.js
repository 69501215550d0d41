// HTTP API, the per-room seat secret kept in the browser, and the live
// WebSocket connection with automatic reconnect (see docs/protocol.md).

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

export async function api(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, String(err.message || err));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail : `HTTP ${response.status}`;
    throw new ApiError(response.status, detail);
  }
  return data;
}

/** The headers that name a seat in an HTTP request (the secret never goes into a URL). */
export function seatHeaders(seat) {
  return seat ? { "Spieltisch-Seat": String(seat.seat), "Spieltisch-Secret": seat.secret } : {};
}

// -- seats remembered per room ---------------------------------------------

const SEAT_PREFIX = "spieltisch.seat.";
const NAME_KEY = "spieltisch.name";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export function loadSeat(room) {
  const raw = storage()?.getItem(SEAT_PREFIX + room.toUpperCase());
  if (!raw) return null;
  try {
    const seat = JSON.parse(raw);
    if (Number.isInteger(seat.seat) && typeof seat.secret === "string") return seat;
  } catch {
    /* a broken entry is ignored */
  }
  return null;
}

export function saveSeat(room, seat, secret) {
  storage()?.setItem(SEAT_PREFIX + room.toUpperCase(), JSON.stringify({ seat, secret }));
}

/** Every seat this browser holds: [{room, seat, secret}] (for "your games"). */
export function allSeats() {
  const store = storage();
  const seats = [];
  for (let i = 0; store && i < store.length; i++) {
    const key = store.key(i);
    if (!key?.startsWith(SEAT_PREFIX)) continue;
    const room = key.slice(SEAT_PREFIX.length);
    const seat = loadSeat(room);
    if (seat) seats.push({ room, seat: seat.seat, secret: seat.secret });
  }
  return seats;
}

export function forgetSeat(room) {
  storage()?.removeItem(SEAT_PREFIX + room.toUpperCase());
}

export function loadName() {
  return storage()?.getItem(NAME_KEY) || "";
}

export function saveName(name) {
  if (name) storage()?.setItem(NAME_KEY, name);
}

// -- live connection --------------------------------------------------------

/** One WebSocket to /ws/{room}; reconnects with exponential backoff.
 * Callbacks: onState(msg), onError(msg), onHint(msg), onStatus("open"|"connecting"|"closed"), onFatal(code). */
export class Connection {
  constructor(room, seat, callbacks) {
    this.room = room;
    this.seat = seat; // {seat, secret} or null for a spectator
    this.cb = callbacks;
    this.version = -1;
    this.ws = null;
    this.retry = 0;
    this.timer = null;
    this.pinger = null;
    this.closed = false;
    this.refs = 0;
    this.connect();
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws/${encodeURIComponent(this.room)}`;
  }

  /** The first message: the seat and its secret (never in the URL, so never in a log). */
  hello() {
    return this.seat ? { type: "hello", seat: this.seat.seat, secret: this.seat.secret } : { type: "hello" };
  }

  connect() {
    if (this.closed) return;
    this.cb.onStatus?.("connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify(this.hello()));
      this.retry = 0;
      this.cb.onStatus?.("open");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 25000);
    };
    ws.onmessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "state") {
        if (msg.version < this.version) return; // older than what we show
        this.version = msg.version;
        this.cb.onState?.(msg);
      } else if (msg.type === "error") {
        this.cb.onError?.(msg);
      } else if (msg.type === "hint") {
        this.cb.onHint?.(msg);
      }
    };
    ws.onclose = (event) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      if (event.code === 4403 || event.code === 4404) {
        this.closed = true;
        this.cb.onFatal?.(event.code);
        return;
      }
      if (this.closed) return;
      this.cb.onStatus?.("closed");
      // 1001/1012: the server is stopping; another one (behind the proxy) serves at once.
      const away = (event.code === 1001 || event.code === 1012) && this.retry === 0;
      const delay = away ? 50 + Math.random() * 200 : Math.min(10000, 500 * 2 ** this.retry) * (0.75 + Math.random() * 0.5);
      this.retry += 1;
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  /** Send an action (`{id}` or `{action: text}`); returns the ref or null when offline. */
  act(action) {
    this.refs += 1;
    const ref = `c${this.refs}`;
    const ok = this.send({ type: "act", version: this.version, ref, ...action });
    return ok ? ref : null;
  }

  /** Ask for a hint (rooms with hints on); returns the ref or null when offline. */
  hint() {
    this.refs += 1;
    const ref = `h${this.refs}`;
    return this.send({ type: "hint", ref }) ? ref : null;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close();
    }
  }
}
