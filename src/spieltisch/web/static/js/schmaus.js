// Waschbär-Schmaus at the table: the sealed lay of 3 cards (W-4, W-5), the
// grocer's target and the ×5 raccoon's card after the reveal (W-9, W-11) and
// hand-limit discards (W-16). Legality comes only from the server's list.

import { h } from "./dom.js";
import { SCHMAUS_CARDS, SCHMAUS_ORDER, handCardButton, isFood, schmausCard, schmausName, unseen } from "./cards.js";
import { t, tn } from "./i18n.js";

function sortCards(ids) {
  return [...ids].sort((a, b) => SCHMAUS_ORDER.indexOf(a) - SCHMAUS_ORDER.indexOf(b));
}

function playText(ids) {
  return ids.length ? `play ${sortCards(ids).join(" ")}` : "play -";
}

function waitingSeats(ctx) {
  const v = ctx.view;
  return v.to_move.filter((s) => s !== v.seat);
}

export function schmausStatus(ctx) {
  const v = ctx.view;
  if (v.phase === "game_over") return t("status.over");
  const names = waitingSeats(ctx).map((s) => ctx.name(s)).join(", ");
  if (ctx.mine()) {
    if (v.phase === "play") return t("schmaus.status.layYou");
    if (v.phase === "target") return t("schmaus.status.chooseYou");
    return t("schmaus.status.discardYou");
  }
  return names ? t("status.waitingFor", { names }) : "";
}

export function renderSchmaus(ctx) {
  const v = ctx.view;
  const wrap = h("div.game.schmaus");
  wrap.append(piles(ctx));
  wrap.append(laysArea(ctx));
  if (ctx.replay) {
    if (v.seat !== null && v.seat !== undefined) wrap.append(handArea(ctx, { readonly: true }));
    return wrap;
  }
  if (v.seat === null || v.seat === undefined) return wrap;
  wrap.append(handArea(ctx, {}));
  return wrap;
}

function piles(ctx) {
  const v = ctx.view;
  const top = v.discard.length ? v.discard[v.discard.length - 1] : null;
  return h(
    "section.piles",
    { "aria-label": t("schmaus.piles") },
    h("div.pile", { "data-testid": "draw-pile" }, h("div.wcard.back.pile-card", { "aria-hidden": "true" }), h("span", null, tn("schmaus.drawPile", v.draw_pile_size))),
    h(
      "div.pile",
      { "data-testid": "discard-pile", "data-count": String(v.discard.length) },
      top ? schmausCard(top, { extraClass: "pile-card" }) : h("div.wcard.empty.pile-card", { "aria-hidden": "true" }),
      h("span", null, tn("schmaus.discardPile", v.discard.length)),
    ),
  );
}

/** Everybody's lay: sealed (committed or not) during phase 1, face up after the reveal. */
function laysArea(ctx) {
  const v = ctx.view;
  const area = h("section.lays", { "aria-label": t("schmaus.lays") });
  for (let s = 0; s < v.players; s += 1) {
    let cards;
    let note = "";
    if (v.revealed) {
      cards = v.revealed[s].map((c) => schmausCard(c, { extraClass: "mini" }));
      if (v.choosing && v.choosing[s]) note = t("schmaus.choosing");
    } else if (v.phase === "play") {
      const laid = v.committed[s];
      const known = ctx.replay && ctx.plays ? ctx.plays[s] : null; // the replay shows sealed lays face up
      if (known) {
        cards = known.map((c) => schmausCard(c, { extraClass: "mini sealed" }));
        note = t("schmaus.laid");
      } else if (s === v.seat && v.my_play) {
        cards = v.my_play.map((c) => schmausCard(c, { extraClass: "mini sealed" }));
        note = t("schmaus.sealed");
      } else {
        cards = laid ? [0, 1, 2].map(() => schmausCard(null, { extraClass: "mini" })) : [];
        note = laid ? t("schmaus.laid") : t("schmaus.thinking");
      }
    } else if (v.phase === "discard") {
      cards = [];
      note = v.to_move.includes(s) ? t("schmaus.discarding") : "";
    } else {
      cards = [];
    }
    const hand = ctx.hands ? ctx.hands[s] : v.hands ? v.hands[s] : null;
    area.append(
      h(
        "div.lay",
        { class: v.to_move.includes(s) ? "active" : "", "data-testid": `lay-${s}` },
        h("div.opp-name", null, ctx.name(s), " ", h("span.muted", null, tn("count.cards", v.hand_sizes[s]))),
        h("div.lay-cards", null, cards),
        note ? h("div.note", null, note) : null,
        hand && s !== v.seat ? h("div.mini-hand", null, hand.map((c) => schmausCard(c, { extraClass: "mini" }))) : null,
      ),
    );
  }
  return area;
}

function handArea(ctx, opts) {
  const v = ctx.view;
  const sel = ctx.sel;
  const hand = v.hand || [];
  const area = h("section.hand-area", { "aria-label": t("hand.yours") });
  area.append(h("h2.sr-only", null, t("hand.yours")));
  const legal = ctx.legal.map(([, x]) => x);
  const selecting = !opts.readonly && ctx.mine() && (v.phase === "play" || v.phase === "discard");
  const row = h("div.hand", { role: "group", "aria-label": t("hand.yours"), tabindex: selecting ? null : "0" });
  hand.forEach((c, i) => {
    if (!selecting) {
      row.append(schmausCard(c));
      return;
    }
    const selected = sel.cards.has(i);
    const toggle = () => {
      if (sel.cards.has(i)) sel.cards.delete(i);
      else sel.cards.add(i);
      ctx.explain(null);
      ctx.update();
    };
    row.append(schmausCard(c, handCardButton(i, selected, toggle, "", { "data-card": c })));
  });
  if (!hand.length) row.append(h("p.hint", null, t("schmaus.emptyHand")));
  area.append(row);
  if (opts.readonly) return area;
  const bar = h("div.controls");
  area.append(bar);
  if (!ctx.mine()) {
    if (v.phase === "play" && v.my_play) bar.append(h("p.hint", null, t("schmaus.waitOthers")));
    return area;
  }
  if (v.phase === "play") layControls(ctx, bar, legal, hand);
  else if (v.phase === "target") choiceControls(ctx, bar);
  else if (v.phase === "discard") discardControls(ctx, bar, legal, hand);
  return area;
}

function layControls(ctx, bar, legal, hand) {
  const sel = ctx.sel;
  const plays = legal.filter((x) => x.startsWith("play "));
  const full = plays.some((x) => x.split(" ").length === 4);
  if (!full && plays.length) {
    // W-5: no full lay is possible; the table names the forced short lay.
    const cards = plays[0] === "play -" ? [] : plays[0].split(" ").slice(1);
    bar.append(h("p.hint", null, cards.length ? t("schmaus.shortLay") : t("schmaus.noLay")));
    bar.append(
      h(
        "button.primary",
        { type: "button", "data-testid": "btn-lay", "data-focus": "btn-lay", onclick: () => ctx.play(plays[0]) },
        cards.length ? t("schmaus.layThese", { cards: cards.map(schmausName).join(", ") }) : t("schmaus.layNothing"),
      ),
    );
    return;
  }
  const n = sel.cards.size;
  bar.append(
    h(
      "button.primary",
      {
        type: "button",
        "data-testid": "btn-lay",
        "data-focus": "btn-lay",
        onclick: () => {
          const ids = [...sel.cards].map((i) => hand[i]);
          if (ids.length !== 3) {
            ctx.explain(tn("why.layThree", ids.length));
            return;
          }
          const effects = ids.filter((c) => !isFood(c));
          if (effects.length > 1) {
            ctx.explain(t("why.twoEffects"));
            return;
          }
          const text = playText(ids);
          if (ctx.play(text)) return;
          ctx.explain(t("why.notALay"), text);
        },
      },
      n ? tn("schmaus.layN", n) : t("schmaus.lay"),
    ),
  );
  if (n) bar.append(h("button", { type: "button", onclick: () => { sel.cards = new Set(); ctx.update(); } }, t("btn.clear")));
  bar.append(h("p.hint", null, t("schmaus.hintLay")));
}

function choiceControls(ctx, bar) {
  const targets = ctx.legal.filter(([, x]) => x.startsWith("target "));
  const x5 = ctx.legal.filter(([, x]) => x.startsWith("x5 "));
  if (targets.length) {
    bar.append(h("p.hint", null, t("schmaus.pickTarget")));
    for (const [, text] of targets) {
      const seat = Number(text.split(" ")[1]);
      bar.append(
        h(
          "button.primary",
          { type: "button", "data-testid": `btn-target-${seat}`, "data-focus": `target-${seat}`, onclick: () => ctx.play(text) },
          ctx.name(seat),
        ),
      );
    }
  } else if (x5.length) {
    bar.append(h("p.hint", null, t("schmaus.pickX5")));
    for (const [, text] of x5) {
      const card = text.split(" ")[1];
      bar.append(
        h(
          "button.primary.with-card",
          { type: "button", "data-testid": `btn-x5-${card}`, "data-focus": `x5-${card}`, onclick: () => ctx.play(text) },
          // Named by its visible text, then the value: "bread, value 1" (the small card repeats it).
          schmausCard(card, { extraClass: "mini", attrs: { "aria-hidden": "true" } }),
          schmausName(card),
          unseen(`, ${t("card.value")} ${SCHMAUS_CARDS[card]?.value ?? 0}`),
        ),
      );
    }
  }
}

function discardControls(ctx, bar, legal, hand) {
  const v = ctx.view;
  const sel = ctx.sel;
  const need = v.must_discard || 0;
  bar.append(h("p.hint", null, tn("schmaus.mustDiscard", need)));
  if (v.must_keep_play) bar.append(h("p.hint", null, t("schmaus.keepPlay")));
  bar.append(
    h(
      "button.primary",
      {
        type: "button",
        "data-testid": "btn-discard",
        "data-need": String(need),
        "data-focus": "btn-discard",
        onclick: () => {
          const ids = [...sel.cards].map((i) => hand[i]);
          if (ids.length !== need) {
            ctx.explain(tn("why.discardN", need, { chosen: ids.length }));
            return;
          }
          const texts = sortCards(ids).map((c) => `discard ${c}`);
          const bad = texts.find((x) => !legal.includes(x));
          if (bad) {
            ctx.explain(t("why.mustKeepPlay"), bad);
            return;
          }
          ctx.queue(texts);
        },
      },
      tn("schmaus.discardN", sel.cards.size || need),
    ),
  );
}
