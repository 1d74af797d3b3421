// The Engine tab: tier chips (refreshed while the tab is open), embeddings and reindex
// progress, Qdrant settings and tests, memory backends, API keys.
import { api } from "./api.js";
import { $, busy, confirmDialog, formData, h, say, sayError, when } from "./dom.js";
import { loadKeyIds } from "./keyids.js";

const LIVE_MS = 5000;
const PROGRESS_MS = 400;
let timer = null;
let reindexing = false;

export function init() {
  $("#reindex").addEventListener("click", reindex);
  $("#key-form").addEventListener("submit", createKey);
  $("#secret-hide").addEventListener("click", () => {
    $("#secret").textContent = "";
    $("#secret-box").hidden = true;
  });
  $("#secret-copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("#secret").textContent);
      say($("#keys-msg"), "Copied.");
    } catch {
      say($("#keys-msg"), "Copy it by hand: the browser refused the clipboard.", "error");
    }
  });
  $("#qd-form").addEventListener("submit", saveQdrant);
  $("#q-health").addEventListener("click", qdrantHealth);
  $("#q-cleanup").addEventListener("click", qdrantCleanup);
  $("#qs-form").addEventListener("submit", qdrantSearch);
}

export function enter() {
  status();
  keys();
  qdrantSettings();
  clearInterval(timer);
  timer = setInterval(() => { if (!reindexing) status(); }, LIVE_MS);
}

export function leave() {
  clearInterval(timer);
  timer = null;
}

function chip(name, state, detail) {
  const label = { on: "active", off: "off", bad: "failing", idle: "ready" }[state];
  return h("li", { class: `chip ${state}` }, h("strong", {}, name), ` ${label}`, detail ? h("small", {}, ` · ${detail}`) : null);
}

export async function status() {
  let s;
  try {
    s = await api("GET", "api/memory/engine-status");
  } catch (error) {
    sayError($("#engine-msg"), error);
    return null;
  }
  say($("#engine-msg"), "");
  const vs = s.vectorStore;
  const q = s.qdrant;
  $("#chips").replaceChildren(
    chip("FTS5", s.keywordTier.available ? "on" : "bad", s.keywordTier.available ? "keyword search" : "unavailable: chronological order"),
    chip("libSQL vectors", !s.embeddingSource ? "off" : vs.active === "libsql" ? "on" : "idle", s.embeddingSource ? (vs.dimension ? `${vs.dimension}-d` : "no vectors yet") : "no embedder"),
    chip("Qdrant", !q.enabled ? "off" : q.healthy === false ? "bad" : "on", q.enabled ? `${q.mode}${q.error ? `: ${q.error}` : q.points !== null ? `, ${q.points} points` : ""}` : "not enabled"),
    chip("Rerank", s.rerankEnabled ? "on" : "off", s.rerankEnabled ? "remote rerank" : "not enabled"),
    chip("Extractor", extractorState(s.extractor), s.extractor?.mode || "rules"),
  );
  $("#tiers-at").textContent = `live · ${new Date().toLocaleTimeString()}`;
  const provider = s.embeddingProviders.find((p) => p.source === s.embeddingSource);
  const pairs = [
    ["Source", s.embeddingSource || "none: keyword only"],
    ["Configured", s.embeddingConfigured || "none"],
    ["Model", provider?.model || "–"],
    ["Signature", vs.signature || "–"],
    ["Vector store", `${vs.active || "none"} (setting: ${vs.requested})`],
    ["Pending", `${vs.pendingReindex} of ${vs.totalMemories}`],
  ];
  if (s.embeddingUnavailable) pairs.push(["Unavailable", s.embeddingUnavailable]);
  pairs.push(["Learning", learning(s.extractor)]);
  for (const f of s.failures) pairs.push([`${f.component} failing`, `${f.error} (${f.count}×, ${when(f.at)})`]);
  // Retrievals answered with a part failing since this process started (each one is also
  // a "retrieval degraded" log line, which the deployed stack counts and alarms on).
  pairs.push(["Degraded retrievals", String(s.degradedRetrievals ?? 0)]);
  $("#embedding").replaceChildren(...pairs.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  progress(vs.totalMemories, vs.pendingReindex);
  backends(s.backends);
  return s;
}

function extractorState(x) {
  if (!x || x.mode === "rules") return "on";
  return x.failed && x.failed >= x.calls ? "bad" : "on";
}

// Which extractor learns from chats and what it costs: the rules are offline and free; a
// model is called only for the turns the cost gate passes, within a daily token budget.
function learning(x) {
  if (!x || x.mode === "rules") return "rules: offline, no cost";
  const budget = x.dailyTokens ? `${x.dailyTokens.toLocaleString()} tokens per key per day` : "no model calls (budget 0)";
  return `${x.mode} · ${x.model} at ${x.endpoint || "the upstream"} · the cost gate sent ${x.turnsSent} of ${x.turnsRead} turns · ${x.calls} calls, ${x.failed} failed, ${x.tokens.toLocaleString()} tokens since start · ${budget}`;
}

function progress(total, pending) {
  const done = total ? Math.round(((total - pending) / total) * 100) : 100;
  $("#reindex-bar").value = done;
  $("#reindex-bar").setAttribute("aria-valuetext", `${done}%`);
  $("#reindex-text").textContent = total
    ? `${total - pending} of ${total} memories have a current vector (${done}%).`
    : "No memories yet.";
}

async function reindex(event) {
  const force = $("#reindex-force").checked;
  const out = $("#reindex-msg");
  reindexing = true;
  await busy(event.target, out, async () => {
    const result = await api("POST", "api/memory/reindex", { json: { force } });
    if (!result.started) {
      say(out, `Reindex did not start: ${result.reason || "no embedder is available"}.`, "error");
      return;
    }
    say(out, `Reindexing: ${result.processed} embedded now, ${result.pending} to go…`);
    // Follow the background work through the status until nothing is pending.
    let last = -1;
    let still = 0;
    for (;;) {
      const s = await status();
      if (!s) return;
      const pending = s.vectorStore.pendingReindex;
      if (pending === 0) break;
      still = pending === last ? still + 1 : 0;
      if (still > 25) {
        say(out, `Reindex paused with ${pending} pending; the reindex schedule will finish it.`, "error");
        return;
      }
      last = pending;
      await new Promise((resolve) => setTimeout(resolve, PROGRESS_MS));
    }
    say(out, "Reindex complete: every memory has a current vector.");
  });
  reindexing = false;
}

function backends(report) {
  const list = $("#backends");
  if (!report) {
    list.replaceChildren(h("li", { class: "empty" }, "libSQL only."));
    return;
  }
  list.replaceChildren(...report.backends.map((b) => {
    const dot = b.healthy === null ? "unknown" : b.healthy ? "good" : "bad";
    const text = b.healthy === null ? "not checked" : b.healthy ? `healthy${b.latencyMs !== null ? `, ${b.latencyMs.toFixed(1)} ms` : ""}` : `failing: ${b.error || "unknown"}`;
    const state = h("span", {}, text);
    const light = h("span", { class: `dot ${dot}`, role: "img", "aria-label": text });
    const test = h("button", { type: "button", class: "quiet" }, "Test");
    test.addEventListener("click", () => busy(test, $("#be-msg"), async () => {
      const r = await api("POST", `api/settings/backends/${encodeURIComponent(b.name)}/test`);
      state.textContent = r.healthy ? `healthy, ${r.latencyMs?.toFixed(1) ?? "?"} ms` : `failing: ${r.error || "unknown"}`;
      light.className = `dot ${r.healthy ? "good" : "bad"}`;
      light.setAttribute("aria-label", state.textContent);
    }));
    return h("li", {}, h("div", { class: "info" }, light,
      h("strong", {}, b.name), h("span", { class: "badge" }, `${b.kind} · ${b.role}`), state), test);
  }));
}

async function keys() {
  let all;
  try {
    all = await loadKeyIds();
  } catch (error) {
    sayError($("#keys-msg"), error);
    return;
  }
  $("#keys").replaceChildren(...all.map((k) => {
    const revoke = h("button", { type: "button", class: "quiet danger-text" }, "Revoke");
    revoke.addEventListener("click", async () => {
      if (!(await confirmDialog(`Revoke the key "${k.name}"? Apps using it stop authenticating; its memories stay.`, "Revoke"))) return;
      await busy(revoke, $("#keys-msg"), async () => {
        await api("DELETE", `api/keys/${encodeURIComponent(k.id)}`);
        say($("#keys-msg"), `Revoked ${k.name}.`);
        keys();
      });
    });
    return h("li", { class: k.revokedAt ? "revoked" : "", dataset: { id: k.id } },
      h("div", { class: "info" },
        h("strong", {}, k.name),
        h("code", {}, `${k.prefix}…`),
        h("span", { class: "small" }, `id ${k.id}`),
        h("span", { class: "small" }, k.revokedAt ? `revoked ${when(k.revokedAt)}` : k.lastUsedAt ? `used ${when(k.lastUsedAt)}` : "never used")),
      k.revokedAt ? null : revoke);
  }));
  if (!all.length) $("#keys").append(h("li", { class: "empty" }, "No keys yet: create one for your app."));
}

async function createKey(event) {
  event.preventDefault();
  const { name } = formData(event.target);
  await busy(event.submitter, $("#keys-msg"), async () => {
    const created = await api("POST", "api/keys", { json: { name } });
    $("#secret").textContent = created.secret;
    $("#secret-box").hidden = false;
    $("#k-name").value = "";
    say($("#keys-msg"), `Created ${created.name} (id ${created.id}).`);
    keys();
  });
}

async function qdrantSettings() {
  try {
    const q = await api("GET", "api/settings/qdrant");
    const form = $("#qd-form");
    form.enabled.checked = q.enabled;
    form.https.checked = q.https;
    form.host.value = q.host;
    form.port.value = q.port;
    form.collection.value = q.collection;
    form.quantization.value = q.quantization;
    form.timeoutMs.value = q.timeoutMs;
    form.apiKey.value = "";
    form.apiKey.placeholder = q.hasApiKey ? "a key is set" : "none";
  } catch (error) {
    sayError($("#qd-msg"), error);
  }
}

async function saveQdrant(event) {
  event.preventDefault();
  const form = event.target;
  const data = formData(form);
  const body = {
    enabled: form.enabled.checked,
    https: form.https.checked,
    host: data.host,
    port: Number(data.port),
    collection: data.collection,
    quantization: data.quantization,
    timeoutMs: Number(data.timeoutMs),
  };
  if (data.apiKey) body.apiKey = data.apiKey;
  await busy(event.submitter, $("#qd-msg"), async () => {
    await api("PUT", "api/settings/qdrant", { json: body });
    say($("#qd-msg"), "Qdrant settings saved.");
    qdrantSettings();
    status();
  });
}

async function qdrantHealth(event) {
  await busy(event.target, $("#qd-msg"), async () => {
    const r = await api("GET", "api/settings/qdrant/health");
    say($("#qd-msg"), r.ok ? `Qdrant is healthy (${r.latencyMs.toFixed(1)} ms, ${r.points ?? 0} points).` : `Qdrant is not healthy: ${r.error || "unknown error"}`, r.ok ? "ok" : "error");
  });
}

async function qdrantCleanup(event) {
  await busy(event.target, $("#qd-msg"), async () => {
    const counted = await api("POST", "api/settings/qdrant/cleanup", { json: { dryRun: true } });
    if (!counted.count) {
      say($("#qd-msg"), "No expired or too-old points to clean up.");
      return;
    }
    if (!(await confirmDialog(`Delete ${counted.count} expired or too-old points from Qdrant?`, "Delete points"))) return;
    const done = await api("POST", "api/settings/qdrant/cleanup", { json: { dryRun: false } });
    say($("#qd-msg"), `Deleted ${done.count} points.`);
  });
}

async function qdrantSearch(event) {
  event.preventDefault();
  const { query } = formData(event.target);
  await busy(event.submitter, $("#qd-msg"), async () => {
    const hits = await api("POST", "api/settings/qdrant/search", { json: { query, topK: 10 } });
    $("#qd-hits").replaceChildren(...hits.map((hit) => h("li", {},
      h("span", { class: "badge" }, hit.score.toFixed(3)), ` ${hit.content ?? hit.memoryId}`,
      h("span", { class: "small" }, ` · ${hit.key ?? ""} · key ${hit.apiKeyId ?? "?"}`))));
    if (!hits.length) $("#qd-hits").append(h("li", { class: "empty" }, "No points matched."));
  });
}
