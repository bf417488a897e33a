#!/usr/bin/env node
// Registers an OCI runtime in a Docker daemon.json without clobbering anything else:
//   node scripts/register-runtime.mjs <daemon.json> <name> <path> [--flag=value ...]
// Other keys and other runtimes stay as they are. An existing entry keeps its path and its
// flags; only the flags it lacks are appended. Prints "changed" or "unchanged" on stdout
// (the caller reloads the engine only on "changed"); writes atomically, keeping the mode.
import { chmod, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";

const [file, name, binary, ...wanted] = process.argv.slice(2);
if (
  file === undefined ||
  name === undefined ||
  binary === undefined ||
  wanted.some((arg) => !/^--[a-z0-9-]+=/.test(arg))
) {
  process.stderr.write("usage: node scripts/register-runtime.mjs <daemon.json> <name> <path> [--flag=value ...]\n");
  process.exit(2);
}

/** The flag name of `--name=value` or `--name` (and the single-dash forms runsc also accepts). */
function flagName(arg) {
  return arg.replace(/^--?/, "").split("=")[0];
}

const text = await readFile(file, "utf8").catch((error) => {
  if (error.code === "ENOENT") return "";
  throw error;
});
let config;
try {
  config = text.trim() === "" ? {} : JSON.parse(text);
} catch (error) {
  process.stderr.write(
    `${file} is not valid JSON (${error.message}); fix it by hand, then run this again. Nothing was changed.\n`,
  );
  process.exit(1);
}
if (typeof config !== "object" || config === null || Array.isArray(config)) {
  process.stderr.write(
    `${file} must hold a JSON object; it holds ${Array.isArray(config) ? "an array" : typeof config}. Nothing was changed.\n`,
  );
  process.exit(1);
}
const runtimes = typeof config.runtimes === "object" && config.runtimes !== null ? config.runtimes : {};
const existing = typeof runtimes[name] === "object" && runtimes[name] !== null ? runtimes[name] : {};
const args = Array.isArray(existing.runtimeArgs) ? existing.runtimeArgs.map(String) : [];
const present = new Set(args.filter((arg) => arg.startsWith("-")).map(flagName));
const added = wanted.filter((arg) => !present.has(flagName(arg)));
for (const arg of wanted) {
  const kept = args.find((candidate) => candidate.startsWith("-") && flagName(candidate) === flagName(arg));
  if (kept !== undefined && kept !== arg)
    process.stderr.write(
      `${file}: ${name} keeps its own ${kept} (workcell would register ${arg}); change it by hand if workers need ${arg}.\n`,
    );
}
const entry = {
  ...existing,
  path: typeof existing.path === "string" ? existing.path : binary,
  runtimeArgs: [...args, ...added],
};
const changed = JSON.stringify(entry) !== JSON.stringify(runtimes[name]);
if (changed) {
  const next = { ...config, runtimes: { ...runtimes, [name]: entry } };
  const mode = await stat(file).then(
    (s) => s.mode & 0o777,
    () => 0o644,
  );
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.workcell-${process.pid}`;
  await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode });
  await chmod(temporary, mode);
  await rename(temporary, file);
}
process.stdout.write(changed ? "changed\n" : "unchanged\n");
