// Card faces. Scout: a tall card, live number large on top, the other number
// small and upside down at the bottom, one colour per number.
// Waschbär-Schmaus: a card with a picture, its name and its value. The
// pictures are SVG files shipped with the app (static/cards/), so every
// machine shows them, with or without a colour-emoji font.

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

/** What a Scout card says, its live number first: "5, other side 3". */
export function scoutLabel(text) {
  const [top, bottom] = parseScout(text);
  return `${top}, ${t("card.otherSide")} ${bottom}`;
}

/** The card options (for scoutCard, schmausCard) that make the hand card at `i` a toggle button,
 * pressed when `selected`; `moreClass`, `moreAttrs`: what the game adds. */
export function handCardButton(i, selected, onclick, moreClass = "", moreAttrs = {}) {
  return {
    tag: "button",
    extraClass: `${selected ? "selected" : ""}${moreClass}`,
    attrs: {
      type: "button",
      "aria-pressed": selected ? "true" : "false",
      "data-testid": `hand-card-${i}`,
      "data-focus": `hand-${i}`,
      ...moreAttrs,
      onclick,
    },
  };
}

/** The same said inside a longer sentence: "5 (other side 3)". */
export function scoutRef(text) {
  const [top, bottom] = parseScout(text);
  return t("card.scoutRef", { top, bottom });
}

/** Visually hidden words between or after a control's visible texts. */
export function unseen(text) {
  return h("span.sr-only", null, text);
}

/**
 * A Scout card element. `opts`: {tag, attrs, extraClass, more}. `more` is said
 * after the card (", the scouted card", " – take the left end"). A button is named
 * by its content, the visible numbers first with the rest visually hidden
 * between and after them ("5, other side 3 – take the left end"), so the name
 * begins with what is seen on it (WCAG 2.5.3); any other card is a picture
 * (role img) with the same words as its label.
 */
export function scoutCard(text, opts = {}) {
  const tag = opts.tag || "div";
  if (text === null || text === undefined) {
    return h(`${tag}.scard.back`, { "aria-label": t("card.hidden"), role: "img", class: opts.extraClass, ...(opts.attrs || {}) });
  }
  const [top, bottom] = parseScout(text);
  const more = opts.more || "";
  const named = tag !== "div";
  const attrs = named ? { ...(opts.attrs || {}) } : { role: "img", "aria-label": `${scoutLabel(text)}${more}`, ...(opts.attrs || {}) };
  const said = named ? {} : { "aria-hidden": "true" };
  return h(
    `${tag}.scard`,
    { ...attrs, class: [opts.extraClass, `n${top}`].filter(Boolean).join(" ") },
    h("span.top", { ...said, class: `c${top}` }, String(top), named ? unseen(`, ${t("card.otherSide")} `) : null),
    h("span.mid", { "aria-hidden": "true" }),
    h("span.bottom", { ...said, class: `c${bottom}` }, String(bottom), named && more ? unseen(more) : null),
  );
}

// -- Waschbär-Schmaus ------------------------------------------------------

export const SCHMAUS_CARDS = {
  F1: { art: "bread", value: 1, food: true },
  F2: { art: "blueberries", value: 2, food: true },
  F3: { art: "nut", value: 3, food: true },
  F4: { art: "cookie", value: 4, food: true },
  F5: { art: "grapes", value: 5, food: true },
  X3: { art: "raccoon", badge: "×3", value: 3 },
  X2: { art: "raccoon", badge: "×2", value: 3 },
  X5: { art: "raccoon", badge: "×5", value: 3 },
  HUNTER: { art: "hunter", value: 0, negative: true },
  GARBAGE: { art: "garbage", value: 0, negative: true },
  GROCER: { art: "grocer", value: 0, negative: true },
  GUARDIAN: { art: "guardian", value: 3 },
};

/** A decorative picture from static/cards/ (the card's text says what it is). */
export function art(name, extraClass = "") {
  return h(`img.art${extraClass ? `.${extraClass}` : ""}`, { src: `/static/cards/${name}.svg`, alt: "", width: 64, height: 64, draggable: "false" });
}

export const SCHMAUS_ORDER = Object.keys(SCHMAUS_CARDS);

export function schmausName(id) {
  return t(`schmaus.card.${id}`);
}

export function isFood(id) {
  return Boolean(SCHMAUS_CARDS[id]?.food);
}

/**
 * A Waschbär-Schmaus card element. `opts`: {tag, attrs, extraClass}. Like a
 * Scout card, a button is named by its content: the card's name, then its
 * value ("bread, value 1"); the name comes first in the page and is drawn
 * at the bottom of the card by CSS (`order`). Any other card is a picture
 * (role img) with the same words as its label.
 */
export function schmausCard(id, opts = {}) {
  const tag = opts.tag || "div";
  if (id === null || id === undefined) {
    return h(`${tag}.wcard.back`, { "aria-label": t("card.hidden"), role: "img", class: opts.extraClass, ...(opts.attrs || {}) });
  }
  const info = SCHMAUS_CARDS[id] || { art: null, value: 0 };
  const kind = info.food ? "food" : info.negative ? "negative" : "effect";
  const shown = info.food ? String(info.value) : info.value ? `+${info.value}` : "";
  const named = tag !== "div";
  const label = t("card.schmaus", { name: schmausName(id), value: info.value });
  const attrs = named ? { ...(opts.attrs || {}) } : { role: "img", "aria-label": label, ...(opts.attrs || {}) };
  const said = named ? {} : { "aria-hidden": "true" };
  return h(
    `${tag}.wcard`,
    { ...attrs, class: [opts.extraClass, kind].filter(Boolean).join(" ") },
    h("span.wname", said, schmausName(id), named ? unseen(shown ? `, ${t("card.value")} ` : `, ${t("card.value")} ${info.value}`) : null),
    h("span.wvalue", said, shown),
    // The badge (×3) repeats the name; the picture is decoration.
    h("span.wicon", { "aria-hidden": "true" }, info.art ? art(info.art) : "?", info.badge ? h("b", null, info.badge) : null),
  );
}
