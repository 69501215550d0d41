// Tiny DOM helpers: h("button.primary", {onclick}, "text", child, ...) builds
// elements; rerender(root, build) brings the page up to date *in place*: it
// builds the new tree detached and patches the live one to match it, so the
// elements that stay (a card under the pointer, the focused button, a
// scrolled log, an open <details>) are the same nodes before and after.

// Event handlers live in el.__on (type -> function) behind one permanent
// listener per type, so a patch can hand a kept element its new handlers.
function listen(el, type, fn) {
  if (!el.__on) el.__on = {};
  if (!(type in el.__on)) el.addEventListener(type, (event) => el.__on[type]?.(event));
  el.__on[type] = fn;
}

export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        listen(el, key.slice(2), value);
      } else if (key === "key") {
        el.__key = String(value);
      } else if (key === "class") {
        el.className = [el.className, value].filter(Boolean).join(" ");
      } else if (key === "style" && typeof value === "object") {
        Object.assign(el.style, value);
      } else if (key === "dataset") {
        Object.assign(el.dataset, value);
      } else if (key === "value") {
        el.value = value;
      } else if (key === "checked" || key === "disabled" || key === "selected") {
        el[key] = Boolean(value);
      } else {
        el.setAttribute(key, value === true ? "" : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

// -- patching ------------------------------------------------------------------

/** The identity of a node among its siblings: an explicit `key`, else its
 * data-focus, data-testid or id; null for nodes matched by position. */
function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  if (node.__key !== undefined) return `k:${node.__key}`;
  const attr = node.getAttribute("data-focus") ?? node.getAttribute("data-testid") ?? node.getAttribute("data-keep") ?? node.id;
  return attr ? `${node.tagName}:${attr}` : null;
}

function sameKind(a, b) {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName;
}

const FORM_PROPS = ["checked", "disabled", "selected"];

/** The handlers, keys and form state of `fresh` onto `old`, two trees that are
 * otherwise equal (isEqualNode): a cheap walk instead of a full patch. */
function adopt(old, fresh) {
  if (fresh.__on) for (const [type, fn] of Object.entries(fresh.__on)) listen(old, type, fn);
  if (old.__on) for (const type of Object.keys(old.__on)) if (!fresh.__on || !(type in fresh.__on)) old.__on[type] = null;
  if (fresh.__key !== undefined) old.__key = fresh.__key;
  syncForm(old, fresh);
  let a = old.firstElementChild;
  let b = fresh.firstElementChild;
  while (a && b) {
    adopt(a, b);
    a = a.nextElementSibling;
    b = b.nextElementSibling;
  }
}

function syncForm(old, fresh) {
  const tag = fresh.tagName;
  if (tag !== "INPUT" && tag !== "SELECT" && tag !== "OPTION" && tag !== "TEXTAREA" && tag !== "BUTTON") return;
  if (tag !== "OPTION" && tag !== "BUTTON" && old.value !== fresh.value && (document.activeElement !== old || tag === "SELECT")) {
    // Never overwrite what somebody is typing right now.
    old.value = fresh.value;
  }
  for (const prop of FORM_PROPS) {
    if (prop in fresh && old[prop] !== fresh[prop]) old[prop] = fresh[prop];
  }
}

function patchElement(old, fresh) {
  if (old.isEqualNode(fresh)) {
    adopt(old, fresh);
    return;
  }
  for (const { name } of [...old.attributes]) {
    if (!fresh.hasAttribute(name) && !(name === "open" && old.tagName === "DETAILS")) old.removeAttribute(name);
  }
  for (const { name, value } of [...fresh.attributes]) {
    // A <details> keeps the open/closed state the person chose.
    if (name === "open" && old.tagName === "DETAILS") continue;
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  if (fresh.__on) {
    for (const [type, fn] of Object.entries(fresh.__on)) listen(old, type, fn);
  }
  if (old.__on) {
    for (const type of Object.keys(old.__on)) if (!fresh.__on || !(type in fresh.__on)) old.__on[type] = null;
  }
  if (fresh.__key !== undefined) old.__key = fresh.__key;
  patchChildren(old, fresh);
  syncForm(old, fresh);
}

function patchChildren(parent, fresh) {
  const olds = [...parent.childNodes];
  const keyed = new Map();
  const loose = [];
  for (const node of olds) {
    const key = keyOf(node);
    if (key === null) loose.push(node);
    else if (keyed.has(key)) keyed.get(key).push(node);
    else keyed.set(key, [node]);
  }
  const used = new Set();
  let looseAt = 0;
  const wanted = [...fresh.childNodes].map((node) => {
    const key = keyOf(node);
    let match = null;
    if (key !== null) {
      const list = keyed.get(key);
      if (list && list.length && sameKind(list[0], node)) match = list.shift();
    } else {
      // Unkeyed nodes pair up in order with the next unkeyed node of their kind.
      for (let i = looseAt; i < loose.length; i += 1) {
        if (sameKind(loose[i], node)) {
          match = loose[i];
          looseAt = i + 1;
          break;
        }
      }
    }
    if (match) used.add(match);
    return [match, node];
  });
  for (const node of olds) if (!used.has(node)) node.remove();
  wanted.forEach(([match, node], i) => {
    let target = node;
    if (match) {
      if (match.nodeType === Node.ELEMENT_NODE) patchElement(match, node);
      else if (match.nodeValue !== node.nodeValue) match.nodeValue = node.nodeValue;
      target = match;
    }
    const here = parent.childNodes[i] || null;
    if (here !== target) parent.insertBefore(target, here);
  });
}

/** Bring `root` up to date with `build()` in place. Elements that survive keep
 * their identity (so a press that straddles an update still clicks), their
 * focus and their scroll position. If the focused element went away, the
 * focus moves to the new element with the same data-focus key. */
export function rerender(root, build) {
  const active = document.activeElement;
  const key = active && root.contains(active) ? active.dataset.focus : null;
  const fresh = document.createElement(root.tagName);
  append(fresh, [build()]);
  patchChildren(root, fresh);
  if (key && document.activeElement !== active) {
    const again = root.querySelector(`[data-focus="${CSS.escape(key)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
}
