// Telling players what they would otherwise miss: that it is their turn (the tab's
// title, an optional short sound, and - only after they switched it on - a browser
// notification while the tab is hidden), and that another player is away (with the
// time until a stand-in bot plays for them, where the table has one).
// The sound and notification choices are remembered in localStorage.

import { formatSeconds } from "./clocks.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

const SOUND = "spieltisch.sound";
const NOTIFY = "spieltisch.notify";

function isOn(key) {
  try {
    return localStorage.getItem(key) === "on";
  } catch {
    return false;
  }
}

function setOn(key, on) {
  try {
    localStorage.setItem(key, on ? "on" : "off");
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}

const canNotify = () => typeof Notification !== "undefined";

/** The tab's title: "● Your turn · Scout · K7QX2M" while it is the person's turn. */
export function tabTitle(base, yourTurn) {
  turnIcon(yourTurn);
  return yourTurn ? `● ${t("notify.title")} · ${base}` : base;
}

// The tab's icon: the green card, with a red dot while it is the person's turn.
const ICON = (dot) =>
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="3" y="1" width="10" height="14" rx="2" fill="#2f6b4f"/>' +
      (dot ? '<circle cx="12" cy="4" r="4" fill="#d62828" stroke="#fff" stroke-width="1"/>' : "") +
      "</svg>",
  );

/** Show the turn on the tab's icon too (the title may be cut off among many tabs). */
export function turnIcon(yourTurn) {
  const link = document.querySelector("link[rel=icon]");
  if (!link || link.dataset.turn === String(yourTurn)) return;
  link.dataset.turn = String(yourTurn);
  link.href = ICON(yourTurn);
}

let audio = null;

/** A short two-note chime (WebAudio, no sound file), if the person switched sound on. */
export function chime(force = false) {
  if (!force && !isOn(SOUND)) return;
  try {
    audio ??= new AudioContext();
    const start = audio.currentTime + 0.01;
    [660, 880].forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      const at = start + i * 0.12;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.12, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.2);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + 0.22);
    });
    window.__spieltischChimes = (window.__spieltischChimes || 0) + 1; // (counted for the browser tests)
  } catch {
    /* no audio on this device: the title still says it */
  }
}

/** It has just become the person's turn: the chime, and a notification if the tab is hidden. */
export function turnStarted(title, body) {
  chime();
  if (!document.hidden || !isOn(NOTIFY) || !canNotify() || Notification.permission !== "granted") return;
  try {
    const note = new Notification(title, { body, tag: "spieltisch-turn" });
    note.onclick = () => {
      window.focus();
      note.close();
    };
  } catch {
    /* some browsers allow notifications only from a service worker */
  }
}

/** Two switches: a sound on your turn, and notifications while the tab is hidden
 * (the browser asks for permission only when the person switches them on). */
export function noticeSwitches(update) {
  const notifyOn = canNotify() && isOn(NOTIFY) && Notification.permission === "granted";
  return h(
    "div.notice-switches",
    { role: "group", "aria-label": t("notify.group") },
    h(
      "label.check.small",
      { for: "sound-switch" },
      h("input", {
        id: "sound-switch",
        type: "checkbox",
        checked: isOn(SOUND),
        "data-testid": "sound-switch",
        onchange: (e) => {
          setOn(SOUND, e.target.checked);
          if (e.target.checked) chime(true); // what it will sound like
          update();
        },
      }),
      h("span", null, t("notify.sound")),
    ),
    canNotify()
      ? h(
          "label.check.small",
          { for: "notify-switch" },
          h("input", {
            id: "notify-switch",
            type: "checkbox",
            checked: notifyOn,
            disabled: Notification.permission === "denied",
            "data-testid": "notify-switch",
            onchange: async (e) => {
              const want = e.target.checked;
              const allowed = want && (Notification.permission === "granted" || (await Notification.requestPermission()) === "granted");
              setOn(NOTIFY, allowed);
              update();
            },
          }),
          h("span", null, Notification.permission === "denied" ? t("notify.blocked") : t("notify.notify")),
        )
      : null,
  );
}

// -- players who are away ------------------------------------------------------------

function awayText(clock, arrived, now = performance.now()) {
  const after = clock?.stand_in_after;
  if (after === null || after === undefined) return t("notify.away");
  const left = Math.max(0, after - (now - arrived) / 1000);
  return t("notify.awayStandIn", { time: formatSeconds(left) });
}

/** Under a seat whose person has lost the connection: "Away" or "Away – a bot plays
 * for them in 0:24" (null for a seat that is here, a bot, free or gone for good). */
export function awayNote(msg, seat, arrived) {
  const info = msg?.room?.seats?.[seat];
  if (!info || info.kind === "bot" || !info.taken || info.connected || info.left || info.stand_in) return null;
  const clock = msg.clocks?.[seat];
  return h("div.away-note", { "data-testid": `away-${seat}`, "data-away": String(seat) }, awayText(clock, arrived));
}

/** Count the away notes down (called with the clocks, a few times a second). */
export function tickAway(root, msg, arrived) {
  if (!msg?.clocks) return;
  for (const el of root.querySelectorAll("[data-away]")) {
    const text = awayText(msg.clocks[Number(el.dataset.away)], arrived);
    if (el.textContent !== text) el.textContent = text;
  }
}
