import { api } from "./api.js";
import { $, h } from "./dom.js";

// The API keys, and their ids as suggestions in every "API key id" field.
export async function loadKeyIds() {
  const keys = await api("GET", "api/keys");
  $("#key-ids").replaceChildren(
    ...keys.filter((k) => !k.revokedAt).map((k) => h("option", { value: k.id }, k.name)),
  );
  return keys;
}
