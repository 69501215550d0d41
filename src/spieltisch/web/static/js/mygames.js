// "Your games": the seats this browser holds, asked about every 30 s (POST /api/my-games,
// the secrets in the body), with the games where it is your turn first. Shown on the start
// page and the lobby; the tab title counts the games waiting for you, and a game that
// becomes your turn is announced (docs/web.md, "Turn-based games").

import { allSeats, api, forgetSeat } from "./api.js";
import { formatSeconds } from "./clocks.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";

const EVERY_MS = 30_000;
const FINISHED_SHOWN = 5;
const ORDER = { playing: 1, waiting: 2, over: 3 };

export function myGames({ render, navigate, announce }) {
  let games = null;
  let timer = null;
  let stopped = false;
  let turns = new Set();

  async function refresh() {
    const seats = allSeats();
    if (seats.length) {
      try {
        const res = await api("POST", "/api/my-games", { seats: seats.slice(0, 100) });
        for (const g of res.games) if (g.status === "gone") forgetSeat(g.room);
        games = res.games.filter((g) => g.status !== "gone");
      } catch {
        /* the server is away: keep the last list */
      }
    } else {
      games = [];
    }
    const now = new Set((games || []).filter((g) => g.your_turn).map((g) => g.room));
    const fresh = [...now].filter((room) => !turns.has(room));
    if (fresh.length) announce(t("mine.turnNow", { game: games.find((x) => x.room === fresh[0]).title }));
    turns = now;
    if (!stopped) {
      render();
      timer = setTimeout(refresh, EVERY_MS);
    }
  }
  setTimeout(refresh, 0); // after the page that asks has made itself

  function row(g) {
    const others = g.names.filter((_, i) => i !== g.seat).map((n) => n || "—").join(", ");
    let state;
    if (g.your_turn) state = h("strong.your-turn", { "data-testid": `mine-turn-${g.room}` }, t("mine.yourTurn"));
    else if (g.status === "over") state = t(g.won ? "mine.won" : "mine.over");
    else if (g.status === "waiting") state = t("mine.waiting");
    else state = t("mine.othersTurn");
    const left = g.time_left != null ? ` · ${t("mine.left", { time: formatSeconds(g.time_left) })}` : "";
    return h(
      "li.my-game",
      { "data-testid": `mine-${g.room}` },
      h("a", { href: `/r/${g.room}`, onclick: (e) => { e.preventDefault(); navigate(`/r/${g.room}`); } }, h("span", { translate: "no" }, g.title), " · ", h("span", { translate: "no" }, g.room)),
      " ",
      h("span", null, t("mine.with", { names: others }), g.turn_based ? ` · ${t("mine.turnBased")}` : ""),
      h("div", null, state, left),
    );
  }

  function panel() {
    if (!games?.length) return null;
    const open = games.filter((g) => g.status !== "over").sort((a, b) => Number(b.your_turn) - Number(a.your_turn) || ORDER[a.status] - ORDER[b.status]);
    const done = games.filter((g) => g.status === "over").slice(0, FINISHED_SHOWN);
    return h(
      "section.card-panel.my-games",
      { "aria-labelledby": "mine-title", "data-testid": "my-games" },
      h("h2", { id: "mine-title" }, t("mine.title"), turns.size ? ` (${tn("mine.turns", turns.size)})` : ""),
      h("ul.my-list", null, [...open, ...done].map(row)),
    );
  }

  return {
    panel,
    /** The tab title with the number of games waiting for you in front: "(2) Spieltisch". */
    title: (text) => (turns.size ? `(${turns.size}) ${text}` : text),
    dispose() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
