import { describe } from "./api.js";

// h("button", { class: "x", onclick: f }, "text", child...): an element, safely (text
// is always text: nothing from the server is parsed as HTML).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? "" : value);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);

// A message area: role=alert for errors, role=status for news.
export function say(el, text, kind = "ok") {
  el.replaceChildren();
  el.className = `msg ${kind}`;
  el.hidden = !text;
  if (text) el.append(text);
}

export function sayError(el, error) {
  const { message, lines } = describe(error);
  say(el, message, "error");
  // One problem is already the message; several are listed one per line.
  if (lines.length && !(lines.length === 1 && lines[0] === message)) {
    el.append(h("ul", {}, lines.map((line) => h("li", {}, line))));
  }
}

// Runs an async action with its button disabled and its errors shown in `out`.
export async function busy(button, out, action) {
  if (button) button.disabled = true;
  if (out) say(out, "");
  try {
    return await action();
  } catch (error) {
    if (out) sayError(out, error);
    else throw error;
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

// A modal question; resolves true when confirmed.
export function confirmDialog(message, confirmLabel = "Confirm") {
  const dialog = $("#confirm");
  $("#confirm-text", dialog).textContent = message;
  $("#confirm-ok", dialog).textContent = confirmLabel;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
  });
}

export function when(value) {
  if (!value) return "";
  const date = new Date(value);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function formData(form) {
  const data = {};
  for (const [name, value] of new FormData(form).entries()) data[name] = typeof value === "string" ? value.trim() : value;
  return data;
}

export function download(name, text, type) {
  const link = h("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}
