// A minimal runtime in Node.js, to show that scenarios replay through a runtime in any language:
// `node relay.mjs PACKAGE_PATH ARG...` reads entry.command from the package's APP.md frontmatter,
// runs it from the package root with the arguments appended, and relays stdin, stdout, stderr
// and the exit status untouched.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [packageRoot, ...args] = process.argv.slice(2);
const manifest = readFileSync(join(packageRoot, "APP.md"), "utf8");
const frontmatter = manifest.split(/^---$/m)[1] ?? "";
const command = frontmatter.match(/^entry:\n\s+command:\s*(.+)$/m)?.[1];
if (!command) {
  process.stderr.write(`no entry.command in ${packageRoot}/APP.md\n`);
  process.exit(70);
}
// entry.command is a shell command; the arguments follow it as "$@", so the shell never reads them.
const run = spawnSync("sh", ["-c", `${command.trim()} "$@"`, "sh", ...args], {
  cwd: packageRoot,
  input: readFileSync(0), // all of stdin, as bytes
  stdio: ["pipe", "inherit", "inherit"],
});
if (run.error) {
  process.stderr.write(`${run.error.message}\n`);
  process.exit(70);
}
process.exit(run.status ?? 1);
