// What the CLI says: progress redrawn on one line when stderr is a terminal, plain lines
// otherwise; with --json only the final JSON document goes to stdout.
import pc from "picocolors";

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
      process.stderr.write(`\r${pc.cyan(label)} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}\x1b[K`);
      this.drawn = true;
    } else process.stderr.write(`${label} ${done}/${total}\n`);
  }

  /** A line for people (not with --json). */
  say(text: string) {
    if (this.json) return;
    this.endProgress();
    process.stdout.write(`${text}\n`);
  }

  warn(text: string) {
    this.endProgress();
    process.stderr.write(`${this.tty ? pc.yellow("warning:") : "warning:"} ${text}\n`);
  }

  error(text: string) {
    this.endProgress();
    process.stderr.write(`${this.tty ? pc.red("error:") : "error:"} ${text}\n`);
  }

  /** The command's result for machines (only with --json). */
  result(value: unknown) {
    if (this.json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  private endProgress() {
    if (this.drawn) process.stderr.write("\n");
    this.drawn = false;
  }
}
