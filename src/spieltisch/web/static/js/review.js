// The review of a finished game (docs/review.md): started with POST
// /api/rooms/{room}/review, its progress polled with GET until it is done (the
// server stores it, so a second look is instant), shown as a summary per
// player and a table of every decision of the chosen player. And the hint
// box at the table (rooms with hints on).

import { api } from "./api.js";
import { schmausName } from "./cards.js";
import { h } from "./dom.js";
import { lang, t, tn } from "./i18n.js";

const POLL_MS = 400;
const AUTO = "spieltisch.autoReview";

/** Whether a finished game's review starts by itself for its players (on unless switched off). */
export function autoReview() {
  try {
    return localStorage.getItem(AUTO) !== "off";
  } catch {
    return true;
  }
}

/** The remembered switch "Review my games when they end" beside the end's buttons. */
export function autoReviewSwitch(update) {
  return h(
    "label.check.auto-review",
    null,
    h("input", {
      type: "checkbox",
      "data-testid": "auto-review",
      checked: autoReview(),
      onchange: (e) => {
        try {
          localStorage.setItem(AUTO, e.target.checked ? "on" : "off");
        } catch {
          /* private mode: for this page only */
        }
        update();
      },
    }),
    " ",
    t("review.auto"),
  );
}

/** A review being opened: `{status, done, total, reviews, frames, seat, error}`. */
export function newReview(seat) {
  return { status: "starting", done: 0, total: null, reviews: null, frames: null, seat: seat ?? 0, error: null, timer: null };
}

/** Start (or fetch the stored) review of room `code` and poll until it is done;
 * `update()` is called after every change. */
export async function openReview(code, rv, update) {
  try {
    const [answer, replay] = await Promise.all([
      api("POST", `/api/rooms/${code}/review`),
      rv.frames ? null : api("GET", `/api/rooms/${code}/replay`),
    ]);
    if (replay) rv.frames = replay.frames;
    take(rv, answer);
  } catch (err) {
    rv.status = "failed";
    rv.error = err.message;
  }
  update();
  const poll = async () => {
    if (rv.status !== "running" || rv.closed) return;
    try {
      take(rv, await api("GET", `/api/rooms/${code}/review`));
    } catch (err) {
      rv.status = "failed";
      rv.error = err.message;
    }
    update();
    if (rv.status === "running") rv.timer = setTimeout(poll, POLL_MS);
  };
  if (rv.status === "running") rv.timer = setTimeout(poll, POLL_MS);
}

export function closeReview(rv) {
  if (!rv) return;
  rv.closed = true;
  clearTimeout(rv.timer);
}

function take(rv, answer) {
  rv.status = answer.status;
  rv.done = answer.done;
  rv.total = answer.total;
  rv.error = answer.error || null;
  if (answer.reviews) rv.reviews = answer.reviews;
}

// -- moves in words --------------------------------------------------------------

const top = (card) => Number(String(card).split("/")[0]);
const bottom = (card) => Number(String(card).split("/")[1]);

/** A move of the record in words, from the table as it was just before it
 * (`frame`: the replay's frame before the move; the game is over, hands are public). */
export function moveText(game, text, frame, seat, name) {
  if (!text) return "";
  if (game === "scout") {
    if (text === "keep") return t("move.keep");
    if (text === "flip") return t("move.flip");
    const hand = frame?.hands?.[seat];
    const table = frame?.view?.table?.cards || [];
    if (!hand) return text;
    const numbers = hand.map(top);
    const run = (vals, a, b) => vals.slice(a, b + 1).join("-");
    let m = /^show (\d+)(?:-(\d+))?$/.exec(text);
    if (m) return t("move.show", { cards: run(numbers, +m[1], +(m[2] ?? m[1])) });
    m = /^scout ([LR])( flip)? @(\d+)(?: show (\d+)(?:-(\d+))?)?$/.exec(text);
    if (m && table.length) {
      const taken = m[1] === "L" ? table[0] : table[table.length - 1];
      const card = m[2] ? bottom(taken) : top(taken);
      const where = gapText(numbers, +m[3]);
      if (m[4] === undefined) return t("move.scout", { card, where });
      const after = [...numbers.slice(0, +m[3]), card, ...numbers.slice(+m[3])];
      return t("move.scoutShow", { card, where, cards: run(after, +m[4], +(m[5] ?? m[4])) });
    }
    return text;
  }
  const [verb, ...args] = text.split(" ");
  if (verb === "play") return args[0] === "-" || !args.length ? t("move.layNothing") : t("move.lay", { cards: args.map(schmausName).join(", ") });
  if (verb === "target") return t("move.target", { target: name(Number(args[0])) });
  if (verb === "x5") return t("move.x5", { card: schmausName(args[0]) });
  if (verb === "discard") return t("move.discard", { cards: args.map(schmausName).join(", ") });
  return text;
}

/** Where a scouted card goes in the hand `numbers` (insert position `at`), by its neighbours. */
function gapText(numbers, at) {
  if (!numbers.length) return t("move.gapOnly");
  if (at === 0) return t("move.gapFirst", { right: numbers[0] });
  if (at >= numbers.length) return t("move.gapLast", { left: numbers[numbers.length - 1] });
  return t("move.gapBetween", { left: numbers[at - 1], right: numbers[at] });
}

function number(x, signed = true) {
  if (x === null || x === undefined) return "–";
  return new Intl.NumberFormat(lang(), { minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: signed ? "exceptZero" : "auto" }).format(x);
}

/** What the review did: "8x1+56" is 8 sampled deals a decision, up to 56 more
 * where the mark was uncertain; a review stored before that ("8x1") had no extra deals. */
function aboutText(first) {
  const [head, extra] = first.budget.split("+");
  const worlds = Number(head.split("x")[0]);
  const params = { worlds, mistake: number(first.thresholds.mistake, false), blunder: number(first.thresholds.blunder, false) };
  return extra === undefined || Number(extra) === 0 ? t("review.about", params) : t("review.aboutAdaptive", { ...params, most: worlds + Number(extra) });
}

function markBadge(mark) {
  return mark ? h(`span.mark.${mark}`, { "data-testid": `mark-${mark}` }, t(`review.mark.${mark}`)) : null;
}

// -- the review panel --------------------------------------------------------------

/** The review panel: progress while it runs, then the summary and the decisions. */
export function reviewPanel(game, rv, name, update, close) {
  const panel = h("section.review-panel", { "data-testid": "review", "aria-labelledby": "review-title" });
  panel.append(h("h2", { id: "review-title" }, t("review.title")));
  if (rv.status === "starting" || rv.status === "running") {
    const label = rv.total === null ? t("review.counting") : t("review.progress", { done: rv.done, total: rv.total });
    panel.append(
      h(
        "div.review-progress",
        { role: "status" },
        h("progress", { "data-testid": "review-progress", max: String(rv.total || 1), value: rv.total === null ? undefined : String(rv.done), "aria-label": t("review.progressLabel") }),
        h("span", { "data-testid": "review-progress-text" }, label),
      ),
    );
  } else if (rv.status === "failed" || rv.status === "none") {
    panel.append(h("p.error", { role: "alert" }, rv.error || t("review.failed")));
  } else if (rv.reviews) {
    const first = rv.reviews[0];
    panel.append(
      h("p.muted", { role: "status" }, aboutText(first)),
      summaryTable(rv, name),
      decisionsTable(game, rv, name, update),
    );
  }
  panel.append(h("button", { type: "button", "data-testid": "review-close", onclick: close }, t("review.close")));
  return panel;
}

function summaryTable(rv, name) {
  const head = ["review.player", "review.decisions", "review.accuracy", "review.mistakes", "review.blunders", "review.biggest"];
  const rows = rv.reviews.map((r) => {
    const s = r.summary[0];
    const byNumber = new Map(r.decisions.map((d) => [d.number, d]));
    const biggest = s.biggest.map((n) => t("review.biggestItem", { n, loss: number(byNumber.get(n)?.loss, false) })).join(", ");
    const cells = [
      h("th", { scope: "row" }, name(r.seat)),
      h("td", null, String(s.rated)),
      h("td.strong", null, number(s.accuracy, false)),
      h("td", null, String(s.mistakes)),
      h("td", null, String(s.blunders)),
      h("td", null, biggest || "–"),
    ];
    cells.forEach((cell, i) => cell.setAttribute("data-label", t(head[i])));
    return h("tr", { "data-testid": `review-summary-${r.seat}` }, cells);
  });
  return h(
    "div.table-wrap.stack",
    null,
    h("table", { "data-testid": "review-summary" }, h("caption", null, t("review.summary")), h("thead", null, h("tr", null, head.map((k) => h("th", { scope: "col" }, t(k))))), h("tbody", null, rows)),
  );
}

function decisionsTable(game, rv, name, update) {
  const review = rv.reviews.find((r) => r.seat === rv.seat) || rv.reviews[0];
  const choose = h(
    "label.field.inline",
    { for: "review-seat" },
    h("span", null, t("review.choose")),
    h(
      "select",
      { id: "review-seat", "data-testid": "review-seat", onchange: (e) => { rv.seat = Number(e.target.value); update(); } },
      rv.reviews.map((r) => h("option", { value: String(r.seat), selected: r.seat === review.seat }, name(r.seat))),
    ),
  );
  const head = ["review.number", "review.round", "review.played", "review.estimate", "review.best", "review.bestEstimate", "review.difference", "review.mark"];
  const rows = review.decisions.map((d) => {
    const frame = rv.frames?.[d.number - 1];
    const cells = d.rated
      ? [
          h("td", null, String(d.number)),
          h("td", null, String(d.round)),
          h("td", null, moveText(game, d.played, frame, d.seat, name)),
          h("td", null, number(d.played_estimate)),
          h("td", null, d.best === d.played ? t("review.same") : moveText(game, d.best, frame, d.seat, name)),
          h("td", null, number(d.best_estimate)),
          h("td.strong", null, number(d.difference)),
          h("td", null, markBadge(d.mark)),
        ]
      : [
          h("td", null, String(d.number)),
          h("td", null, String(d.round)),
          h("td", null, moveText(game, d.played, frame, d.seat, name)),
          h("td", { colspan: "5" }, t("review.notRated")),
        ];
    cells.forEach((cell, i) => cell.setAttribute("data-label", t(head[i])));
    return h("tr", { class: d.mark || "", "data-testid": `review-decision-${d.number}` }, cells);
  });
  return h(
    "div.review-decisions",
    null,
    choose,
    h(
      "div.table-wrap.stack",
      null,
      h(
        "table",
        { "data-testid": "review-decisions" },
        h("caption", null, tn("review.decisionsOf", review.decisions.length, { name: name(review.seat) })),
        h("thead", null, h("tr", null, head.map((k) => h("th", { scope: "col" }, t(k))))),
        h("tbody", null, rows),
      ),
    ),
  );
}

/** In the replay: the rating of the move just shown (when the review is there). */
export function stepRating(game, rv, frames, index, name) {
  if (!rv?.reviews || index < 1) return null;
  const frame = frames[index];
  const review = rv.reviews.find((r) => r.seat === frame.seat);
  const d = review?.decisions.find((x) => x.number === index);
  if (!d) return null;
  const before = frames[index - 1];
  const text = !d.rated
    ? t("review.notRated")
    : d.best === d.played || !d.loss
      ? t("review.stepBest", { estimate: number(d.played_estimate) })
      : !(d.better || d.mark) // a loss within the sampling noise: no "better" move
        ? t("review.stepEven", { estimate: number(d.played_estimate) })
        : t("review.step", { best: moveText(game, d.best, before, d.seat, name), loss: number(d.loss, false) });
  return h("p.replay-rating", { "data-testid": "replay-rating" }, markBadge(d.mark), " ", text);
}

// -- hints --------------------------------------------------------------------------

/** The hint box: the suggested move and why, in the UI language. */
/** The parameter a hint's reason counts ("captures {count} cards", "about {points} points"). */
const COUNTED = { "show.beat": "count", "scoutshow.beat": "count", "lay.best": "points" };

/** A hint's reason in words, a count in its plural form; a lay expected to win
 * nothing says so instead of "about 0 points". */
function hintReason(reason, params) {
  const counted = COUNTED[reason];
  if (!counted) return t(`hint.${reason}`, params);
  const n = Number(params[counted]);
  if (reason === "lay.best" && n === 0) return t("hint.lay.nothing", params);
  return tn(`hint.${reason}`, n, params);
}

export function hintBox(game, hint, view, name) {
  const params = { ...hint.params };
  if ("owner" in params) params.owner = params.owner === null || params.owner === undefined ? t("hint.nobody") : name(Number(params.owner));
  if ("seat" in params) params.seat = name(Number(params.seat));
  if (game === "schmaus") {
    if (params.cards) params.cards = params.cards === "-" ? t("move.layNothing") : params.cards.split(" ").map(schmausName).join(", ");
    if (params.card) params.card = schmausName(params.card);
  }
  const frame = { hands: { [view.seat]: view.hand }, view };
  return h(
    "div.hint-box",
    { role: "status", "data-testid": "hint" },
    h("p", null, h("b", null, t("hint.suggested")), " ", moveText(game, hint.action, frame, view.seat, name)),
    h("p", { "data-testid": "hint-reason" }, hintReason(hint.reason, params)),
  );
}
