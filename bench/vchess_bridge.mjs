#!/usr/bin/env node
// The vchess bot as an engine-protocol player: an outside anchor for the level ladder.
//
//     VCHESS_DIR=/path/to/vchess node bench/vchess_bridge.mjs
//     exochess match fugue --a 2 --b "cmd:node bench/vchess_bridge.mjs" --games 20
//
// vchess (https://github.com/yagu0/vchess, the site whose Fugue and Interweave pages our
// rules start from) plays against a person with a small bot in its browser client:
// `getComputerMove()` of `client/src/base_rules.js` (a two-ply material minimax, random among
// equal moves) as each variant's rules class sets it up (`client/src/variants/Fugue.js` keeps
// it at depth 2; `Interweave.js` replaces it with a random legal turn).  This script loads
// those rules and that bot from a vchess checkout (VCHESS_DIR; nothing of vchess is in this
// repository), keeps a vchess game in step with the moves it is sent, and answers `go` with
// the bot's move written in our move text (RULES.md 0.5, docs/formats.md).
//
// The protocol understood is what a match sends (docs/protocol.md): uci, isready,
// setoption name Variant value fugue|interweave (other options are ignored), ucinewgame,
// position startpos [moves ...], go ... (budgets ignored: the bot has none), quit.
// A move that vchess's rules do not have (where our rules chose otherwise, RULES.md section 4)
// is put on vchess's board as written and noted on stderr (and in VCHESS_BRIDGE_LOG if set).
//
// The bot draws its random choices from Math.random; here that is a generator seeded by the
// game and the position, so a match replays identically.

import { spawn } from "node:child_process";
import { appendFileSync, existsSync } from "node:fs";
import { register } from "node:module";
import path from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const dir = process.env.VCHESS_DIR;
if (!dir) {
  process.stderr.write("vchess_bridge: set VCHESS_DIR to a checkout of github.com/yagu0/vchess\n");
  process.exit(2);
}
const SRC = pathToFileURL(path.join(path.resolve(dir), "client", "src") + path.sep).href;

// vchess's sources are ES modules importing "@/..." (its webpack alias for client/src) in
// files that Node would read as CommonJS: these hooks resolve the alias and load them as modules.
const HOOKS = `
let src;
export async function initialize(data) { src = data.src; }
export async function resolve(specifier, context, next) {
  if (specifier.startsWith("@/")) {
    const rest = specifier.slice(2);
    return { url: new URL(rest.endsWith(".js") ? rest : rest + ".js", src).href, shortCircuit: true };
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url.startsWith(src)) {
    const { readFile } = await import("node:fs/promises");
    return { format: "module", source: await readFile(new URL(url)), shortCircuit: true };
  }
  return next(url, context);
}
`;
register("data:text/javascript," + encodeURIComponent(HOOKS), { data: { src: SRC } });

const noted = new Set();

/** A line to stderr and, when VCHESS_BRIDGE_LOG names a file, to that file (a match hides stderr); once. */
function note(text) {
  if (noted.has(text)) return; // each position replays the game: say it once
  noted.add(text);
  process.stderr.write(`vchess_bridge: ${text}\n`);
  if (process.env.VCHESS_BRIDGE_LOG) appendFileSync(process.env.VCHESS_BRIDGE_LOG, `${text}\n`);
}

// Our rules decide which of the bot's moves are legal: where vchess allows what ours do not
// (RULES.md section 4: a Swapper swapping with the enemy Swapper, F-A6), the bot chooses among
// the moves both allow.  A small Python helper lists our legal moves (exochess's Board).
const HELPER = `
import sys
from exochess.board import Board
for line in sys.stdin:
    words = line.split()
    board = Board(words[0])
    for text in words[1:]:
        board.push_text(text)
    print(" ".join(str(m) for m in board.legal_moves), flush=True)
`;
const ROOT = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const PYTHON =
  process.env.EXOCHESS_PYTHON ?? (existsSync(path.join(ROOT, ".venv/bin/python")) ? path.join(ROOT, ".venv/bin/python") : "python3");

/** Our legal moves (texts) after `moves` in `variant`, from the helper. */
class OurRules {
  constructor() {
    this.process = spawn(PYTHON, ["-c", HELPER], { stdio: ["pipe", "pipe", "inherit"] });
    this.lines = createInterface({ input: this.process.stdout, terminal: false })[Symbol.asyncIterator]();
  }

  async legal(variant, moves) {
    this.process.stdin.write(`${variant} ${moves.join(" ")}\n`);
    const { value } = await this.lines.next();
    return new Set((value ?? "").split(" ").filter(Boolean));
  }

  close() {
    this.process.stdin.end();
  }
}

const RULES = {
  fugue: ["variants/Fugue.js", "FugueRules"],
  interweave: ["variants/Interweave.js", "InterweaveRules"],
};

/** The rules class of `variant`, installed as vchess's global `V` (its code refers to it). */
async function loadRules(variant) {
  const [file, name] = RULES[variant];
  const module = await import(new URL(file, SRC).href);
  globalThis.V = module[name];
  return module[name];
}

const { Move, PiPo } = await import(new URL("base_rules.js", SRC).href);

/** A small seeded generator (mulberry32) in place of Math.random. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a string: the seed of a position's choices. */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Squares sorted as our move text lists victims: by file, then by rank (numerically). */
function sortSquares(squares) {
  return [...squares].sort((a, b) => a.charCodeAt(0) - b.charCodeAt(0) || parseInt(a.slice(1), 10) - parseInt(b.slice(1), 10));
}

/**
 * Our text (RULES.md 0.5) of one vchess move (a Fugue move, an Interweave action) by `mover`.
 *
 * vchess writes a move as what vanishes and what appears; our text says where the piece goes
 * and which enemy pieces it removes.
 */
function actionText(V, variant, move, mover) {
  const square = (c) => V.CoordsToSquare(c);
  const from = square(move.start);
  const to = square(move.end);
  // A set: vchess's Interweave Leaper can list the piece it jumps twice among what vanishes.
  const victims = sortSquares(new Set(move.vanish.filter((p) => p.c !== mover).map(square)));
  if (move.appear.length === 0) {
    if (variant === "interweave") return `${from}@(${victims.join(",")})`; // Remover fire
    // Fugue: the Swapper's mutual destruction takes itself too; the Archer's shot does not.
    return move.vanish.some((p) => p.c === mover) ? `${from}*${to}` : `${from}@${to}`;
  }
  if (variant === "fugue" && move.appear.length === 2) return `${from}~${to}`; // swap
  let text = from + (victims.length ? "x" : "-") + to;
  if (victims.some((v) => v !== to)) text += `(${victims.join(",")})`;
  const moved = move.vanish.find((p) => p.c === mover);
  if (moved && move.appear[0].p !== moved.p) text += "=" + move.appear[0].p.toUpperCase();
  return text;
}

/** The actions of an Interweave turn: split at the commas outside a victim list's brackets. */
function splitTurn(text) {
  const actions = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    else if (text[i] === "," && depth === 0) {
      actions.push(text.slice(start, i));
      start = i + 1;
    }
  }
  actions.push(text.slice(start));
  return actions;
}

/** A vchess game kept in step with our move texts. */
class Game {
  constructor(V, variant) {
    this.V = V;
    this.variant = variant;
    this.rules = new V(V.GenRandInitFen({ randomness: 0 }));
    this.unknown = 0;
  }

  /** The vchess moves a player may make now: a whole move, or the next action of a chain. */
  candidates(previous) {
    if (previous && !previous.last) {
      return this.V.KeepCaptures(this.rules.getPotentialMovesFrom([previous.end.x, previous.end.y]));
    }
    return this.rules.getAllValidMoves();
  }

  /** Plays our text `text` (a move, or an Interweave turn of actions); throws if vchess has no such move. */
  play(text) {
    const mover = this.rules.turn;
    let previous = null;
    for (const action of this.variant === "interweave" ? splitTurn(text) : [text]) {
      const wanted = action.trim();
      const found = this.candidates(previous).find((m) => actionText(this.V, this.variant, m, mover) === wanted);
      const move = found ?? this.written(wanted, mover);
      if (!found) {
        this.unknown += 1;
        note(`${wanted} is not a vchess move in ${this.rules.getFen()}; played as written`);
      }
      this.rules.play(move);
      previous = move;
    }
  }

  /**
   * A vchess move built from our text of one action, for a move its rules do not have.
   *
   * Where our rules chose otherwise than vchess (RULES.md section 4: a Pushme-Pullyu that
   * could take on both ends chooses one, where vchess forbids the move), the move is put on
   * vchess's board as our text says, so that its bot goes on playing from the true position.
   */
  written(text, mover) {
    const V = this.V;
    const at = (square) => V.SquareToCoords(square);
    const piece = (c) => new PiPo({ x: c.x, y: c.y, c: this.rules.getColor(c.x, c.y), p: this.rules.getPiece(c.x, c.y) });
    const fire = /^([a-l]\d+)@\(([^)]*)\)$/.exec(text);
    if (fire) {
      // Interweave Remover: the victims in brackets go, the Remover stays (vchess ends such a
      // move on a victim's square).
      const victims = fire[2].split(",").map(at);
      return new Move({ start: at(fire[1]), end: victims[0], appear: [], vanish: victims.map(piece) });
    }
    const match = /^([a-l]\d+)([-x~*@])([a-l]\d+)(?:\(([^)]*)\))?(?:=([A-Za-z]))?$/.exec(text);
    if (!match) throw new Error(`cannot read the move ${text}`);
    const [, fromText, sign, toText, listed, promotion] = match;
    const from = at(fromText);
    const to = at(toText);
    if (sign === "@") return new Move({ start: from, end: to, appear: [], vanish: [piece(to)] });
    if (sign === "*") return new Move({ start: from, end: to, appear: [], vanish: [piece(from), piece(to)] });
    const mine = piece(from);
    if (sign === "~") {
      const theirs = piece(to);
      return new Move({
        start: from,
        end: to,
        appear: [new PiPo({ ...to, c: mover, p: mine.p }), new PiPo({ ...from, c: theirs.c, p: theirs.p })],
        vanish: [mine, theirs],
      });
    }
    const victims = listed ? listed.split(",").map(at) : sign === "x" ? [to] : [];
    const arrived = new PiPo({ x: to.x, y: to.y, c: mover, p: promotion ? promotion.toLowerCase() : mine.p });
    return new Move({ start: from, end: to, appear: [arrived], vanish: [mine, ...victims.map(piece)] });
  }

  /** The bot's move in our text among `legal` (our legal moves), or null when there is none. */
  botMove(legal) {
    const mover = this.rules.turn;
    if (this.variant === "fugue") {
      const allowed = this.rules.getAllValidMoves().filter((m) => legal.has(actionText(this.V, this.variant, m, mover)));
      const choice = allowed.length ? this.rules.getComputerMove(allowed) : null;
      return choice ? actionText(this.V, this.variant, choice, mover) : null;
    }
    // Interweave's bot plays a random turn: draw again while ours forbid it (rare: vchess's
    // pawns promote otherwise), then take a random legal turn of ours.
    for (let tries = 0; tries < 50; tries++) {
      const text = this.turnText(mover);
      if (text === null || legal.has(text)) return text;
    }
    const ours = [...legal].sort();
    note(`no turn of the bot's is legal in ours after 50 draws; a random legal turn instead`);
    return ours.length ? ours[Math.floor(Math.random() * ours.length)] : null;
  }

  /** The text of one turn drawn by vchess's Interweave bot (null when it has none). */
  turnText(mover) {
    const choice = this.rules.getComputerMove();
    if (!choice) return null;
    const actions = Array.isArray(choice) ? choice : [choice];
    const texts = [];
    const played = [];
    for (const move of actions) {
      texts.push(actionText(this.V, this.variant, move, mover));
      this.rules.play(move);
      played.push(move);
      // vchess's random Interweave chain goes on after taking the second King; the game (and
      // so the turn) ends there in both rules, so the rest is not part of the move.
      if (this.rules.getCurrentScore() !== "*") break;
    }
    for (let i = played.length - 1; i >= 0; i--) this.rules.undo(played[i]);
    return texts.join(",");
  }
}

async function main() {
  const say = (line) => process.stdout.write(line + "\n");
  let variant = "fugue";
  let V = await loadRules(variant);
  let game = new Game(V, variant);
  let position = "";
  let broken = null;
  let played = [];
  const ours = new OurRules();
  const input = createInterface({ input: process.stdin, terminal: false });
  for await (const line of input) {
    const words = line.trim().split(/\s+/);
    const command = words[0];
    if (command === "quit") break;
    if (command === "uci") {
      say("id name vchess bot (bridge)");
      say("id author yagu0/vchess, bridged by exochess");
      say("option name Variant type combo default fugue var fugue var interweave");
      say("uciok");
    } else if (command === "isready") {
      say("readyok");
    } else if (command === "setoption" && words.length >= 5 && words[2].toLowerCase() === "variant") {
      const wanted = words[4].toLowerCase();
      if (!(wanted in RULES)) {
        say(`info string error vchess bridge plays fugue and interweave, not ${wanted}`);
        continue;
      }
      variant = wanted;
      V = await loadRules(variant);
      game = new Game(V, variant);
    } else if (command === "ucinewgame") {
      game = new Game(V, variant);
    } else if (command === "position") {
      position = line.trim();
      game = new Game(V, variant);
      broken = null;
      if (words[1] !== "startpos") {
        broken = "the bridge knows only 'position startpos [moves ...]'";
        say(`info string error ${broken}`);
        continue;
      }
      const at = words.indexOf("moves");
      try {
        // Our Interweave turns may be written with spaces after commas: rejoin them.
        const moves = at < 0 ? [] : words.slice(at + 1).join(" ").replace(/,\s+/g, ",").split(" ");
        played = moves.filter(Boolean);
        for (const text of played) game.play(text);
      } catch (error) {
        broken = error.message;
        say(`info string error ${broken}`);
      }
    } else if (command === "go") {
      if (broken) {
        say("bestmove (none)");
        continue;
      }
      Math.random = seeded(hash(`${variant} ${position}`));
      const text = game.botMove(await ours.legal(variant, played));
      say(`info depth ${variant === "fugue" ? V.SEARCH_DEPTH : 1}`);
      say(`bestmove ${text ?? "(none)"}`);
    }
    // Anything else (stop, setoption Level/Hash...) has nothing to do: the bot answers at once.
  }
  ours.close();
}

await main();
