#!/usr/bin/env node
// `transync`: push a folder of Markdown (or HTML, JSON) files, translate them, pull drafts, review.
// Exit codes: 0 done, 1 failure, 2 usage, 3 needs confirmation (`--yes`).
import { cac } from "cac";
import { TransyncError } from "../errors.js";
import { Failed, NeedsConfirmation, pull, push, review, status, sync, translate, VERSION } from "./commands.js";
import { loadConfig, UsageError } from "./config.js";
import { jsonText, Output, printable } from "./output.js";

type Flags = Record<string, unknown>;

const cli = cac("transync");
const common = (c: ReturnType<typeof cli.command>) =>
  c
    .option("--url <url>", "service address (else `url` in transync.config.json, else TRANSYNC_URL)")
    .option("--dir <dir>", "folder of source files (default content)")
    .option("--include <glob>", "files under dir (default **/*.md)")
    .option("--out <template>", "where translations go (default content/{lang}/{path})")
    .option("--fields <list>", "front matter fields to translate (default title,description)")
    .option("--adapter <name>", "adapter of the units (default the site's first enabled adapter)")
    .option("--languages <list>", "languages the site has (default all its target languages)")
    .option("--json", "print the result as JSON");

async function run(name: string, flags: Flags, action: (out: Output) => Promise<unknown>) {
  const out = new Output(Boolean(flags.json));
  try {
    out.result(await action(out));
    process.exitCode = 0;
  } catch (e) {
    const result = (e as { result?: unknown }).result;
    if (e instanceof UsageError) {
      out.error(e.message);
      process.exitCode = 2;
    } else if (e instanceof NeedsConfirmation) {
      out.say(e.message);
      out.result({ needs_confirmation: true, estimate: e.estimate });
      if (!out.json) process.stderr.write(`${jsonText(e.estimate)}\n`);
      process.exitCode = 3;
    } else {
      if (e instanceof TransyncError || e instanceof Failed) out.error(e.message);
      else {
        out.error(`${name}: ${(e as Error).message ?? e}`);
        if ((e as Error).stack) out.trace((e as Error).stack!);
      }
      if (result !== undefined) out.result({ error: (e as Error).message, ...result });
      process.exitCode = 1;
    }
  }
}

const config = (flags: Flags) => loadConfig(flags as Parameters<typeof loadConfig>[0], process.env, process.cwd());
const yes = (flags: Flags) => ({ yes: Boolean(flags.yes) });

common(cli.command("push", "send the source files (one unit per file)")).action((f: Flags) => run("push", f, async (out) => (await push(config(f), out)).result));
common(cli.command("translate", "start a job for what is missing or stale"))
  .option("--yes", "confirm a job that needs confirmation")
  .action((f: Flags) => run("translate", f, async (out) => (await translate(config(f), out, yes(f))).result));
common(cli.command("pull", "write the pending translations as drafts, then acknowledge them")).action((f: Flags) => run("pull", f, (out) => pull(config(f), out)));
common(cli.command("sync", "push, translate and pull"))
  .option("--yes", "confirm a job that needs confirmation")
  .action((f: Flags) => run("sync", f, (out) => sync(config(f), out, yes(f))));
common(cli.command("status", "what is translated, missing, stale or in review")).action((f: Flags) => run("status", f, (out) => status(config(f), out)));
common(cli.command("approve <path>", "approve a file's translations in one language"))
  .option("--lang <code>", "the language")
  .option("--text-from <file>", "the editor's version of the translated file (its changes are sent)")
  .action((path: string, f: Flags) =>
    run("approve", f, (out) => review(config(f), out, path, { lang: f.lang as string | undefined, textFrom: f.textFrom as string | undefined, outcome: "approved" })),
  );
common(cli.command("reject <path>", "reject a file's translations in one language (the next job translates them again)"))
  .option("--lang <code>", "the language")
  .action((path: string, f: Flags) => run("reject", f, (out) => review(config(f), out, path, { lang: f.lang as string | undefined, outcome: "rejected" })));

cli.help();
cli.version(VERSION.split("/")[1]);

try {
  const parsed = cli.parse(process.argv, { run: false });
  if (!cli.matchedCommand) {
    if (!parsed.options.help && !parsed.options.version) {
      process.stderr.write(parsed.args.length ? `unknown command: ${parsed.args[0]}\n` : "no command given\n");
      cli.outputHelp();
      process.exitCode = 2;
    }
  } else await cli.runMatchedCommand();
} catch (e) {
  // cac's own errors: a missing argument, an option without its value.
  process.stderr.write(`error: ${printable((e as Error).message)}\n`);
  process.exitCode = 2;
}
