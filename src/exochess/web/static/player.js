// @ts-check
// Who this browser plays as, without an account: a random player token (it proves which
// challenges are its own) and a display name, both kept in localStorage.  An account's name
// and id take their place once there are accounts.
const KEY = "exochess:player";
const NOUNS = ["Archer", "Swapper", "Pushme", "Chameleon", "Coordinator", "Immobilizer", "Withdrawer",
  "Longleaper", "Pincer", "Rebel", "Fury", "Knight", "Rook", "Bishop", "Queen", "Herald", "Warden"];

/** @typedef {{token: string, name: string}} Player */

/** @returns {string} */
function randomToken() {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  // base64url without padding: 24 characters of A-Z a-z 0-9 - _
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** @returns {string} */
export function generatedName() {
  const n = new Uint32Array(2);
  crypto.getRandomValues(n);
  return `Anonymous ${NOUNS[n[0] % NOUNS.length]} ${1000 + (n[1] % 9000)}`;
}

/** @returns {Player} */
export function player() {
  let data = null;
  try { data = JSON.parse(localStorage.getItem(KEY) || "null"); } catch { data = null; }
  if (!data || typeof data.token !== "string" || typeof data.name !== "string") {
    data = { token: randomToken(), name: generatedName() };
    localStorage.setItem(KEY, JSON.stringify(data));
  }
  return data;
}

/** @param {string} name @returns {Player} */
export function setPlayerName(name) {
  const data = player();
  data.name = name;
  localStorage.setItem(KEY, JSON.stringify(data));
  return data;
}
