import { type QACheck, warning } from "./issue";
import { factsOf } from "./remember";

const leading = (text: string) => /^\s*/.exec(text)![0];
const trailing = (text: string) => (text.trim() === "" ? "" : text.slice(text.trimEnd().length));

/** `whitespace`: leading or trailing whitespace is not what the source has; sites often rely on it when joining strings. */
export const checkWhitespace: QACheck = ({ source, target }) => {
  const sides = [leading(source) !== leading(target) ? "leading" : "", trailing(source) !== trailing(target) ? "trailing" : ""].filter(Boolean);
  if (sides.length === 0) return null;
  const which = sides.length === 2 ? "Leading and trailing whitespace differ" : `${sides[0] === "leading" ? "Leading" : "Trailing"} whitespace differs`;
  return warning("whitespace", `${which} from the source.`);
};

/** Two or more spaces between visible characters; indentation and markdown's two-space line break are not double spaces. */
const DOUBLE_SPACE = /(?<=\S) {2,}(?=\S)/g;

const doubleSpaces = (text: string) => (text.includes("  ") ? (text.match(DOUBLE_SPACE)?.length ?? 0) : 0);

/** `double_space`: the translation has more double spaces than the source. */
export const checkDoubleSpace: QACheck = (input) => {
  const facts = factsOf(input);
  facts.doubleSpaces ??= doubleSpaces(input.source);
  return doubleSpaces(input.target) > facts.doubleSpaces ? warning("double_space", "The translation contains a double space that the source does not.") : null;
};
