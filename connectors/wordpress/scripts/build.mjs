/**
 * `npm run build`: dist/transync.zip, the file a site owner uploads (Plugins → Add New → Upload
 * Plugin): the folder transync/ as it is, under `transync/` in the archive.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { zipSync } from "fflate";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const PLUGIN = join(ROOT, "transync");
const OUT = join(ROOT, "dist", "transync.zip");

const files = {};
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else files[`transync/${relative(PLUGIN, path).split("\\").join("/")}`] = [readFileSync(path), { mtime: new Date("2026-01-01T00:00:00Z") }];
  }
})(PLUGIN);

mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, zipSync(files, { level: 9 }));
console.log(`${relative(ROOT, OUT)}: ${Object.keys(files).length} files, ${statSync(OUT).size} bytes`);
