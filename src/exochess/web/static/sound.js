// @ts-check
// Sounds for a move, a capture and the end of a game, made on the spot with Web Audio
// oscillators (no sound files). The player's choice (on/off) is remembered in localStorage.
const KEY = "exochess:sound";

// Each sound: a few short tones [frequency Hz, start s, length s, wave, peak gain].
/** @type {{[kind: string]: [number, number, number, OscillatorType, number][]}} */
const SOUNDS = {
  move: [[520, 0, 0.07, "triangle", 0.25]],
  capture: [[300, 0, 0.09, "square", 0.12], [190, 0.05, 0.12, "triangle", 0.25]],
  // the other player asks for something (a takeback, a rematch): two rising notes
  offer: [[660, 0, 0.1, "sine", 0.2], [880, 0.12, 0.14, "sine", 0.2]],
  end: [[523, 0, 0.16, "sine", 0.22], [659, 0.14, 0.16, "sine", 0.22], [784, 0.28, 0.3, "sine", 0.22]],
};

/** @returns {boolean} */
export function soundOn() { return localStorage.getItem(KEY) !== "off"; }

/** @param {boolean} on */
export function setSoundOn(on) { localStorage.setItem(KEY, on ? "on" : "off"); }

export class Sound {
  constructor() {
    /** @type {AudioContext | null} */
    this.ctx = null;
    /** @type {string[]} */
    this.played = [];  // the kinds played on this page, newest last (what a test can read)
  }

  // Bind a checkbox to the remembered choice.
  /** @param {HTMLInputElement} checkbox */
  bindSwitch(checkbox) {
    checkbox.checked = soundOn();
    checkbox.addEventListener("change", () => {
      setSoundOn(checkbox.checked);
      if (checkbox.checked) this.play("move");  // a sample, and the user's gesture unlocks audio
    });
  }

  /** @param {string} kind "move", "capture", "end"... (SOUNDS) */
  play(kind) {
    if (!soundOn() || !SOUNDS[kind]) return;
    this.played.push(kind);
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      if (!this.ctx) this.ctx = new Ctx();
      if (this.ctx.state === "suspended") this.ctx.resume().catch(() => {});
      const t0 = this.ctx.currentTime + 0.01;
      for (const [freq, at, length, wave, peak] of SOUNDS[kind]) {
        const osc = this.ctx.createOscillator();
        const gain = this.ctx.createGain();
        osc.type = wave;
        osc.frequency.value = freq;
        // a quick rise and an exponential fall: a click-free "tock"
        gain.gain.setValueAtTime(0.0001, t0 + at);
        gain.gain.exponentialRampToValueAtTime(peak, t0 + at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + length);
        osc.connect(gain).connect(this.ctx.destination);
        osc.start(t0 + at);
        osc.stop(t0 + at + length + 0.02);
      }
    } catch {
      // no audio device: the game goes on silently
    }
  }
}
