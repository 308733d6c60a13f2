// @ts-check
// The scripts' words in the page's language. The server puts a small catalogue of the scripts'
// own texts into every page (<script type="application/json" id="exochess-i18n">, English
// message -> translation); t() looks a text up there and fills its {name} placeholders.
// Texts are written t("...") with a literal first argument so that `make messages` finds them.
/** @type {{[english: string]: string} | null} */
let catalogue = null;

/** @returns {{[english: string]: string}} */
function messages() {
  if (catalogue === null) {
    const el = document.getElementById("exochess-i18n");
    try { catalogue = el ? JSON.parse(el.textContent || "{}") : {}; } catch { catalogue = {}; }
  }
  return catalogue || {};
}

/**
 * `text` in the page's language, its {name} placeholders filled from `values`.
 * @param {string} text
 * @param {{[name: string]: string | number}} [values]
 * @returns {string}
 */
export function t(text, values = {}) {
  const translated = messages()[text] || text;
  return translated.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// A sentence of the library in the page's language: [template, fields] (exochess.phrase, as the
// state's annotations carry it) translated, each field translated too (a piece's name, a side)
// or itself such a sentence; plain text is translated when the catalogue has it.
/**
 * @param {unknown} value
 * @returns {string}
 */
export function tPhrase(value) {
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string") {
    /** @type {{[name: string]: string}} */
    const fields = {};
    for (const [name, field] of Object.entries(value[1] || {})) fields[name] = tPhrase(field);
    return t(value[0], fields);
  }
  return typeof value === "string" ? t(value) : "";
}

// The page's language (<html lang>), for dates and numbers.
/** @returns {string} */
export function pageLanguage() {
  return document.documentElement.lang || "en";
}
