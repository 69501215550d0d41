// Evaluated in the page (browser_helpers.assert_translated).
async () => {
  const lang = document.documentElement.lang;
  const en = await (await fetch("/static/i18n/en.json")).json();
  const de = await (await fetch("/static/i18n/de.json")).json();
  const keys = new Set(Object.keys(en));
  const german = new Set(Object.values(de)); // "Scout" is the game's name in both languages
  // English texts that German says differently, as patterns ({x} = anything).
  const english = [];
  if (lang === "de") {
    for (const [key, text] of Object.entries(en)) {
      if (de[key] === text) continue;
      if (text.replace(/\{\w+\}/g, "").replace(/[^A-Za-z]/g, "").length < 4) continue;
      const body = text.split(/\{\w+\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".+");
      english.push([key, new RegExp(`^${body}$`)]);
    }
  }
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    // translate="no" marks names (a game's title, a player's name).
    if (!el || el.closest("script, style, noscript, .rules-body, [translate=no]")) continue;
    const text = n.nodeValue.trim();
    if (text && el.getClientRects().length) texts.push(text);
  }
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    if (el.closest(".rules-body")) continue;
    for (const a of ["aria-label", "title", "placeholder", "alt"]) {
      const v = el.getAttribute(a);
      if (v) texts.push(v.trim());
    }
  }
  const bad = [];
  for (const text of texts) {
    if (/\b(NaN|undefined|null|\[object)\b/.test(text)) bad.push(`broken value: ${text}`);
    for (const word of text.split(/[\s–,:()]+/)) if (keys.has(word)) bad.push(`text key shown: ${word}`);
    if (german.has(text)) continue;
    for (const [key, re] of english) if (re.test(text)) bad.push(`English in the German page (${key}): ${text}`);
  }
  return [...new Set(bad)];
}
