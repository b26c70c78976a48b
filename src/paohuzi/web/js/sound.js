// Sound effects, made with WebAudio (no sound files): a discard, a claim (碰/吃/跑/提/偎), a win.
// The mute switch is kept per device (localStorage `paohuzi.sound`: "on" | "off"; on by default).
// Browsers only let a page play sound after a gesture: the AudioContext is made on the first tap.

const KEY = "paohuzi.sound";
let ctx = null;
let enabled = true;
try {
  enabled = localStorage.getItem(KEY) !== "off";
} catch {
  /* ignore */
}
/** How many sounds were asked for, by kind (the browser tests read it; nothing else does). */
export const played = { discard: 0, claim: 0, win: 0 };

export function soundOn() {
  return enabled;
}

export function setSound(on) {
  enabled = !!on;
  try {
    localStorage.setItem(KEY, enabled ? "on" : "off");
  } catch {
    /* ignore */
  }
}

function audio() {
  if (ctx) return ctx;
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  try {
    ctx = new AC();
  } catch {
    ctx = null;
  }
  return ctx;
}

// The first gesture makes (or resumes) the context.
for (const type of ["pointerdown", "keydown"]) {
  window.addEventListener(
    type,
    () => {
      const ac = audio();
      if (ac && ac.state === "suspended") ac.resume().catch(() => {});
    },
    { capture: true, passive: true },
  );
}

/** One short tone: frequency f (Hz) gliding to f2, starting `at` s from now, lasting `dur` s. */
function tone(ac, { f, f2 = f, at = 0, dur = 0.12, type = "sine", gain = 0.18 }) {
  const t0 = ac.currentTime + at;
  const osc = ac.createOscillator();
  const amp = ac.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(f, t0);
  osc.frequency.exponentialRampToValueAtTime(f2, t0 + dur);
  amp.gain.setValueAtTime(0.0001, t0);
  amp.gain.exponentialRampToValueAtTime(gain, t0 + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(amp).connect(ac.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

/** A card laid down (wood on felt), a claim (two rising notes), a win (a bright arpeggio). */
export function play(kind) {
  if (!(kind in played)) return;
  played[kind] += 1;
  if (!enabled) return;
  const ac = audio();
  if (!ac || ac.state !== "running") return;
  if (kind === "discard") {
    tone(ac, { f: 520, f2: 180, dur: 0.09, type: "triangle", gain: 0.22 });
  } else if (kind === "claim") {
    tone(ac, { f: 440, dur: 0.1, type: "square", gain: 0.07 });
    tone(ac, { f: 660, at: 0.09, dur: 0.14, type: "square", gain: 0.07 });
  } else {
    [523, 659, 784, 1047].forEach((f, i) => tone(ac, { f, at: i * 0.09, dur: 0.28, type: "triangle", gain: 0.16 }));
  }
}

/** The sound for a frame's events, at most one per frame: a claim over a discard (the win sounds with the
 * settlement, `hand_over`). */
export function soundFor(events) {
  let kind = null;
  for (const ev of events || []) {
    if (["peng", "chi", "pao", "ti", "wei"].includes(ev.type)) kind = "claim";
    else if (!kind && ev.type === "discard") kind = "discard";
  }
  if (kind) play(kind);
}
