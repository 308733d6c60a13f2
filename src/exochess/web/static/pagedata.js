// Data the server puts in a page as <script type="application/json" id="...">: the browser never
// runs it (the Content-Security-Policy allows no inline script), the page's module reads it here.
export function pageData(id) {
  const el = document.getElementById(id);
  return el ? JSON.parse(el.textContent) : null;
}
