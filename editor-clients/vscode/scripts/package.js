// Builds dist/pai-lsp.vsix: type-checks and compiles the TypeScript, bundles the extension and its
// dependencies into one file with esbuild (as VS Code recommends: one file to load at activation),
// builds the pai-lsp wheel the extension installs when no server is found, and packs them with
// @vscode/vsce (.vscodeignore says what goes in).
const { execFileSync } = require("node:child_process");
const { mkdirSync, readdirSync, rmSync } = require("node:fs");
const { join, resolve } = require("node:path");

const here = resolve(__dirname, "..");
const repo = resolve(here, "..", "..");
const run = (cmd, args, cwd = here) => execFileSync(cmd, args, { cwd, stdio: "inherit" });

rmSync(join(here, "out"), { recursive: true, force: true });
run(process.execPath, [join(here, "node_modules", "typescript", "bin", "tsc"), "-p", "."]);
require("esbuild").buildSync({
  entryPoints: [join(here, "src", "extension.ts")], outfile: join(here, "out", "extension.js"), bundle: true,
  platform: "node", format: "cjs", target: "node18", external: ["vscode"], sourcemap: false, logLevel: "warning",
});

const wheels = join(here, "server");
rmSync(wheels, { recursive: true, force: true });
mkdirSync(wheels);
const python = process.env.PYTHON || "python3";
run(python, ["-m", "pip", "wheel", "--quiet", "--no-deps", "--disable-pip-version-check", "-w", wheels, repo]);
if (!readdirSync(wheels).some((f) => f.endsWith(".whl"))) throw new Error("no pai-lsp wheel was built");

mkdirSync(join(here, "dist"), { recursive: true });
run(process.execPath, [join(here, "node_modules", "@vscode", "vsce", "vsce"), "package", "--skip-license", "--allow-missing-repository",
  "--no-dependencies", "--out", join(here, "dist", "pai-lsp.vsix")]);
