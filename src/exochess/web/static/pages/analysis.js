// The analysis page.
import { AnalysisPage } from "/static/analysis.js";
import { pageData } from "/static/pagedata.js";

window.exochessAnalysis = new AnalysisPage(document.getElementById("analysis"), pageData("variants"));
