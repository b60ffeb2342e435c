// Finding the server without set-up: `pai-lsp` on PATH, else the wheel this extension ships,
// installed once into a virtual environment of its own under the extension's global storage.
// The OS's rules (PATH, `py -3`, `Scripts\`) are in python.ts; this is the VS Code side of them.
import * as vscode from "vscode";
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync, rmSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { findPython, Host, onPath, venvLayout } from "./python";

const run = promisify(execFile);

/** This machine, as python.ts sees it. */
export function thisMachine(): Host {
  return {
    platform: process.platform,
    env: process.env,
    exists: (path) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false;
      }
    },
    run: async (command, args) => (await run(command, args, { timeout: 20000, windowsHide: true })).stdout,
    head: (path) => {
      try {
        return readFileSync(path).subarray(0, 1024).toString("utf8");
      } catch {
        return undefined;
      }
    },
  };
}

/** The interpreter chosen in the Python extension (ms-python.python), when it is installed. */
async function chosenInterpreter(): Promise<string | undefined> {
  type Environments = {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(env: { path: string }): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  };
  const extension = vscode.extensions.getExtension<{ environments?: Environments }>("ms-python.python");
  if (!extension) return undefined;
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const environments = api?.environments;
    if (!environments) return undefined;
    const resolved = await environments.resolveEnvironment(environments.getActiveEnvironmentPath(vscode.workspace.workspaceFolders?.[0]?.uri));
    return resolved?.executable.uri?.fsPath;
  } catch {
    return undefined; // an older or broken Python extension: the usual names still work
  }
}

export async function findServer(context: vscode.ExtensionContext): Promise<[string, ...string[]]> {
  const machine = thisMachine();
  const found = onPath("pai-lsp", machine);
  if (found) return [found];
  const wheels = join(context.extensionPath, "server");
  const wheel = existsSync(wheels) ? readdirSync(wheels).find((f) => f.endsWith(".whl")) : undefined;
  if (!wheel) {
    throw new Error(vscode.l10n.t("No pai language server: `pai-lsp` is not on PATH and this build of the extension ships none. Install pai-lsp (pip install pai-lsp) or set pai.server.command."));
  }
  const venv = join(context.globalStorageUri.fsPath, "venv");
  const { python: venvPython, server } = venvLayout(venv, machine.platform);
  const stamp = join(venv, "pai-lsp-wheel.txt");
  if (existsSync(server) && existsSync(stamp) && readFileSync(stamp, "utf8") === wheel) return [server];
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t("Installing the pai language server") },
    async (progress) => {
      const python = await findPython(machine, await chosenInterpreter());
      if (!python) {
        throw new Error(vscode.l10n.t("No Python 3.10 or newer was found to install the pai language server: install Python (python.org) and reload the window, or set pai.server.command."));
      }
      progress.report({ message: vscode.l10n.t("creating a virtual environment with {0}", python.join(" ")) });
      rmSync(venv, { recursive: true, force: true });
      mkdirSync(context.globalStorageUri.fsPath, { recursive: true });
      const [cmd, ...args] = python;
      try {
        await run(cmd, [...args, "-m", "venv", venv], { timeout: 300000, windowsHide: true });
        progress.report({ message: vscode.l10n.t("installing {0} and its dependencies", wheel) });
        await run(venvPython, ["-m", "pip", "install", "--disable-pip-version-check", "--quiet", join(wheels, wheel)],
          { timeout: 900000, windowsHide: true });
      } catch (err) {
        const detail = String((err as { stderr?: string }).stderr ?? err).trim().split(/\r?\n/).slice(-1)[0];
        throw new Error(vscode.l10n.t("Installing the pai language server failed: {0}", detail));
      }
      writeFileSync(stamp, wheel);
      return [server] as [string, ...string[]];
    },
  );
}
