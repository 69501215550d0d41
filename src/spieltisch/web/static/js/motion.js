// Cards that move (FLIP: First, Last, Invert, Play). Before the table is redrawn
// for a new state, `snapshot` notes where every card stands; after it, `animate`
// lets each card that changed hands travel from its old place to its new one (a shown
// set into the middle, a scouted card into a hand), lets a set that an opponent
// showed come from that opponent's seat, turns over a lay that was just revealed,
// brings drawn Waschbär-Schmaus cards from the draw pile and drops a discard on its
// pile (the reveal's effects and pot are CSS animations: js/reveal.js). With
// `prefers-reduced-motion: reduce` nothing moves; Escape or a click skips the motion.

const CARDS = ".table-area .scard, .hand-area .scard, .opponents .scard, .lays .wcard";
const TRAVEL_MS = 380;
const EASE = "cubic-bezier(0.2, 0.7, 0.2, 1)";

/** Finish every running animation at once: a press of Escape, or a click on the table,
 * skips them (installed once, for every page of the client). */
export function skipAnimations() {
  for (const a of document.getAnimations?.() ?? []) {
    const target = a.effect?.target;
    if (target?.classList?.contains("reveal-timer")) continue; // the reveal's clock is time, not motion
    if (a.playState === "running" || a.playState === "pending") a.finish();
  }
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") skipAnimations();
});
// On the click, not the press: a card finished on the press jumps away from under the
// pointer, and the click would land beside it (a click on a card still moving is lost).
document.addEventListener("click", (e) => {
  if (e.target.closest?.(".game, .reveal-stage")) skipAnimations();
}, true);

/** Whether the person asked their system for less motion. */
export function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

function face(el, selector) {
  return el.querySelector(selector)?.firstChild?.nodeValue ?? "";
}

/** A card's identity across redraws. A Scout card is one of a kind (S-1: one card per
 * pair of numbers), whichever side is up; a Waschbär-Schmaus lay card is its seat and
 * place in the lay, and its face (a sealed card has none). */
function keyOf(el) {
  if (el.closest(".scout-pick")) return null; // the preview beside the buttons
  if (el.classList.contains("scard")) {
    if (el.classList.contains("back")) return null;
    const pair = [Number(face(el, ".top")), Number(face(el, ".bottom"))].sort((a, b) => a - b);
    return `s:${pair.join("/")}`;
  }
  const lay = el.closest("[data-testid^=lay-]");
  if (!lay) return null;
  return `w:${lay.dataset.testid}:${[...el.parentElement.children].indexOf(el)}`;
}

/** The part of the table a card lies in: the middle, a hand, an opponent's cards. */
function areaOf(el) {
  return el.closest(".table-area, .hand-area, .opponent, .lay")?.className.split(" ")[0] ?? "";
}

/** Where every card of the table stands now (and what a Schmaus lay card shows). */
export function snapshot(root) {
  const places = new Map();
  for (const el of root.querySelectorAll(CARDS)) {
    const key = keyOf(el);
    if (key && !places.has(key)) places.set(key, { rect: el.getBoundingClientRect(), label: el.getAttribute("aria-label") || "", area: areaOf(el) });
  }
  const seats = new Map();
  for (const el of root.querySelectorAll("[data-testid^=opponent-], [data-testid^=player-]")) {
    seats.set(el.dataset.testid, el.getBoundingClientRect());
  }
  // Waschbär-Schmaus: the hand by card ids (cards of one kind are alike) and the discards.
  const hand = countIds(root);
  const discards = Number(root.querySelector("[data-testid=discard-pile]")?.dataset.count ?? -1);
  return { places, seats, hand, discards };
}

function countIds(root) {
  const counts = new Map();
  for (const el of root.querySelectorAll(".hand-area .hand > .wcard")) counts.set(el.dataset.card, (counts.get(el.dataset.card) || 0) + 1);
  return counts;
}

/** Waschbär-Schmaus: cards drawn into the hand come from the draw pile (W-5, W-6, W-15),
 * and a card laid on the discard pile drops onto it (W-15, W-16). */
function drawsAndDiscards(root, before) {
  const pile = root.querySelector("[data-testid=draw-pile] .pile-card");
  if (pile && before.hand.size > 0) {
    const from = centre(pile.getBoundingClientRect());
    const seen = new Map();
    let drawn = 0;
    for (const el of root.querySelectorAll(".hand-area .hand > .wcard")) {
      const id = el.dataset.card;
      seen.set(id, (seen.get(id) || 0) + 1);
      // More of a kind than before: the last ones of that kind are the new ones.
      if (seen.get(id) <= (before.hand.get(id) || 0)) continue;
      const to = centre(el.getBoundingClientRect());
      el.animate(
        [{ transform: `translate(${from.x - to.x}px, ${from.y - to.y}px) scale(0.7)`, opacity: 0.4 }, { transform: "none", opacity: 1 }],
        { duration: TRAVEL_MS + 120, delay: 90 * drawn, easing: EASE, fill: "backwards" },
      );
      drawn += 1;
    }
  }
  const discard = root.querySelector("[data-testid=discard-pile]");
  if (discard && before.discards >= 0 && Number(discard.dataset.count) > before.discards) {
    discard.querySelector(".pile-card")?.animate(
      [{ transform: "translateY(-22px) rotate(-8deg)", opacity: 0.3 }, { transform: "none", opacity: 1 }],
      { duration: TRAVEL_MS, easing: EASE },
    );
  }
}

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

/** Move every card from where `before` saw it to where it is now. `from` names the
 * seat a set new on the table came from (the table's owner), if any. */
export function animate(root, before, from = null) {
  if (!before || reducedMotion() || typeof Element.prototype.animate !== "function") return;
  drawsAndDiscards(root, before);
  const origin = from === null ? null : before.seats.get(`opponent-${from}`) || before.seats.get(`player-${from}`);
  let arrivals = 0;
  for (const el of root.querySelectorAll(CARDS)) {
    const key = keyOf(el);
    if (!key) continue;
    const now = el.getBoundingClientRect();
    const was = before.places.get(key);
    if (key.startsWith("w:")) {
      const label = el.getAttribute("aria-label") || "";
      if (!was) el.animate([{ opacity: 0, transform: "translateY(-18px) scale(0.8)" }, { opacity: 1, transform: "none" }], { duration: 260, easing: EASE });
      else if (was.label !== label && !el.classList.contains("back")) {
        // Turned face up: the reveal (W-4), one card after the other.
        el.animate([{ transform: "rotateY(90deg)" }, { transform: "none" }], { duration: 320, delay: 60 * arrivals, easing: EASE, fill: "backwards" });
        arrivals += 1;
      }
      continue;
    }
    if (was) {
      // Only a card that changed hands travels (cards closing up in a hand stay put:
      // a row that scrolls must not grow a scroll bar under the pointer).
      if (was.area === areaOf(el)) continue;
      const dx = was.rect.left - now.left;
      const dy = was.rect.top - now.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      const scale = was.rect.width / (now.width || 1);
      el.animate(
        [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})`, zIndex: 5 }, { transform: "none", zIndex: 5 }],
        { duration: TRAVEL_MS, easing: EASE },
      );
    } else if (origin && el.closest(".table-area")) {
      // A set new on the table: it comes from the seat that showed it.
      const a = centre(origin);
      const b = centre(now);
      el.animate(
        [{ transform: `translate(${a.x - b.x}px, ${a.y - b.y}px) scale(0.5)`, opacity: 0.3 }, { transform: "none", opacity: 1 }],
        { duration: TRAVEL_MS, delay: 40 * arrivals, easing: EASE, fill: "backwards" },
      );
      arrivals += 1;
    }
  }
}
