// Scout at the table: flip decision, show, scout, scout & show (S-5 .. S-9),
// the 2-player variant with scout chips (S-13, S-14). Legality comes only
// from the server's legal list; this module maps clicks to its notation.

import { h } from "./dom.js";
import { handCardButton, scoutCard, scoutRef, turnedScout } from "./cards.js";
import { t, tn } from "./i18n.js";

// -- notation -----------------------------------------------------------------

/** Parse the server's Scout notation into an object (for drawing choices only). */
export function parseScoutAction(text) {
  let m = /^(flip|keep)$/.exec(text);
  if (m) return { type: "flip", flip: m[1] === "flip" };
  m = /^show (\d+)(?:-(\d+))?$/.exec(text);
  if (m) return { type: "show", start: +m[1], end: m[2] === undefined ? +m[1] : +m[2] };
  m = /^scout ([LR])( flip)? @(\d+)(?: show (\d+)(?:-(\d+))?)?$/.exec(text);
  if (m) {
    const scout = { end: m[1], flip: Boolean(m[2]), at: +m[3] };
    if (m[4] === undefined) return { type: "scout", ...scout };
    return { type: "scout_show", ...scout, start: +m[4], end2: m[5] === undefined ? +m[4] : +m[5] };
  }
  return null;
}

function showText(start, end) {
  return start === end ? `show ${start}` : `show ${start}-${end}`;
}

function scoutText(s) {
  return `scout ${s.end}${s.flip ? " flip" : ""} @${s.at}`;
}

/** Sorted positions -> [start, end] if they are adjacent, else null. */
function adjacent(positions) {
  const sorted = [...positions].sort((a, b) => a - b);
  for (let i = 1; i < sorted.length; i += 1) {
    if (sorted[i] !== sorted[i - 1] + 1) return null;
  }
  return sorted.length ? [sorted[0], sorted[sorted.length - 1]] : null;
}

// -- status line ----------------------------------------------------------------

export function scoutStatus(ctx) {
  const v = ctx.view;
  if (v.phase === "over") return t("status.over");
  if (v.phase === "flip") {
    const waiting = v.to_move.map((s) => ctx.name(s));
    if (ctx.mine()) return t("scout.status.flipYou");
    return t("status.waitingFor", { names: waiting.join(", ") });
  }
  const mover = v.to_move[0];
  return ctx.mine() ? t("status.yourTurn") : t("status.turnOf", { name: ctx.name(mover) });
}

// -- rendering ----------------------------------------------------------------

export function renderScout(ctx) {
  const v = ctx.view;
  const sel = ctx.sel;
  const wrap = h("div.game.scout");
  wrap.append(opponents(ctx));
  const seated = v.seat !== null && v.seat !== undefined;
  // During my flip decision the (empty) table would only push the choice down.
  if (ctx.replay || !seated || v.phase !== "flip") wrap.append(tableArea(ctx));
  if (ctx.replay) {
    if (v.seat !== null && v.seat !== undefined) {
      wrap.append(h("section.hand-area", { "aria-label": t("hand.yours") }, handRow(ctx, v.hand || [], { readonly: true })));
    }
    return wrap;
  }
  if (v.seat === null || v.seat === undefined) return wrap;
  if (v.phase === "flip") {
    wrap.append(flipPanel(ctx));
    return wrap;
  }
  if (v.phase === "over") {
    // Nobody moves any more: the hand as it ended (if any), without controls.
    if (v.hand?.length) wrap.append(h("section.hand-area", { "aria-label": t("hand.yours") }, handRow(ctx, v.hand || [], { readonly: true })));
    return wrap;
  }
  const hand = v.hand || [];
  let shown = hand;
  let fresh = -1;
  if (sel.scout && sel.scout.at !== null) {
    const card = scoutedCard(ctx);
    shown = [...hand.slice(0, sel.scout.at), card, ...hand.slice(sel.scout.at)];
    fresh = sel.scout.at;
  }
  const area = h("section.hand-area", { "aria-label": t("hand.yours") });
  area.append(h("h2.sr-only", null, t("hand.yours")));
  area.append(handRow(ctx, shown, { fresh, gaps: Boolean(sel.scout && sel.scout.at === null) }));
  area.append(controls(ctx, shown));
  wrap.append(area);
  return wrap;
}

function scoutedCard(ctx) {
  const cards = ctx.view.table?.cards || [];
  const s = ctx.sel.scout;
  const card = s.end === "L" ? cards[0] : cards[cards.length - 1];
  return s.flip ? turnedScout(card) : card;
}

function opponents(ctx) {
  const v = ctx.view;
  const hands = ctx.hands || v.hands || [];
  const row = h("section.opponents", { "aria-label": t("table.players") });
  for (let s = 0; s < v.players; s += 1) {
    if (s === v.seat) continue;
    const cards = hands[s] || [];
    const mini = h("div.mini-hand");
    for (const c of cards) mini.append(scoutCard(c, { extraClass: "mini" }));
    row.append(
      h(
        "div.opponent",
        { class: v.to_move.includes(s) ? "active" : "", "data-testid": `opponent-${s}` },
        h("div.opp-name", null, ctx.name(s), " ", h("span.muted", null, tn("count.cards", v.hand_sizes[s]))),
        mini,
        ctx.replay ? null : lastLine(ctx, s),
      ),
    );
  }
  return row;
}

/** The opponent's last action in a line (the table's log names it; issue #35). */
function lastLine(ctx, s) {
  const text = ctx.last?.(s);
  return text ? h("div.opp-last", { "data-testid": `opp-last-${s}` }, text) : null;
}

function tableArea(ctx) {
  const v = ctx.view;
  const sel = ctx.sel;
  const area = h("section.table-area", { "aria-label": t("table.active") });
  if (!v.table) {
    area.append(h("p.empty-table", null, v.phase === "flip" ? t("scout.flipPhase") : t("scout.tableEmpty")));
    return area;
  }
  area.append(h("div.table-owner", null, t("scout.activeSetOf", { name: ctx.name(v.table.owner) })));
  const cards = v.table.cards;
  const canPick = !ctx.replay && ctx.mine() && v.phase === "play";
  const row = h("div.table-cards");
  cards.forEach((c, i) => {
    const ends = [];
    if (i === 0) ends.push("L");
    if (i === cards.length - 1) ends.push("R");
    if (!canPick || ends.length === 0) {
      row.append(scoutCard(c, { extraClass: "on-table" }));
      return;
    }
    const end = ends[0]; // a single card is both ends: take it as the left one
    const chosen = sel.scout && ends.includes(sel.scout.end);
    row.append(
      scoutCard(chosen && sel.scout.flip ? turnedScout(c) : c, {
        tag: "button",
        extraClass: `on-table pickable${chosen ? " chosen" : ""}`,
        more: ` – ${t(end === "L" ? "scout.takeLeft" : "scout.takeRight")}`,
        attrs: {
          type: "button",
          "aria-pressed": chosen ? "true" : "false",
          "data-testid": `table-end-${end}`,
          "data-focus": `table-${end}`,
          onclick: () => pickEnd(ctx, end),
        },
      }),
    );
  });
  area.append(row);
  if (canPick) area.append(h("p.hint", null, t("scout.hintTable")));
  return area;
}

function pickEnd(ctx, end) {
  const v = ctx.view;
  const scouts = ctx.legal.filter(([, text]) => text.startsWith("scout "));
  if (!ctx.mine()) {
    ctx.explain(t("why.notYourTurn"));
    return;
  }
  if (scouts.length === 0) {
    if (v.players === 2 && v.chips[v.seat] === 0) ctx.explain(t("why.noChips"));
    else ctx.explain(t("why.cannotScout"));
    return;
  }
  ctx.sel.scout = { end, flip: false, at: null };
  ctx.sel.cards = new Set();
  ctx.explain(null);
  ctx.update();
}

function handRow(ctx, cards, opts = {}) {
  const sel = ctx.sel;
  // A hand of plain cards (no buttons) can still be scrolled by keyboard.
  const row = h("div.hand", { role: "group", "aria-label": t("hand.yours"), tabindex: opts.readonly ? "0" : null });
  const gap = (i) =>
    h(
      "button.gap",
      {
        type: "button",
        "data-testid": `gap-${i}`,
        "data-focus": `gap-${i}`,
        "aria-label": gapLabel(cards, i),
        title: gapLabel(cards, i),
        onclick: () => {
          sel.scout.at = i;
          ctx.reveal(`[data-testid="hand-card-${i}"]`);
          ctx.explain(null);
          ctx.update();
        },
      },
      h("span", { "aria-hidden": "true" }, "+"),
    );
  cards.forEach((c, i) => {
    if (opts.gaps) row.append(gap(i));
    if (opts.readonly) {
      row.append(scoutCard(c));
      return;
    }
    const selected = sel.cards.has(i);
    const fresh = i === opts.fresh;
    row.append(
      scoutCard(c, {
        ...handCardButton(i, selected, () => toggleCard(ctx, i), fresh ? " fresh" : ""),
        more: fresh ? `, ${t("scout.newCard")}` : "",
      }),
    );
  });
  if (opts.gaps) row.append(gap(cards.length));
  return row;
}

function gapLabel(cards, i) {
  if (cards.length === 0) return t("scout.gapOnly");
  if (i === 0) return t("scout.gapFirst", { card: scoutRef(cards[0]) });
  if (i === cards.length) return t("scout.gapLast", { card: scoutRef(cards[i - 1]) });
  return t("scout.gapBetween", { left: scoutRef(cards[i - 1]), right: scoutRef(cards[i]) });
}

function toggleCard(ctx, i) {
  const v = ctx.view;
  if (!ctx.mine()) {
    ctx.explain(t("why.notYourTurn"));
    return;
  }
  if (ctx.sel.scout && ctx.sel.scout.at === null) {
    ctx.explain(t("why.pickGapFirst"));
    return;
  }
  if (ctx.sel.scout && v.players === 2) {
    ctx.explain(t("why.noScoutShow2"));
    return;
  }
  const cards = ctx.sel.cards;
  if (cards.has(i)) cards.delete(i);
  else cards.add(i);
  ctx.explain(null);
  ctx.update();
}

function controls(ctx, shown) {
  const v = ctx.view;
  const sel = ctx.sel;
  const bar = h("div.controls");
  if (!ctx.mine()) {
    bar.append(h("p.hint", null, t("scout.waitTurn", { name: ctx.name(v.to_move[0]) })));
    return bar;
  }
  const n = sel.cards.size;
  if (!sel.scout) {
    bar.append(
      h(
        "button.primary",
        { type: "button", "data-testid": "btn-show", "data-focus": "btn-show", onclick: () => doShow(ctx) },
        n ? tn("scout.showN", n) : t("scout.show"),
      ),
    );
    if (n) bar.append(h("button", { type: "button", onclick: () => reset(ctx) }, t("btn.clear")));
    const hint = v.table ? t("scout.hintTurn") : t("scout.hintLead");
    bar.append(h("p.hint", null, hint));
    if (v.players === 2) bar.append(h("p.hint", null, tn("scout.chipsLeft", v.chips[v.seat])));
    return bar;
  }
  const card = scoutedCard(ctx);
  bar.append(
    h(
      "div.scout-pick",
      null,
      scoutCard(card, { extraClass: "mini" }),
      h(
        "button",
        {
          type: "button",
          "data-testid": "btn-turn",
          "data-focus": "btn-turn",
          onclick: () => {
            sel.scout.flip = !sel.scout.flip;
            ctx.update();
          },
        },
        t("scout.turnCard"),
      ),
    ),
  );
  if (sel.scout.at === null) {
    bar.append(h("p.hint", null, t("scout.hintGap")));
  } else {
    bar.append(
      h(
        "button.primary",
        { type: "button", "data-testid": "btn-scout", "data-focus": "btn-scout", onclick: () => doScout(ctx) },
        t("scout.scoutOnly"),
      ),
    );
    if (v.players > 2) {
      bar.append(
        h(
          "button.primary",
          {
            type: "button",
            "data-testid": "btn-scout-show",
            "data-focus": "btn-scout-show",
            onclick: () => doScoutShow(ctx),
          },
          n ? tn("scout.scoutShowN", n) : t("scout.scoutShow"),
        ),
      );
    }
    bar.append(
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            sel.scout.at = null;
            sel.cards = new Set();
            ctx.update();
          },
        },
        t("scout.movePosition"),
      ),
    );
    if (v.players > 2) bar.append(h("p.hint", null, t("scout.hintScoutShow")));
  }
  bar.append(h("button", { type: "button", "data-testid": "btn-cancel", onclick: () => reset(ctx) }, t("btn.cancel")));
  return bar;
}

function reset(ctx) {
  ctx.sel.cards = new Set();
  ctx.sel.scout = null;
  ctx.explain(null);
  ctx.update();
}

// The selected cards' range [first, last], or null after explaining why there is none.
function selectedRange(ctx, noneWhy) {
  const cards = ctx.sel.cards;
  if (cards.size === 0) {
    ctx.explain(t(noneWhy));
    return null;
  }
  const range = adjacent(cards);
  if (!range) ctx.explain(t("why.notAdjacent"));
  return range;
}

function doShow(ctx) {
  const range = selectedRange(ctx, "why.selectCards");
  if (!range) return;
  const text = showText(range[0], range[1]);
  if (ctx.play(text)) return;
  const shows = ctx.legal.filter(([, x]) => x.startsWith("show "));
  ctx.explain(shows.length ? t("why.notBeating") : t("why.noShowBeats"), text);
}

function doScout(ctx) {
  const text = scoutText(ctx.sel.scout);
  if (ctx.play(text)) return;
  ctx.explain(t("why.cannotScout"), text);
}

function doScoutShow(ctx) {
  const v = ctx.view;
  const prefix = `${scoutText(ctx.sel.scout)} show `;
  const any = ctx.legal.some(([, x]) => x.includes(" show "));
  if (!any) {
    ctx.explain(v.chips[v.seat] === 0 ? t("why.chipUsed") : t("why.noScoutShow"));
    return;
  }
  const range = selectedRange(ctx, "why.selectShowAfterScout");
  if (!range) return;
  const text = prefix + showText(range[0], range[1]).slice(5);
  if (ctx.play(text)) return;
  const here = ctx.legal.some(([, x]) => x.startsWith(prefix));
  ctx.explain(here ? t("why.notBeating") : t("why.noShowHere"), text);
}

// One way to hold the hand at the flip: its heading, the button that chooses it, the cards.
function flipOption(ctx, cards, titleKey, action, buttonKey) {
  return h(
    "div.flip-option",
    null,
    h(
      "div.flip-head",
      null,
      h("h3", null, t(titleKey)),
      h(
        "button.primary",
        { type: "button", "data-testid": `btn-${action}`, "data-focus": `btn-${action}`, onclick: () => ctx.play(action) },
        t(buttonKey),
      ),
    ),
    handRow(ctx, cards, { readonly: true }),
  );
}

function flipPanel(ctx) {
  const v = ctx.view;
  const hand = v.hand || [];
  const panel = h("section.flip-panel", { "aria-label": t("scout.flipTitle") });
  panel.append(h("h2", null, t("scout.flipTitle")));
  const legal = ctx.legal.map(([, x]) => x);
  if (!legal.length) {
    panel.append(h("p", null, t("scout.flipDone")));
    panel.append(handRow(ctx, hand, { readonly: true }));
    return panel;
  }
  panel.append(h("p.hint", null, t("scout.flipHint")));
  const turned = [...hand].reverse().map(turnedScout);
  panel.append(
    flipOption(ctx, hand, "scout.asDealt", "keep", "scout.keep"),
    flipOption(ctx, turned, "scout.turned", "flip", "scout.flip"),
  );
  return panel;
}
