// Learn to play (/learn/scout, /learn/schmaus; issue #35): a guided lesson of scripted
// positions, one rule a step (GET /api/tutorial/GAME/STEP, docs/web.md). The table is
// drawn by the games' own modules; a move goes to POST /api/tutorial/GAME/STEP, which
// lets only the taught move through and answers with the table after the others'
// replies. "Show me" marks the taught move on the cards, as a hint does. The lesson
// ends in a short game against easy bots (a learning game: hints on, explanations open).

import { api, loadName, saveSeat } from "./api.js";
import { h, rerender } from "./dom.js";
import { t } from "./i18n.js";
import { rememberLearn } from "./learn.js";
import { markHint } from "./highlight.js";
import { animate, reducedMotion, snapshot } from "./motion.js";
import { refusalText, roundSummary } from "./results.js";
import { renderSchmaus } from "./schmaus.js";
import { renderScout } from "./scout.js";

/** The others at the lesson's table (seat 0 is the learner). */
const NAMES = ["Ada", "Ben", "Cleo", "Dev"];

export function tutorialPage({ root, game, navigate, announce }) {
  const st = {
    lesson: null,
    index: 0,
    step: null, // the step's position: {view, legal, teach, rules}
    after: null, // the view after the taught move (the step is done)
    refusal: null, // why the last move was not let through
    showMe: false,
    sel: { cards: new Set(), scout: null },
    error: null,
    busy: false,
    finished: false,
    shown: null, // the refusal or outcome last brought into view
  };
  let closed = false;
  // The learner as at a table: their name (or "Newcomer") and "(you)".
  const name = (s) => (s === 0 ? `${loadName() || t("tutorial.defaultName")} (${t("seat.you")})` : NAMES[s - 1]);

  api("GET", `/api/tutorial/${game}`)
    .then((data) => {
      st.lesson = data;
      return loadStep(0);
    })
    .catch(failed);

  function failed(err) {
    st.error = err.message;
    st.busy = false;
    render();
  }

  async function loadStep(index) {
    st.busy = true;
    const step = await api("GET", `/api/tutorial/${game}/${index}`);
    if (closed) return;
    Object.assign(st, { index, step, after: null, refusal: null, showMe: false, busy: false, finished: false });
    st.sel = { cards: new Set(), scout: null };
    render();
    root.querySelector("[data-testid=tutorial-step-title]")?.focus({ preventScroll: true });
    announce(t(`tutorial.${game}.${step.id}.title`));
  }

  async function play(text) {
    if (st.busy || st.after) return;
    st.busy = true;
    try {
      const res = await api("POST", `/api/tutorial/${game}/${st.index}`, { action: text });
      if (closed) return;
      st.busy = false;
      if (res.accepted) {
        st.sel = { cards: new Set(), scout: null };
        st.refusal = null;
        st.after = res.view;
        announce(`${t("tutorial.done")} ${t(`tutorial.${game}.${st.step.id}.done`)}`);
      } else {
        st.refusal = res.refusal.reason === "not_taught" ? t("tutorial.notTaught") : refusalText(res.refusal, name);
        st.showMe = st.showMe || res.refusal.reason === "not_taught";
        announce(st.refusal);
      }
      render(true);
    } catch (err) {
      failed(err);
    }
  }

  function makeCtx() {
    const view = st.after || st.step.view;
    const legal = st.after ? [] : st.step.legal;
    return {
      view,
      legal,
      sel: st.sel,
      name,
      mine: () => legal.length > 0,
      update: () => render(),
      reveal: () => {},
      play: (text) => {
        if (!legal.some(([, x]) => x === text)) return false;
        play(text);
        return true;
      },
      explain: (message, probeText) => {
        // The game modules explain what they can; the server names the ruling.
        st.refusal = message;
        if (probeText) play(probeText);
        else if (message) announce(message);
        render();
      },
      queue: (texts) => play(texts[0]),
      replay: Boolean(st.after), // the table after the step: read-only, nobody to wait for
    };
  }

  async function startGame() {
    const final = st.lesson.final;
    const seats = [{ kind: "human" }, ...Array.from({ length: final.players - 1 }, () => ({ kind: "bot", level: "easy" }))];
    const body = { game, players: final.players, options: final.options, seats, hints: true, name: loadName() || t("tutorial.defaultName") };
    st.busy = true;
    render();
    try {
      const res = await api("POST", "/api/rooms", body);
      saveSeat(res.room, res.seat, res.secret);
      rememberLearn(res.room, true);
      navigate(res.invite);
    } catch (err) {
      failed(err);
    }
  }

  function progress() {
    const steps = st.lesson.steps;
    return h(
      "ol.tutorial-steps",
      { "aria-label": t("tutorial.steps") },
      steps.map((s, i) =>
        h(
          "li",
          { class: i < st.index || st.finished ? "done" : i === st.index ? "current" : "", "aria-current": i === st.index && !st.finished ? "step" : null },
          t(`tutorial.${game}.${s.id}.title`),
        ),
      ),
    );
  }

  function stepView() {
    const step = st.step;
    const key = `tutorial.${game}.${step.id}`;
    const ctx = makeCtx();
    const view = ctx.view;
    const wrap = h("section.tutorial-step", { "data-testid": "tutorial-step", "data-step": step.id, "data-done": st.after ? "true" : "false" });
    wrap.append(
      h("p.muted", { "data-testid": "tutorial-progress" }, t("tutorial.step", { n: st.index + 1, total: st.lesson.steps.length })),
      h("h2", { tabindex: "-1", "data-testid": "tutorial-step-title" }, t(`${key}.title`)),
      h("p.tutorial-text", { "data-testid": "tutorial-text" }, t(`${key}.text`)),
      h("p.muted.tutorial-rules", null, t("tutorial.rules", { rules: step.rules.join(", ") })),
    );
    const table = h("div.room.tutorial-table", { "data-game": game, "data-phase": view.phase, "data-mine": ctx.mine() ? "true" : "false" });
    const ended = st.after && view.round_results.length > step.view.round_results.length ? view.round_results[view.round_results.length - 1] : null;
    // After a Waschbär-Schmaus round the next round's hand would only confuse: the round shows instead.
    if (!(ended && game === "schmaus")) table.append(game === "scout" ? renderScout(ctx) : renderSchmaus(ctx));
    if (ended) table.append(h("section.summary-panel", { "aria-label": t("summary.title"), "data-testid": "summary-panel" }, roundSummary(game, ended, view.players, name)));
    wrap.append(table);
    if (st.refusal && !st.after) {
      wrap.append(h("div.notice", { role: "alert", "data-testid": "notice" }, h("p", null, st.refusal)));
    }
    if (st.after) {
      const last = st.index === st.lesson.steps.length - 1;
      wrap.append(
        h(
          "div.tutorial-done",
          { role: "status", "data-testid": "tutorial-done" },
          h("p", null, h("b", null, t("tutorial.done")), " ", t(`${key}.done`)),
          h(
            "button.primary",
            { type: "button", "data-testid": "tutorial-next", "data-focus": "tutorial-next", onclick: () => (last ? finish() : loadStep(st.index + 1).catch(failed)) },
            last ? t("tutorial.finish") : t("tutorial.next"),
          ),
        ),
      );
    } else {
      wrap.append(
        h(
          "div.hint-row",
          null,
          h("button", { type: "button", "data-testid": "tutorial-show-me", "aria-pressed": st.showMe ? "true" : "false", onclick: () => { st.showMe = !st.showMe; render(); } }, t("tutorial.showMe")),
        ),
      );
    }
    return wrap;
  }

  function finish() {
    st.finished = true;
    render();
    root.querySelector("[data-testid=tutorial-final] h2")?.focus({ preventScroll: true });
  }

  function finalView() {
    return h(
      "section.card-panel.tutorial-final",
      { "data-testid": "tutorial-final" },
      h("h2", { tabindex: "-1" }, t("tutorial.done")),
      h("p", null, t(`tutorial.${game}.final`)),
      h(
        "div.final-actions",
        null,
        h("button.primary", { type: "button", "data-testid": "tutorial-play", disabled: st.busy, onclick: startGame }, t("tutorial.playShort")),
        h("button", { type: "button", "data-testid": "tutorial-again", onclick: () => loadStep(0).catch(failed) }, t("tutorial.again")),
      ),
    );
  }

  function render(moved = false) {
    document.title = `${t(`tutorial.${game}.title`)} · ${t("app.title")}`;
    const before = moved ? snapshot(root) : null;
    rerender(root, () => {
      const main = h("div.tutorial", { "data-testid": "tutorial", "data-game": game });
      main.append(h("h1", null, t(`tutorial.${game}.title`)));
      if (st.error) {
        main.append(h("p.error", { role: "alert" }, t("tutorial.loadError", { error: st.error })));
        return main;
      }
      if (!st.step) {
        main.append(h("p", null, t("loading")));
        return main;
      }
      main.append(h("p.lead", null, t(`tutorial.${game}.intro`)), progress());
      main.append(st.finished ? finalView() : stepView());
      return main;
    });
    const table = root.querySelector(".tutorial-table");
    if (table && st.showMe && !st.after) markHint(table, game, { action: st.step.teach[0] }, st.step.view, st.sel);
    if (table && before) animate(table, before, null);
    // A refusal, or the step's outcome, comes into view where it appears (once).
    const shown = `${st.index}|${st.refusal || ""}|${Boolean(st.after)}`;
    if (shown !== st.shown) {
      st.shown = shown;
      const target = root.querySelector("[data-testid=notice], [data-testid=tutorial-done]");
      target?.scrollIntoView({ block: "nearest", behavior: reducedMotion() ? "auto" : "smooth" });
    }
  }

  return {
    render,
    dispose: () => {
      closed = true;
    },
    game: () => game,
  };
}
