// Turn clocks and stand-in bots (docs/web.md, "Clocks and stand-in bots").
// The server sends every seat's clock with each state, as of the moment it
// sent it; the page counts the running ones down from the state's arrival
// (monotonic, performance.now()) - no wall clocks, so no skew between machines.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** 75 -> "1:15"; 3700 -> "1:01:40"; under 10 s with a tenth: "7.3". */
export function formatSeconds(seconds) {
  const s = Math.max(0, seconds);
  if (s < 10) return s.toFixed(1);
  const whole = Math.floor(s);
  const hours = Math.floor(whole / 3600);
  const mins = Math.floor((whole % 3600) / 60);
  const secs = String(whole % 60).padStart(2, "0");
  return hours ? `${hours}:${String(mins).padStart(2, "0")}:${secs}` : `${mins}:${secs}`;
}

/** A seat's clock now: {move, bank, running} with the time since `arrived` taken off. */
export function clockNow(clock, arrived, now = performance.now()) {
  if (!clock) return null;
  let spent = clock.running ? (now - arrived) / 1000 : 0;
  let move = clock.move;
  if (move !== null) {
    const used = Math.min(move, spent);
    move -= used;
    spent -= used;
  }
  const bank = clock.bank === null ? null : Math.max(0, clock.bank - spent);
  return { move, bank, running: clock.running };
}

/** The text of a seat's clock: "0:12 + 4:00" (move time + bank), "0:12" or "4:00". */
export function clockText(clock, arrived, now) {
  const c = clockNow(clock, arrived, now);
  if (!c) return "";
  const parts = [];
  // A decision's time that has run out is no longer shown: "0:53", not "0.0 + 0:53".
  if (c.move !== null && (c.move > 0 || c.bank === null)) parts.push(formatSeconds(c.move));
  if (c.bank !== null) parts.push(formatSeconds(c.bank));
  return parts.join(" + ");
}

const SVG = "http://www.w3.org/2000/svg";

/** A stopwatch drawn inline (the emoji ⏱ is an empty box on machines without an emoji font). */
function clockIcon() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("focusable", "false");
  for (const [tag, attrs] of [
    ["circle", { cx: "8", cy: "9", r: "6", fill: "none", stroke: "currentColor", "stroke-width": "1.6" }],
    ["path", { d: "M8 9V5.5M6.5 1.5h3M12.5 4l1-1", fill: "none", stroke: "currentColor", "stroke-width": "1.6", "stroke-linecap": "round" }],
  ]) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    svg.append(el);
  }
  return svg;
}

/** The clock of seat `s` in the players strip (null when the room has no time limit). */
export function seatClock(msg, s, arrived) {
  const clock = msg.clocks?.[s];
  if (!clock || (clock.move === null && clock.bank === null)) return null;
  const c = clockNow(clock, arrived);
  const low = c.running && (c.move ?? 0) + (c.bank ?? 0) < 10;
  return h(
    "span.clock",
    {
      class: `${clock.running ? "running" : ""}${low ? " low" : ""}`,
      "data-testid": `clock-${s}`,
      "data-clock": String(s),
      title: t("clock.title"),
      "aria-label": t("clock.label", { time: clockText(clock, arrived) }),
    },
    h("span.clock-icon", { "aria-hidden": "true" }, clockIcon()),
    h("span.clock-time", null, clockText(clock, arrived)),
  );
}

/** Bring every running clock on the page up to date (called a few times a second). */
export function tickClocks(root, msg, arrived) {
  if (!msg?.clocks) return;
  const now = performance.now();
  for (const el of root.querySelectorAll("[data-clock]")) {
    const clock = msg.clocks[Number(el.dataset.clock)];
    if (!clock?.running) continue;
    const text = clockText(clock, arrived, now);
    const span = el.querySelector(".clock-time");
    if (span && span.textContent !== text) span.textContent = text;
  }
}

/** The room's clock settings in a sentence, for the table's top line. */
export function settingsText(clock) {
  if (!clock) return null;
  const parts = [];
  if (clock.move !== null) parts.push(t("clock.perMove", { time: formatSeconds(clock.move) }));
  if (clock.bank !== null) parts.push(t("clock.perBank", { time: formatSeconds(clock.bank) }));
  if (clock.grace !== null) parts.push(t("clock.perGrace", { time: formatSeconds(clock.grace) }));
  return parts.join(" · ");
}
