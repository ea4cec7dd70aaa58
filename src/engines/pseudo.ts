/**
 * Pseudo-localization: a built-in, offline engine that makes untranslated or truncated text
 * visible during development. Letters get accents (so hard-coded strings stand out and
 * fonts are exercised) and prose grows about 30% (the usual growth from English into German
 * or French), while tags, placeholders, URLs and markdown syntax pass through untouched.
 * It does not look at the target language, so every language gets the same output.
 */
import { mapTextOutsideTokens, protect } from "../markup/protect";
import type { EngineEntry } from "./entry";
import type { Engine, EngineRequest } from "./types";

const ACCENTED: Record<string, string> = {
  a: "á",
  b: "ƀ",
  c: "ç",
  d: "ð",
  e: "é",
  f: "ƒ",
  g: "ğ",
  h: "ĥ",
  i: "í",
  j: "ĵ",
  k: "ķ",
  l: "ļ",
  m: "ɱ",
  n: "ñ",
  o: "ó",
  p: "þ",
  q: "ǫ",
  r: "ŕ",
  s: "š",
  t: "ţ",
  u: "ú",
  v: "ṽ",
  w: "ŵ",
  x: "ẋ",
  y: "ý",
  z: "ž",
  A: "Á",
  B: "Ɓ",
  C: "Ç",
  D: "Ð",
  E: "É",
  F: "Ƒ",
  G: "Ğ",
  H: "Ĥ",
  I: "Í",
  J: "Ĵ",
  K: "Ķ",
  L: "Ļ",
  M: "Ṁ",
  N: "Ñ",
  O: "Ó",
  P: "Þ",
  Q: "Ǫ",
  R: "Ŕ",
  S: "Š",
  T: "Ţ",
  U: "Ú",
  V: "Ṽ",
  W: "Ŵ",
  X: "Ẋ",
  Y: "Ý",
  Z: "Ž",
};

/** How much longer prose gets. */
export const PSEUDO_EXPANSION = 0.3;

const LETTER = /\p{L}/u;

/**
 * Accents every ASCII letter and repeats letters so the text grows by PSEUDO_EXPANSION:
 * each character earns 0.3 of a letter, paid out at the next letter once a whole one is due.
 * Repeating letters, rather than padding the ends, keeps leading and trailing whitespace and
 * ending punctuation as they were, so QA stays quiet about them.
 */
export function pseudoLocalizeText(text: string): string {
  let out = "";
  let owed = 0;
  let changed = false;
  for (const char of text) {
    owed += PSEUDO_EXPANSION;
    if (!LETTER.test(char)) {
      out += char;
      continue;
    }
    const accented = ACCENTED[char] ?? char;
    const repeats = Math.floor(owed);
    owed -= repeats;
    out += accented.repeat(1 + repeats);
    changed ||= accented !== char || repeats > 0;
  }
  // Letters without an accented form (other scripts) in a short text: still visibly changed.
  if (!changed) out = out.replace(/\p{L}/u, (letter) => letter + letter);
  return out;
}

/** Pseudo-localizes one segment of any format, keeping its markup byte-identical. */
export function pseudoLocalize(text: string, format: EngineRequest["segments"][number]["format"]): string {
  const protectedText = protect(text, format, "text");
  return protectedText.restore(mapTextOutsideTokens(protectedText.text, pseudoLocalizeText));
}

/** Texts per rehearsed request: PSEUDO_LATENCY_MS is waited once per request of up to this many. */
export const PSEUDO_TEXTS_PER_REQUEST = 50;

export interface PseudoOptions {
  /** Wait per request of up to 50 texts (PSEUDO_LATENCY_MS), to rehearse a real engine's timing. */
  latencyMs?: number;
  /** How to wait (tests pass a recorder). */
  sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** PSEUDO_LATENCY_MS as a whole number of milliseconds ≥ 0 (anything else is 0). */
export function pseudoLatency(raw: string | undefined): number {
  const value = Number(raw ?? 0);
  return Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

export function createPseudoEngine(options: PseudoOptions = {}): Engine {
  const latencyMs = options.latencyMs ?? 0;
  const sleep = options.sleep ?? wait;
  return {
    name: "pseudo",
    origin: "mt",
    limits: { maxSegments: PSEUDO_TEXTS_PER_REQUEST, maxCharacters: 50_000 },
    supports: () => true,
    async translate(request: EngineRequest): Promise<string[]> {
      if (latencyMs > 0) {
        // One rehearsed request per 50 texts, one after another, as a single call would send them.
        for (let i = 0; i < request.segments.length; i += PSEUDO_TEXTS_PER_REQUEST) await sleep(latencyMs);
      }
      return request.segments.map((segment) => pseudoLocalize(segment.text, segment.format));
    },
  };
}

declare module "./types" {
  /** What the pseudo engine reads from the Worker's vars and secrets. */
  interface EngineEnv {
    /** Wait of the pseudo engine per request of up to 50 texts, in ms (default 0). */
    PSEUDO_LATENCY_MS?: string;
  }
}

/** The engine's entry in the registry (registry.ts): it needs no credentials, so it is always configured. */
export const PSEUDO: EngineEntry<"pseudo"> = {
  name: "pseudo",
  label: "Pseudo (testing, offline)",
  concurrency: 8,
  create: (env) => createPseudoEngine({ latencyMs: pseudoLatency(env.PSEUDO_LATENCY_MS) }),
  configuration: () => ({ ok: true, config: null }),
};
