/**
 * SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, as lowercase hex, in plain JavaScript.
 * Pushes hash thousands of short texts synchronously; for texts of a few hundred bytes the
 * per-call cost of `node:crypto` (an object, two crossings into native code, a hex string)
 * outweighs the compression itself, which the JIT runs well. Long texts go to `node:crypto`.
 * Checked against `node:crypto` in test/site/fingerprint.test.ts.
 */
import { createHash } from "node:crypto";

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
  0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
  0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
  0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** Texts up to this many UTF-8 bytes are hashed here; longer ones by node:crypto. */
const MAX_JS_BYTES = 4096;
const encoder = new TextEncoder();
// Room for the longest text hashed here (UTF-8 is at most 3 bytes per UTF-16 unit) plus padding.
const buffer = new Uint8Array(3 * MAX_JS_BYTES + 128);
const W = new Int32Array(64);
const H = new Int32Array(8);
/** The character codes of the hex digest, made into one flat string by one String.fromCharCode call. */
const hexCodes: number[] = new Array(64).fill(0);
const HEX_DIGITS = "0123456789abcdef";

/**
 * The compression of `blocks` 64-byte blocks of `buffer` into H. One loop per block: the
 * message schedule is made as the rounds use it (first 16 words read from the buffer), and the
 * choice and majority functions take their three-operation forms; about a tenth faster than
 * a schedule loop before the rounds (measured in Node on 5,000 texts of 120 characters).
 */
function compress(blocks: number) {
  let h0 = 0x6a09e667 | 0,
    h1 = 0xbb67ae85 | 0,
    h2 = 0x3c6ef372 | 0,
    h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f | 0,
    h5 = 0x9b05688c | 0,
    h6 = 0x1f83d9ab | 0,
    h7 = 0x5be0cd19 | 0;
  for (let off = 0, end = blocks * 64; off < end; off += 64) {
    let a = h0,
      b = h1,
      c = h2,
      d = h3,
      e = h4,
      f = h5,
      g = h6,
      h = h7;
    for (let i = 0; i < 64; i++) {
      let w: number;
      if (i < 16) {
        const p = off + i * 4;
        w = (buffer[p] << 24) | (buffer[p + 1] << 16) | (buffer[p + 2] << 8) | buffer[p + 3];
      } else {
        const w15 = W[i - 15],
          w2 = W[i - 2];
        const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
        const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
        w = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
      }
      W[i] = w;
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + (g ^ (e & (f ^ g))) + K[i] + w) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (c & (a ^ b)))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  H[0] = h0;
  H[1] = h1;
  H[2] = h2;
  H[3] = h3;
  H[4] = h4;
  H[5] = h5;
  H[6] = h6;
  H[7] = h7;
}

export function fingerprintDigest(text: string): string {
  if (text.length > MAX_JS_BYTES) return createHash("sha256").update(text, "utf8").digest("hex");
  // Lone surrogates become U+FFFD, as node:crypto's "utf8" encoding does.
  const n = encoder.encodeInto(text, buffer).written;
  buffer[n] = 0x80;
  const blocks = ((n + 8) >>> 6) + 1;
  const end = blocks * 64;
  buffer.fill(0, n + 1, end - 4);
  // Message length in bits, big-endian 64-bit (texts here are far below 2^32 bits).
  const bits = n * 8;
  buffer[end - 4] = bits >>> 24;
  buffer[end - 3] = bits >>> 16;
  buffer[end - 2] = bits >>> 8;
  buffer[end - 1] = bits;
  compress(blocks);
  // One flat string: 32 concatenations would build a rope that SQLite's binding flattens again.
  for (let i = 0; i < 8; i++) {
    const v = H[i];
    for (let j = 0; j < 8; j++) hexCodes[i * 8 + j] = HEX_DIGITS.charCodeAt((v >>> (28 - 4 * j)) & 15);
  }
  return String.fromCharCode.apply(null, hexCodes);
}
