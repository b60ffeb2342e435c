// Builds dist/pai-lsp.vsix: compiles the TypeScript, builds the pai-lsp wheel the extension installs
// when no server is found, and packs both with @vscode/vsce.
const { execFileSync } = require("node:child_process");
const { mkdirSync, readdirSync, rmSync } = require("node:fs");
const { join, resolve } = require("node:path");

const here = resolve(__dirname, "..");
const repo = resolve(here, "..", "..");
const run = (cmd, args, cwd = here) => execFileSync(cmd, args, { cwd, stdio: "inherit" });

rmSync(join(here, "out"), { recursive: true, force: true });
run(process.execPath, [join(here, "node_modules", "typescript", "bin", "tsc"), "-p", "."]);

const wheels = join(here, "server");
rmSync(wheels, { recursive: true, force: true });
mkdirSync(wheels);
const python = process.env.PYTHON || "python3";
run(python, ["-m", "pip", "wheel", "--quiet", "--no-deps", "--disable-pip-version-check", "-w", wheels, repo]);
if (!readdirSync(wheels).some((f) => f.endsWith(".whl"))) throw new Error("no pai-lsp wheel was built");

mkdirSync(join(here, "dist"), { recursive: true });
run(process.execPath, [join(here, "node_modules", "@vscode", "vsce", "vsce"), "package", "--skip-license", "--allow-missing-repository",
  "--out", join(here, "dist", "pai-lsp.vsix")]);
