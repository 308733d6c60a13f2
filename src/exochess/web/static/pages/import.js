// @ts-check
// The PGN import page.
import { ImportPage } from "/static/importpgn.js";

new ImportPage(/** @type {HTMLElement} */ (document.getElementById("import")));
