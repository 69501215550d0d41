// The rules pages (docs/rules/*.md served by the server at /rules/...),
// rendered with a minimal Markdown reader: headings, paragraphs, lists,
// tables, emphasis, inline code and links.

import { h } from "./dom.js";
import { t } from "./i18n.js";

export const RULE_FILES = { scout: "scout", schmaus: "waschbaer-schmaus" };

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function inline(text) {
  let out = escapeHtml(text);
  const codes = [];
  out = out.replace(/`([^`]+)`/g, (m, code) => {
    codes.push(code);
    return `\u0000${codes.length - 1}\u0000`;
  });
  out = out.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  out = out.replace(/(^|[^*\w])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>");
  out = out.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (m, label, href) => {
    const rules = /^([\w-]+)\.(de|en)\.md$/.exec(href);
    if (rules) return `<a href="#" data-rules="${rules[1]}" data-lang="${rules[2]}">${label}</a>`;
    const safe = /^(https?:|#|\/)/.test(href) ? href : "#";
    return `<a href="${safe}" rel="noopener">${label}</a>`;
  });
  return out.replace(/\u0000(\d+)\u0000/g, (m, i) => `<code>${codes[+i]}</code>`);
}

export function markdownToHtml(md) {
  const lines = md.replace(/\r\n/g, "\n").split("\n");
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i += 1;
      continue;
    }
    let m;
    if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
      const level = Math.min(6, m[1].length + 1);
      out.push(`<h${level}>${inline(m[2])}</h${level}>`);
      i += 1;
    } else if (/^\|/.test(line)) {
      const rows = [];
      while (i < lines.length && /^\|/.test(lines[i])) rows.push(lines[i++]);
      const cells = (row) => row.trim().replace(/^\||\|$/g, "").split("|").map((c) => inline(c.trim()));
      const head = cells(rows[0]);
      const body = rows.slice(rows[1] && /^\|[\s:|-]+\|?$/.test(rows[1]) ? 2 : 1).map(cells);
      out.push(
        `<div class="table-wrap"><table><thead><tr>${head.map((c) => `<th>${c}</th>`).join("")}</tr></thead><tbody>` +
          body.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("") +
          "</tbody></table></div>",
      );
    } else if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items = [];
      while (i < lines.length && lines[i].trim() && !/^#/.test(lines[i])) {
        const item = /^\s*([-*]|\d+\.)\s+(.*)$/.exec(lines[i]);
        if (item) items.push(item[2]);
        else items[items.length - 1] += ` ${lines[i].trim()}`;
        i += 1;
      }
      const tag = ordered ? "ol" : "ul";
      out.push(`<${tag}>${items.map((x) => `<li>${inline(x)}</li>`).join("")}</${tag}>`);
    } else if (/^>\s?/.test(line)) {
      const quote = [];
      while (i < lines.length && /^>\s?/.test(lines[i])) quote.push(lines[i++].replace(/^>\s?/, ""));
      out.push(`<blockquote>${inline(quote.join(" "))}</blockquote>`);
    } else {
      const para = [];
      while (i < lines.length && lines[i].trim() && !/^(#|\||\s*([-*]|\d+\.)\s|>)/.test(lines[i])) para.push(lines[i++].trim());
      out.push(`<p>${inline(para.join(" "))}</p>`);
    }
  }
  return out.join("\n");
}

/** Open the rules of `game` (scout | schmaus) in `lang` as a dialog. */
export async function openRules(game, lang) {
  const file = RULE_FILES[game] || game;
  const dialog = h("dialog.rules", { "aria-label": t("rules.title"), "data-testid": "rules-dialog" });
  const body = h("div.rules-body", null, h("p", null, t("rules.loading")));
  const close = h("button.close", { type: "button", "aria-label": t("btn.close"), onclick: () => dialog.close() }, "×");
  dialog.append(close, body);
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  const load = async (name, language) => {
    try {
      const response = await fetch(`/rules/${name}.${language}.md`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      body.innerHTML = markdownToHtml(await response.text());
      for (const link of body.querySelectorAll("a[data-rules]")) {
        link.addEventListener("click", (event) => {
          event.preventDefault();
          load(link.dataset.rules, link.dataset.lang);
        });
      }
      body.scrollTop = 0;
    } catch (err) {
      body.textContent = t("rules.failed", { error: String(err.message || err) });
    }
  };
  await load(file, lang);
}
