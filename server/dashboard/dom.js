// DOM helpers. Text goes in through textContent only: whatever a worker wrote is never parsed as HTML.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** A new element: `class`, `text` (as textContent), `on…` listeners and other attributes from `props`, then `children`. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}
