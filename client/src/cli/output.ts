// What the CLI says: progress redrawn on one line when stderr is a terminal, plain lines
// otherwise; with --json only the final JSON document goes to stdout.
import pc from "picocolors";

/** C0 (line breaks included), DEL, C1 and the Unicode line separators: what can move a terminal's cursor, recolour it or forge a line. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const escapeOne = (c: string) => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
};

/** Text from the service (details, keys, paths, warnings) as a terminal may show it: every control character escaped (`ESC` → `\x1b`). */
export const printable = (text: string) => text.replace(CONTROLS, escapeOne);

/** JSON for machines, with C1 and the line separators escaped too (JSON.stringify escapes only C0). */
export const jsonText = (value: unknown) => JSON.stringify(value, null, 2).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

export class Output {
  private drawn = false;
  constructor(
    readonly json: boolean,
    private readonly tty = Boolean(process.stderr.isTTY),
  ) {}

  /** A step's progress: one redrawn line on a terminal, a line per call otherwise (not with --json). */
  progress(label: string, done: number, total: number) {
    if (this.json) return;
    if (this.tty) {
      const width = 24;
      // Clamped: a job may report more done segments than it estimated.
      const filled = total > 0 ? Math.min(width, Math.max(0, Math.round((done / total) * width))) : width;
      process.stderr.write(`\r${pc.cyan(printable(label))} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}\x1b[K`);
      this.drawn = true;
    } else process.stderr.write(`${label} ${done}/${total}\n`);
  }

  /** A line for people (not with --json). */
  say(text: string) {
    if (this.json) return;
    this.endProgress();
    process.stdout.write(`${printable(text)}\n`);
  }

  warn(text: string) {
    this.endProgress();
    process.stderr.write(`${this.tty ? pc.yellow("warning:") : "warning:"} ${printable(text)}\n`);
  }

  error(text: string) {
    this.endProgress();
    process.stderr.write(`${this.tty ? pc.red("error:") : "error:"} ${printable(text)}\n`);
  }

  /** A multi-line trace (an unexpected error's stack): each line escaped, the lines kept. */
  trace(text: string) {
    this.endProgress();
    process.stderr.write(`${text.split("\n").map(printable).join("\n")}\n`);
  }

  /** The command's result for machines (only with --json). */
  result(value: unknown) {
    if (this.json) process.stdout.write(`${jsonText(value)}\n`);
  }

  private endProgress() {
    if (this.drawn) process.stderr.write("\n");
    this.drawn = false;
  }
}
