// Spieltisch web client: start page, joining, the live table, results,
// rematch and replay. Plain ES modules, no build step.
// (Over 800 lines: the screens and the one state object they share; the games'
// tables, cards, clocks, results, review and the connection are modules of their own.)

import { ApiError, Connection, api, forgetSeat, loadName, loadSeat, saveName, saveSeat, seatHeaders } from "./api.js";
import { art, schmausName } from "./cards.js";
import { seatClock, settingsText, tickClocks } from "./clocks.js";
import { append, clear, h, rerender } from "./dom.js";
import { hasText, lang, langToggle, loadLanguages, t, tn } from "./i18n.js";
import { finalResults, logPanel, logText, refusalText, roundSummary } from "./results.js";
import { lobbyPage } from "./lobby.js";
import { myGames } from "./mygames.js";
import { learnOpen, learnPanel, rememberLearn } from "./learn.js";
import { tutorialPage } from "./tutorial.js";
import { openRules } from "./rules.js";
import { autoReview, autoReviewSwitch, closeReview, hintBox, newReview, openReview, reviewPanel, stepRating } from "./review.js";
import { renderSchmaus, schmausStatus } from "./schmaus.js";
import { renderScout, scoutStatus } from "./scout.js";
import { endPanel } from "./ending.js";
import { lastMoveLine, markHint, markLastMove } from "./highlight.js";
import { animate, reducedMotion, snapshot } from "./motion.js";
import { awayNote, noticeSwitches, tabTitle, tickAway, turnStarted } from "./notify.js";
import { REVEAL_MS, revealStage } from "./reveal.js";

const root = document.getElementById("app");
const live = document.getElementById("live");
let page = null; // {render(), dispose(), game}

function announce(text) {
  live.textContent = "";
  // A fresh text node makes screen readers read it even if it repeats.
  setTimeout(() => {
    live.textContent = text;
  }, 30);
}

// -- header ---------------------------------------------------------------------

function renderHeader() {
  const header = document.getElementById("top");
  const skip = document.querySelector(".skip");
  if (skip) skip.textContent = t("nav.skip"); // index.html's English text, in the UI language
  clear(header);
  header.append(
    h("a.brand", { href: "/", translate: "no", onclick: (e) => { e.preventDefault(); navigate("/"); } }, art("card-back", "brand-icon"), "Spieltisch"),
    h(
      "nav",
      null,
      h("a.link", { href: "/lobby", "data-testid": "lobby-link", onclick: (e) => { e.preventDefault(); navigate("/lobby"); } }, t("nav.lobby")),
      h("a.nav-link", { href: "/leaderboard/scout", "data-testid": "nav-leaderboard" }, t("acct.nav.leaderboard")), // accounts (js/account.js)
      h("a.nav-link", { href: "/account", "data-testid": "nav-account" }, t("acct.nav.account")),
      h(
        "button.link",
        { type: "button", "data-testid": "rules-button", onclick: () => openRules(page?.game?.() || "scout", lang()) },
        t("nav.rules"),
      ),
      langToggle(() => {
        document.title = t("app.title");
        live.textContent = ""; // an old announcement would stay in the old language
        renderHeader();
        page?.render();
      }),
    ),
  );
}

// -- routing ----------------------------------------------------------------------

function navigate(path) {
  history.pushState(null, "", path);
  route();
}

function route() {
  page?.dispose?.();
  page = null;
  // A room's code, or CODE-KEY from its invite link (docs/protocol.md, "Room names").
  const m = /^\/r\/([A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)\/?$/.exec(location.pathname);
  if (m) page = roomPage(m[1].toUpperCase());
  else if (location.pathname.replace(/\/$/, "") === "/lobby") page = lobbyPage({ root, navigate, announce });
  else if (/^\/learn\/(scout|schmaus)\/?$/.test(location.pathname)) page = tutorialPage({ root, game: location.pathname.split("/")[2], navigate, announce });
  else page = startPage();
  renderHeader();
  page.render();
}

window.addEventListener("popstate", route);

async function copyText(text, button) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    const area = h("textarea", { style: { position: "fixed", opacity: "0" } }, text);
    document.body.append(area);
    area.select();
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
  }
  const old = button.textContent;
  button.textContent = ok ? t("btn.copied") : t("btn.copyFailed");
  setTimeout(() => {
    button.textContent = old;
  }, 1500);
}

/** A read-only link with its copy button; `label` names both for screen
 * readers ("Invite link", "Copy the invite link"). */
function copyField(value, testid, label, copyLabel) {
  const input = h("input.copy-input", { type: "text", readonly: true, value, "data-testid": testid, "aria-label": label, onfocus: (e) => e.target.select() });
  const button = h("button", { type: "button", "data-testid": `copy-${testid}`, "aria-label": copyLabel, onclick: (e) => copyText(value, e.currentTarget) }, t("btn.copy"));
  return h("div.copy-field", null, input, button);
}

// -- start page ---------------------------------------------------------------------

// The name typed in st.name, saved for next time; null after showing in st[errorField] that it is missing.
function enteredName(st, errorField, render) {
  const name = st.name.trim();
  if (!name) {
    st[errorField] = t("start.needName");
    render();
    return null;
  }
  saveName(name);
  return name;
}

/** Turn-based games: hours per decision (0: a live game, whatever clock is set below). */
const PACES = [0, 12, 24, 48, 72];

/** The optional e-mail of a turn-based game's player (turn notices, docs/web.md). */
function emailField(st) {
  return h(
    "label.field",
    { for: "email" },
    h("span", null, t("start.email")),
    h("input", { id: "email", type: "email", maxlength: 254, autocomplete: "email", value: st.email, "data-testid": "email-input", oninput: (e) => { st.email = e.target.value; } }),
  );
}

/** A join or create body with the e-mail (and the language of its notices) when one is given. */
function withEmail(body, st) {
  return st.email.trim() ? { ...body, email: st.email.trim(), lang: lang() } : body;
}

function startPage() {
  const st = {
    games: null,
    error: null,
    game: "scout",
    players: 3,
    options: {},
    seats: [],
    name: loadName(),
    busy: false,
    code: "",
    clock: { move: "", bank: "", grace: "", stand_in: "" },
    hints: false,
    public: false,
    email: "",
    learn: false,
  };
  const gameInfo = () => st.games?.find((g) => g.name === st.game);
  const mine = myGames({ render: () => render(), navigate, announce });

  function defaults() {
    const g = gameInfo();
    st.players = Math.max(g.min_players, Math.min(g.max_players, st.players));
    st.options = {};
    for (const o of g.options) st.options[o.name] = structuredClone(o.default);
    fitSeats();
  }

  function fitSeats() {
    const level = gameInfo()?.bot_levels?.includes("medium") ? "medium" : gameInfo()?.bot_levels?.[0] || "random";
    while (st.seats.length < st.players) st.seats.push(st.seats.length === 1 ? { kind: "human" } : { kind: "bot", level });
    st.seats.length = st.players;
    st.seats[0] = { kind: "human" };
  }

  api("GET", "/api/games")
    .then((data) => {
      st.games = data.games;
      defaults();
      render();
    })
    .catch((err) => {
      st.error = err.message;
      render();
    });

  function optionControl(o) {
    const label = o.label?.[lang()] || o.label?.en || o.name;
    const id = `opt-${o.name}`;
    const value = st.options[o.name];
    const choiceLabel = (c) => {
      const key = `opt.${o.name}.${c}`;
      return hasText(key) ? t(key) : c;
    };
    if (o.type === "choice") {
      return h(
        "label.field",
        { for: id },
        h("span", null, label),
        h("select", { id, "data-testid": id, onchange: (e) => { st.options[o.name] = e.target.value; } }, o.choices.map((c) => h("option", { value: c, selected: c === value }, choiceLabel(c)))),
      );
    }
    if (o.type === "int") {
      return h(
        "label.field",
        { for: id },
        h("span", null, label),
        h("input", { id, type: "number", min: o.min, max: o.max, step: 1, value: String(value), "data-testid": id, oninput: (e) => { st.options[o.name] = e.target.value === "" ? "" : Number(e.target.value); } }),
      );
    }
    if (o.type === "choice_or_int") {
      const isNumber = typeof value === "number";
      const select = h(
        "select",
        {
          id,
          "data-testid": id,
          onchange: (e) => {
            st.options[o.name] = e.target.value === "__n" ? Math.max(o.min, 2) : e.target.value;
            render();
          },
        },
        o.choices.map((c) => h("option", { value: c, selected: c === value }, choiceLabel(c))),
        h("option", { value: "__n", selected: isNumber }, t("opt.number")),
      );
      const number = isNumber
        ? h("input", { type: "number", min: o.min, max: o.max, step: 1, value: String(value), "aria-label": label, "data-testid": `${id}-number`, oninput: (e) => { st.options[o.name] = Number(e.target.value); } })
        : null;
      return h("div.field", null, h("label", { for: id }, label), h("div.inline", null, select, number));
    }
    if (o.type === "deck") {
      const deck = value || {};
      return h(
        "details.field.deck",
        { "data-keep": "deck" },
        h("summary", null, label),
        h(
          "div.deck-grid",
          null,
          Object.entries(o.cards).map(([card, count]) =>
            h(
              "label",
              null,
              h("span", null, schmausName(card)),
              h("input", { type: "number", min: o.min, max: o.max, value: String(deck[card] ?? count), oninput: (e) => {
                const n = Number(e.target.value);
                const next = { ...(st.options[o.name] || {}) };
                if (n === count) delete next[card];
                else next[card] = n;
                st.options[o.name] = next;
              } }),
            ),
          ),
        ),
      );
    }
    return null;
  }

  function clockFields(g) {
    const number = (key, min, max, step) =>
      h(
        "label.field",
        { for: `clock-${key}` },
        h("span", null, t(`start.clock.${key}`)),
        h("input", {
          id: `clock-${key}`,
          type: "number",
          min,
          max,
          step,
          inputmode: "decimal",
          placeholder: t("start.clock.none"),
          value: st.clock[key],
          "data-testid": `clock-${key}`,
          oninput: (e) => { st.clock[key] = e.target.value; },
        }),
      );
    const chosen = st.clock.stand_in || (g.bot_levels.includes("medium") ? "medium" : g.bot_levels[0]);
    return h(
      "details.field.clock-settings",
      { "data-keep": "clock", "data-testid": "clock-settings" },
      h("summary", null, t("start.clock.title")),
      h("p.hint", null, t("start.clock.hint")),
      h(
        "label.field",
        { for: "clock-pace" },
        h("span", null, t("start.clock.pace")),
        h(
          "select",
          {
            id: "clock-pace",
            "data-testid": "clock-pace",
            onchange: (e) => {
              const hours = Number(e.target.value);
              Object.assign(st.clock, hours ? { move: String(hours * 3600), bank: "", grace: "" } : { move: "" });
              render();
            },
          },
          PACES.map((hours) => h("option", { value: String(hours), selected: Number(st.clock.move) === hours * 3600 }, hours ? t("start.clock.turnBased", { hours }) : t("start.clock.live"))),
        ),
      ),
      number("move", 1, 604800, 1),
      number("bank", 1, 604800, 1),
      number("grace", 0, 86400, 1),
      h(
        "label.field",
        { for: "clock-stand_in" },
        h("span", null, t("start.clock.stand_in")),
        h(
          "select",
          { id: "clock-stand_in", "data-testid": "clock-stand_in", onchange: (e) => { st.clock.stand_in = e.target.value; } },
          g.bot_levels.map((level) => h("option", { value: level, selected: level === chosen }, t(`level.${level}`))),
        ),
      ),
    );
  }

  /** "Learn to play": the guided lesson of each game (issue #35). */
  function learnLinks() {
    const games = [["scout", "Scout"], ["schmaus", "Waschbär-Schmaus"]];
    return h(
      "p.learn-links",
      { "data-testid": "learn-links" },
      h("b", null, t("tutorial.learn")),
      " ",
      h("span.muted", null, `(${t("tutorial.learnHint")}):`),
      games.map(([id, title]) => [" ", h("a", { href: `/learn/${id}`, translate: "no", "data-testid": `learn-${id}`, onclick: (e) => { e.preventDefault(); navigate(`/learn/${id}`); } }, title)]),
    );
  }

  /** A learning game (issue #35): you against easy bots, hints on, the explanations open at the table. */
  function learnChoice(g) {
    const easy = g.bot_levels.includes("easy") ? "easy" : g.bot_levels[0];
    return h(
      "label.check.learn-choice",
      { for: "opt-learn" },
      h("input", {
        id: "opt-learn",
        type: "checkbox",
        checked: st.learn,
        "data-testid": "opt-learn",
        onchange: (e) => {
          st.learn = e.target.checked;
          if (st.learn) {
            st.hints = true;
            st.seats = st.seats.map((x, i) => (i === 0 ? x : { kind: "bot", level: easy }));
          }
          render();
        },
      }),
      h("span", null, h("b", null, t("start.learn")), " ", h("span.muted", null, t("start.learnHint"))),
    );
  }

  async function create() {
    const g = gameInfo();
    const name = enteredName(st, "error", render);
    if (!name) return;
    st.busy = true;
    st.error = null;
    render();
    const options = {};
    for (const o of g.options) {
      const v = st.options[o.name];
      if (JSON.stringify(v) !== JSON.stringify(o.default)) options[o.name] = v;
    }
    const clock = {};
    for (const key of ["move", "bank", "grace"]) if (st.clock[key] !== "") clock[key] = Number(st.clock[key]);
    if (Object.keys(clock).length && st.clock.stand_in) clock.stand_in = st.clock.stand_in;
    const body = { game: st.game, players: st.players, options, seats: st.seats, name };
    if (Object.keys(clock).length) body.clock = clock;
    try {
      if (st.hints) body.hints = true;
      if (st.public) body.public = true;
      const res = await api("POST", "/api/rooms", Number(st.clock.move) >= 3600 ? withEmail(body, st) : body);
      saveSeat(res.room, res.seat, res.secret);
      if (st.learn) rememberLearn(res.room, true);
      if (res.remote.length) saveTokens(res.room, res.remote);
      navigate(res.invite);
    } catch (err) {
      st.busy = false;
      st.error = err.message;
      render();
    }
  }

  function render() {
    document.title = mine.title(t("app.title"));
    rerender(root, () => {
      const main = h("div.start");
      main.append(
        h("h1", null, t("start.title")),
        h("p.lead", null, t("start.lead"), " ", h("a", { href: "/lobby", "data-testid": "start-lobby", onclick: (e) => { e.preventDefault(); navigate("/lobby"); } }, t("start.toLobby"))),
      );
      main.append(learnLinks());
      append(main, [mine.panel()]);
      if (!st.games) {
        main.append(h("p", null, st.error ? t("error.load", { error: st.error }) : t("loading")));
        return main;
      }
      const g = gameInfo();
      const form = h("form.card-panel", { onsubmit: (e) => { e.preventDefault(); create(); }, "aria-label": t("start.newTable") });
      form.append(h("h2", null, t("start.newTable")));
      form.append(
        h(
          "fieldset.games",
          null,
          h("legend", null, t("start.game")),
          st.games.map((x) =>
            h(
              "label.game-choice",
              { class: x.name === st.game ? "chosen" : "" },
              h("input", { type: "radio", name: "game", value: x.name, checked: x.name === st.game, "data-testid": `game-${x.name}`, onchange: () => { st.game = x.name; defaults(); render(); } }),
              h("span.game-icon", { "aria-hidden": "true" }, art(x.name === "scout" ? "tent" : "raccoon")),
              h("span", null, h("b", { translate: "no" }, x.title), h("small", null, t(`start.blurb.${x.name}`))),
            ),
          ),
        ),
      );
      form.append(learnChoice(g));
      form.append(
        h(
          "label.field",
          { for: "players" },
          h("span", null, t("start.players")),
          h(
            "select",
            { id: "players", "data-testid": "players", onchange: (e) => { st.players = Number(e.target.value); fitSeats(); render(); } },
            Array.from({ length: g.max_players - g.min_players + 1 }, (_, i) => g.min_players + i).map((n) => h("option", { value: n, selected: n === st.players }, String(n))),
          ),
        ),
      );
      const seatList = h("fieldset.seats", null, h("legend", null, t("start.seats")));
      st.seats.forEach((seat, i) => {
        if (i === 0) {
          seatList.append(h("div.seat-row", null, h("span.seat-no", null, t("seat.n", { n: i + 1 })), h("span", null, t("start.you"))));
          return;
        }
        const value = seat.kind === "bot" ? `bot:${seat.level}` : seat.kind;
        seatList.append(
          h(
            "label.seat-row",
            { for: `seat-${i}` },
            h("span.seat-no", null, t("seat.n", { n: i + 1 })),
            h(
              "select",
              {
                id: `seat-${i}`,
                "data-testid": `seat-kind-${i}`,
                onchange: (e) => {
                  const v = e.target.value;
                  st.seats[i] = v === "human" || v === "remote" ? { kind: v } : { kind: "bot", level: v.slice(4) };
                },
              },
              h("option", { value: "human", selected: value === "human" }, t("start.friend")),
              g.bot_levels.map((level) => h("option", { value: `bot:${level}`, selected: value === `bot:${level}` }, t("start.bot", { level: t(`level.${level}`) }))),
              h("option", { value: "remote", selected: value === "remote" }, t("start.remote")),
            ),
          ),
        );
      });
      form.append(seatList);
      form.append(clockFields(g));
      if (g.options.length) {
        form.append(h("fieldset.options", null, h("legend", null, t("start.options")), g.options.map(optionControl)));
      }
      form.append(
        h(
          "label.check",
          { for: "opt-hints" },
          h("input", { id: "opt-hints", type: "checkbox", checked: st.hints, "data-testid": "opt-hints", onchange: (e) => { st.hints = e.target.checked; } }),
          h("span", null, t("start.hints")),
        ),
        h(
          "label.check",
          { for: "opt-public" },
          h("input", { id: "opt-public", type: "checkbox", checked: st.public, "data-testid": "opt-public", onchange: (e) => { st.public = e.target.checked; } }),
          h("span", null, t("start.public")),
        ),
      );
      form.append(
        h(
          "label.field",
          { for: "name" },
          h("span", null, t("start.name")),
          h("input", { id: "name", type: "text", maxlength: 32, required: true, autocomplete: "nickname", value: st.name, "data-testid": "name-input", oninput: (e) => { st.name = e.target.value; } }),
        ),
      );
      if (Number(st.clock.move) >= 3600) form.append(emailField(st));
      if (st.error) form.append(h("p.error", { role: "alert" }, st.error));
      form.append(h("button.primary.big", { type: "submit", disabled: st.busy, "data-testid": "create-room" }, t("start.create")));
      main.append(form);
      main.append(
        h(
          "form.card-panel.join-code",
          {
            onsubmit: (e) => {
              e.preventDefault();
              const code = st.code.trim().toUpperCase().replace(/[^A-Z0-9]/g, "");
              if (code) navigate(`/r/${code}`);
            },
          },
          h("h2", null, t("start.joinTitle")),
          h(
            "div.inline",
            null,
            h("input", { type: "text", maxlength: 8, placeholder: "K7QX2M", "aria-label": t("start.roomCode"), value: st.code, "data-testid": "code-input", oninput: (e) => { st.code = e.target.value; } }),
            h("button", { type: "submit" }, t("start.join")),
          ),
        ),
      );
      return main;
    });
  }

  return { render, dispose: mine.dispose, game: () => st.game };
}

// -- room page -----------------------------------------------------------------------

// The bot tokens of a new room's remote seats, for its creator's page only: in
// sessionStorage (this tab), never in a URL (docs/protocol.md, "Secrets").
const TOKENS_PREFIX = "spieltisch.tokens.";

function saveTokens(room, tokens) {
  try {
    sessionStorage.setItem(TOKENS_PREFIX + room.toUpperCase(), JSON.stringify(tokens));
  } catch {
    /* private mode: the tokens are shown on this page only */
  }
}

function loadTokens(room) {
  try {
    const tokens = JSON.parse(sessionStorage.getItem(TOKENS_PREFIX + room.toUpperCase()) || "[]");
    return Array.isArray(tokens) ? tokens.filter((x) => Number.isInteger(x.seat) && typeof x.token === "string") : [];
  } catch {
    return [];
  }
}

function roomPage(roomName) {
  // `code`: the room's 6 letters (shown, and the key of its remembered seat); `ref`: how the
  // requests name it, its invite name CODE-KEY as soon as the server has told it (adopt).
  const code = roomName.split("-")[0];
  let ref = roomName;
  const frag = new URLSearchParams(location.hash.slice(1));
  if (frag.has("seat") && frag.has("secret")) {
    saveSeat(code, Number(frag.get("seat")), frag.get("secret"));
    history.replaceState(null, "", `/r/${ref}`);
  }
  const st = {
    code,
    info: null,
    error: null,
    seat: loadSeat(code),
    conn: null,
    connStatus: "connecting",
    msg: null,
    spectator: false,
    name: loadName(),
    email: "",
    joinError: null,
    sel: { cards: new Set(), scout: null },
    sig: null,
    notice: null,
    ruling: null,
    probe: null,
    queue: [],
    seenRounds: null,
    summary: null,
    status: "",
    legalOpen: false,
    legalChoice: null,
    logPinned: true,
    reveal: null,
    replay: null,
    review: null,
    hint: null,
    hintRef: null,
    busy: false,
    arrived: performance.now(),
    confirmLeave: false,
    goneOn: new Set(),
    tokens: loadTokens(code),
    learnOpen: learnOpen(code), // a learning game opens the explanations (issue #35)
    yourTurn: false,
    revealing: null, // Waschbär-Schmaus: the round whose lays are shown face up before its summary
    revealTimer: null,
    left: false, // this page's player left the game: it watches as a spectator now
    drawn: null, // the version the table was last drawn for (cards move when it changes)
    shownNotice: null,
    scrollReview: false,
  };
  const ticker = setInterval(() => {
    tickClocks(root, st.msg, st.arrived);
    tickAway(root, st.msg, st.arrived);
  }, 200);

  function connect() {
    st.conn?.close();
    st.conn = new Connection(ref, st.seat, {
      onState,
      onError,
      onHint: (msg) => {
        if (msg.ref !== st.hintRef) return;
        st.hintRef = null;
        // Still this seat's decision (another seat's sealed lay changes the version, not the choice).
        st.hint = st.msg?.legal.some(([id]) => id === msg.id) ? msg : null;
        if (st.hint) announce(t("hint.suggested"));
        render();
      },
      onStatus: (s) => {
        st.connStatus = s;
        if (s !== "open") render();
      },
      onFatal: (closeCode) => {
        if (closeCode === 4403 && st.seat) {
          forgetSeat(code);
          st.seat = null;
          st.joinError = t("room.badSecret");
          st.msg = null;
        } else {
          st.error = t("room.notFound", { code });
        }
        render();
      },
    });
  }

  /** The room's info as the server sent it: from now on the requests name the room by its
   * invite link, which opens it after the game has started too (the code alone does not). */
  function adopt(info) {
    st.info = info;
    if (info.invite && info.invite !== `/r/${ref}`) {
      ref = info.invite.slice("/r/".length);
      if (st.conn) st.conn.room = ref;
      if (location.pathname.startsWith("/r/")) history.replaceState(null, "", info.invite);
    }
  }

  api("GET", `/api/rooms/${ref}`, undefined, seatHeaders(st.seat))
    .then((info) => {
      adopt(info);
      if (info.archived && !st.seat) st.spectator = true; // a record to read: its log comes over the socket
      if (st.seat || info.archived) connect();
      render();
    })
    .catch((err) => {
      st.error = err instanceof ApiError && err.status === 404 ? t("room.notFound", { code }) : t("error.load", { error: err.message });
      render();
    });

  function onState(msg) {
    const first = st.msg === null;
    if (msg.log_from > 0) {
      // Only the entries since the previous state came (docs/protocol.md: log).
      const known = st.msg ? st.msg.log : [];
      if (known.length < msg.log_from) {
        st.conn.send({ type: "sync" });
        return;
      }
      msg.log = known.slice(0, msg.log_from).concat(msg.log);
    }
    st.msg = msg;
    st.arrived = performance.now();
    adopt(msg.room);
    if (st.seat && !st.spectator && msg.room.seats[st.seat.seat]?.left) {
      // "Yes, leave": the seat is the bot's now; this page watches the rest as a spectator.
      forgetSeat(code);
      st.left = true;
      spectate();
      return;
    }
    if (msg.room.status === "over" && msg.view.outcome && st.seat && !st.spectator && !st.autoReviewed) {
      // The end shows each player's review summary (issue #35): it starts by itself for
      // the players (unless they switched that off), and is stored for everybody.
      st.autoReviewed = true;
      if (autoReview()) showReview(false);
    }
    const yourTurn = msg.legal.length > 0 && msg.room.status === "playing";
    if (yourTurn && !st.yourTurn && !first) turnStarted(tabTitle(`${msg.room.title} · ${code}`, true), statusTextOf(msg));
    st.yourTurn = yourTurn;
    const v = msg.view;
    const sig = msg.legal.map((x) => x[0]).join(",");
    if (sig !== st.sig) {
      st.sig = sig;
      st.hint = null;
      st.sel = { cards: new Set(), scout: null };
      if (!msg.ack) st.notice = null;
      st.ruling = null;
    }
    if (msg.ack && st.queue.length) {
      const next = st.queue.shift();
      const entry = msg.legal.find(([, x]) => x === next);
      if (entry) st.conn.act({ id: entry[0] });
      else st.queue = [];
    }
    const rounds = v?.round_results?.length || 0;
    if (first || st.seenRounds === null) st.seenRounds = rounds;
    else if (rounds > st.seenRounds) {
      st.summary = rounds - 1;
      st.seenRounds = rounds;
      announce(t("summary.round", { n: v.round_results[rounds - 1].round }));
      if (v.game === "schmaus") startReveal(rounds - 1);
    }
    const status = statusText();
    if (status && status !== st.status) {
      st.status = status;
      if (!first) announce(status);
    }
    render();
  }

  function onError(msg) {
    if (msg.ref && msg.ref === st.hintRef) {
      st.hintRef = null;
      st.notice = msg.code === "hints_off" ? t("hint.off") : msg.message;
      render();
      return;
    }
    if (msg.ref && msg.ref === st.probe) {
      st.ruling = refusalText(msg, name);
      st.probe = null;
    } else if (msg.code === "stale") {
      st.notice = t("why.stale");
    } else if (msg.code === "not_your_turn") {
      st.notice = t("why.notYourTurn");
    } else {
      st.notice = t("why.server");
      st.ruling = refusalText(msg, name);
    }
    st.queue = [];
    render();
  }

  const name = (s) => {
    const seat = st.info?.seats?.[s];
    if (!seat) return t("seat.n", { n: s + 1 });
    const base = seat.name || t("seat.n", { n: s + 1 });
    const bot = seat.kind === "bot" ? t(`level.${seat.level}`) : null;
    const label = seat.kind === "bot" && seat.name?.startsWith("Bot") ? t("seat.bot", { n: s + 1, level: bot }) : base;
    return st.seat && s === st.seat.seat && !st.spectator ? `${label} (${t("seat.you")})` : label;
  };

  /** What seat `s` did last, in words (the log's newest entry of that seat), or null. */
  function lastOf(s) {
    const log = st.msg?.log || [];
    for (let i = log.length - 1; i >= 0; i -= 1) {
      if (log[i].seat === s) return logText(st.msg.view.game, log[i], name);
    }
    return null;
  }

  function makeCtx(view, legal, extra = {}) {
    const ctx = {
      view,
      legal,
      sel: st.sel,
      name,
      last: lastOf,
      mine: () => legal.length > 0,
      update: () => render(),
      reveal: (selector) => {
        st.reveal = selector;
      },
      play: (text) => {
        const entry = legal.find(([, x]) => x === text);
        if (!entry) return false;
        const ref = st.conn.act({ id: entry[0] });
        if (!ref) {
          st.notice = t("why.offline");
          render();
          return true;
        }
        st.notice = null;
        st.ruling = null;
        st.sel = { cards: new Set(), scout: null };
        render();
        return true;
      },
      explain: (message, probeText) => {
        st.notice = message;
        st.ruling = null;
        if (probeText) {
          // Ask the server for the exact ruling (it answers `illegal` and changes nothing).
          st.probe = st.conn.act({ action: probeText });
        }
        if (message) announce(message);
        render();
      },
      queue: (texts) => {
        st.queue = texts.slice(1);
        ctx.play(texts[0]);
      },
      ...extra,
    };
    return ctx;
  }

  /** The lays of round `index` face up on the table for a moment, then its summary. */
  function startReveal(index) {
    clearTimeout(st.revealTimer);
    st.revealing = index;
    st.revealTimer = setTimeout(endReveal, REVEAL_MS);
  }

  function holdReveal(held) {
    clearTimeout(st.revealTimer);
    if (!held && st.revealing !== null) st.revealTimer = setTimeout(endReveal, REVEAL_MS);
  }

  function endReveal() {
    clearTimeout(st.revealTimer);
    if (st.revealing === null) return;
    st.revealing = null;
    render();
  }

  function statusText() {
    return statusTextOf(st.msg);
  }

  function statusTextOf(msg) {
    if (!msg || !msg.view) return "";
    if (msg.room.status === "waiting") return t("lobby.waiting");
    // Not "Your turn!" while a stand-in bot plays this seat (docs/web.md, "Clocks and stand-in bots").
    const me = st.seat && !st.spectator ? msg.room.seats?.[st.seat.seat] : null;
    if (me?.stand_in && !me.left && msg.room.status === "playing") return t("status.standIn", { level: t(`level.${me.stand_in}`) });
    const ctx = makeCtx(msg.view, msg.legal);
    return msg.view.game === "scout" ? scoutStatus(ctx) : schmausStatus(ctx);
  }

  async function join(seatNo) {
    const nameValue = enteredName(st, "joinError", render);
    if (!nameValue) return;
    try {
      const body = seatNo === undefined ? { name: nameValue } : { name: nameValue, seat: seatNo };
      const res = await api("POST", `/api/rooms/${ref}/join`, st.info?.clock?.move >= 3600 ? withEmail(body, st) : body);
      saveSeat(code, res.seat, res.secret);
      st.seat = { seat: res.seat, secret: res.secret };
      st.joinError = null;
      connect();
    } catch (err) {
      st.joinError = err.message;
      api("GET", `/api/rooms/${ref}`).then((info) => { adopt(info); render(); }).catch(() => {});
    }
    render();
  }

  function spectate() {
    st.spectator = true;
    st.seat = null;
    st.yourTurn = false;
    st.confirmLeave = false;
    st.sel = { cards: new Set(), scout: null };
    st.hint = null;
    st.msg = null; // the seat's view goes; the spectator's comes
    connect();
    render();
  }

  async function rematch() {
    const room = st.info;
    try {
      let target = room.rematch;
      if (!target) target = (await api("POST", `/api/rooms/${ref}/rematch`, { seat: st.seat.seat, secret: st.seat.secret })).room;
      const claim = await api("POST", `/api/rooms/${target}/claim`, { from: code, seat: st.seat.seat, secret: st.seat.secret });
      saveSeat(claim.room, claim.seat, claim.secret);
      navigate(room.invite.replace(room.room, claim.room)); // the rematch keeps the invite key
    } catch (err) {
      st.notice = err.message;
      render();
    }
  }

  function askHint() {
    st.hint = null;
    st.hintRef = st.conn.hint();
    if (!st.hintRef) st.notice = t("why.offline");
    render();
  }

  function showReview(scroll = true) {
    if (st.review && st.review.status !== "failed") return;
    st.review = newReview(st.seat && !st.spectator ? st.seat.seat : 0);
    st.scrollReview = scroll;
    render();
    openReview(ref, st.review, () => render());
  }

  function hideReview() {
    closeReview(st.review);
    st.review = null;
    render();
  }

  async function openReplay() {
    try {
      const data = await api("GET", `/api/rooms/${ref}/replay`, undefined, seatHeaders(st.spectator ? null : st.seat));
      st.replay = { data, index: 0 };
      render();
      root.querySelector("[data-testid=replay-slider]")?.focus();
    } catch (err) {
      st.notice = err.message;
      render();
    }
  }

  // -- views --------------------------------------------------------------------------

  function joinView() {
    const info = st.info;
    const panel = h("div.card-panel.join", { "data-testid": "join-panel" });
    panel.append(h("h1", null, t("join.title", { game: info.title, code })));
    const free = info.seats.filter((s) => s.kind === "human" && !s.taken);
    panel.append(
      h(
        "label.field",
        { for: "name" },
        h("span", null, t("start.name")),
        h("input", { id: "name", type: "text", maxlength: 32, value: st.name, "data-testid": "name-input", oninput: (e) => { st.name = e.target.value; } }),
      ),
    );
    if (info.clock?.move >= 3600) panel.append(emailField(st));
    const list = h("ul.seat-list");
    for (const s of info.seats) {
      const label = s.kind === "bot" ? t("seat.bot", { n: s.seat + 1, level: t(`level.${s.level}`) }) : s.taken ? s.name : t("seat.free");
      list.append(
        h(
          "li",
          null,
          h("span.seat-no", null, t("seat.n", { n: s.seat + 1 })),
          h("span", null, label),
          s.kind === "human" && !s.taken && info.status !== "over"
            ? h("button.primary", { type: "button", "data-testid": `join-seat-${s.seat}`, onclick: () => join(s.seat) }, t("join.take"))
            : null,
        ),
      );
    }
    panel.append(list);
    if (!free.length) panel.append(h("p", null, info.status === "over" ? t("join.over") : t("join.full")));
    if (st.joinError) panel.append(h("p.error", { role: "alert" }, st.joinError));
    panel.append(h("button", { type: "button", "data-testid": "spectate", onclick: spectate }, t("join.watch")));
    return panel;
  }

  /** A stored game that no longer replays under this table's rules: the reason,
   * its rules version and its stored moves as text; nothing to play (docs/storage.md). */
  function archivedView() {
    const info = st.info;
    const log = st.msg ? st.msg.log : [];
    return h(
      "div.card-panel.archived",
      { "data-testid": "archived" },
      h("h1", null, t("archived.title", { game: info.title, code })),
      h("p", { role: "status" }, t("archived.explain")),
      // The server's reason and the stored notation are data, in English notation: not translated.
      h("p.archived-reason", { "data-testid": "archived-reason" }, t("archived.reason"), " ", h("span", { translate: "no", lang: "en" }, info.archived_reason || "")),
      h("p", { "data-testid": "archived-rules" }, t("archived.rules", { version: info.rules_version })),
      h("h2", null, t("archived.log")),
      st.msg
        ? h(
            "ol.log.archived-log",
            { "data-testid": "archived-log", tabindex: "0", translate: "no", "aria-label": t("archived.log") },
            log.map((e) => h("li", { value: e.n, key: `log-${e.n}` }, `${name(e.seat)}: ${e.text}`)),
          )
        : h("p", null, t("room.connecting")),
      h("a", { href: "/" }, t("room.home")),
    );
  }

  function lobbyView() {
    const info = st.info;
    const invite = `${location.origin}${info.invite}`;
    const panel = h("div.card-panel.lobby", { "data-testid": "lobby" });
    panel.append(h("h1", null, t("lobby.title", { game: info.title })));
    panel.append(h("p", null, t("lobby.invite")));
    panel.append(copyField(invite, "invite-link", t("lobby.inviteLink"), t("lobby.copyInvite")));
    panel.append(h("p", null, t("lobby.code"), " ", h("b.code", { "data-testid": "room-code" }, code)));
    const list = h("ul.seat-list");
    for (const s of info.seats) {
      const label = s.kind === "bot" ? t("seat.bot", { n: s.seat + 1, level: t(`level.${s.level}`) }) : s.taken ? s.name : t("lobby.free");
      list.append(h("li", { class: s.taken ? "taken" : "free" }, h("span.seat-no", null, t("seat.n", { n: s.seat + 1 })), h("span", null, label), s.taken ? h("span.ok", { "aria-hidden": "true" }, "✓") : null));
    }
    panel.append(list);
    panel.append(h("p.hint", null, t("lobby.waiting")));
    panel.append(deviceLink());
    return panel;
  }

  function send(message) {
    st.notice = null;
    st.conn?.send(message);
  }

  /** The table's own controls for clocks and leaving: taking the seat back from the
   * stand-in bot, leaving (with a confirmation), and, after somebody left, going on
   * with the bot or ending the game. */
  function seatControls(msg) {
    if (!st.seat || st.spectator || msg.room.status !== "playing") return null;
    const me = msg.room.seats[st.seat.seat];
    const out = [];
    if (me?.stand_in && !me.left) {
      out.push(
        h(
          "div.banner.stand-in-banner",
          { role: "status", "data-testid": "stood-in" },
          h("span", null, t("clock.standingIn", { level: t(`level.${me.stand_in}`) })),
          h("button.primary", { type: "button", "data-testid": "take-back", onclick: () => send({ type: "take_back" }) }, t("clock.takeBack")),
        ),
      );
    }
    const left = msg.room.seats.filter((x) => x.left && !st.goneOn.has(x.seat));
    if (left.length && me && !me.left) {
      const names = left.map((x) => x.name || t("seat.n", { n: x.seat + 1 })).join(", ");
      out.push(
        h(
          "section.card-panel.left-choice",
          { "aria-label": t("leave.choiceTitle"), "data-testid": "left-choice" },
          h("p", null, t("leave.someoneLeft", { names })),
          h(
            "div.inline",
            null,
            h("button.primary", { type: "button", "data-testid": "go-on", onclick: () => { for (const x of left) st.goneOn.add(x.seat); render(); } }, t("leave.goOn")),
            h("button.danger", { type: "button", "data-testid": "end-game", onclick: () => send({ type: "end_game" }) }, t("leave.end")),
          ),
        ),
      );
    }
    return out;
  }

  function leaveControl(msg) {
    if (!st.seat || st.spectator || msg.room.status !== "playing" || msg.room.seats[st.seat.seat]?.left) return null;
    if (!st.confirmLeave) {
      return h("button.link.leave", { type: "button", "data-testid": "leave", onclick: () => { st.confirmLeave = true; render(); } }, t("leave.button"));
    }
    return h(
      "div.card-panel.confirm-leave",
      { role: "alertdialog", "aria-labelledby": "leave-q", "data-testid": "confirm-leave" },
      h("p", { id: "leave-q" }, t("leave.confirm")),
      h(
        "div.inline",
        null,
        h("button.danger", { type: "button", "data-testid": "leave-yes", onclick: () => { st.confirmLeave = false; send({ type: "leave" }); } }, t("leave.yes")),
        h("button", { type: "button", "data-testid": "leave-no", onclick: () => { st.confirmLeave = false; render(); } }, t("leave.no")),
      ),
    );
  }

  function tokensPanel() {
    if (!st.tokens.length || st.spectator) return null;
    return h(
      "details.side-panel",
      { "data-keep": "tokens", "data-testid": "tokens" },
      h("summary", null, t("remote.title")),
      h("p.hint", null, t("remote.hint")),
      st.tokens.map((x) => copyField(x.token, `token-${x.seat}`, t("remote.token", { n: x.seat + 1 }), t("remote.copy"))),
    );
  }

  function deviceLink() {
    if (!st.seat || st.spectator) return null;
    const link = `${location.origin}/r/${code}#seat=${st.seat.seat}&secret=${encodeURIComponent(st.seat.secret)}`;
    return h("details.device", { "data-keep": "device" }, h("summary", null, t("device.title")), h("p.hint", null, t("device.hint")), copyField(link, "device-link", t("device.link"), t("device.copy")));
  }

  function playersStrip(view) {
    const room = st.info;
    const strip = h("section.players", { "aria-label": t("table.players") });
    for (let s = 0; s < view.players; s += 1) {
      const seatInfo = room.seats[s];
      const active = view.to_move.includes(s);
      const facts = [h("span", null, tn("count.cards", view.hand_sizes[s]))];
      if (view.game === "scout") {
        if (view.players === 2) facts.push(h("span", null, tn("scout.chips", view.chips[s])));
        else facts.push(h("span", { title: t("scout.chipTitle") }, view.chips[s] ? t("scout.chipReady") : t("scout.chipUsed")));
        if (view.players > 2) facts.push(h("span", null, tn("scout.tokens", view.tokens[s])));
        facts.push(h("span", null, tn("scout.captured", view.collected[s])));
        if (view.phase === "flip" && view.flip_decided) facts.push(h("span", null, view.flip_decided[s] ? t("scout.decided") : t("scout.deciding")));
      } else if (view.phase !== "game_over" && view.committed) {
        facts.push(h("span", null, view.committed[s] ? "✓" : "…"));
      }
      strip.append(
        h(
          "div.player",
          { class: `${active ? "active" : ""}${view.seat === s ? " me" : ""}`, "data-testid": `player-${s}` },
          h(
            "div.player-head",
            null,
            h("span.dot", { class: seatInfo?.connected ? "on" : "off", title: seatInfo?.connected ? t("seat.online") : t("seat.offline"), "aria-hidden": "true" }),
            h("span.sr-only", null, seatInfo?.connected ? t("seat.online") : t("seat.offline")),
            h("b", null, name(s)),
            active ? h("span.turn", null, t("seat.turn")) : null,
          ),
          seatInfo?.stand_in
            ? h("div.stand-in", { "data-testid": `stand-in-${s}` }, t(seatInfo.left ? "seat.leftBot" : "seat.standIn", { level: t(`level.${seatInfo.stand_in}`), name: seatInfo.name || t("seat.n", { n: s + 1 }) }))
            : null,
          seatClock(st.msg, s, st.arrived),
          st.replay ? null : awayNote(st.msg, s, st.arrived),
          h("div.player-score", null, t("seat.score", { n: view.scores[s] })),
          h("div.facts", null, facts),
        ),
      );
    }
    return strip;
  }

  function legalFallback(msg) {
    // A button rather than <details>: the table re-renders on every state,
    // and the open/closed choice must survive that.
    const details = h("section.side-panel.legal");
    details.append(
      h(
        "button.disclosure",
        {
          type: "button",
          "aria-expanded": st.legalOpen ? "true" : "false",
          "data-testid": "legal-toggle",
          "data-focus": "legal-toggle",
          onclick: () => {
            st.legalOpen = !st.legalOpen;
            render();
          },
        },
        h("span.tri", { "aria-hidden": "true" }),
        tn("legal.title", msg.legal.length),
      ),
    );
    if (st.legalOpen && msg.legal.length) {
      const chosen = msg.legal.some(([id]) => String(id) === st.legalChoice) ? st.legalChoice : null;
      const select = h(
        "select",
        {
          "data-testid": "legal-select",
          "aria-label": t("legal.label"),
          size: Math.min(8, msg.legal.length),
          onchange: (e) => {
            st.legalChoice = e.target.value;
          },
        },
        msg.legal.map(([id, text], i) =>
          h("option", { value: String(id), selected: chosen ? String(id) === chosen : i === 0 }, `${text} — ${logText(msg.view.game, { seat: msg.view.seat, text }, () => t("seat.you"))}`),
        ),
      );
      details.append(
        h("p.hint", null, t("legal.hint")),
        select,
        h(
          "button.primary",
          {
            type: "button",
            "data-testid": "legal-play",
            onclick: () => {
              // The live list, not the one this render built (the page is patched in place).
              const id = Number(root.querySelector("[data-testid=legal-select]").value);
              if (!st.conn.act({ id })) st.notice = t("why.offline");
              render();
            },
          },
          t("legal.play"),
        ),
      );
    }
    return details;
  }

  function replayView() {
    const { data, index } = st.replay;
    const frames = data.frames;
    const frame = frames[index];
    const view = frame.view;
    const ctx = makeCtx(view, [], { replay: true, hands: frame.hands, plays: frame.plays, sel: { cards: new Set(), scout: null } });
    const game = view.game;
    const step = (d) => {
      st.replay.index = Math.max(0, Math.min(frames.length - 1, st.replay.index + d));
      render();
    };
    const caption = frame.action === null ? t("replay.deal") : logText(game, { seat: frame.seat, text: frame.action }, name);
    // The step that ends a round goes straight on to the next deal: show the
    // round just played (everybody's cards face up) with it.
    const before = index > 0 ? frames[index - 1].view.round_results.length : 0;
    const ended = view.round_results.length > before ? view.round_results[view.round_results.length - 1] : null;
    return h(
      "div.replay",
      {
        "data-testid": "replay",
        onkeydown: (e) => {
          if (e.key === "ArrowLeft" && e.target.type !== "range") step(-1);
          if (e.key === "ArrowRight" && e.target.type !== "range") step(1);
        },
      },
      h("h1", null, t("replay.title", { game: st.info.title })),
      h(
        "div.replay-controls",
        null,
        h("button", { type: "button", "data-testid": "replay-prev", "data-focus": "replay-prev", disabled: index === 0, onclick: () => step(-1), "aria-label": t("replay.prev") }, "◀"),
        h("input", {
          type: "range",
          min: 0,
          max: frames.length - 1,
          value: String(index),
          "data-testid": "replay-slider",
          "data-focus": "replay-slider",
          "aria-label": t("replay.step"),
          "aria-valuetext": t("replay.stepOf", { n: index, total: frames.length - 1 }),
          oninput: (e) => {
            st.replay.index = Number(e.target.value);
            render();
          },
        }),
        h("button", { type: "button", "data-testid": "replay-next", "data-focus": "replay-next", disabled: index === frames.length - 1, onclick: () => step(1), "aria-label": t("replay.next") }, "▶"),
        h("span.replay-pos", { "data-testid": "replay-pos" }, t("replay.stepOf", { n: index, total: frames.length - 1 })),
      ),
      h("p.replay-caption", { "aria-live": "polite", "data-testid": "replay-caption" }, caption),
      stepRating(game, st.review, frames, index, name),
      h("p.replay-rules", { "data-testid": "replay-rules" }, t("replay.rules", { version: data.rules_version })),
      ended ? h("section.summary-panel", { "aria-label": t("summary.title"), "data-testid": "replay-round" }, roundSummary(game, ended, view.players, name)) : null,
      h("div.round-line", null, t("table.round", { n: view.round, total: view.rounds })),
      playersStrip(view),
      game === "scout" ? renderScout(ctx) : renderSchmaus(ctx),
      view.outcome ? finalResults(view.outcome, view.players, name) : null,
      st.review ? reviewPanel(game, st.review, name, render, hideReview) : null,
      h(
        "div.final-actions",
        null,
        st.review ? null : h("button", { type: "button", "data-testid": "replay-review", onclick: () => showReview() }, t("review.open")),
        h("button", { type: "button", "data-testid": "replay-close", onclick: () => { st.replay = null; render(); } }, t("replay.close")),
      ),
    );
  }

  function gameView() {
    const msg = st.msg;
    const view = msg.view;
    const ctx = makeCtx(view, msg.legal);
    const game = view.game;
    const over = msg.room.status === "over";
    const wrap = h("div.room", {
      "data-game": game,
      "data-version": String(msg.version),
      "data-mine": ctx.mine() ? "true" : "false",
      "data-phase": view.phase,
      "data-status": msg.room.status,
      "data-testid": "room",
    });
    // The status line, and a round summary while it is open, stay at the top of the
    // screen however far the page is scrolled (issue #35).
    const head = h("div.room-head", { "data-testid": "room-head" });
    wrap.append(head);
    head.append(
      h(
        "div.topline",
        null,
        h("span.title", { translate: "no" }, msg.room.title),
        h("span.round-line", null, t("table.round", { n: view.round, total: view.rounds })),
        h("span.status", { "data-testid": "status", class: ctx.mine() ? "yours" : "" }, statusText()),
        st.spectator ? h("span.badge", null, t("room.spectator")) : null,
        msg.room.clock ? h("span.clock-settings", { "data-testid": "clock-info" }, settingsText(msg.room.clock)) : null,
        leaveControl(msg),
        msg.room.hints ? h("span.badge", { "data-testid": "hints-on" }, t("hint.allowed")) : null,
        st.seat && !st.spectator && !over ? noticeSwitches(render) : null,
      ),
    );
    if (st.left) {
      wrap.append(
        h(
          "div.banner.left-banner",
          { role: "status", "data-testid": "left-banner" },
          h("span", null, t("leave.watching")),
          h("a", { href: "/", "data-testid": "left-home", onclick: (e) => { e.preventDefault(); navigate("/"); } }, t("room.home")),
        ),
      );
    }
    append(wrap, [seatControls(msg)]);
    wrap.append(playersStrip(view));
    if (over && !view.outcome) {
      wrap.append(h("section.final-panel", { "data-testid": "ended" }, h("p", null, t(msg.room.ended === "left" ? "leave.endedLeft" : "leave.ended"))));
    }
    if (over && view.outcome) {
      const actions = h("div.final-actions");
      if (st.left) actions.append(h("a.button", { href: "/", onclick: (e) => { e.preventDefault(); navigate("/"); } }, t("room.home")));
      if (st.seat && !st.spectator) {
        actions.append(h("button.primary", { type: "button", "data-testid": "rematch", onclick: rematch }, msg.room.rematch ? t("final.joinRematch") : t("final.rematch")));
      } else if (msg.room.rematch) {
        // The rematch has the old room's invite key: its link is this one with the new code.
        actions.append(h("a.button", { href: msg.room.invite.replace(msg.room.room, msg.room.rematch) }, t("final.watchRematch")));
      }
      actions.append(h("button", { type: "button", "data-testid": "open-replay", onclick: openReplay }, t("final.replay")));
      if (!st.review) actions.append(h("button", { type: "button", "data-testid": "open-review", onclick: () => showReview() }, t("review.open")));
      if (st.seat && !st.spectator) actions.append(autoReviewSwitch(render));
      wrap.append(endPanel(game, view, name, actions));
      if (st.review) wrap.append(reviewPanel(game, st.review, name, render, hideReview));
    }
    if (st.revealing !== null && view.round_results[st.revealing] && !over) {
      wrap.append(revealStage(view.round_results[st.revealing], view.players, name, endReveal, holdReveal));
    } else if (st.summary !== null && view.round_results[st.summary] && !over) {
      head.append(
        h(
          "section.summary-panel",
          { "aria-label": t("summary.title"), "data-testid": "summary-panel" },
          roundSummary(game, view.round_results[st.summary], view.players, name),
          h("button", { type: "button", "data-testid": "summary-close", onclick: () => { st.summary = null; render(); } }, t("btn.continue")),
        ),
      );
    }
    if (!over) append(wrap, [lastMoveLine(game, msg.log, name)]);
    wrap.append(game === "scout" ? renderScout(ctx) : renderSchmaus(ctx));
    if (msg.room.hints && !over && ctx.mine()) {
      wrap.append(
        h(
          "div.hint-row",
          null,
          h("button", { type: "button", "data-testid": "btn-hint", disabled: st.hintRef !== null, onclick: askHint }, st.hintRef !== null ? t("hint.thinking") : t("hint.ask")),
          st.hint ? hintBox(game, st.hint, view, name) : null,
        ),
      );
    }
    // Below the hand and its controls, so the hand stays on the first screen of a phone.
    if (!over && !st.spectator) {
      wrap.append(learnPanel(ctx, st.learnOpen, () => { st.learnOpen = !st.learnOpen; rememberLearn(code, st.learnOpen); render(); }));
    }
    if (st.notice || st.ruling) {
      wrap.append(
        h(
          "div.notice",
          { role: "alert", "data-testid": "notice" },
          st.notice ? h("p", null, st.notice) : null,
          st.ruling ? h("p.ruling", null, t("why.ruling", { text: st.ruling })) : null,
        ),
      );
    }
    const side = h("div.side");
    if (!over && msg.legal.length) side.append(legalFallback(msg));
    const onLogScroll = (e) => {
      const log = e.currentTarget;
      st.logPinned = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    };
    side.append(h("details.side-panel", { open: true, "data-keep": "log" }, h("summary", null, t("log.title")), logPanel(game, msg.log, name, onLogScroll)));
    if (view.round_results.length) {
      side.append(
        h(
          "details.side-panel",
          { open: over, "data-keep": over ? "rounds-over" : "rounds" },
          h("summary", null, t("summary.all")),
          [...view.round_results].reverse().map((r) => h("div", { key: `round-${r.round}` }, roundSummary(game, r, view.players, name))),
        ),
      );
    }
    append(side, [tokensPanel()]);
    if (!over) side.append(h("details.side-panel", { "data-keep": "invite" }, h("summary", null, t("lobby.inviteShort")), copyField(`${location.origin}${st.info.invite}`, "invite-link", t("lobby.inviteLink"), t("lobby.copyInvite")), deviceLink()));
    wrap.append(side);
    return wrap;
  }

  function render() {
    document.title = tabTitle(`${st.info?.title || "Spieltisch"} · ${code}`, st.yourTurn && !st.replay);
    // A new state: note where the cards are, to move them from there once it is drawn.
    const moved = st.msg && !st.replay && st.drawn !== null && st.drawn !== st.msg.version;
    const before = moved ? snapshot(root) : null;
    rerender(root, () => {
      const frame = h("div.room-page");
      if (st.connStatus !== "open" && st.conn && st.msg) {
        frame.append(h("div.banner", { role: "status", "data-testid": "conn" }, t("room.reconnecting")));
      }
      if (st.error) {
        frame.append(h("div.card-panel", null, h("p.error", { role: "alert" }, st.error), h("a", { href: "/" }, t("room.home"))));
        return frame;
      }
      if (!st.info) {
        frame.append(h("p", null, t("loading")));
        return frame;
      }
      if (st.info.archived) {
        frame.append(archivedView());
        return frame;
      }
      if (st.replay) {
        frame.append(replayView());
        return frame;
      }
      if (!st.seat && !st.spectator) {
        frame.append(joinView());
        return frame;
      }
      if (!st.msg) {
        frame.append(h("p", null, t("room.connecting")));
        return frame;
      }
      frame.append(st.msg.room.status === "waiting" ? lobbyView() : gameView());
      return frame;
    });
    afterRender();
    if (st.msg && !st.replay) {
      const room = root.querySelector("[data-testid=room]");
      if (room) {
        const entry = st.msg.log[st.msg.log.length - 1];
        const from = st.msg.view.game === "scout" && entry && st.msg.view.table?.owner === entry.seat ? entry.seat : null;
        if (st.msg.room.status === "playing") markLastMove(room, st.msg.view.game, st.msg.view, st.msg.log, st.sel);
        if (st.hint) markHint(room, st.msg.view.game, st.hint, st.msg.view, st.sel);
        animate(room, before, from);
      }
      st.drawn = st.msg.version;
    }
  }

  /** On a phone the status line sticks to the top and the hand to the bottom: whatever is
   * scrolled into view (a focused card, a table end) stops clear of them (scroll-padding). */
  function keepClearOfStickyParts() {
    const html = document.documentElement;
    const stuck = (el) => el && getComputedStyle(el).position === "sticky";
    const head = root.querySelector("[data-testid=room-head]");
    const hand = root.querySelector(".room .game > .hand-area");
    html.style.scrollPaddingTop = stuck(head) ? `${head.offsetHeight + 8}px` : "";
    html.style.scrollPaddingBottom = stuck(hand) ? `${hand.offsetHeight + 8}px` : "";
  }

  /** What a patch cannot know: the log follows its newest entry (unless the
   * person scrolled back to read), and a card just placed is brought into view. */
  function afterRender() {
    keepClearOfStickyParts();
    const log = root.querySelector("[data-testid=log]");
    if (log && st.logPinned) log.scrollTop = log.scrollHeight;
    if (st.reveal) {
      root.querySelector(st.reveal)?.scrollIntoView({ block: "nearest", inline: "nearest" });
      st.reveal = null;
    }
    // A refusal, or the review's progress, comes into view where it appears.
    const behavior = reducedMotion() ? "auto" : "smooth";
    const notice = `${st.notice || ""}|${st.ruling || ""}`;
    if (notice !== st.shownNotice) {
      st.shownNotice = notice;
      root.querySelector("[data-testid=notice]")?.scrollIntoView({ block: "nearest", behavior });
    }
    if (st.scrollReview && root.querySelector("[data-testid=review]")) {
      st.scrollReview = false;
      root.querySelector("[data-testid=review]").scrollIntoView({ block: "start", behavior });
    }
  }

  return {
    render,
    dispose: () => {
      clearInterval(ticker);
      clearTimeout(st.revealTimer);
      closeReview(st.review);
      st.conn?.close();
    },
    game: () => st.info?.game || "scout",
  };
}

// -- boot ---------------------------------------------------------------------------

await loadLanguages();
document.title = t("app.title");
route();
