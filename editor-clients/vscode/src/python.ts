// Finding programs and a Python on the user's machine, the way each OS lays them out. No `vscode`
// here: the OS is a parameter (a `Host`), so tests run the Windows rules against a fake Windows layout.
import * as nodePath from "node:path";

/** What discovery asks of the machine. */
export interface Host {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  /** Is there a file at this path? */
  exists(path: string): boolean;
  /** Run a program (no shell) and give its standard output; rejects when it cannot run or fails. */
  run(command: string, args: string[]): Promise<string>;
  /** The start of a file (its first lines are enough), undefined when it cannot be read. */
  head?(path: string): string | undefined;
}

/** The path rules of `platform`: backslashes and drive letters on Windows, `/` elsewhere. */
export function pathsOf(platform: NodeJS.Platform): nodePath.PlatformPath {
  return platform === "win32" ? nodePath.win32 : nodePath.posix;
}

/**
 * Executable suffixes tried on Windows: those `CreateProcess` runs without a shell (Node refuses to
 * start `.cmd`/`.bat` files without one), in PATHEXT's order when it names them.
 */
function windowsSuffixes(env: Host["env"]): string[] {
  const pathext = (env.PATHEXT ?? ".COM;.EXE").split(";").map((e) => e.toLowerCase());
  return pathext.filter((e) => e === ".exe" || e === ".com");
}

/** Every `name` on PATH, as full paths in PATH's order (Windows: `name.exe`, PATH split on `;`). */
export function allOnPath(name: string, host: Host): string[] {
  const paths = pathsOf(host.platform);
  const windows = host.platform === "win32";
  const path = host.env.PATH ?? (windows ? host.env.Path : undefined) ?? "";
  const suffixes = windows ? (paths.extname(name) ? [""] : windowsSuffixes(host.env)) : [""];
  const found: string[] = [];
  for (const dir of path.split(windows ? ";" : ":")) {
    const folder = dir.trim().replace(/^"(.*)"$/, "$1"); // Windows allows quoted PATH entries
    if (!folder || !paths.isAbsolute(folder)) continue; // a relative entry would find files of the workspace
    for (const suffix of suffixes) {
      const candidate = paths.join(folder, name + suffix);
      if (host.exists(candidate) && !found.includes(candidate)) found.push(candidate);
    }
  }
  return found;
}

/** The first `name` on PATH, as a full path. */
export function onPath(name: string, host: Host): string | undefined {
  return allOnPath(name, host)[0];
}

/** Pythons to try, in order: the Python extension's interpreter first (the user chose it), then the OS's usual names. */
export function pythonCandidates(platform: NodeJS.Platform, chosen?: string): string[][] {
  const usual = platform === "win32"
    ? [["py", "-3"], ["python"], ["python3"]]
    : [["python3"], ["python3.13"], ["python3.12"], ["python3.11"], ["python3.10"], ["python"]];
  return chosen ? [[chosen], ...usual] : usual;
}

const NEW_ENOUGH = "import sys; print(int(sys.version_info >= (3, 10)))";

/** A Python ≥ 3.10 as a command line (its program a full path); undefined when there is none. */
export async function findPython(host: Host, chosen?: string): Promise<string[] | undefined> {
  const paths = pathsOf(host.platform);
  for (const [command, ...args] of pythonCandidates(host.platform, chosen)) {
    // On Windows every match on PATH: the Microsoft Store's stub `python.exe` often comes before the real
    // one. Elsewhere the first, as a shell would run it.
    const found = paths.isAbsolute(command) ? [command].filter((c) => host.exists(c)) : allOnPath(command, host);
    const programs = host.platform === "win32" ? found : found.slice(0, 1);
    for (const program of programs) {
      try {
        if ((await host.run(program, [...args, "-c", NEW_ENOUGH])).trim() === "1") return [program, ...args];
      } catch {
        // not runnable (the Store stub, a broken install): try the next one
      }
    }
  }
  return undefined;
}

/** Where a virtual environment keeps its programs: `Scripts\*.exe` on Windows, `bin/*` elsewhere. */
export function venvLayout(venv: string, platform: NodeJS.Platform): { python: string; server: string } {
  const paths = pathsOf(platform);
  const windows = platform === "win32";
  const bin = paths.join(venv, windows ? "Scripts" : "bin");
  return { python: paths.join(bin, windows ? "python.exe" : "python"), server: paths.join(bin, windows ? "pai-lsp.exe" : "pai-lsp") };
}

const PYTHON_NAME = /^(python(\d+(\.\d+)?)?|py)(\.exe)?$/i;

/**
 * The Python that runs a server command (`[program, ...args]`), so what the server has installed
 * (debugpy) is there too: the program itself when it is a Python (`python3 -m pai_lsp`), else the
 * interpreter its script names — pip's `#!/path/python` line, `#!/usr/bin/env python3`, or the
 * `'''exec' "/path/python"` of the sh trampoline pip writes for long paths — or, for pip's Windows
 * `.exe` launchers, the `python.exe` beside it. Undefined when none of that names one.
 */
export function serverPython(command: string[], host: Host): string[] | undefined {
  const paths = pathsOf(host.platform);
  const [program, ...args] = command;
  if (!program) return undefined;
  const full = paths.isAbsolute(program) ? (host.exists(program) ? program : undefined) : onPath(program, host);
  if (!full) return undefined;
  const name = paths.basename(full);
  if (PYTHON_NAME.test(name)) return /^py(\.exe)?$/i.test(name) ? [full, ...args.filter((a) => /^-\d/.test(a)).slice(0, 1)] : [full];
  const [first, ...rest] = (host.head?.(full) ?? "").split(/\r?\n/);
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first);
  if (shebang && !/\/(ba)?sh$/.test(shebang[1])) {
    if (paths.basename(shebang[1]) === "env" && shebang[2]) {
      const found = onPath(shebang[2], host);
      return found ? [found] : undefined;
    }
    return host.exists(shebang[1]) ? [shebang[1]] : undefined;
  }
  const trampoline = rest.map((line) => /^'''exec' (?:"([^"]+)"|(\S+))/.exec(line)).find(Boolean);
  const named = trampoline?.[1] ?? trampoline?.[2];
  if (named && host.exists(named)) return [named];
  const beside = paths.join(paths.dirname(full), host.platform === "win32" ? "python.exe" : "python");
  return host.exists(beside) ? [beside] : undefined;
}
