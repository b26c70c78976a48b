// The lobby HTTP API (docs/protocol.md §2). The token lives in localStorage.

const TOKEN_KEY = "paohuzi.token";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

export function getToken() {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    /* private mode: the token lives as long as the page */
  }
}

export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, "network", String(err && err.message ? err.message : err));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(response.status, error.code || "http_" + response.status, error.message || response.statusText);
  }
  return data;
}

/** Our identity: the stored token's player, or a new guest. */
export async function ensureGuest() {
  if (getToken()) {
    try {
      return await api("GET", "/api/me");
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 401) throw err;
      setToken(null);
    }
  }
  const made = await api("POST", "/api/guests", {});
  setToken(made.token);
  return { player: made.player, room: null };
}
