// Tiny DOM helpers: h("button.primary", {onclick}, "text", child, ...).

export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        el.addEventListener(key.slice(2), value);
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

/** Re-render `root` with `build()`, keeping the keyboard focus on the element
 * with the same data-focus key, the scroll positions ([data-scroll]) and
 * which <details data-keep> are open (the DOM is rebuilt on every state). */
export function rerender(root, build) {
  const active = document.activeElement;
  const key = active && root.contains(active) ? active.dataset.focus : null;
  const scrolls = [...root.querySelectorAll("[data-scroll]")].map((el) => [el.dataset.scroll, el.scrollLeft, el.scrollTop]);
  const opened = new Map([...root.querySelectorAll("details[data-keep]")].map((el) => [el.dataset.keep, el.open]));
  clear(root);
  append(root, [build()]);
  for (const el of root.querySelectorAll("details[data-keep]")) {
    if (opened.has(el.dataset.keep)) el.open = opened.get(el.dataset.keep);
  }
  for (const [name, left, top] of scrolls) {
    const el = root.querySelector(`[data-scroll="${name}"]`);
    if (el) {
      el.scrollLeft = left;
      el.scrollTop = top;
    }
  }
  if (key) {
    const again = root.querySelector(`[data-focus="${CSS.escape(key)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
}
