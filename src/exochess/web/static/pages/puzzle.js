// @ts-check
// A puzzle page: /puzzles/<game>, its streak, its daily puzzle, one puzzle by id.
import { pageData } from "/static/pagedata.js";
import { PuzzlePage } from "/static/puzzles.js";

window.exochessPuzzle = new PuzzlePage(/** @type {HTMLElement} */ (document.getElementById("puzzle")), pageData("puzzle-data"), pageData("variants"));
