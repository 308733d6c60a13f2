// @ts-check
// The analysis page.
import { AnalysisPage } from "/static/analysis.js";
import { pageData } from "/static/pagedata.js";

window.exochessAnalysis = new AnalysisPage(/** @type {HTMLElement} */ (document.getElementById("analysis")), pageData("variants"));
