// What the site's scripts (src/exochess/web/static) put on `window`, for tsc's checks only
// (`make lint`); nothing here is served.
import type { AnalysisPage } from "../src/exochess/web/static/analysis.js";
import type { ChatBox } from "../src/exochess/web/static/chat.js";
import type { BoardEditor } from "../src/exochess/web/static/editor.js";
import type { GamePage } from "../src/exochess/web/static/game.js";
import type { LessonPage } from "../src/exochess/web/static/lessons.js";
import type { LobbyPage } from "../src/exochess/web/static/lobby.js";
import type { PuzzlePage } from "../src/exochess/web/static/puzzles.js";

declare global {
  interface Window {
    /** Each game's piece glyphs, from the page's JSON (glyphs.js, a classic script). */
    EXOCHESS_GLYPHS: { [variant: string]: { [letter: string]: string } };
    /** Older Safari's name for AudioContext (sound.js). */
    webkitAudioContext?: typeof AudioContext;
    /** The page's controller, for the browser tests and the console. */
    exochessGame?: GamePage;
    exochessChat?: ChatBox;
    exochessLobby?: LobbyPage;
    exochessAnalysis?: AnalysisPage;
    exochessEditor?: BoardEditor;
    exochessLesson?: LessonPage;
    exochessPuzzle?: PuzzlePage;
  }
}
