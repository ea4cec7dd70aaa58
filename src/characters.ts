/**
 * Characters as every limit, estimate, reservation and bill counts them: Unicode code points
 * (docs/decisions.md "Pushes"), so an emoji is one character, not two UTF-16 units.
 */
const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

export function characters(text: string): number {
  // Most texts have no astral characters: one native scan answers for them.
  if (!HIGH_SURROGATE.test(text)) return text.length;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}
