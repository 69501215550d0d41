// Accounts, leaderboards and profiles (docs/accounts.md): the pages /account,
// /leaderboard/{game} and /players/{name}. Playing needs no account; an account
// claims a name across devices and plays rated games.

import { api, saveSeat } from "./api.js";
import { art } from "./cards.js";
import { append, clear, h } from "./dom.js";
import { lang, langToggle, loadLanguages, t } from "./i18n.js";

const root = document.getElementById("app");
const live = document.getElementById("live");
let games = [];

/** Add children (arrays flattened, nulls skipped) to the page. */
function put(...children) {
  append(root, children);
}

function announce(text) {
  live.textContent = "";
  setTimeout(() => {
    live.textContent = text;
  }, 30);
}

function gameTitle(name) {
  return games.find((g) => g.name === name)?.title || name;
}

function link(href, text, attrs = {}) {
  return h("a", { href, ...attrs }, text);
}

function renderHeader(render) {
  const header = document.getElementById("top");
  clear(header);
  header.append(
    h("a.brand", { href: "/", translate: "no" }, art("card-back", "brand-icon"), "Spieltisch"),
    h(
      "nav",
      null,
      link("/leaderboard/scout", t("acct.nav.leaderboard"), { class: "nav-link", "data-testid": "nav-leaderboard" }),
      link("/account", t("acct.nav.account"), { class: "nav-link", "data-testid": "nav-account" }),
      langToggle(() => {
        renderHeader(render);
        render();
      }),
    ),
  );
}

function errorBox(text) {
  return text ? h("p.error", { role: "alert", "data-testid": "account-error" }, text) : null;
}

function field(id, label, attrs) {
  return h("label.field", { for: id }, h("span", null, label), h("input", { id, name: id, "data-testid": id, ...attrs }));
}

// -- passkeys (WebAuthn JSON <-> ArrayBuffers) --------------------------------------

function fromB64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
}

function toB64url(buffer) {
  let s = "";
  for (const byte of new Uint8Array(buffer)) s += String.fromCharCode(byte);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function credentialJson(cred) {
  const r = cred.response;
  const response = { clientDataJSON: toB64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64url(r.attestationObject);
    response.transports = r.getTransports?.() || [];
  } else {
    response.authenticatorData = toB64url(r.authenticatorData);
    response.signature = toB64url(r.signature);
    if (r.userHandle) response.userHandle = toB64url(r.userHandle);
  }
  return { id: cred.id, rawId: toB64url(cred.rawId), type: cred.type, response, clientExtensionResults: {} };
}

async function addPasskey() {
  const { id, options } = await api("POST", "/api/account/passkeys/register-options");
  options.challenge = fromB64url(options.challenge);
  options.user.id = fromB64url(options.user.id);
  options.excludeCredentials = (options.excludeCredentials || []).map((c) => ({ ...c, id: fromB64url(c.id) }));
  const cred = await navigator.credentials.create({ publicKey: options });
  return api("POST", "/api/account/passkeys/register", { id, credential: credentialJson(cred) });
}

async function passkeySignup(name) {
  const { id, options } = await api("POST", "/api/account/passkeys/signup-options", { name });
  options.challenge = fromB64url(options.challenge);
  options.user.id = fromB64url(options.user.id);
  options.excludeCredentials = [];
  const cred = await navigator.credentials.create({ publicKey: options });
  return api("POST", "/api/account/passkeys/signup", { id, credential: credentialJson(cred) });
}

async function passkeyLogin() {
  const { id, options } = await api("POST", "/api/account/passkeys/login-options");
  options.challenge = fromB64url(options.challenge);
  options.allowCredentials = (options.allowCredentials || []).map((c) => ({ ...c, id: fromB64url(c.id) }));
  const cred = await navigator.credentials.get({ publicKey: options });
  return api("POST", "/api/account/passkeys/login", { id, credential: credentialJson(cred) });
}

// -- /account -----------------------------------------------------------------------

function accountPage() {
  const st = { me: null, error: null, blocks: [], blockName: "", confirm: "", rated: { game: "scout", players: 3, seats: [] }, notice: null };

  async function load() {
    try {
      st.me = await api("GET", "/api/account");
      if (st.me.signed_in) st.blocks = (await api("GET", "/api/account/blocks")).blocked;
    } catch (err) {
      st.error = err.message;
    }
    fitSeats();
    render();
  }

  function fitSeats() {
    const g = games.find((x) => x.name === st.rated.game);
    if (!g) return;
    st.rated.players = Math.max(g.min_players, Math.min(g.max_players, st.rated.players));
    while (st.rated.seats.length < st.rated.players) st.rated.seats.push(st.rated.seats.length === 1 ? "human" : "medium");
    st.rated.seats.length = st.rated.players;
    st.rated.seats[0] = "human";
  }

  async function run(action, notice) {
    st.error = null;
    st.notice = null;
    try {
      await action();
      if (notice) {
        st.notice = notice;
        announce(notice);
      }
      await load();
    } catch (err) {
      st.error = err.message;
      render();
    }
  }

  function credentials(kind) {
    const name = root.querySelector(`#${kind}-name`).value;
    const password = root.querySelector(`#${kind}-password`).value;
    return { name, password };
  }

  function signedOut() {
    return [
      h(
        "form.card-panel",
        { "data-testid": "signup-form", onsubmit: (e) => { e.preventDefault(); run(() => api("POST", "/api/account/signup", credentials("signup")), t("acct.welcome")); } },
        h("h2", null, t("acct.signup")),
        h("p.hint", null, t("acct.signupHint")),
        field("signup-name", t("acct.name"), { type: "text", autocomplete: "username", required: true, maxlength: 24 }),
        field("signup-password", t("acct.password"), { type: "password", autocomplete: "new-password", required: true, minlength: 8 }),
        h(
          "div.actions",
          null,
          h("button.primary", { type: "submit", "data-testid": "signup-submit" }, t("acct.signup")),
          window.PublicKeyCredential
            ? h("button", { type: "button", "data-testid": "passkey-signup", onclick: () => run(() => passkeySignup(root.querySelector("#signup-name").value), t("acct.welcome")) }, t("acct.passkeySignup"))
            : null,
        ),
      ),
      h(
        "form.card-panel",
        { "data-testid": "login-form", onsubmit: (e) => { e.preventDefault(); run(() => api("POST", "/api/account/login", credentials("login")), t("acct.welcome")); } },
        h("h2", null, t("acct.login")),
        field("login-name", t("acct.name"), { type: "text", autocomplete: "username", required: true }),
        field("login-password", t("acct.password"), { type: "password", autocomplete: "current-password", required: true }),
        h(
          "div.actions",
          null,
          h("button.primary", { type: "submit", "data-testid": "login-submit" }, t("acct.login")),
          window.PublicKeyCredential
            ? h("button", { type: "button", "data-testid": "passkey-login", onclick: () => run(passkeyLogin, t("acct.welcome")) }, t("acct.passkeyLogin"))
            : null,
        ),
      ),
    ];
  }

  function ratedForm() {
    const g = games.find((x) => x.name === st.rated.game);
    const levels = g?.bot_levels || [];
    const seatChoice = (i) =>
      h(
        "label.field",
        { for: `rated-seat-${i}` },
        h("span", null, t("acct.seat", { n: i + 1 })),
        h(
          "select",
          { id: `rated-seat-${i}`, "data-testid": `rated-seat-${i}`, onchange: (e) => { st.rated.seats[i] = e.target.value; } },
          h("option", { value: "human", selected: st.rated.seats[i] === "human" }, t("acct.seatPlayer")),
          levels.map((l) => h("option", { value: l, selected: st.rated.seats[i] === l }, t("acct.seatBot", { level: l }))),
        ),
      );
    async function open() {
      const seats = st.rated.seats.map((s) => (s === "human" ? { kind: "human" } : { kind: "bot", level: s }));
      const data = await api("POST", "/api/rooms", { game: st.rated.game, players: st.rated.players, seats, rated: true });
      saveSeat(data.room, data.seat, data.secret);
      location.href = `/r/${data.room}`;
    }
    return h(
      "form.card-panel",
      { "data-testid": "rated-form", onsubmit: (e) => { e.preventDefault(); run(open); } },
      h("h2", null, t("acct.ratedTitle")),
      h("p.hint", null, t("acct.ratedHint")),
      h(
        "label.field",
        { for: "rated-game" },
        h("span", null, t("acct.game")),
        h(
          "select",
          { id: "rated-game", "data-testid": "rated-game", onchange: (e) => { st.rated.game = e.target.value; fitSeats(); render(); } },
          games.map((x) => h("option", { value: x.name, selected: x.name === st.rated.game }, x.title)),
        ),
      ),
      h(
        "label.field",
        { for: "rated-players" },
        h("span", null, t("acct.players")),
        h("input", { id: "rated-players", type: "number", min: g?.min_players, max: g?.max_players, value: String(st.rated.players), "data-testid": "rated-players", onchange: (e) => { st.rated.players = Number(e.target.value) || 3; fitSeats(); render(); } }),
      ),
      st.rated.seats.slice(1).map((_s, i) => seatChoice(i + 1)),
      h("button.primary", { type: "submit", "data-testid": "rated-open" }, t("acct.ratedOpen")),
    );
  }

  function signedIn() {
    const me = st.me;
    return [
      h(
        "section.card-panel",
        { "data-testid": "account-panel" },
        h("h2", null, t("acct.signedInAs", { name: "" }), h("span", { translate: "no" }, me.name)),
        h("p", null, link(`/players/${encodeURIComponent(me.name)}`, t("acct.profileLink"), { "data-testid": "profile-link" })),
        h("p.hint", { "data-testid": "passkey-count" }, t("acct.passkeys", { n: me.passkeys })),
        h(
          "div.actions",
          null,
          window.PublicKeyCredential
            ? h("button", { type: "button", "data-testid": "add-passkey", onclick: () => run(addPasskey, t("acct.passkeyAdded")) }, t("acct.addPasskey"))
            : null,
          h("button", { type: "button", "data-testid": "logout", onclick: () => run(() => api("POST", "/api/account/logout"), t("acct.loggedOut")) }, t("acct.logout")),
          h("button", { type: "button", "data-testid": "logout-everywhere", onclick: () => run(() => api("POST", "/api/account/logout-everywhere"), t("acct.loggedOut")) }, t("acct.logoutEverywhere")),
        ),
      ),
      games.length ? ratedForm() : null,
      h(
        "section.card-panel",
        { "data-testid": "blocks" },
        h("h2", null, t("acct.blocks")),
        h("p.hint", null, t("acct.blocksHint")),
        st.blocks.length
          ? h("ul.block-list", null, st.blocks.map((name) => h("li", null, name, " ", h("button.link", { type: "button", "aria-label": t("acct.unblockName", { name }), onclick: () => run(() => api("DELETE", `/api/account/blocks/${encodeURIComponent(name)}`)) }, t("acct.unblock")))))
          : h("p", null, t("acct.noBlocks")),
        h(
          "form",
          { onsubmit: (e) => { e.preventDefault(); const name = root.querySelector("#block-name").value; run(() => api("POST", "/api/account/blocks", { name })); } },
          field("block-name", t("acct.blockName"), { type: "text", required: true }),
          h("button", { type: "submit", "data-testid": "block-submit" }, t("acct.block")),
        ),
      ),
      h(
        "form.card-panel.danger",
        { "data-testid": "delete-form", onsubmit: (e) => { e.preventDefault(); const confirm = root.querySelector("#delete-confirm").value; run(() => api("DELETE", "/api/account", { confirm }), t("acct.deleted")); } },
        h("h2", null, t("acct.delete")),
        h("p.hint", null, t("acct.deleteHint")),
        field("delete-confirm", t("acct.deleteConfirm", { name: me.name }), { type: "text", required: true, autocomplete: "off" }),
        h("button", { type: "submit", "data-testid": "delete-submit" }, t("acct.delete")),
      ),
    ];
  }

  function render() {
    clear(root);
    put(
      h("h1", null, t("acct.title")),
      errorBox(st.error),
      st.notice ? h("p.notice", { "data-testid": "account-notice" }, st.notice) : null,
      st.me === null ? h("p", null, t("acct.loading")) : st.me.signed_in ? signedIn() : signedOut(),
    );
  }

  load();
  return render;
}

/** GET `path` into `st.data` (or its error into `st.error`), then `render()`. */
function fetchInto(st, path, render) {
  api("GET", path)
    .then((data) => {
      st.data = data;
    })
    .catch((err) => {
      st.error = err.message;
    })
    .finally(render);
}

// -- /leaderboard/{game} --------------------------------------------------------------

function boardPage(game) {
  const st = { data: null, error: null };
  fetchInto(st, `/api/leaderboard/${encodeURIComponent(game)}`, () => render());

  function row(e) {
    const name = e.bot ? h("span.bot-name", null, e.name) : link(`/players/${encodeURIComponent(e.name)}`, e.name, { translate: "no" });
    return h(
      "tr",
      { class: e.bot ? "bot-row" : null, "data-testid": "board-row" },
      h("td", null, e.place ?? "–"),
      h("th", { scope: "row" }, name, e.provisional ? h("span.provisional", { title: t("acct.provisionalHint") }, ` (${t("acct.provisional")})`) : null),
      h("td.num", null, e.rating.toFixed(1)),
      h("td.num", null, `${e.mu.toFixed(1)} ± ${e.sigma.toFixed(1)}`),
      h("td.num", null, e.bot ? t("acct.fixed") : e.games),
    );
  }

  function render() {
    clear(root);
    const tabs = h(
      "nav.board-tabs",
      { "aria-label": t("acct.games") },
      games.map((g) => link(`/leaderboard/${g.name}`, g.title, { translate: "no", "aria-current": g.name === game ? "page" : null })),
    );
    put(h("h1", null, t("acct.boardTitle", { game: gameTitle(game) })), tabs, errorBox(st.error));
    if (!st.data) return;
    put(
      h("p.hint", null, t("acct.boardHint", { games: st.data.provisional_games })),
      h(
        "table",
        { class: "leaderboard", "data-testid": "leaderboard" },
        h("caption.sr-only", null, t("acct.boardTitle", { game: gameTitle(game) })),
        h("thead", null, h("tr", null, h("th", { scope: "col" }, t("acct.place")), h("th", { scope: "col" }, t("acct.name")), h("th", { scope: "col" }, t("acct.rating")), h("th", { scope: "col" }, "μ ± σ"), h("th", { scope: "col" }, t("acct.gamesPlayed")))),
        h("tbody", null, st.data.entries.map(row)),
      ),
    );
  }
  return render;
}

// -- /players/{name} ------------------------------------------------------------------

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** The rating after each rated game as an inline SVG line, with a table as its text alternative. */
function historyPlot(game, history) {
  const w = 480;
  const hgt = 160;
  const pad = 32;
  const values = history.map((p) => p.rating);
  const lo = Math.min(0, ...values);
  const hi = Math.max(1, ...values);
  const x = (i) => pad + (history.length < 2 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (history.length - 1));
  const y = (v) => hgt - pad + ((lo - v) * (hgt - 2 * pad)) / (hi - lo || 1);
  const label = t("acct.plotLabel", { game: gameTitle(game), n: history.length, last: values.at(-1)?.toFixed(1) ?? "–" });
  const plot = svg(
    "svg",
    { viewBox: `0 0 ${w} ${hgt}`, role: "img", "aria-label": label, class: "rating-plot", "data-testid": `plot-${game}` },
    svg("title", null, label),
    svg("line", { x1: pad, y1: hgt - pad, x2: w - pad, y2: hgt - pad, class: "axis" }),
    svg("line", { x1: pad, y1: pad, x2: pad, y2: hgt - pad, class: "axis" }),
    svg("text", { x: 4, y: pad + 4, class: "tick" }, hi.toFixed(0)),
    svg("text", { x: 4, y: hgt - pad + 4, class: "tick" }, lo.toFixed(0)),
    svg("polyline", { points: history.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "line" }),
    ...history.map((p, i) => svg("circle", { cx: x(i), cy: y(p.rating), r: 3, class: "dot" })),
  );
  const table = h(
    "details.plot-table",
    null,
    h("summary", null, t("acct.plotTable")),
    h(
      "table",
      null,
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("acct.when")), h("th", { scope: "col" }, t("acct.rating")), h("th", { scope: "col" }, t("acct.room")))),
      h("tbody", null, history.map((p, i) => h("tr", null, h("td", null, i + 1), h("td", null, new Date(p.at * 1000).toLocaleString(lang())), h("td.num", null, p.rating.toFixed(1)), h("td", { translate: "no" }, link(`/r/${p.room}`, p.room))))),
    ),
  );
  return h("figure.rating-history", null, plot, table);
}

function profilePage(name) {
  const st = { data: null, error: null };
  fetchInto(st, `/api/players/${encodeURIComponent(name)}`, () => render());

  function render() {
    clear(root);
    put(h("h1", { "data-testid": "profile-name", translate: "no" }, st.data?.name || name), errorBox(st.error));
    if (!st.data) return;
    const { ratings, games: recent } = st.data;
    put(h("h2", null, t("acct.ratings")));
    if (!ratings.length) put(h("p", null, t("acct.noRatings")));
    for (const r of ratings) {
      put(
        h(
          "section.card-panel",
          { "data-testid": `rating-${r.game}` },
          h("h3", { translate: "no" }, gameTitle(r.game)),
          h(
            "p",
            null,
            h("strong", { "data-testid": `rating-value-${r.game}` }, r.rating.toFixed(1)),
            ` (μ ${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}) · `,
            t("acct.gamesCount", { n: r.games }),
            r.provisional ? h("span.provisional", null, ` · ${t("acct.provisional")}`) : null,
          ),
          historyPlot(r.game, r.history),
        ),
      );
    }
    put(h("h2", null, t("acct.recent")));
    if (!recent.length) put(h("p", null, t("acct.noGames")));
    else
      put(
        h(
          "ul.recent-games",
          { "data-testid": "recent-games" },
          recent.map((g) =>
            h(
              "li",
              null,
              h("span", { translate: "no" }, gameTitle(g.game)),
              ` · ${new Date(g.created * 1000).toLocaleDateString(lang())} · `,
              g.rated ? `${t("acct.rated")} · ` : "",
              t(`acct.status.${g.status}`),
              " · ",
              link(`/r/${g.room}`, g.status === "over" ? t("acct.replayReview") : t("acct.open")),
            ),
          ),
        ),
      );
  }
  return render;
}

// -- routing ----------------------------------------------------------------------------

async function boot() {
  await loadLanguages();
  document.title = t("app.title");
  try {
    games = (await api("GET", "/api/games")).games;
  } catch {
    games = [];
  }
  const path = location.pathname.replace(/\/$/, "");
  let render;
  const board = /^\/leaderboard(?:\/([A-Za-z-]+))?$/.exec(path);
  const player = /^\/players\/(.+)$/.exec(path);
  if (board) render = boardPage(board[1] || "scout");
  else if (player) render = profilePage(decodeURIComponent(player[1]));
  else render = accountPage();
  renderHeader(render);
  render();
}

boot();
