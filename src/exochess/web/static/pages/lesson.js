// @ts-check
// A lesson stage's page.
import { LessonPage } from "/static/lessons.js";
import { pageData } from "/static/pagedata.js";

window.exochessLesson = new LessonPage(/** @type {HTMLElement} */ (document.getElementById("lesson")), pageData("lesson-data"), pageData("variants"));
