// @ts-check
// Data the server puts in a page as <script type="application/json" id="...">: the browser never
// runs it (the Content-Security-Policy allows no inline script), the page's module reads it here.
/**
 * The JSON in the page's `<script type="application/json" id="{id}">`, or null without one.
 * @param {string} id
 * @returns {any}
 */
export function pageData(id) {
  const el = document.getElementById(id);
  return el ? JSON.parse(el.textContent || "null") : null;
}
