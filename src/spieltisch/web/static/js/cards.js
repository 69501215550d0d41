// Card faces. Scout: a tall card, live number large on top, the other number
// small and upside down at the bottom, one colour per number.
// Waschbär-Schmaus: a card with a picture, its name and its value.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** "3/7" -> [3, 7] (live number first). */
export function parseScout(text) {
  const [top, bottom] = text.split("/").map(Number);
  return [top, bottom];
}

export function turnedScout(text) {
  const [top, bottom] = parseScout(text);
  return `${bottom}/${top}`;
}

export function scoutLabel(text) {
  const [top, bottom] = parseScout(text);
  return t("card.scout", { top, bottom });
}

/** A Scout card element. `opts`: {tag, attrs, extraClass, small}. */
export function scoutCard(text, opts = {}) {
  const tag = opts.tag || "div";
  if (text === null || text === undefined) {
    return h(`${tag}.scard.back`, { "aria-label": t("card.hidden"), role: "img", class: opts.extraClass, ...(opts.attrs || {}) });
  }
  const [top, bottom] = parseScout(text);
  const attrs = { "aria-label": scoutLabel(text), ...(opts.attrs || {}) };
  if (tag === "div") attrs.role = attrs.role || "img";
  return h(
    `${tag}.scard`,
    { ...attrs, class: [opts.extraClass, `n${top}`].filter(Boolean).join(" ") },
    h("span.top", { "aria-hidden": "true", class: `c${top}` }, String(top)),
    h("span.mid", { "aria-hidden": "true" }),
    h("span.bottom", { "aria-hidden": "true", class: `c${bottom}` }, String(bottom)),
  );
}

// -- Waschbär-Schmaus ------------------------------------------------------

export const SCHMAUS_CARDS = {
  F1: { icon: "🍞", value: 1, food: true },
  F2: { icon: "🫐", value: 2, food: true },
  F3: { icon: "🌰", value: 3, food: true },
  F4: { icon: "🍪", value: 4, food: true },
  F5: { icon: "🍇", value: 5, food: true },
  X3: { icon: "🦝", badge: "×3", value: 3 },
  X2: { icon: "🦝", badge: "×2", value: 3 },
  X5: { icon: "🦝", badge: "×5", value: 3 },
  HUNTER: { icon: "🏹", value: 0, negative: true },
  GARBAGE: { icon: "🚛", value: 0, negative: true },
  GROCER: { icon: "😠", value: 0, negative: true },
  GUARDIAN: { icon: "🛡️", value: 3 },
};

export const SCHMAUS_ORDER = Object.keys(SCHMAUS_CARDS);

export function schmausName(id) {
  return t(`schmaus.card.${id}`);
}

export function isFood(id) {
  return Boolean(SCHMAUS_CARDS[id]?.food);
}

export function schmausCard(id, opts = {}) {
  const tag = opts.tag || "div";
  if (id === null || id === undefined) {
    return h(`${tag}.wcard.back`, { "aria-label": t("card.hidden"), role: "img", class: opts.extraClass, ...(opts.attrs || {}) });
  }
  const info = SCHMAUS_CARDS[id] || { icon: "?", value: 0 };
  const kind = info.food ? "food" : info.negative ? "negative" : "effect";
  const attrs = { "aria-label": t("card.schmaus", { name: schmausName(id), value: info.value }), ...(opts.attrs || {}) };
  if (tag === "div") attrs.role = attrs.role || "img";
  return h(
    `${tag}.wcard`,
    { ...attrs, class: [opts.extraClass, kind].filter(Boolean).join(" ") },
    h("span.wvalue", { "aria-hidden": "true" }, info.food ? String(info.value) : info.value ? `+${info.value}` : ""),
    h("span.wicon", { "aria-hidden": "true" }, info.icon, info.badge ? h("b", null, info.badge) : null),
    h("span.wname", { "aria-hidden": "true" }, schmausName(id)),
  );
}
