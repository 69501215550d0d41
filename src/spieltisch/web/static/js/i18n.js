// UI text in German and English: browser language by default, switchable,
// remembered in localStorage.

import { h } from "./dom.js";

const KEY = "spieltisch.lang";
export const LANGS = ["de", "en"];
const tables = {};
let current = "en";

export async function loadLanguages() {
  await Promise.all(
    LANGS.map(async (lang) => {
      const response = await fetch(`/static/i18n/${lang}.json`);
      tables[lang] = await response.json();
    }),
  );
  let chosen = null;
  try {
    chosen = localStorage.getItem(KEY);
  } catch {
    chosen = null;
  }
  if (!LANGS.includes(chosen)) {
    const browser = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
    chosen = browser.toLowerCase().startsWith("de") ? "de" : "en";
  }
  setLang(chosen, false);
}

export function lang() {
  return current;
}

export function setLang(value, remember = true) {
  current = LANGS.includes(value) ? value : "en";
  document.documentElement.lang = current;
  if (remember) {
    try {
      localStorage.setItem(KEY, current);
    } catch {
      /* private mode: the choice lasts for this page only */
    }
  }
}

/** Whether `key` has a text (in the UI language or English). */
export function hasText(key) {
  return key in (tables[current] || {}) || key in (tables.en || {});
}

/** Translate `key`, filling {placeholders} from `params`. Falls back to
 * English, then to the key itself. */
const reported = new Set();

export function t(key, params = {}) {
  let text = tables[current]?.[key];
  if (text === undefined) {
    // Said once per key: the browser tests fail on it (every text in both languages).
    if (!reported.has(`${current}:${key}`)) console.warn(`missing text: ${key} (${current})`);
    reported.add(`${current}:${key}`);
    text = tables.en?.[key] ?? key;
  }
  return text.replace(/\{(\w+)\}/g, (match, name) => (name in params ? String(params[name]) : match));
}

/** A count-dependent text: key.one / key.other, chosen by the language's plural
 * rule (Intl.PluralRules: English and German both say "1 card", "0 cards", "2 cards"). */
export function tn(key, count, params = {}) {
  const form = new Intl.PluralRules(current).select(Number(count)) === "one" ? "one" : "other";
  return t(`${key}.${form}`, { n: count, ...params });
}

/** The header's button to the other language (English <-> Deutsch); `after` redraws the page. */
export function langToggle(after) {
  const other = lang() === "de" ? "en" : "de";
  return h(
    "button.link",
    {
      type: "button",
      "data-testid": "lang-toggle",
      lang: other,
      "aria-label": other === "en" ? "Switch to English" : "Auf Deutsch umschalten",
      onclick: () => {
        setLang(other);
        after();
      },
    },
    other === "en" ? "English" : "Deutsch",
  );
}
