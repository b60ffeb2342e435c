// Finding the server without set-up: `pai-lsp` on PATH, else the wheel this extension ships,
// installed once into a virtual environment of its own under the extension's global storage.
import * as vscode from "vscode";
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync, rmSync, mkdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const WINDOWS = process.platform === "win32";
const PYTHONS = WINDOWS ? [["py", "-3"], ["python"], ["python3"]] : [["python3"], ["python3.13"], ["python3.12"], ["python3.11"], ["python3.10"], ["python"]];

/** The first `name` on PATH, as a full path. */
export function onPath(name: string, path = process.env.PATH ?? ""): string | undefined {
  const exts = WINDOWS ? [".exe", ".cmd", ""] : [""];
  for (const dir of path.split(delimiter)) {
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (dir && existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

/** A Python ≥ 3.10 of the user's, as a command line; undefined when there is none. */
async function userPython(): Promise<string[] | undefined> {
  for (const [cmd, ...args] of PYTHONS) {
    try {
      const { stdout } = await run(cmd, [...args, "-c", "import sys; print(int(sys.version_info >= (3, 10)))"], { timeout: 20000 });
      if (stdout.trim() === "1") return [cmd, ...args];
    } catch {
      // not installed, or not runnable: try the next one
    }
  }
  return undefined;
}

export async function findServer(context: vscode.ExtensionContext): Promise<[string, ...string[]]> {
  const found = onPath("pai-lsp");
  if (found) return [found];
  const wheels = join(context.extensionPath, "server");
  const wheel = existsSync(wheels) ? readdirSync(wheels).find((f) => f.endsWith(".whl")) : undefined;
  if (!wheel) {
    throw new Error(vscode.l10n.t("No pai language server: `pai-lsp` is not on PATH and this build of the extension ships none. Install pai-lsp (pip install pai-lsp) or set pai.server.command."));
  }
  const venv = join(context.globalStorageUri.fsPath, "venv");
  const bin = join(venv, WINDOWS ? "Scripts" : "bin");
  const server = join(bin, WINDOWS ? "pai-lsp.exe" : "pai-lsp");
  const stamp = join(venv, "pai-lsp-wheel.txt");
  if (existsSync(server) && existsSync(stamp) && readFileSync(stamp, "utf8") === wheel) return [server];
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t("Installing the pai language server") },
    async (progress) => {
      const python = await userPython();
      if (!python) {
        throw new Error(vscode.l10n.t("No Python 3.10 or newer was found to install the pai language server: install Python (python.org) and reload the window, or set pai.server.command."));
      }
      progress.report({ message: vscode.l10n.t("creating a virtual environment with {0}", python.join(" ")) });
      rmSync(venv, { recursive: true, force: true });
      mkdirSync(context.globalStorageUri.fsPath, { recursive: true });
      const [cmd, ...args] = python;
      try {
        await run(cmd, [...args, "-m", "venv", venv], { timeout: 300000 });
        progress.report({ message: vscode.l10n.t("installing {0} and its dependencies", wheel) });
        await run(join(bin, WINDOWS ? "python.exe" : "python"),
          ["-m", "pip", "install", "--disable-pip-version-check", "--quiet", join(wheels, wheel)], { timeout: 900000 });
      } catch (err) {
        const detail = String((err as { stderr?: string }).stderr ?? err).trim().split("\n").slice(-1)[0];
        throw new Error(vscode.l10n.t("Installing the pai language server failed: {0}", detail));
      }
      writeFileSync(stamp, wheel);
      return [server] as [string, ...string[]];
    },
  );
}
