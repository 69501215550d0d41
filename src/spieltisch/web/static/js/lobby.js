// The lobby page (/lobby): quick play, and the open public tables, live over /ws/lobby
// (docs/protocol.md, "Lobby" and "Quick play"). A quick-play ticket is a secret: it
// travels in the Spieltisch-Ticket header, never in a URL, and lives in this tab's
// sessionStorage while the player waits; once seated it is the seat's secret.

import { api, loadName, saveName, saveSeat } from "./api.js";
import { append, h, rerender } from "./dom.js";
import { lang, t, tn } from "./i18n.js";
import { myGames } from "./mygames.js";

const TICKET_KEY = "spieltisch.quickplay";
const TICKET_HEADER = "Spieltisch-Ticket";
const POLL_MS = 1000;
const BOTS_AFTER = [null, 30, 60, 120];

function savedTicket() {
  try {
    return JSON.parse(sessionStorage.getItem(TICKET_KEY) || "null");
  } catch {
    return null;
  }
}

function keepTicket(value) {
  try {
    if (value) sessionStorage.setItem(TICKET_KEY, JSON.stringify(value));
    else sessionStorage.removeItem(TICKET_KEY);
  } catch {
    /* no storage: the wait lasts as long as the page */
  }
}

/** How a table's clock reads: "2 min per move", "no clock". */
function clockText(clock) {
  if (!clock || (clock.move == null && clock.bank == null)) return t("lobbyPage.noClock");
  if (clock.move >= 3600) return t("start.clock.turnBased", { hours: Math.round(clock.move / 3600) });
  if (clock.move != null) return t("lobbyPage.perMove", { minutes: Math.max(1, Math.round(clock.move / 60)) });
  return t("lobbyPage.bank", { minutes: Math.max(1, Math.round(clock.bank / 60)) });
}

export function lobbyPage({ root, navigate, announce }) {
  const st = {
    games: null,
    lobby: null,
    error: null,
    game: "scout",
    players: 3,
    botsAfter: 60,
    bots: "medium",
    name: loadName(),
    waiting: null, // the status of our ticket while we wait
    busy: false,
  };
  const mine = myGames({ render: () => render(), navigate, announce });
  let socket = null;
  let poll = null;
  let closed = false;
  const gameInfo = () => st.games?.find((g) => g.name === st.game);

  api("GET", "/api/games")
    .then((data) => {
      st.games = data.games;
      render();
    })
    .catch((err) => {
      st.error = err.message;
      render();
    });

  function listen() {
    if (closed) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${scheme}//${location.host}/ws/lobby`);
    socket.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.type === "lobby") {
        st.lobby = msg;
        render();
      }
    };
    socket.onclose = () => {
      socket = null;
      if (!closed) setTimeout(listen, 2000);
    };
  }
  listen();

  const ticket = savedTicket();
  if (ticket) follow(ticket);

  function needName() {
    const name = st.name.trim();
    if (!name) {
      st.error = t("start.needName");
      render();
      return null;
    }
    saveName(name);
    return name;
  }

  async function quickPlay() {
    const name = needName();
    if (!name || st.busy) return;
    st.busy = true;
    st.error = null;
    render();
    try {
      const body = { game: st.game, players: st.players, name, bots: st.bots, bots_after: st.botsAfter };
      const res = await api("POST", "/api/quickplay", body);
      const mine = { ticket: res.ticket, game: st.game, players: st.players };
      keepTicket(mine);
      follow(mine);
    } catch (err) {
      st.error = err.message;
    }
    st.busy = false;
    render();
  }

  function follow(mine) {
    clearTimeout(poll);
    const ask = async () => {
      if (closed) return;
      try {
        const status = await api("GET", "/api/quickplay", undefined, { [TICKET_HEADER]: mine.ticket });
        if (status.status === "seated") {
          keepTicket(null);
          saveSeat(status.room, status.seat, status.secret);
          announce(t("lobbyPage.seated"));
          navigate(`/r/${status.room}`);
          return;
        }
        st.waiting = status;
        render();
      } catch (err) {
        keepTicket(null);
        st.waiting = null;
        st.error = err.status === 404 ? t("lobbyPage.expired") : err.message;
        render();
        return;
      }
      poll = setTimeout(ask, POLL_MS);
    };
    ask();
  }

  async function cancel() {
    const mine = savedTicket();
    clearTimeout(poll);
    st.waiting = null;
    keepTicket(null);
    render();
    if (mine) {
      try {
        await api("DELETE", "/api/quickplay", undefined, { [TICKET_HEADER]: mine.ticket });
      } catch {
        /* gone already */
      }
    }
  }

  async function join(table) {
    const name = needName();
    if (!name) return;
    try {
      const res = await api("POST", `/api/rooms/${table.room}/join`, { name });
      saveSeat(table.room, res.seat, res.secret);
      navigate(`/r/${table.room}`);
    } catch (err) {
      st.error = err.message;
      render();
    }
  }

  function quickPanel() {
    const panel = h("section.card-panel.quickplay", { "aria-labelledby": "quick-title" }, h("h2", { id: "quick-title" }, t("lobbyPage.quickTitle")));
    if (st.waiting) {
      const w = st.waiting;
      const title = st.games?.find((g) => g.name === w.game)?.title || w.game;
      append(panel, [
        h("p", { "data-testid": "quick-waiting", role: "status" }, t("lobbyPage.waitingFor", { game: title, players: w.players })),
        h("p", null, tn("lobbyPage.inQueue", w.waiting), " · ", t("lobbyPage.waited", { seconds: Math.round(w.waited) })),
        w.bots_after != null ? h("p.muted", null, t("lobbyPage.botsIn", { seconds: Math.max(0, Math.round(w.bots_after - w.waited)) })) : null,
        h("button", { type: "button", "data-testid": "quick-cancel", onclick: cancel }, t("lobbyPage.cancel")),
      ]);
      return panel;
    }
    const g = gameInfo();
    const form = h("form", { onsubmit: (e) => { e.preventDefault(); quickPlay(); } });
    form.append(
      h("label.field", { for: "quick-game" }, h("span", null, t("start.game")),
        h("select", { id: "quick-game", "data-testid": "quick-game", onchange: (e) => { st.game = e.target.value; render(); } },
          st.games.map((x) => h("option", { value: x.name, selected: x.name === st.game }, x.title)))),
      h("label.field", { for: "quick-players" }, h("span", null, t("start.players")),
        h("select", { id: "quick-players", "data-testid": "quick-players", onchange: (e) => { st.players = Number(e.target.value); } },
          Array.from({ length: g.max_players - g.min_players + 1 }, (_, i) => g.min_players + i).map((n) => h("option", { value: n, selected: n === st.players }, String(n))))),
      h("label.field", { for: "quick-bots" }, h("span", null, t("lobbyPage.botsAfter")),
        h("select", { id: "quick-bots", "data-testid": "quick-bots", onchange: (e) => { st.botsAfter = e.target.value === "" ? null : Number(e.target.value); } },
          BOTS_AFTER.map((s) => h("option", { value: s == null ? "" : String(s), selected: s === st.botsAfter }, s == null ? t("lobbyPage.never") : t("lobbyPage.afterSeconds", { seconds: s }))))),
      h("label.field", { for: "quick-level" }, h("span", null, t("lobbyPage.botLevel")),
        h("select", { id: "quick-level", onchange: (e) => { st.bots = e.target.value; } },
          g.bot_levels.map((l) => h("option", { value: l, selected: l === st.bots }, t(`level.${l}`))))),
      h("label.field", { for: "quick-name" }, h("span", null, t("start.name")),
        h("input", { id: "quick-name", type: "text", maxlength: 32, required: true, autocomplete: "nickname", value: st.name, "data-testid": "quick-name", oninput: (e) => { st.name = e.target.value; } })),
      h("button.primary.big", { type: "submit", disabled: st.busy, "data-testid": "quick-play" }, t("lobbyPage.find")),
    );
    panel.append(form);
    return panel;
  }

  function tablesPanel() {
    const panel = h("section.card-panel.lobby-tables", { "aria-labelledby": "tables-title" }, h("h2", { id: "tables-title" }, t("lobbyPage.tablesTitle")));
    if (!st.lobby) {
      panel.append(h("p", null, t("loading")));
      return panel;
    }
    for (const q of st.lobby.quickplay) {
      const title = st.games?.find((g) => g.name === q.game)?.title || q.game;
      panel.append(h("p.muted", { "data-testid": "queue-line" }, t("lobbyPage.queueLine", { game: title, players: q.players, waiting: q.waiting })));
    }
    if (!st.lobby.tables.length) {
      panel.append(h("p", { "data-testid": "no-tables" }, t("lobbyPage.noTables")));
      return panel;
    }
    const list = h("ul.lobby-list", { "data-testid": "lobby-tables" });
    for (const table of st.lobby.tables) {
      const names = table.seats.map((s) => (s.kind === "bot" ? t("start.bot", { level: t(`level.${s.level}`) }) : s.name || "—")).join(", ");
      const changed = Object.keys(table.options).length ? t("lobbyPage.ownRules") : t("lobbyPage.defaultRules");
      list.append(
        h(
          "li.lobby-table",
          { "data-testid": `lobby-${table.room}` },
          h("div", null, h("strong", { translate: "no" }, table.title), " · ", tn("lobbyPage.freeSeats", table.free), " · ", t("lobbyPage.ofPlayers", { players: table.players })),
          h("div.muted", null, names, " · ", changed, " · ", clockText(table.clock), " · ", t(table.rated ? "lobbyPage.rated" : "lobbyPage.casual"), table.hints ? ` · ${t("hint.allowed")}` : ""),
          h("button", { type: "button", "data-testid": `join-${table.room}`, "aria-label": t("lobbyPage.joinLabel", { game: table.title, names }), onclick: () => join(table) }, t("start.join")),
        ),
      );
    }
    panel.append(list);
    return panel;
  }

  function render() {
    document.title = mine.title(t("lobbyPage.docTitle"));
    rerender(root, () => {
      const main = h("div.start.lobby-page", { lang: lang() });
      main.append(h("h1", null, t("lobbyPage.title")), h("p.lead", null, t("lobbyPage.lead")));
      append(main, [mine.panel()]);
      if (st.error) main.append(h("p.error", { role: "alert" }, st.error));
      if (!st.games) {
        main.append(h("p", null, t("loading")));
        return main;
      }
      main.append(quickPanel(), tablesPanel());
      return main;
    });
  }

  function dispose() {
    closed = true;
    mine.dispose();
    clearTimeout(poll);
    socket?.close();
  }

  return { render, dispose, game: () => st.game };
}
