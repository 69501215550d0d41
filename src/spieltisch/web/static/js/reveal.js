// Waschbär-Schmaus: the moment of the reveal (W-4: every lay is turned over at once)
// before the round's summary. When a round is resolved the table shows everybody's
// lay face up for a few seconds, or until the person presses Continue; then the summary.

import { schmausCard } from "./cards.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { effectText, potTakers } from "./results.js";

/** When (in seconds) the effects come up one after another, then the pot goes to its winners. */
const EFFECTS_AT = 0.6;
const EFFECT_STEP = 0.35;

/** How long the revealed lays stay on the table before the summary comes by itself. */
export const REVEAL_MS = 4500;

/** The revealed lays of round result `r`, with a Continue button (`next`). The summary
 * (which shows the same lays) comes by itself after a while, but not while the keyboard
 * focus is on the stage (`hold(true)`, then `hold(false)` starts the time again). */
export function revealStage(r, players, name, next, hold) {
  const lays = [];
  // The effects in their order (W-7 to W-11), then the pot (W-14): CSS animations, off
  // under prefers-reduced-motion, finished at once by Escape or a click (js/motion.js).
  const potAt = EFFECTS_AT + EFFECT_STEP * r.effects.length;
  const takers = potTakers(r);
  for (let s = 0; s < players; s += 1) {
    const winner = takers.includes(s);
    lays.push(
      h(
        "div.lay",
        { class: winner ? "winner" : "", "data-testid": `reveal-lay-${s}` },
        h("div.opp-name", null, name(s), " ", h("span.muted", null, tn("reveal.points", r.individual[s]))),
        h(
          "div.lay-cards",
          null,
          r.plays[s].length ? r.plays[s].map((c, i) => schmausCard(c, { extraClass: "mini revealing", attrs: { style: `--i: ${s * 3 + i}` } })) : h("span.muted", null, t("reveal.nothing")),
        ),
        winner
          ? h(
              "div.note",
              null,
              h("span.pot-chip", { "data-testid": `pot-chip-${s}`, style: `--pot-at: ${potAt}s` }, `+${r.awarded[s]}`),
              " ",
              t("reveal.takesPot"),
            )
          : null,
      ),
    );
  }
  return h(
    "section.game.schmaus.reveal-stage",
    {
      "aria-labelledby": "reveal-title",
      "data-testid": "reveal-stage",
      onfocusin: () => hold(true),
      onfocusout: (e) => {
        if (!e.currentTarget.contains(e.relatedTarget)) hold(false);
      },
    },
    h("h2", { id: "reveal-title" }, t("reveal.title", { n: r.round })),
    h("div.lays", null, lays),
    r.effects.length
      ? h(
          "ol.effects.reveal-effects",
          { "aria-label": t("summary.effects") },
          r.effects.map((e, i) => h("li", { style: `--at: ${EFFECTS_AT + EFFECT_STEP * i}s` }, effectText(e, name))),
        )
      : null,
    h("div.reveal-bar", null, h("span.reveal-timer", { "aria-hidden": "true" }), h("button.primary", { type: "button", "data-testid": "reveal-continue", "data-focus": "reveal-continue", onclick: next }, t("reveal.continue"))),
  );
}
