// Learning at the table (issue #35): a short "How to play" of each game, drawn
// with the game's own cards, and what the decision in front of you means now.
// Every text follows the rulings (/work/shared/rules, ids in the comments and in
// the texts themselves), so a newcomer can check them on the rules page.

import { h } from "./dom.js";
import { schmausCard, scoutCard } from "./cards.js";
import { t, tn } from "./i18n.js";

const KEY = "spieltisch.learn.";

/** Whether the explanations of room `code` are open (a learning game opens them). */
export function learnOpen(code) {
  try {
    return localStorage.getItem(KEY + code) === "1";
  } catch {
    return false;
  }
}

export function rememberLearn(code, open) {
  try {
    if (open) localStorage.setItem(KEY + code, "1");
    else localStorage.removeItem(KEY + code);
  } catch {
    /* private mode: open for this page only */
  }
}

/** Small cards of the game, in groups (a match and a run; two lays). */
const mini = (groups, draw) =>
  h("div.learn-cards", null, groups.map((cards) => h("span.learn-group", null, cards.map((c) => draw(c, { extraClass: "mini" })))));

/** The steps of a game's "How to play": [text key, cards drawn beside it]. */
function scoutSteps(players) {
  const two = players === 2;
  return [
    ["learn.scout.goal", null], // S-11, S-12 (S-16 with two players)
    ["learn.scout.cards", mini([["3/7"], ["7/3"]], scoutCard)], // S-1, S-5
    ["learn.scout.show", mini([["5/1", "5/9"], ["4/2", "5/8", "6/3"]], scoutCard)], // S-6, S-7
    [two ? "learn.scout.scout2" : "learn.scout.scout", null], // S-8 / S-14
    two ? null : ["learn.scout.scoutShow", null], // S-9
    [two ? "learn.scout.end2" : "learn.scout.end", null], // S-10, S-11 / S-15, S-16
  ].filter(Boolean);
}

function schmausSteps() {
  return [
    ["learn.schmaus.goal", null], // W-4, W-14, W-18
    ["learn.schmaus.lay", mini([["F1", "F4", "F5"], ["F2", "F3", "X3"]], schmausCard)], // W-4
    ["learn.schmaus.score", null], // W-12, W-13, W-14, W-15
    ["learn.schmaus.hunter", mini([["HUNTER"], ["GUARDIAN"]], schmausCard)], // W-7, W-8
    ["learn.schmaus.negative", mini([["GROCER"], ["GARBAGE"]], schmausCard)], // W-9, W-10
    ["learn.schmaus.raccoons", mini([["X5"], ["X3"], ["X2"]], schmausCard)], // W-11, W-12
    ["learn.schmaus.hand", null], // W-5, W-6, W-16
  ];
}

/** What the current decision means, in a sentence or two (null when there is none). */
export function decisionText(ctx) {
  const v = ctx.view;
  if (v.seat === null || v.seat === undefined) return null;
  if (v.game === "scout") {
    if (v.phase === "over") return null;
    if (!ctx.mine()) return t("learn.scout.now.wait", { name: ctx.name(v.to_move[0]) });
    if (v.phase === "flip") return t("learn.scout.now.flip"); // S-5
    if (ctx.sel.scout) return t("learn.scout.now.insert"); // S-8
    if (!v.table) return t("learn.scout.now.lead"); // S-6, S-7
    const count = v.table.cards.length;
    const owner = ctx.name(v.table.owner);
    if (v.players === 2) return tn("learn.scout.now.turn2", count, { chips: v.chips[v.seat] }); // S-14
    const chip = v.chips[v.seat] ? t("learn.scout.now.chipReady") : t("learn.scout.now.chipUsed"); // S-9
    return `${tn("learn.scout.now.turn", count, { owner })} ${chip}`; // S-6 .. S-9
  }
  if (v.phase === "game_over") return null;
  if (!ctx.mine()) return t("learn.schmaus.now.wait"); // W-7 .. W-11
  if (v.phase === "play") return t("learn.schmaus.now.lay"); // W-4, W-8, W-14, W-15
  if (v.phase === "target") {
    return ctx.legal.some(([, x]) => x.startsWith("target ")) ? t("learn.schmaus.now.target") : t("learn.schmaus.now.x5"); // W-9, W-11
  }
  return t("learn.schmaus.now.discard"); // W-16
}

/** The learning panel: a toggle, then (when open) what the decision now means
 * and how the game is played. `toggle()` flips `open`. */
export function learnPanel(ctx, open, toggle) {
  const v = ctx.view;
  const panel = h("section.learn", { "aria-labelledby": "learn-toggle", "data-testid": "learn" });
  panel.append(
    h(
      "button.disclosure",
      { type: "button", id: "learn-toggle", "aria-expanded": open ? "true" : "false", "aria-controls": "learn-body", "data-testid": "learn-toggle", "data-focus": "learn-toggle", onclick: toggle },
      h("span.tri", { "aria-hidden": "true" }),
      t("learn.title"),
    ),
  );
  if (!open) return panel;
  const now = decisionText(ctx);
  const steps = v.game === "scout" ? scoutSteps(v.players) : schmausSteps();
  panel.append(
    h(
      "div.learn-body",
      { id: "learn-body" },
      now ? h("p.learn-now", { "data-testid": "learn-now" }, h("b", null, t("learn.now")), " ", now) : null,
      h("h3", null, t(v.game === "scout" ? "learn.scout.title" : "learn.schmaus.title")),
      h(
        "ol.learn-steps",
        { "data-testid": "learn-howto" },
        steps.map(([key, cards]) => h("li", null, h("p", null, t(key, { rounds: v.rounds })), cards)),
      ),
    ),
  );
  return panel;
}
