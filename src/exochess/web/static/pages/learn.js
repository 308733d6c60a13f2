// @ts-check
// /learn and /learn/<game>: each stage's stars, from this browser and the account.
import { loadProgress, showProgress } from "/static/learnprogress.js";

loadProgress().then((progress) => {
  showProgress(document, progress);
  document.body.dataset.progress = "shown";
});
