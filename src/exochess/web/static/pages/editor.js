// @ts-check
// The board editor page.
import { BoardEditor } from "/static/editor.js";
import { pageData } from "/static/pagedata.js";

window.exochessEditor = new BoardEditor(/** @type {HTMLElement} */ (document.getElementById("editor")), pageData("variants"));
