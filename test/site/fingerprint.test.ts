// The fingerprint is documented (docs/interface.md): SHA-256 of the UTF-8 text after NFC and CRLF → LF.
// The service computes it with its own SHA-256 and shortcuts; node:crypto is the reference.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../src/site/fingerprint";
import { fingerprintDigest as sha256Hex } from "../../src/site/sha256";

const reference = (text: string) => createHash("sha256").update(text.replace(/\r\n/g, "\n").normalize("NFC"), "utf8").digest("hex");

describe("fingerprint", () => {
  it("matches node:crypto for known vectors and every length around the block boundaries", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    for (let n = 0; n < 300; n++) {
      const s = "x".repeat(n);
      expect(sha256Hex(s), String(n)).toBe(createHash("sha256").update(s, "utf8").digest("hex"));
    }
    for (const n of [4095, 4096, 4097, 10_000, 100_000]) expect(fingerprint("é".repeat(n)), String(n)).toBe(reference("é".repeat(n)));
  });

  it("matches the reference on odd Unicode: CRLF, decomposed marks, astral, lone surrogates, Latin-1", () => {
    const cases = ["a\r\nb\r\n", "\r", "e\u0301", "A\u030A", "\u212B", "😀 party", "\ud800x", "x\udc00", "Grüße, ça va? ñ", "\u02ff\u0300", "한국어", "\u1100\u1161"];
    for (const s of cases) expect(fingerprint(s), JSON.stringify(s)).toBe(reference(s));
    for (let c = 0; c < 0x300; c++) expect(fingerprint(`${String.fromCharCode(c)}a`), c.toString(16)).toBe(reference(`${String.fromCharCode(c)}a`));
  });

  it("matches the reference on fuzzed strings (fast-check)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), fc.string({ unit: "grapheme-composite", maxLength: 200 }), fc.string({ maxLength: 5000 })), (s) => {
        expect(fingerprint(s)).toBe(reference(s));
      }),
      { numRuns: 2000 },
    );
  });
});
