/**
 * The bench's data, shared by the Node driver (request bodies) and the bench objects
 * (seeding): deterministic plain-text segments of about 120 characters, unique per
 * (unit, segment, salt) so that no two segments share a fingerprint.
 */

const WORDS = (
  "the of and to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when " +
  "your can said there use each which she do how their if will up other about out many then them these so some her would make like him into " +
  "time has look two more write go see number way could people my than first water been call who oil its now find long down day did get come"
).split(" ");

/** Characters a segment's text aims at (it ends on a whole word, so it is a few longer). */
export const TEXT_LENGTH = 120;

/** A small, fast, deterministic generator (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The text of segment `s` of unit `u`: a sentence of common words that names its position. */
export function segmentText(u, s, salt = 0) {
  const next = random(u * 7919 + s * 104729 + salt * 1299709 + 1);
  let text = `Item ${u}-${s}-${salt}:`;
  while (text.length < TEXT_LENGTH - 1) text += ` ${WORDS[Math.floor(next() * WORDS.length)]}`;
  return `${text}.`;
}

/**
 * Site-like text for the memory bench (i): words drawn from a vocabulary of 20,000 made-up words
 * of 2–9 random letters, Zipf-distributed as words in natural text are (a few very common
 * words, a long tail), about 90 characters a text. `segmentText`'s 150 common words make every
 * trigram occur in most texts, which natural text does not.
 */
const VOCABULARY = 20_000;
const zipfWord = (() => {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const next = random(20_251_125);
  const words = [];
  // Cumulative Zipf weights (s = 1).
  const cumulative = new Float64Array(VOCABULARY);
  let sum = 0;
  for (let i = 0; i < VOCABULARY; i++) {
    sum += 1 / (i + 1);
    cumulative[i] = sum;
    let w = "";
    const length = 2 + Math.floor(next() * 8);
    for (let k = 0; k < length; k++) w += letters[Math.floor(next() * letters.length)];
    words.push(w);
  }
  return (r) => {
    const x = r * sum;
    let lo = 0;
    let hi = VOCABULARY - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
})();

export function memoryText(u, salt = 0) {
  const next = random(u * 15485863 + salt * 1299709 + 7);
  let text = "";
  while (text.length < 90) text += `${text ? " " : ""}${zipfWord(next())}`;
  return `${text}.`;
}

export const unitKey = (prefix, u) => `${prefix}${String(u).padStart(6, "0")}`;
export const segmentKey = (s) => `field_${String(s).padStart(3, "0")}`;

/** A connector's unit snapshot (PUT /v1/units, one element of a batch). */
export function unitSnapshot(prefix, u, segmentsPerUnit, salt = 0) {
  const segments = [];
  for (let s = 0; s < segmentsPerUnit; s++) segments.push({ key: segmentKey(s), text: segmentText(u, s, salt), format: "plain" });
  return { external_key: unitKey(prefix, u), adapter: "wordpress", label: `Post ${u}`, path: `/posts/${u}`, segments };
}

/** A PUT /v1/units/batch body of `units` units. */
export function batchBody(prefix, units, segmentsPerUnit, salt = 0) {
  const out = [];
  for (let u = 0; u < units; u++) out.push(unitSnapshot(prefix, u, segmentsPerUnit, salt));
  return { units: out };
}
