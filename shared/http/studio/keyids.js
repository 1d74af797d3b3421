import { api } from "./api.js";
import { $, h } from "./dom.js";

// Key names by id, as last loaded: memories are owned by ids, people know keys by name.
const names = new Map();

// The API keys, and their ids as suggestions in every "API key id" field.
export async function loadKeyIds() {
  const keys = await api("GET", "api/keys");
  names.clear();
  for (const k of keys) names.set(k.id, k.name);
  $("#key-ids").replaceChildren(
    ...keys.filter((k) => !k.revokedAt).map((k) => h("option", { value: k.id }, k.name)),
  );
  return keys;
}

// "laptop (key_1a2b...)" for a known key, the bare id for any other owner.
export function keyLabel(id) {
  const name = names.get(id);
  return name ? `${name} (${id})` : id;
}
