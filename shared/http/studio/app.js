// Memory Studio: sign-in, tabs, the health dot. Each tab lives in its own module.
import { api, token } from "./api.js";
import { $, busy, say, sayError } from "./dom.js";
import { loadKeyIds } from "./keyids.js";
import * as memories from "./memories.js";
import * as playground from "./playground.js";
import * as engine from "./engine.js";

const TABS = { memories, playground, engine };
let current = "memories";

function show(name) {
  current = name;
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    const selected = tab.id === `tab-${name}`;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(`#${tab.getAttribute("aria-controls")}`).hidden = !selected;
  }
  for (const [other, module] of Object.entries(TABS)) if (other !== name) module.leave();
  TABS[name].enter();
  health();
}

async function health() {
  const dot = $("#health");
  try {
    const report = await api("GET", "api/memory/health");
    dot.className = `dot ${report.working ? "good" : "bad"}`;
    const text = report.working
      ? `Storage health: working (round trip ${report.latencyMs.toFixed(1)} ms)`
      : `Storage health: failing (${report.error || "unknown error"})`;
    dot.setAttribute("aria-label", text);
    dot.title = text;
  } catch (error) {
    dot.className = "dot bad";
    dot.setAttribute("aria-label", `Storage health: ${error.message}`);
    dot.title = error.message;
  }
}

function signedIn(yes) {
  $("#signin").hidden = yes;
  $("#tabs").hidden = !yes;
  $("#sign-out").hidden = !yes;
  if (!yes) {
    for (const panel of document.querySelectorAll('[role="tabpanel"]')) panel.hidden = true;
    for (const module of Object.values(TABS)) module.leave(); // no polling once signed out
  }
}

async function start() {
  signedIn(true);
  await loadKeyIds().catch(() => {});
  show(current);
}

$("#signin-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const out = $("#signin-msg");
  const value = $("#signin-token").value.trim();
  busy(event.submitter, out, async () => {
    token.set(value);
    try {
      await api("GET", "api/settings/memory");
    } catch (error) {
      token.clear();
      if (error.status === 401) error.message = "That token was refused. Check ENGRAM_ADMIN_TOKEN or .engram/admin-token.";
      throw error;
    }
    $("#signin-token").value = "";
    await start();
  });
});

document.addEventListener("studio:signed-out", (event) => {
  token.clear();
  signedIn(false);
  sayError($("#signin-msg"), event.detail);
  $("#signin-token").focus();
});

$("#sign-out").addEventListener("click", () => {
  token.clear();
  signedIn(false);
  say($("#signin-msg"), "Signed out.");
});

const tabs = [...document.querySelectorAll('[role="tab"]')];
for (const tab of tabs) {
  tab.addEventListener("click", () => show(tab.id.slice(4)));
  tab.addEventListener("keydown", (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
    next.focus();
    show(next.id.slice(4));
  });
}

for (const module of Object.values(TABS)) module.init();
if (token.get()) start().catch(() => signedIn(false));
else signedIn(false);
