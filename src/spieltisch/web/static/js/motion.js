// Cards that move (FLIP: First, Last, Invert, Play). Before the table is redrawn
// for a new state, `snapshot` notes where every card stands; after it, `animate`
// lets each card that changed hands travel from its old place to its new one (a shown
// set into the middle, a scouted card into a hand), lets a set that an opponent
// showed come from that opponent's seat, and turns over a lay that was just
// revealed. With `prefers-reduced-motion: reduce` nothing moves.

const CARDS = ".table-area .scard, .hand-area .scard, .opponents .scard, .lays .wcard";
const TRAVEL_MS = 380;
const EASE = "cubic-bezier(0.2, 0.7, 0.2, 1)";

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
  return { places, seats };
}

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

/** Move every card from where `before` saw it to where it is now. `from` names the
 * seat a set new on the table came from (the table's owner), if any. */
export function animate(root, before, from = null) {
  if (!before || reducedMotion() || typeof Element.prototype.animate !== "function") return;
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
