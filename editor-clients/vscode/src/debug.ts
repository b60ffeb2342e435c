// The `pai` debug type: VS Code's debugger for a job's Python processes, with no other extension.
// A task started under `debugpy --listen` runs debugpy's own debug adapter on that port, so an attach
// with `connect` speaks the Debug Adapter Protocol to it there (directly, or through the SSH tunnel
// the daemon opened); everything else (a launch here, an attach by `listen` or `processId`) runs
// `python -m debugpy.adapter` with the Python that runs pai-lsp, which has debugpy as a dependency.
import * as vscode from "vscode";
import { thisMachine } from "./install";
import { findPython, serverPython } from "./python";
import { PaiServer } from "./server";

export const DEBUG_TYPE = "pai";

/** Where a task's debugpy listens and how its files map to the workspace's (what `attach` is given). */
export interface AttachTarget {
  host: string;
  port: number;
  pathMappings: { localRoot: string; remoteRoot: string }[];
}

/** The attach configuration of one target: a debug session named "<job> <task>" (one per task). */
export function attachConfiguration(name: string, target: AttachTarget, extra: Record<string, unknown> = {}): vscode.DebugConfiguration {
  return {
    type: DEBUG_TYPE, request: "attach", name, connect: { host: target.host, port: target.port },
    pathMappings: target.pathMappings, justMyCode: true, ...extra,
  };
}

class Adapters implements vscode.DebugAdapterDescriptorFactory {
  private python: Promise<string[]> | undefined;

  constructor(private readonly server: PaiServer) {}

  async createDebugAdapterDescriptor(session: vscode.DebugSession): Promise<vscode.DebugAdapterDescriptor> {
    const config = session.configuration;
    if (config.request === "attach" && config.connect) {
      return new vscode.DebugAdapterServer(Number(config.connect.port), String(config.connect.host ?? "127.0.0.1"));
    }
    this.python ??= this.serverPython().catch((err) => {
      this.python = undefined;
      throw err;
    });
    const [program, ...args] = await this.python;
    return new vscode.DebugAdapterExecutable(program, [...args, "-m", "debugpy.adapter"]);
  }

  /** The Python that runs pai-lsp (else any Python 3.10+), checked to have debugpy. */
  private async serverPython(): Promise<string[]> {
    const machine = thisMachine();
    const python = serverPython(await this.server.serverCommand(), machine) ?? (await findPython(machine));
    if (!python) throw new Error(vscode.l10n.t("No Python was found to run the debugger (debugpy): set pai.server.command to the pai-lsp you installed."));
    const [program, ...args] = python;
    try {
      await machine.run(program, [...args, "-c", "import debugpy"]);
    } catch {
      throw new Error(vscode.l10n.t("debugpy is not installed in the Python that runs pai-lsp: run {0} -m pip install debugpy", python.join(" ")));
    }
    return python;
  }
}

/** Fills in what an attach or launch configuration leaves out, and says in one line what it lacks. */
class Configurations implements vscode.DebugConfigurationProvider {
  resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (!config.type && !config.request) { // F5 with no launch.json: a job file open debugs that job
      void vscode.commands.executeCommand("pai-lsp.debugJob");
      return undefined;
    }
    return { justMyCode: true, ...config };
  }

  resolveDebugConfigurationWithSubstitutedVariables(_folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (config.request === "attach" && config.connect && !Number.isInteger(Number(config.connect.port))) {
      void vscode.window.showErrorMessage(vscode.l10n.t("The debug configuration {0} names no port to connect to (connect.port).", config.name));
      return undefined;
    }
    if (config.request === "launch" && !config.program && !config.module) {
      void vscode.window.showErrorMessage(vscode.l10n.t("The debug configuration {0} names no program to launch.", config.name));
      return undefined;
    }
    return config;
  }
}

export function registerDebugType(context: vscode.ExtensionContext, server: PaiServer): void {
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, new Adapters(server)),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, new Configurations()),
  );
}
