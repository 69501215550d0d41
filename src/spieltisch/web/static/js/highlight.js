// What the table marks on its cards after each redraw: the last move (until the
// next one) and the move a hint suggests. Both are read from the log and the hint
// the page already has, and drawn as classes on the cards and seats the game
// modules drew (so the marks follow the same cards the person sees).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { logText } from "./results.js";

/** The log's newest entry, if any. */
export function lastEntry(log) {
  return log?.length ? log[log.length - 1] : null;
}

/** "Last move: Bot 4 shows 5 6 7." above the table (null before the first move). */
export function lastMoveLine(game, log, name) {
  const entry = lastEntry(log);
  if (!entry) return null;
  return h("p.last-move-line", { "data-testid": "last-move" }, h("span.muted", null, t("move.last")), " ", logText(game, entry, name));
}

function mark(el, cls) {
  el?.classList.add(cls);
}

function byTestId(root, id) {
  return root.querySelector(`[data-testid="${id}"]`);
}

/** Mark the last move on the table: its seat, and the cards it put down or took. */
export function markLastMove(root, game, view, log, sel) {
  const entry = lastEntry(log);
  if (!entry || !view) return;
  const seat = entry.seat;
  mark(byTestId(root, `player-${seat}`), "last-mover");
  if (game !== "scout") {
    mark(byTestId(root, `lay-${seat}`), "last-move");
    return;
  }
  const text = entry.text;
  if (/ show |^show /.test(text) && view.table?.owner === seat) {
    for (const card of root.querySelectorAll(".table-area .table-cards > .scard")) mark(card, "last-move");
  }
  const scouted = /^scout [LR](?: flip)? @(\d+)/.exec(text);
  if (scouted && !sel?.scout) {
    const at = Number(scouted[1]);
    const hand = seat === view.seat ? root.querySelectorAll(".hand-area .hand > .scard") : byTestId(root, `opponent-${seat}`)?.querySelectorAll(".mini-hand > .scard");
    // The scouted card where it went in (unless the same move showed it on).
    if (!text.includes(" show ") && hand?.[at]) mark(hand[at], "last-move");
  }
}

// -- hints ------------------------------------------------------------------------

/** Mark the cards and controls of the hinted move (`hint.action`, the server's notation). */
export function markHint(root, game, hint, view, sel) {
  if (!hint?.action || !view) return;
  const text = hint.action;
  const hand = [...root.querySelectorAll(".hand-area .hand > button.scard, .hand-area .hand > button.wcard")];
  const cardAt = (i) => hand.find((el) => el.dataset.testid === `hand-card-${i}`);
  if (game === "scout") {
    if (text === "keep" || text === "flip") {
      mark(byTestId(root, `btn-${text}`), "hinted");
      return;
    }
    let m = /^show (\d+)(?:-(\d+))?$/.exec(text);
    if (m) {
      if (sel?.scout) return; // the person is scouting now: the hand shown is another one
      for (let i = +m[1]; i <= +(m[2] ?? m[1]); i += 1) mark(cardAt(i), "hinted");
      return;
    }
    m = /^scout ([LR])( flip)? @(\d+)(?: show (\d+)(?:-(\d+))?)?$/.exec(text);
    if (!m) return;
    const end = byTestId(root, `table-end-${m[1]}`) || byTestId(root, "table-end-L");
    mark(end, "hinted");
    const at = +m[3];
    const placed = sel?.scout && sel.scout.at !== null;
    if (sel?.scout && sel.scout.at === null) mark(byTestId(root, `gap-${at}`), "hinted");
    else if (!placed) {
      // Where it goes: a dashed place with its number between the hand's cards.
      const table = view.table?.cards || [];
      const card = m[1] === "L" ? table[0] : table[table.length - 1];
      const number = card ? card.split("/")[m[2] ? 1 : 0] : "";
      const ghost = h("span.hint-gap", { "aria-hidden": "true", "data-testid": "hint-gap" }, number);
      const row = root.querySelector(".hand-area .hand");
      if (row) row.insertBefore(ghost, cardAt(at) || null);
    }
    if (m[4] === undefined) return;
    for (let k = +m[4]; k <= +(m[5] ?? m[4]); k += 1) {
      // Positions of the hand after the scout: before `at` the same, after it one less.
      if (placed) mark(cardAt(k), "hinted");
      else if (k !== at) mark(cardAt(k < at ? k : k - 1), "hinted");
    }
    return;
  }
  const [verb, ...args] = text.split(" ");
  if (verb === "target") mark(byTestId(root, `btn-target-${args[0]}`), "hinted");
  else if (verb === "x5") mark(byTestId(root, `btn-x5-${args[0]}`), "hinted");
  else if (verb === "play" && (args[0] === "-" || !args.length)) mark(byTestId(root, "btn-lay"), "hinted");
  else if (verb === "play" || verb === "discard") {
    const used = new Set();
    for (const card of args) {
      const el = hand.find((x) => !used.has(x) && x.dataset.card === card);
      if (el) {
        used.add(el);
        mark(el, "hinted");
      }
    }
  }
}
