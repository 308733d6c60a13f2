// @ts-check
// A classic script in <head>, so that the piece glyphs are there before any module draws a board.
// It reads them from the page's <script type="application/json" id="exochess-glyphs">.
(function () {
  const el = document.getElementById("exochess-glyphs");
  window.EXOCHESS_GLYPHS = el ? JSON.parse(el.textContent || "{}") : {};
})();
