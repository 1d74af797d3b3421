// The Memories tab: list, filters, paging, add, inline edit, delete, history, bulk
// forget, export/import, stats, and the memory on/off switch with its token cost.
import { api } from "./api.js";
import { barChart } from "./chart.js";
import { $, busy, confirmDialog, download, formData, h, say, sayError, when } from "./dom.js";
import { keyLabel } from "./keyids.js";

const TYPES = ["factual", "episodic", "procedural", "semantic"];
const LIMIT = 20;
const view = { page: 1, filters: {}, settings: null, forget: null };

export function init() {
  $("#filters").addEventListener("submit", (event) => {
    event.preventDefault();
    view.filters = formData(event.target);
    view.page = 1;
    refresh();
  });
  $("#prev").addEventListener("click", () => { view.page -= 1; refresh(); });
  $("#next").addEventListener("click", () => { view.page += 1; refresh(); });
  $("#add-form").addEventListener("submit", add);
  $("#forget-form").addEventListener("submit", countForget);
  $("#forget-form").addEventListener("input", () => { $("#forget-go").hidden = true; });
  $("#forget-go").addEventListener("click", forget);
  $("#export-json").addEventListener("click", (e) => exportAs("json", e.target));
  $("#export-ndjson").addEventListener("click", (e) => exportAs("ndjson", e.target));
  $("#import-form").addEventListener("submit", importFile);
  $("#mem-toggle").addEventListener("click", toggle);
  $("#compact-form").addEventListener("submit", previewCompaction);
  $("#compact-form").addEventListener("input", () => { $("#compact-go").hidden = true; });
  $("#compact-go").addEventListener("click", compact);
}

export function enter() {
  refresh();
  loadSettings();
}

async function loadSettings() {
  try {
    view.settings = await api("GET", "api/settings/memory");
  } catch (error) {
    sayError($("#switch-msg"), error);
    return;
  }
  const on = view.settings.enabled;
  $("#mem-enabled").textContent = on ? "on" : "off";
  $("#mem-toggle").textContent = on ? "Turn memory off" : "Turn memory on";
  $("#mem-budget").textContent = String(view.settings.maxTokens);
}

async function toggle(event) {
  const on = !view.settings?.enabled;
  if (on) {
    const budget = view.settings?.maxTokens ?? 2000;
    const ok = await confirmDialog(
      `Turn memory on? Every chat request through Engram will then carry up to ${budget} extra prompt tokens of memories, which your provider bills. You can turn it off at any time.`,
      "Turn memory on",
    );
    if (!ok) return;
  }
  await busy(event.target, $("#switch-msg"), async () => {
    await api("PUT", "api/settings/memory", { json: { enabled: on } });
    say($("#switch-msg"), on ? "Memory is on: chats now get relevant memories." : "Memory is off: chats go through unchanged.");
  });
  loadSettings();
}

export async function refresh() {
  const out = $("#list-msg");
  say(out, "");
  let page;
  try {
    page = await api("GET", "api/memory", { query: { ...view.filters, page: view.page, limit: LIMIT } });
  } catch (error) {
    sayError(out, error);
    return;
  }
  const pages = Math.max(1, Math.ceil(page.total / LIMIT));
  if (view.page > pages && page.total > 0) {
    view.page = pages;
    refresh();
    return;
  }
  $("#mem-list").replaceChildren(...page.data.map(row));
  if (!page.data.length) $("#mem-list").append(h("li", { class: "empty" }, "No memories match."));
  $("#page-info").textContent = `Page ${page.page} of ${pages} · ${page.total} ${page.total === 1 ? "memory" : "memories"}`;
  $("#prev").disabled = page.page <= 1;
  $("#next").disabled = page.page >= pages;
  // The count beside the chart is the chart's own (the list's filter but its type, from the
  // primary store); tokens and hit rate are the key's, from libSQL's bookkeeping.
  const counts = TYPES.map((t) => [t, page.byType[t] || 0]);
  $("#stat-total").textContent = String(counts.reduce((sum, [, n]) => sum + n, 0));
  $("#stat-tokens").textContent = String(page.stats.tokensUsed);
  $("#stat-hit").textContent = `${Math.round(page.stats.hitRate * 100)}%`;
  $("#stat-chart").replaceChildren(barChart(counts, { title: "Memories by type (current filter)" }));
}

function row(memory) {
  const item = h("li", { class: "mem", dataset: { id: memory.id } });
  const show = () => item.replaceChildren(
    h("p", { class: "content" }, memory.content),
    h("p", { class: "meta" },
      h("span", { class: `badge t-${memory.type}` }, memory.type),
      memory.profile ? h("span", { class: "badge profile", title: "Injected with every request" }, "profile") : null,
      h("span", {}, memory.key),
      memory.sessionId ? h("span", {}, `session ${memory.sessionId}`) : null,
      h("span", {}, `API key ${keyLabel(memory.apiKeyId)}`),
      h("span", {}, `updated ${when(memory.updatedAt)}`)),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "quiet", onclick: edit }, "Edit"),
      h("button", { type: "button", class: "quiet", onclick: history }, "History"),
      h("button", { type: "button", class: "quiet", onclick: pin }, memory.profile ? "Unpin" : "Pin"),
      h("button", { type: "button", class: "quiet danger-text", onclick: remove }, "Delete")),
    h("p", { class: "msg", hidden: true }),
  );
  const msg = () => item.querySelector(".msg");

  function edit() {
    const content = h("textarea", { rows: 3, "aria-label": "Content", required: true }, memory.content);
    const type = h("select", { "aria-label": "Type" }, TYPES.map((t) => h("option", { selected: t === memory.type }, t)));
    const form = h("form", { class: "edit" }, content, h("div", { class: "row" }, type,
      h("button", { type: "submit" }, "Save"),
      h("button", { type: "button", class: "quiet", onclick: show }, "Cancel")),
      h("p", { class: "msg", hidden: true }));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      await busy(event.submitter, form.querySelector(".msg"), async () => {
        const change = {};
        if (content.value !== memory.content) change.content = content.value;
        if (type.value !== memory.type) change.type = type.value;
        if (!Object.keys(change).length) { show(); return; }
        memory = await api("PUT", `api/memory/${encodeURIComponent(memory.id)}`, { json: change });
        show();
        say(msg(), "Saved.");
      });
    });
    item.replaceChildren(form);
    content.focus();
  }

  // The profile goes with every request: pin a memory into it, or keep one out of it.
  async function pin(event) {
    await busy(event.target, msg(), async () => {
      memory = await api("PUT", `api/memory/${encodeURIComponent(memory.id)}/pin`, { json: { pinned: !memory.profile } });
      show();
      say(msg(), memory.profile ? "Pinned: in the profile, injected with every request." : "Unpinned: recalled only when relevant.");
    });
  }

  async function remove(event) {
    const short = memory.content.length > 80 ? `${memory.content.slice(0, 80)}…` : memory.content;
    if (!(await confirmDialog(`Delete this memory? "${short}" It is removed from every index.`, "Delete"))) return;
    await busy(event.target, msg(), async () => {
      await api("DELETE", `api/memory/${encodeURIComponent(memory.id)}`);
      refresh();
    });
  }

  async function history(event) {
    await busy(event.target, msg(), async () => {
      const versions = await api("GET", `api/memory/${encodeURIComponent(memory.id)}/history`);
      $("#history-list").replaceChildren(...versions.data.map((v) => h("li", { class: v.validTo ? "retired" : "live" },
        h("p", { class: "content" }, v.content),
        h("p", { class: "meta" },
          h("span", { class: "badge" }, v.validTo ? v.reason || "retired" : "live"),
          h("span", {}, `from ${when(v.validFrom)}`),
          v.validTo ? h("span", {}, `to ${when(v.validTo)}`) : null,
          v.supersededBy ? h("span", {}, `replaced by ${v.supersededBy}`) : null))));
      if (versions.data.length === 1) $("#history-list").append(h("li", { class: "empty" }, "No earlier versions: nothing has superseded this fact."));
      $("#history").showModal();
    });
  }

  show();
  return item;
}

async function add(event) {
  event.preventDefault();
  const data = formData(event.target);
  const body = { apiKeyId: data.apiKeyId, content: data.content, type: data.type };
  if (data.key) body.key = data.key;
  if (data.sessionId) body.sessionId = data.sessionId;
  await busy(event.submitter, $("#add-msg"), async () => {
    const memory = await api("POST", "api/memory", { json: body });
    say($("#add-msg"), `Saved as ${memory.key}.`);
    // The next memory is a new one: a key left in the form would replace this one.
    $("#a-content").value = "";
    $("#a-ukey").value = "";
    refresh();
  });
}

function forgetQuery() {
  const data = formData($("#forget-form"));
  return { apiKeyId: data.apiKeyId, type: data.type, sessionId: data.sessionId, olderThanDays: data.olderThanDays };
}

async function countForget(event) {
  event.preventDefault();
  const out = $("#forget-msg");
  $("#forget-go").hidden = true;
  await busy(event.submitter, out, async () => {
    const query = forgetQuery();
    const counted = await api("DELETE", "api/memory", { query: { ...query, dryRun: "true" } });
    view.forget = query;
    say(out, `${counted.matched} ${counted.matched === 1 ? "memory" : "memories"} and ${counted.history} earlier version(s) would be forgotten. Nothing has changed yet.`);
    if (counted.matched || counted.history) {
      $("#forget-go").textContent = `Forget ${counted.matched} ${counted.matched === 1 ? "memory" : "memories"}`;
      $("#forget-go").hidden = false;
    }
  });
}

async function forget(event) {
  if (!(await confirmDialog(`Forget these memories of ${view.forget.apiKeyId}? This cannot be undone.`, "Forget"))) return;
  await busy(event.target, $("#forget-msg"), async () => {
    const done = await api("DELETE", "api/memory", { query: { ...view.forget, dryRun: "false" } });
    $("#forget-go").hidden = true;
    say($("#forget-msg"), `Forgot ${done.deleted} ${done.deleted === 1 ? "memory" : "memories"} and ${done.history} earlier version(s).`);
    refresh();
  });
}

async function exportAs(format, button) {
  await busy(button, $("#io-msg"), async () => {
    const response = await api("GET", "api/memory/export", { query: { apiKeyId: $("#x-key").value.trim() }, raw: true });
    const text = await response.text();
    const lines = text.split("\n").filter((line) => line.trim());
    const stamp = new Date().toISOString().slice(0, 10);
    if (format === "json") {
      download(`engram-memories-${stamp}.json`, `${JSON.stringify(lines.map((l) => JSON.parse(l)), null, 2)}\n`, "application/json");
    } else {
      download(`engram-memories-${stamp}.ndjson`, text, "application/x-ndjson");
    }
    say($("#io-msg"), `Exported ${lines.length} ${lines.length === 1 ? "memory" : "memories"} as ${format.toUpperCase()}.`);
  });
}

async function importFile(event) {
  event.preventDefault();
  const file = $("#i-file").files[0];
  if (!file) return;
  await busy(event.submitter, $("#io-msg"), async () => {
    const text = await file.text();
    const ndjson = /\.(ndjson|jsonl)$/i.test(file.name) || !text.trimStart().startsWith("[");
    // A large file takes a while in one request: say what is under way meanwhile.
    const lines = ndjson ? text.split("\n").filter((line) => line.trim()).length : null;
    say($("#io-msg"), lines === null
      ? `Importing ${file.name} (${Math.ceil(file.size / 1024)} KB)…`
      : `Importing ${lines} ${lines === 1 ? "line" : "lines"} of ${file.name}…`);
    const result = await api("POST", "api/memory/import", { body: text, type: ndjson ? "application/x-ndjson" : "application/json" });
    say($("#io-msg"), `Imported ${result.received}: ${result.created} new, ${result.updated} updated.`);
    refresh();
  });
}

function compactRequest() {
  const data = formData($("#compact-form"));
  const body = { olderThanDays: Number(data.olderThanDays) };
  if (data.apiKeyId) body.apiKeyId = data.apiKeyId;
  return body;
}

const memoriesOf = (n) => `${n} ${n === 1 ? "memory" : "memories"}`;
const daysOf = (n) => `${n} ${Number(n) === 1 ? "day" : "days"}`;

async function previewCompaction(event) {
  event.preventDefault();
  const out = $("#compact-msg");
  $("#compact-go").hidden = true;
  await busy(event.submitter, out, async () => {
    const body = compactRequest();
    const plan = await api("POST", "api/memory/summarize", { json: { ...body, dryRun: true } });
    view.compact = body;
    if (!plan.candidates.length) {
      say(out, `No memories were last written more than ${daysOf(body.olderThanDays)} ago.`);
      return;
    }
    say(out, `${memoriesOf(plan.candidates.length)} would fold into ${plan.summaries.length} summary ${plan.summaries.length === 1 ? "memory" : "memories"}, saving ${plan.tokensSaved} tokens. Nothing has changed yet.`);
    $("#compact-go").textContent = `Compact ${memoriesOf(plan.candidates.length)}`;
    $("#compact-go").hidden = false;
  });
}

async function compact(event) {
  if (!(await confirmDialog("Replace these memories with their summaries? The originals are deleted.", "Compact"))) return;
  await busy(event.target, $("#compact-msg"), async () => {
    const done = await api("POST", "api/memory/summarize", { json: { ...view.compact, dryRun: false } });
    $("#compact-go").hidden = true;
    say($("#compact-msg"), `Compacted ${memoriesOf(done.candidates.length)} into ${done.summaries.length} summary ${done.summaries.length === 1 ? "memory" : "memories"}; ${done.tokensSaved} tokens saved.`);
    refresh();
  });
}

export function leave() {}
