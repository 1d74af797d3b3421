// The Playground tab: a retrieval preview, ranked, with its resolution and the block that
// would be injected into a chat.
import { api } from "./api.js";
import { $, busy, formData, h } from "./dom.js";
import { loadKeyIds } from "./keyids.js";

export function init() {
  $("#pg-form").addEventListener("submit", preview);
  $("#p-scope").addEventListener("change", () => {
    $("#p-session").required = $("#p-scope").value === "session";
  });
}

export function enter() {}
export function leave() {}

// A secret (shown once at creation) is matched to its key by the prefix the API lists; it
// is never sent anywhere. Anything else is taken as a key id.
async function keyId(given) {
  const keys = await loadKeyIds();
  const byId = keys.find((k) => k.id === given);
  if (byId) return { id: byId.id, label: `${byId.name} (${byId.id})` };
  const bySecret = keys.find((k) => k.prefix && given.length > k.prefix.length && given.startsWith(k.prefix));
  if (bySecret) return { id: bySecret.id, label: `${bySecret.name} (${bySecret.id}), from its secret` };
  return { id: given, label: given };
}

function bar(kind, value, label) {
  const fill = h("span", { class: `fill ${kind}` });
  fill.style.width = `${Math.round(Math.max(0, Math.min(1, value)) * 100)}%`;
  return h("div", { class: "bar-row" },
    h("span", { class: "bar-label" }, label),
    h("span", { class: "track", role: "img", "aria-label": `${label} ${value.toFixed(2)}` }, fill));
}

const fixed = (value) => (value === null || value === undefined ? "–" : value.toFixed(3));

async function preview(event) {
  event.preventDefault();
  const data = formData(event.target);
  await busy(event.submitter, $("#pg-msg"), async () => {
    const key = await keyId(data.key);
    $("#p-key").value = key.id; // a pasted secret does not stay on screen
    const body = { apiKeyId: key.id, query: data.query, strategy: data.strategy, scope: data.scope };
    if (data.sessionId) body.sessionId = data.sessionId;
    if (data.maxTokens !== "") body.maxTokens = Number(data.maxTokens);
    const result = await api("POST", "api/memory/retrieve-preview", { json: body });
    render(result, key, body.maxTokens);
  });
}

// Pin a recalled memory into the profile, or keep a profile memory out of it; the
// preview runs again to show where it now stands.
function pinButton(memory) {
  const pinned = memory.tier !== "profile";
  const label = pinned ? "Pin to profile" : "Unpin";
  const button = h("button", { type: "button", class: "quiet", "aria-label": `${label}: ${memory.content}` }, label);
  button.addEventListener("click", () => busy(button, $("#pg-msg"), async () => {
    await api("PUT", `api/memory/${encodeURIComponent(memory.id)}/pin`, { json: { pinned } });
    $("#pg-form").requestSubmit();
  }));
  return button;
}

function render(result, key, budget) {
  $("#pg-out").hidden = false;
  const r = result.resolution;
  const pairs = [
    ["Key", key.label],
    ["Strategy", r.strategy],
    ["Keyword tier", r.keywordTier],
    ["Embedding source", r.embeddingSource || "none (keyword only)"],
    ["Vector store", r.vectorStore || "none"],
    ["Fell back", r.fallback ? `yes: ${r.reason || "no reason given"}` : "no"],
    ["Degraded", r.degraded.length ? `yes: ${r.degraded.join(", ")} failed, results may be missing` : "no"],
    ["Backend", r.backend],
    ...r.backendFailures.map((f) => [`${f.backend} failed`, f.error]),
    ["Tokens used", budget !== undefined ? `${result.tokensUsed} of ${budget}` : String(result.tokensUsed)],
    ["Profile tokens", `${result.profileTokens} (always injected)`],
    ["Recall tokens", `${result.recallTokens} (relevant to this message)`],
  ];
  $("#resolution").replaceChildren(...pairs.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  const top = Math.max(1e-9, ...result.results.map((m) => m.score));
  const topFts = Math.max(1e-9, ...result.results.map((m) => m.ftsScore || 0));
  let running = 0;
  $("#ranked").replaceChildren(...result.results.map((m) => {
    running += m.tokens;
    return h("li", { class: "hit", "data-tier": m.tier },
      h("p", { class: "content" }, m.content),
      h("p", { class: "meta" },
        h("span", { class: m.tier === "profile" ? "badge profile" : "badge" }, m.tier === "profile" ? "profile" : `recall · ${m.tier}`),
        m.reason ? h("span", { class: "reason" }, m.reason) : null,
        pinButton(m),
        h("span", {}, `score ${fixed(m.score)}`),
        h("span", {}, `keyword ${fixed(m.ftsScore)}`),
        h("span", {}, `vector ${fixed(m.vecScore)}`),
        h("span", {}, `${m.tokens} tokens`),
        h("span", { class: "running" }, `running ${running}${budget !== undefined ? ` / ${budget}` : ""}`)),
      bar("total", m.score / top, "score"),
      bar("kw", (m.ftsScore || 0) / topFts, "keyword"),
      bar("vec", m.vecScore || 0, "vector"));
  }));
  if (!result.results.length) $("#ranked").append(h("li", { class: "empty" }, "Nothing relevant: nothing would be injected."));
  const injected = result.injection.messages.find((m) => typeof m.content === "string" && m.content.includes("Memory context:"));
  $("#block-note").textContent = injected
    ? `Injected as a ${injected.role} message (${result.injection.mode}${result.injection.provider ? `, provider ${result.injection.provider}` : ""}):`
    : "Nothing would be injected: the request goes through unchanged.";
  $("#block").textContent = injected ? injected.content : "";
  $("#block").hidden = !injected;
  $("#messages").textContent = JSON.stringify(result.injection.messages, null, 2);
}
