// Every call goes through the public REST API with the admin token, which lives in
// sessionStorage only: never in a URL, a cookie or localStorage.
const TOKEN = "engram.studio.adminToken";

export const token = {
  get: () => sessionStorage.getItem(TOKEN) || "",
  set: (value) => sessionStorage.setItem(TOKEN, value),
  clear: () => sessionStorage.removeItem(TOKEN),
};

export class ApiError extends Error {
  constructor(status, message, details = [], param = null) {
    super(message);
    this.status = status;
    this.details = details;
    this.param = param;
  }
}

// Relative to the page (/studio), so a deployment under a stage prefix works too.
function url(path, query) {
  const target = new URL(path, document.baseURI);
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") target.searchParams.set(name, value);
  }
  return target;
}

async function failure(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: the status says enough
  }
  const error = body && body.error ? body.error : {};
  const message = error.message || `${response.status} ${response.statusText || "error"}`;
  return new ApiError(response.status, message, error.details || [], error.param || null);
}

// fetch with the token; JSON in, JSON out. { raw: true } returns the Response itself.
export async function api(method, path, { query, json, body, type, raw } = {}) {
  const headers = { Authorization: `Bearer ${token.get()}` };
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  } else if (type) {
    headers["Content-Type"] = type;
  }
  let response;
  try {
    response = await fetch(url(path, query), { method, headers, body, cache: "no-store" });
  } catch {
    throw new ApiError(0, "Cannot reach the Engram server. Is it running?");
  }
  if (!response.ok) {
    const error = await failure(response);
    if (response.status === 401) document.dispatchEvent(new CustomEvent("studio:signed-out", { detail: error }));
    throw error;
  }
  if (raw) return response;
  if (response.status === 204) return null;
  return response.json();
}

// One readable line per problem: "item 2, content: String should have at least 1 character".
export function describe(error) {
  const lines = (error.details || []).map((d) => {
    const where = [];
    if (d.index !== undefined && d.index !== null) where.push(`item ${d.index}`);
    if (d.field) where.push(d.field);
    return `${where.join(", ")}${where.length ? ": " : ""}${d.message}`;
  });
  return { message: error.message || String(error), lines };
}
