// @ts-check
// The one way the pages call the JSON API: a JSON body in, the JSON reply out; a failed
// request throws an Error carrying the server's message ({"error": ...}) or the HTTP status.
import { t } from "/static/i18n.js";

/**
 * @param {string} method
 * @param {string} url
 * @param {unknown} [body]
 * @returns {Promise<any>} the reply's JSON
 */
export async function api(method, url, body) {
  /** @type {RequestInit & {headers?: {[name: string]: string}}} */
  const init = { method };
  // the server accepts only JSON for anything that is not a GET (a cross-site form cannot send it)
  if (body !== undefined || method !== "GET") {
    init.headers = { "Content-Type": "application/json" };
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  const res = await fetch(url, init);
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new Error((data && data.error) || t("The server answered with HTTP status {status}.", { status: res.status }));
  return data;
}

export const getJSON = (/** @type {string} */ url) => api("GET", url);
/** @param {string} url @param {unknown} [body] */
export const postJSON = (url, body) => api("POST", url, body);
