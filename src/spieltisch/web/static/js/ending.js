// The end of a game: the placings (1st, 2nd, … with shared places), the scores
// over the rounds as a chart (inline SVG) with the same numbers as a table, and
// the last round's summary (S-12 / W-18: the highest total wins, a tie is shared).

import { h } from "./dom.js";
import { lang, t, tn } from "./i18n.js";
import { roundSummary } from "./results.js";

const SVG = "http://www.w3.org/2000/svg";
/** A colour and a dash per player: told apart without colour too. */
const LINES = [
  ["#c8502f", ""],
  ["#30638e", "6 4"],
  ["#2e8b57", "2 3"],
  ["#8e5ea2", "9 3 2 3"],
  ["#8a6d00", "12 4"],
];
const MARKS = ["circle", "square", "diamond", "triangle", "cross"];

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** "1st", "2nd" / "1.", "2." */
export function ordinal(n) {
  if (lang() === "de") return `${n}.`;
  const suffix = { one: "st", two: "nd", few: "rd", other: "th" }[new Intl.PluralRules("en", { type: "ordinal" }).select(n)];
  return `${n}${suffix}`;
}

/** Each seat's place: 1 + the number of players with more points (equal points share a place). */
export function places(scores) {
  return scores.map((s) => 1 + scores.filter((x) => x > s).length);
}

/** Every player's total after each round (round 0: nobody has points yet). */
function totals(game, results, players) {
  const rows = [Array(players).fill(0)];
  for (const r of results) rows.push(game === "scout" ? r.totals : r.scores);
  return rows;
}

function placings(outcome, players, name) {
  const place = places(outcome.scores);
  const order = [...Array(players).keys()].sort((a, b) => place[a] - place[b] || a - b);
  return h(
    "ol.placings",
    { "data-testid": "placings", "aria-label": t("end.placings") },
    order.map((s) => {
      const shared = place.filter((p) => p === place[s]).length > 1;
      return h(
        "li",
        { class: `place-${Math.min(place[s], 4)}`, "data-testid": `place-${s}`, "data-place": String(place[s]) },
        h("span.place", null, ordinal(place[s]), shared ? h("small", null, ` ${t("end.shared")}`) : null),
        h("span.place-name", null, name(s)),
        h("b.place-score", null, tn("end.points", outcome.scores[s])),
      );
    }),
  );
}

function marker(kind, x, y, colour) {
  const r = 4.5;
  const common = { fill: colour, stroke: "#fff", "stroke-width": 1.5 };
  if (kind === "square") return svg("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, ...common });
  if (kind === "diamond") return svg("path", { d: `M${x} ${y - r - 1}L${x + r + 1} ${y}L${x} ${y + r + 1}L${x - r - 1} ${y}Z`, ...common });
  if (kind === "triangle") return svg("path", { d: `M${x} ${y - r - 1}L${x + r + 1} ${y + r}L${x - r - 1} ${y + r}Z`, ...common });
  if (kind === "cross") return svg("path", { d: `M${x - r} ${y - r}L${x + r} ${y + r}M${x - r} ${y + r}L${x + r} ${y - r}`, stroke: colour, "stroke-width": 3 });
  return svg("circle", { cx: x, cy: y, r, ...common });
}

/** A step of about 5 lines between `lo` and `hi` (1, 2, 5, 10, 20, 50, …). */
function niceStep(lo, hi) {
  const raw = Math.max(1, (hi - lo) / 5);
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
}

/** The scores after each round as lines, one a player, named at their ends. */
function chart(rows, players, name) {
  const W = 480;
  const H = 250;
  // Room on the right for the longest name (bold 13 px: about 8 units a letter), so no
  // name is cut at the chart's edge however narrow the screen (the chart scales as a whole).
  const longest = Math.max(...[...Array(players).keys()].map((s) => name(s).length));
  const pad = { left: 40, right: Math.min(W / 2, Math.max(104, 14 + 8 * longest)), top: 12, bottom: 36 };
  const all = rows.flat();
  const step = niceStep(Math.min(0, ...all), Math.max(1, ...all));
  const lo = Math.floor(Math.min(0, ...all) / step) * step;
  const hi = Math.ceil(Math.max(1, ...all) / step) * step;
  const x = (i) => pad.left + (i * (W - pad.left - pad.right)) / Math.max(1, rows.length - 1);
  const y = (v) => pad.top + ((hi - v) * (H - pad.top - pad.bottom)) / (hi - lo || 1);
  const grid = [];
  for (let v = lo; v <= hi; v += step) {
    grid.push(svg("line", { x1: pad.left, x2: W - pad.right, y1: y(v), y2: y(v), class: v === 0 ? "axis" : "grid" }));
    grid.push(svg("text", { x: pad.left - 6, y: y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  const ticks = rows.map((_, i) => svg("text", { x: x(i), y: H - pad.bottom + 16, "text-anchor": "middle" }, i === 0 ? t("end.start") : String(i)));
  const lines = [];
  const ends = [];
  for (let s = 0; s < players; s += 1) {
    const [colour, dash] = LINES[s % LINES.length];
    const points = rows.map((r, i) => `${x(i)},${y(r[s])}`).join(" ");
    lines.push(svg("polyline", { points, fill: "none", stroke: colour, "stroke-width": 3, "stroke-dasharray": dash || null, "stroke-linejoin": "round" }));
    rows.forEach((r, i) => lines.push(marker(MARKS[s % MARKS.length], x(i), y(r[s]), colour)));
    ends.push({ s, y: y(rows[rows.length - 1][s]), colour });
  }
  // The names at the lines' ends, pushed apart where they would overlap.
  ends.sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; i += 1) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + 14);
  const labels = ends.map((e) => svg("text", { x: W - pad.right + 8, y: e.y + 4, fill: e.colour, class: "end-name" }, name(e.s)));
  return svg(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, class: "score-chart", "aria-hidden": "true", focusable: "false", "data-testid": "score-chart" },
    grid,
    ticks,
    svg("text", { x: (pad.left + W - pad.right) / 2, y: H - 4, "text-anchor": "middle", class: "axis-title" }, t("end.axisRound")),
    lines,
    labels,
  );
}

/** The chart's numbers as a table: its text alternative, for everybody to read. */
function scoreTable(rows, players, name) {
  return h(
    "div.table-wrap",
    null,
    h(
      "table.score-table",
      { "data-testid": "score-table" },
      h("caption", null, t("end.tableCaption")),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, t("summary.player")), rows.slice(1).map((_, i) => h("th", { scope: "col" }, t("end.roundN", { n: i + 1 }))))),
      h(
        "tbody",
        null,
        [...Array(players).keys()].map((s) => h("tr", null, h("th", { scope: "row" }, name(s)), rows.slice(1).map((r) => h("td", null, String(r[s]))))),
      ),
    ),
  );
}

/** The end of the game in the main area: placings, the chart and its table, the last round. */
export function endPanel(game, view, name, actions) {
  const outcome = view.outcome;
  const rows = totals(game, view.round_results, view.players);
  const last = view.round_results[view.round_results.length - 1];
  return h(
    "section.final-panel.end-panel",
    { "data-testid": "final-results", "aria-labelledby": "end-title" },
    h("h2", { id: "end-title" }, t("final.title")),
    h("p.winner-line", null, tn("final.winners", outcome.winners.length, { names: outcome.winners.map(name).join(", ") })),
    placings(outcome, view.players, name),
    actions,
    rows.length > 1
      ? h(
          "figure.score-figure",
          { "aria-labelledby": "chart-title" },
          h("figcaption", { id: "chart-title" }, t("end.chartTitle")),
          chart(rows, view.players, name),
          scoreTable(rows, view.players, name),
        )
      : null,
    last ? h("section.last-round", { "aria-label": t("end.lastRound"), "data-testid": "last-round" }, roundSummary(game, last, view.players, name)) : null,
  );
}
