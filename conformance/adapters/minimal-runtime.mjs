#!/usr/bin/env node
// A deliberately minimal Agent Applications runtime in Node.js (standard library only), written
// as a conformance adapter: it does what the seed requires and little more, to show the protocol
// works for a runtime that is not this suite's. Run it through the cases with
//
//   agentapps conformance --runtime "node conformance/adapters/minimal-runtime.mjs" --required
//
//   catalog ROOT...                                  every package under the roots, frontmatter only
//   activate PKG                                     the APP.md body and each listed skill
//   run PKG [--approve] [--timeout SECONDS] -- ARGS  the entry command, its document relayed
//
// What it leaves out, on purpose: tag filters, an environment allow-list, killing what an app
// leaves behind, checks of the entry command, schemas/, passing its stdin on, the gate's edges
// (words in any case, whitespace in a word, --help, --human, options after a whole command), the
// stricter reading of YAML (a byte-order mark, a key given twice) and of JSON (UTF-8 only, no
// lone surrogate or repeated key, at most 100 levels), and the bounds on what activation reads.
// The suite's own runtime (agentapps) does those; the cases marked `suite` say so.
import { spawnSync } from "node:child_process";
import { closeSync, lstatSync, openSync, readFileSync, readSync, readdirSync, statSync } from "node:fs";
import { constants } from "node:os";
import { basename, isAbsolute, join, resolve, sep } from "node:path";

const EXIT = {
  USAGE_ERROR: 2,
  NOT_FOUND: 4,
  CONFIRMATION_REQUIRED: 5,
  PACKAGE_INVALID: 10,
  CONTRACT_VIOLATION: 11,
  TIMEOUT: 12,
};
const SCHEMA = "agentapplications/v1";
const MAX_FRONTMATTER = 64 * 1024;
const MAX_OUTPUT = 16 * 1024 * 1024;
const DEFAULT_TIMEOUT = 60;
const SHORTNAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

class Refusal extends Error {
  constructor(code, message, details, status = EXIT[code]) {
    super(message);
    Object.assign(this, { code, details, status });
  }
}

function answer(document, status = 0) {
  process.stdout.write(`${JSON.stringify(document)}\n`);
  process.exitCode = status;
}

// Manifests ------------------------------------------------------------------------------------

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decode(bytes, path) {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new Refusal("PACKAGE_INVALID", `${path} is not UTF-8 text.`);
  }
}

function regularFile(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    throw new Refusal("PACKAGE_INVALID", `${path} is missing.`);
  }
  if (!stats.isFile()) throw new Refusal("PACKAGE_INVALID", `${path} is not a regular file.`);
}

// The frontmatter, read line by line up to the line that closes it: the body is never decoded.
function readFrontmatter(path) {
  regularFile(path);
  const descriptor = openSync(path, "r");
  try {
    const lines = linesOf(descriptor);
    const fence = (line) => /^---[ \t]*\r?\n?$/.test(line.toString("latin1"));
    const first = lines.next();
    if (first.done || !fence(first.value)) throw new Refusal("PACKAGE_INVALID", `${path} does not start with ---.`);
    const kept = [];
    let size = 0;
    for (const line of lines) {
      if (fence(line)) return parseYaml(decode(Buffer.concat(kept), path), path);
      size += line.length;
      if (size > MAX_FRONTMATTER) throw new Refusal("PACKAGE_INVALID", `${path}: frontmatter past 64 KiB.`);
      kept.push(line);
    }
    throw new Refusal("PACKAGE_INVALID", `${path}: frontmatter is never closed with ---.`);
  } finally {
    closeSync(descriptor);
  }
}

function* linesOf(descriptor) {
  const chunk = Buffer.alloc(4096);
  let pending = Buffer.alloc(0);
  for (;;) {
    const newline = pending.indexOf(10);
    if (newline !== -1) {
      yield pending.subarray(0, newline + 1);
      pending = pending.subarray(newline + 1);
    } else if (pending.length > MAX_FRONTMATTER) {
      yield pending; // a line past the cap: the caller refuses it
      return;
    } else {
      const read = readSync(descriptor, chunk, 0, chunk.length, null);
      if (read === 0) {
        if (pending.length) yield pending;
        return;
      }
      pending = Buffer.concat([pending, chunk.subarray(0, read)]);
    }
  }
}

// A whole document (activation): its frontmatter and its body, the text after the closing line.
function readDocument(path) {
  regularFile(path);
  const text = decode(readFileSync(path), path);
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) throw new Refusal("PACKAGE_INVALID", `${path}: no frontmatter between --- lines.`);
  return {
    frontmatter: parseYaml(match[1], path),
    body: text.slice(match[0].length).replace(/^[\r\n]+/, ""),
  };
}

// The YAML that frontmatter uses: mappings, block and flow lists, plain and quoted scalars.
// Anything else (anchors, tags, block scalars) is refused rather than guessed.
function parseYaml(text, path) {
  const lines = text
    .split(/\r?\n/)
    .map((line) => ({ indent: line.length - line.trimStart().length, text: stripComment(line.trim()) }))
    .filter((line) => line.text !== "");
  const fail = (why) => {
    throw new Refusal("PACKAGE_INVALID", `${path}: frontmatter ${why}.`);
  };
  let at = 0;
  function block(indent) {
    if (lines[at].text.startsWith("-")) {
      const list = [];
      while (at < lines.length && lines[at].indent === indent && /^-(\s|$)/.test(lines[at].text)) {
        list.push(scalar(lines[at].text.slice(1).trim(), fail));
        at += 1;
      }
      return list;
    }
    const mapping = {};
    while (at < lines.length && lines[at].indent === indent) {
      const match = /^([^\s#'"][^:]*?):(?:\s+(.*))?$/.exec(lines[at].text);
      if (!match) fail(`line "${lines[at].text}" is not \`key: value\``);
      at += 1;
      const next = lines[at];
      if (match[2] !== undefined) mapping[match[1]] = scalar(match[2], fail);
      else if (next && (next.indent > indent || (next.indent === indent && next.text.startsWith("-")))) {
        mapping[match[1]] = block(next.indent);
      } else mapping[match[1]] = null;
    }
    return mapping;
  }
  if (lines.length === 0) fail("is empty");
  const data = block(lines[0].indent);
  if (at < lines.length) fail(`is not indented consistently at "${lines[at].text}"`);
  if (Array.isArray(data)) fail("is not a mapping of fields");
  return data;
}

function stripComment(text) {
  if (text.startsWith("#")) return "";
  const quoted = /^[^'"#]*['"]/.test(text);
  return quoted ? text : text.replace(/\s+#.*$/, "");
}

function scalar(text, fail) {
  if (/^[&*!|>%@`]/.test(text)) fail(`uses YAML this runtime does not read (${text.slice(0, 20)})`);
  const double = /^"((?:[^"\\]|\\.)*)"\s*(#.*)?$/.exec(text);
  if (double) {
    try {
      return JSON.parse(`"${double[1]}"`);
    } catch {
      fail(`has an escape this runtime does not read: ${text.slice(0, 20)}`);
    }
  }
  const single = /^'((?:[^']|'')*)'\s*(#.*)?$/.exec(text);
  if (single) return single[1].replaceAll("''", "'");
  if (/^['"]/.test(text)) fail(`has a quoted value that does not end: ${text.slice(0, 20)}`);
  if (text.startsWith("[")) {
    const inner = text.slice(1, -1).trim();
    return inner === "" ? [] : inner.split(",").map((item) => scalar(item.trim(), fail));
  }
  if (text === "{}") return {};
  return { true: true, false: false, null: null, "~": null }[text] ?? text;
}

// The seed's required fields, and the schema this runtime reads.
function checkManifest(data, path) {
  if (data.schema !== undefined && data.schema !== SCHEMA) {
    const refusal = new Refusal("PACKAGE_INVALID", `${path}: schema ${data.schema} is not ${SCHEMA}.`);
    refusal.unsupported = true;
    throw refusal;
  }
  const text = (value) => typeof value === "string" && value !== "";
  const texts = (value) => Array.isArray(value) && value.every(text);
  const entry = typeof data.entry === "string" ? data.entry : data.entry?.command;
  const missing = [
    ["name", text(data.name)],
    ["description", text(data.description)],
    ["version", text(data.version)],
    ["entry.command", text(entry)],
    ["commands", texts(data.commands)],
    ["skills", texts(data.skills)],
    ["confirmationRequired", data.confirmationRequired === undefined || texts(data.confirmationRequired)],
  ].filter(([, fine]) => !fine);
  if (missing.length) {
    throw new Refusal("PACKAGE_INVALID", `${path}: ${missing.map(([name]) => name).join(", ")} missing or wrong.`);
  }
  return { ...data, entryCommand: entry, confirmationRequired: data.confirmationRequired ?? [] };
}

function loadManifest(root) {
  return checkManifest(readFrontmatter(join(root, "APP.md")), join(root, "APP.md"));
}

function trustLevel(root) {
  const trusted = (process.env.AGENTAPPS_TRUSTED ?? "").split(":").filter(isAbsolute).map((path) => resolve(path));
  const inside = trusted.some((folder) => root === folder || root.startsWith(folder + sep));
  return inside ? "trusted" : "untrusted";
}

// The three operations -------------------------------------------------------------------------

function discover(root, found) {
  const exists = (path) => {
    try {
      lstatSync(path);
      return true;
    } catch {
      return false;
    }
  };
  if (exists(join(root, "APP.md"))) {
    found.push(resolve(root));
    return; // packages do not nest: nothing inside one, app/ least of all, is searched
  }
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.isDirectory() && !["node_modules", ".git"].includes(entry.name)) discover(join(root, entry.name), found);
  }
}

function catalog(args) {
  if (args.includes("--tag")) {
    throw new Refusal("USAGE_ERROR", "--tag: this runtime lists every package (the format says runtimes MAY filter).");
  }
  const found = [];
  for (const root of args) discover(root, found);
  const items = found.map((source) => {
    const entry = { source, trust: trustLevel(source) };
    try {
      const manifest = loadManifest(source);
      return {
        ...entry,
        status: "ok",
        problem: null,
        slug: manifest.slug ?? null,
        name: manifest.name,
        description: manifest.description,
        version: manifest.version,
        kind: manifest.kind ?? null,
        scheduling: manifest.scheduling ?? null,
        commands: manifest.commands,
        confirmationRequired: manifest.confirmationRequired,
        tags: manifest.tags ?? null,
      };
    } catch (error) {
      // Whatever a package holds, the scan goes on: one broken package is one broken entry.
      return { ...entry, status: error.unsupported ? "unsupported" : "broken", problem: String(error.message) };
    }
  });
  answer({ ok: true, items });
}

function packageRoot(path) {
  const root = resolve(path);
  try {
    lstatSync(join(root, "APP.md"));
  } catch {
    throw new Refusal("NOT_FOUND", `No package at ${path}: it has no APP.md.`);
  }
  return root;
}

function activate([path]) {
  const root = packageRoot(path);
  const manifest = loadManifest(root);
  const document = readDocument(join(root, "APP.md"));
  const skills = manifest.skills.map((name) => {
    if (!SHORTNAME.test(name)) throw new Refusal("PACKAGE_INVALID", `skill ${name} is not a shortname.`);
    return { name, ...readDocument(join(root, "skills", name, "SKILL.md")) };
  });
  answer({ ok: true, item: { source: root, frontmatter: document.frontmatter, body: document.body, skills } });
}

function run(argv) {
  const split = argv.indexOf("--");
  const [path, ...options] = split === -1 ? argv : argv.slice(0, split);
  const args = split === -1 ? [] : argv.slice(split + 1);
  const approved = options.includes("--approve");
  const timeout = options.includes("--timeout") ? Number(options[options.indexOf("--timeout") + 1]) : DEFAULT_TIMEOUT;
  const root = packageRoot(path);
  const manifest = loadManifest(root);
  if (!approved && trustLevel(root) === "untrusted") {
    throw new Refusal("CONFIRMATION_REQUIRED", `${root} is untrusted: running it needs the user's approval.`, {
      gate: "trust",
    });
  }
  // The command is the leading words; an option first, or inside a gated command path, would
  // leave the runtime guessing which command the app will run, so the gate refuses to guess.
  if (args.length && args[0].startsWith("-")) {
    throw new Refusal("USAGE_ERROR", `${args[0]} comes before the command: put the command first.`);
  }
  const words = [];
  for (const arg of args) {
    if (arg.startsWith("-")) break;
    words.push(arg);
  }
  const paths = manifest.confirmationRequired.map((entry) => entry.split(" "));
  const begins = (path) => words.every((word, index) => path[index] === word);
  if (words.length < args.length && paths.some((path) => path.length > words.length && begins(path))) {
    // `items --verbose remove`: the option stands inside a gated command path.
    throw new Refusal("USAGE_ERROR", `${args[words.length]} comes inside a command: put the whole command first.`);
  }
  const gated = manifest.confirmationRequired.find((entry, index) =>
    paths[index].every((word, position) => words[position] === word),
  );
  if (gated && !approved) {
    throw new Refusal("CONFIRMATION_REQUIRED", `${gated} needs the user's approval.`, {
      gate: "confirmation",
      command: gated,
    });
  }
  // entry.command is a shell command; the arguments follow it as "$@", so the shell never reads them.
  const result = spawnSync("/bin/sh", ["-c", `${manifest.entryCommand} "$@"`, basename(root), ...args], {
    cwd: root,
    input: "",
    timeout: timeout * 1000,
    killSignal: "SIGKILL",
    maxBuffer: MAX_OUTPUT,
  });
  if (result.error?.code === "ETIMEDOUT") throw new Refusal("TIMEOUT", `the app ran past ${timeout} s; it was killed.`);
  if (result.error?.code === "ENOBUFS") throw new Refusal("CONTRACT_VIOLATION", "the app's output passed the cap.");
  if (result.error) throw new Refusal("CONTRACT_VIOLATION", `the entry command cannot start: ${result.error.message}`);
  const status = result.status ?? 128 + constants.signals[result.signal];
  const stdout = result.stdout.toString("utf8");
  let document;
  try {
    document = JSON.parse(stdout);
  } catch {
    document = undefined;
  }
  if (status === 0) {
    if (document === undefined) throw new Refusal("CONTRACT_VIOLATION", "the app succeeded without one JSON document.");
    return answer(document, 0);
  }
  if (document !== null && typeof document === "object" && document.ok === false) return answer(document, status);
  // A failure without a structured error: allowed by the format, relayed with the app's status.
  const details = { exitStatus: status, stdout: stdout.slice(0, 2000), stderr: result.stderr.toString("utf8").slice(0, 2000) };
  throw new Refusal("APP_FAILED", `the app failed with exit status ${status}.`, details, status);
}

const [operation, ...rest] = process.argv.slice(2);
try {
  const operations = { catalog, activate, run };
  if (!Object.hasOwn(operations, operation)) throw new Refusal("USAGE_ERROR", `Unknown operation ${operation}.`);
  operations[operation](rest);
} catch (error) {
  if (!(error instanceof Refusal)) throw error;
  answer({ ok: false, error: { code: error.code, message: error.message, ...(error.details && { details: error.details }) } }, error.status);
}
