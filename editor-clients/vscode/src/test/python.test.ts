import { test } from "node:test";
import * as assert from "node:assert/strict";
import { findPython, Host, onPath, pythonCandidates, serverPython, venvLayout } from "../python";
import { isJobFile } from "../config";

const PATTERNS = ["*.pai.json", "*.paddle.json"];

/** A fake machine: these files exist; running one of `answers` prints its answer (others fail). */
function machine(platform: NodeJS.Platform, env: Host["env"], files: string[], answers: Record<string, string>): Host & { ran: string[][] } {
  const ran: string[][] = [];
  const present = new Set(files.map((f) => (platform === "win32" ? f.toLowerCase() : f)));
  return {
    platform, env, ran,
    exists: (path) => present.has(platform === "win32" ? path.toLowerCase() : path),
    run: async (command, args) => {
      ran.push([command, ...args]);
      if (!(command in answers)) throw new Error(`${command}: not runnable`);
      return answers[command];
    },
  };
}

const WINDOWS_PATH = [
  "C:\\Windows\\system32", "C:\\Windows", "C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps",
  "\"C:\\Program Files\\Python312\\\"", ".", "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python311\\Scripts",
].join(";");

test("Windows: the py launcher comes first, as `py -3`", async () => {
  const host = machine("win32", { Path: WINDOWS_PATH, PATHEXT: ".COM;.EXE;.BAT;.CMD" },
    ["C:\\Windows\\py.exe", "C:\\Program Files\\Python312\\python.exe"], { "C:\\Windows\\py.exe": "1\r\n" });
  assert.deepEqual(await findPython(host), ["C:\\Windows\\py.exe", "-3"]);
  assert.deepEqual(host.ran[0].slice(0, 2), ["C:\\Windows\\py.exe", "-3"]);
});

test("Windows: without the launcher, the Microsoft Store stub is passed over for a real python.exe", async () => {
  const stub = "C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps\\python.exe";
  const real = "C:\\Program Files\\Python312\\python.exe";
  const host = machine("win32", { PATH: WINDOWS_PATH }, [stub, real], { [real]: "1" });
  assert.equal(onPath("python", host), stub); // PATH's order: the stub comes first, and fails to run
  assert.deepEqual(await findPython(host), [real]); // the real one, in a quoted PATH entry
  assert.deepEqual(host.ran.map((r) => r[0]), [stub, real]);
});

test("the Python extension's interpreter is tried first, and passed over when it is older than 3.10", async () => {
  const chosen = "C:\\Users\\me\\proj\\.venv\\Scripts\\python.exe";
  const py = "C:\\Windows\\py.exe";
  const host = machine("win32", { PATH: WINDOWS_PATH }, [chosen, py], { [chosen]: "1", [py]: "1" });
  assert.deepEqual(await findPython(host, chosen), [chosen]);
  const old = machine("win32", { PATH: WINDOWS_PATH }, [chosen, py], { [chosen]: "0", [py]: "1" });
  assert.deepEqual(await findPython(old, chosen), [py, "-3"]);
  const gone = machine("win32", { PATH: WINDOWS_PATH }, [py], { [py]: "1" });
  assert.deepEqual(await findPython(gone, chosen), [py, "-3"]);
});

test("Windows: programs on PATH are .exe (a .cmd needs a shell), relative PATH entries are never searched", () => {
  const scripts = "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python311\\Scripts";
  const host = machine("win32", { PATH: WINDOWS_PATH }, [`${scripts}\\pai-lsp.cmd`, ".\\pai-lsp.exe"], {});
  assert.equal(onPath("pai-lsp", host), undefined);
  const installed = machine("win32", { PATH: WINDOWS_PATH }, [`${scripts}\\PAI-LSP.EXE`], {});
  assert.equal(onPath("pai-lsp", installed), `${scripts}\\pai-lsp.exe`);
});

test("a virtual environment's programs: Scripts\\*.exe on Windows, bin/* elsewhere", () => {
  assert.deepEqual(venvLayout("C:\\Users\\me\\AppData\\Roaming\\Code\\User\\globalStorage\\pai-lsp.pai-lsp\\venv", "win32"), {
    python: "C:\\Users\\me\\AppData\\Roaming\\Code\\User\\globalStorage\\pai-lsp.pai-lsp\\venv\\Scripts\\python.exe",
    server: "C:\\Users\\me\\AppData\\Roaming\\Code\\User\\globalStorage\\pai-lsp.pai-lsp\\venv\\Scripts\\pai-lsp.exe",
  });
  assert.deepEqual(venvLayout("/home/me/.config/Code/User/globalStorage/pai-lsp.pai-lsp/venv", "darwin"), {
    python: "/home/me/.config/Code/User/globalStorage/pai-lsp.pai-lsp/venv/bin/python",
    server: "/home/me/.config/Code/User/globalStorage/pai-lsp.pai-lsp/venv/bin/pai-lsp",
  });
});

test("Linux and macOS: python3 first, PATH split on ':'", async () => {
  assert.deepEqual(pythonCandidates("darwin")[0], ["python3"]);
  const host = machine("darwin", { PATH: "/usr/bin:/opt/homebrew/bin" }, ["/usr/bin/python3", "/opt/homebrew/bin/python3.12"],
    { "/usr/bin/python3": "0", "/opt/homebrew/bin/python3.12": "1" }); // Apple's python3 is 3.9
  assert.deepEqual(await findPython(host), ["/opt/homebrew/bin/python3.12"]);
  // the first python3 on PATH is the one a shell runs: a later one is not tried in its place
  const shadowed = machine("linux", { PATH: "/usr/bin:/usr/local/bin" }, ["/usr/bin/python3", "/usr/local/bin/python3"],
    { "/usr/bin/python3": "0", "/usr/local/bin/python3": "1" });
  assert.equal(await findPython(shadowed), undefined);
});

test("job configs are recognised in Windows paths and in file:///c%3A/… URIs", () => {
  for (const name of ["C:\\Users\\me\\ws\\mnist.pai.json", "c:\\ws\\sub\\TRAIN.PADDLE.JSON", "\\\\server\\share\\ws\\a.pai.json",
    "file:///c%3A/Users/me/ws/mnist.pai.json"]) {
    assert.ok(isJobFile(name, PATTERNS), name);
  }
  assert.ok(!isJobFile("C:\\Users\\me\\ws\\package.json", PATTERNS));
});

test("the server's Python: the command itself, the script's #! line or pip's sh trampoline, else the one beside it", () => {
  const files = ["/venv/bin/python", "/venv/bin/pai-lsp", "/usr/bin/python3", "/long path/venv/bin/python", "/usr/bin/env"];
  const heads: Record<string, string> = {
    "/venv/bin/pai-lsp": "#!/venv/bin/python\nimport sys\n",
    "/opt/env-script/pai-lsp": "#!/usr/bin/env python3\n",
    "/opt/trampoline/pai-lsp": "#!/bin/sh\n'''exec' \"/long path/venv/bin/python\" \"$0\" \"$@\"\n' '''\n",
    "/opt/odd/pai-lsp": "binary",
  };
  const host: Host = {
    platform: "linux", env: { PATH: "/usr/bin" },
    exists: (path) => files.includes(path) || path in heads,
    run: async () => "",
    head: (path) => heads[path],
  };
  assert.deepEqual(serverPython(["/venv/bin/pai-lsp"], host), ["/venv/bin/python"]);
  assert.deepEqual(serverPython(["python3", "-m", "pai_lsp", "lsp"], host), ["/usr/bin/python3"]);
  assert.deepEqual(serverPython(["/opt/env-script/pai-lsp"], host), ["/usr/bin/python3"]);
  assert.deepEqual(serverPython(["/opt/trampoline/pai-lsp"], host), ["/long path/venv/bin/python"]);
  assert.equal(serverPython(["/opt/odd/pai-lsp"], host), undefined);
  assert.equal(serverPython(["/nowhere/pai-lsp"], host), undefined);
});

test("Windows: the server's Python is `py -3` as configured, or the python.exe beside pip's pai-lsp.exe", () => {
  const scripts = "C:\\venv\\Scripts";
  const host: Host = {
    platform: "win32", env: { PATH: "C:\\Windows", PATHEXT: ".COM;.EXE" },
    exists: (path) => [`${scripts}\\pai-lsp.exe`, `${scripts}\\python.exe`, "C:\\Windows\\py.exe"].includes(path),
    run: async () => "",
    head: () => "MZ\u0090\u0000",
  };
  assert.deepEqual(serverPython([`${scripts}\\pai-lsp.exe`], host), [`${scripts}\\python.exe`]);
  assert.deepEqual(serverPython(["py", "-3", "-m", "pai_lsp", "lsp"], host), ["C:\\Windows\\py.exe", "-3"]);
});
