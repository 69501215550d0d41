// Readable log lines, round summaries and final results for both games.

import { h } from "./dom.js";
import { schmausCard, schmausName, scoutCard } from "./cards.js";
import { hasText, t, tn } from "./i18n.js";
import { parseScoutAction } from "./scout.js";

// -- log ----------------------------------------------------------------------

export function logText(game, entry, name) {
  const who = entry.seat === null || entry.seat === undefined ? "" : name(entry.seat);
  const text = entry.text;
  if (game === "scout") {
    if (text === "decided") return t("log.decided", { who });
    const a = parseScoutAction(text);
    if (!a) return `${who}: ${text}`;
    const side = (s) => t(s.end === "L" ? "log.left" : "log.right") + (s.flip ? t("log.turnedSuffix") : "");
    if (a.type === "flip") return t(a.flip ? "log.flip" : "log.keep", { who });
    const named = namedScoutMove(a, entry, who);
    if (named) return named;
    if (a.type === "show") return tn("log.show", a.end - a.start + 1, { who });
    if (a.type === "scout") return t("log.scout", { who, side: side(a) });
    return tn("log.scoutShow", a.end2 - a.start + 1, { who, side: side(a) });
  }
  const [verb, ...args] = text.split(" ");
  if (verb === "play") {
    if (args[0] === "?") return t("log.layHidden", { who });
    if (args[0] === "-" || !args.length) return t("log.layNothing", { who });
    return t("log.lay", { who, cards: args.map(schmausName).join(", ") });
  }
  if (verb === "target") return args[0] === "?" ? t("log.choiceHidden", { who }) : t("log.target", { who, target: name(Number(args[0])) });
  if (verb === "x5") return args[0] === "?" ? t("log.choiceHidden", { who }) : t("log.x5", { who, card: schmausName(args[0]) });
  if (verb === "discard") {
    return args[0] === "?" ? t("log.discardHidden", { who }) : t("log.discard", { who, cards: args.map(schmausName).join(", ") });
  }
  return `${who}: ${text}`;
}

/** A Scout move with the cards it made public (the server names them: a shown set's
 * live numbers, the scouted card and where it went in), or null without them. */
function namedScoutMove(a, entry, who) {
  const faces = (cards) => cards.map((c) => String(c).split("/")[0]).join(" ");
  if (a.type === "show" && entry.cards) return t("log.showCards", { who, cards: faces(entry.cards) });
  if (!entry.card || (a.type === "scout_show" && !entry.cards)) return null;
  const params = { who, card: faces([entry.card]), end: t(a.end === "L" ? "log.leftEnd" : "log.rightEnd"), pos: a.at + 1 };
  if (a.type === "scout") return t("log.scoutCard", params);
  return t("log.scoutShowCards", { ...params, cards: faces(entry.cards) });
}

/** The log, oldest first; `onscroll` tells the page whether the person is
 * reading older entries (then new ones do not pull the view down). */
export function logPanel(game, log, name, onscroll) {
  const list = h("ol.log", { "data-testid": "log", tabindex: "0", "aria-label": t("log.title"), onscroll });
  for (const entry of log) {
    // A move a stand-in bot played for a person says so (docs/web.md, "Clocks and stand-in bots").
    const by = entry.by?.startsWith("bot:") ? h("span.log-by", null, ` (${t("log.byBot", { level: t(`level.${entry.by.slice(4)}`) })})`) : null;
    list.append(h("li", { value: entry.n, key: `log-${entry.n}` }, logText(game, entry, name), by));
  }
  return list;
}

// -- round summaries ----------------------------------------------------------

/** A round summary's table: a header row from text keys, then one row per player. */
function summaryTable(headKeys, rows, opts = {}) {
  // Each cell knows its column's name: a narrow screen shows a row as a card
  // of "name: value" lines instead of a table wider than the screen.
  for (const row of rows) [...row.children].forEach((cell, i) => cell.setAttribute("data-label", t(headKeys[i])));
  return h(
    "div.table-wrap",
    { class: opts.stack ? "stack" : "" },
    h("table", null, h("thead", null, h("tr", null, headKeys.map((key) => h("th", null, t(key))))), h("tbody", null, rows)),
  );
}

export function scoutRound(r, players, name) {
  const two = players === 2;
  const rows = [];
  for (let s = 0; s < players; s += 1) {
    const exempt = r.exempt === s;
    const bonus = two ? r.chips[s] : r.tokens[s];
    rows.push(
      h(
        "tr",
        null,
        h("th", { scope: "row" }, name(s)),
        h("td", null, String(r.collected[s])),
        h("td", null, String(bonus)),
        h("td", null, exempt ? t("summary.exempt") : r.hand_sizes[s] ? `−${r.hand_sizes[s]}` : "0"),
        h("td.strong", null, signed(r.points[s])),
        h("td", null, String(r.totals[s])),
      ),
    );
  }
  // Whose round it was: the exempt player (S-11, S-15), or who showed their last card.
  const who = r.exempt ?? (r.ended_by === "hand_empty" ? r.hand_sizes.indexOf(0) : -1);
  const ended = t(`summary.ended.${r.ended_by}`, { name: who >= 0 ? name(who) : "" });
  return h(
    "div.summary",
    { "data-testid": "round-summary" },
    h("h3", null, t("summary.round", { n: r.round })),
    h("p", null, ended),
    summaryTable(["summary.player", "summary.captured", two ? "summary.chips" : "summary.tokens", "summary.handPenalty", "summary.points", "summary.total"], rows, { stack: true }),
    r.hands
      ? h(
          "div.revealed",
          null,
          r.hands.map((cards, s) =>
            cards.length ? h("div", null, h("span.muted", null, `${name(s)}: `), h("span.mini-hand", null, cards.map((c) => scoutCard(c, { extraClass: "mini" })))) : null,
          ),
        )
      : null,
  );
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** The engine's effect lines (English, with ruling ids) in the UI language. */
export function effectText(line, name) {
  let m;
  if (/^W-7 /.test(line)) return t("effect.guardian");
  if (/^W-8 /.test(line)) return t("effect.hunter");
  if ((m = /^W-9 grocer of seat (\d+): food of seat (\d+)/.exec(line))) {
    return t("effect.grocer", { who: name(+m[1]), target: name(+m[2]) });
  }
  if ((m = /^W-10 garbage ×(\d+): food is worth 1\/(\d+)/.exec(line))) return t("effect.garbage", { n: m[1], d: m[2] });
  if ((m = /^W-11 ×5 of seat (\d+) on (\w+)/.exec(line))) return t("effect.x5", { who: name(+m[1]), card: schmausName(m[2]) });
  if ((m = /^W-11 ×3 of seat (\d+)/.exec(line))) return t("effect.x3", { who: name(+m[1]) });
  if ((m = /^W-11 ×2 raccoons?: food ×(\d+)/.exec(line))) return t("effect.x2", { m: m[1] });
  return line;
}

/** A parameter of a refusal in the UI language: seats become names, card
 * notations card names (the conventions of the engine's reason catalogue). */
function refusalParam(key, value, name) {
  if (key.endsWith("seats")) return String(value).split(", ").map((s) => name(Number(s))).join(", ");
  if (key.endsWith("seat")) return name(Number(value));
  if (key.endsWith("cards")) return String(value).split(" ").map(schmausName).join(", ");
  if (key.endsWith("card")) return schmausName(value);
  return String(value);
}

/** Why the table refused an action, in the UI language: the ruling id, then
 * the reason from its key and parameters (or the server's English sentence for
 * a reason this client does not know). */
export function refusalText(msg, name) {
  const key = `refusal.${msg.reason}`;
  if (!msg.reason || !hasText(key)) return msg.message;
  const params = Object.fromEntries(Object.entries(msg.params || {}).map(([k, v]) => [k, refusalParam(k, v, name)]));
  // A count in the reason ("{need} more cards") is said in the right plural form.
  const text = hasText(`${key}.one`) ? tn(key, Number(msg.params?.need), params) : t(key, params);
  return msg.ruling ? `${msg.ruling}: ${text}` : text;
}

/** Who takes a Waschbär-Schmaus round's pot: its winners, nobody after a hunter (W-8:
 * the round is void, everybody "ties" at 0) or when the pot is empty. */
export function potTakers(r) {
  return r.hunter || r.pot === 0 ? [] : r.winners;
}

export function schmausRound(r, players, name) {
  const rows = [];
  const takers = potTakers(r);
  // W-15: the lowest draw; when everybody is lowest (always after a hunter) everybody draws.
  const allLowest = r.lowest.length === players;
  for (let s = 0; s < players; s += 1) {
    const drawn = r.drawn?.[s] || 0;
    const notes = [];
    if (takers.includes(s)) notes.push(t("summary.takesPot"));
    if (r.lowest.includes(s) && drawn) notes.push(allLowest ? tn("summary.allDrew", drawn) : tn("summary.lowestDrew", drawn));
    else if (r.lowest.includes(s)) notes.push(t(allLowest ? "summary.allLowest" : "summary.lowestDraws"));
    else if (drawn) notes.push(tn("summary.drew", drawn));
    if (r.empty_hand_draws?.[s]) notes.push(tn("summary.emptyDraw", r.empty_hand_draws[s]));
    if (r.short_hand_draws?.[s]) notes.push(tn("summary.shortDraw", r.short_hand_draws[s]));
    if (r.hand_limit_discards?.[s]) notes.push(tn("summary.limitDiscard", r.hand_limit_discards[s]));
    if (r.zeroed?.includes(s)) notes.push(t("summary.zeroed"));
    rows.push(
      h(
        "tr",
        { class: takers.includes(s) ? "winner" : "" },
        h("th", { scope: "row" }, name(s)),
        h("td", null, h("span.mini-hand", null, r.plays[s].map((c) => schmausCard(c, { extraClass: "mini" })))),
        h("td.strong", null, String(r.individual[s])),
        h("td", null, r.awarded[s] ? `+${r.awarded[s]}` : "0"),
        h("td", null, String(r.scores[s])),
        h("td.notes", null, notes.join(" · ")),
      ),
    );
  }
  return h(
    "div.summary",
    { "data-testid": "round-summary" },
    h("h3", null, t("summary.round", { n: r.round })),
    r.effects.length
      ? h("ol.effects", { "aria-label": t("summary.effects") }, r.effects.map((e) => h("li", null, effectText(e, name))))
      : h("p.muted", null, t("summary.noEffects")),
    h("p", { "data-testid": "summary-pot" }, r.hunter ? t("summary.void") : takers.length ? t("summary.pot", { pot: r.pot, names: takers.map(name).join(", ") }) : t("summary.potEmpty")),
    summaryTable(["summary.player", "summary.cards", "summary.score", "summary.awarded", "summary.total", "summary.notes"], rows, { stack: true }),
  );
}

export function roundSummary(game, r, players, name) {
  return game === "scout" ? scoutRound(r, players, name) : schmausRound(r, players, name);
}

export function finalResults(outcome, players, name) {
  const order = [...Array(players).keys()].sort((a, b) => outcome.scores[b] - outcome.scores[a]);
  return h(
    "div.final",
    { "data-testid": "final-results" },
    h("h2", null, t("final.title")),
    h("p.winner-line", null, tn("final.winners", outcome.winners.length, { names: outcome.winners.map(name).join(", ") })),
    h(
      "ol.ranking",
      null,
      order.map((s) => h("li", { class: outcome.winners.includes(s) ? "winner" : "" }, h("span", null, name(s)), h("b", null, String(outcome.scores[s])))),
    ),
  );
}
