// Pure helpers, kept apart from the `vscode` module so they can be tested with node alone.

/** The documents the server checks: job configs on disk and unsaved JSON. */
export const documentSelector = [
  { scheme: "file", pattern: "**/*.pai.json" },
  { scheme: "untitled", language: "json" },
];

/** True for a `*.pai.json` path or URI. */
export function isJobConfig(path: string): boolean {
  return /\.pai\.json$/i.test(path);
}

/** The configured server command with blank parts dropped; undefined when nothing usable is set. */
export function configuredServerCommand(configured: string[] | string | undefined): [string, ...string[]] | undefined {
  const list = typeof configured === "string" ? [configured] : (configured ?? []);
  const parts = list.filter((part) => part.trim() !== "");
  return parts.length > 0 ? (parts as [string, ...string[]]) : undefined;
}

/**
 * Client command IDs: the server's IDs (all `pai.*`, registered by vscode-languageclient from
 * `executeCommandProvider`) with the extension's own prefix, so the two sets never meet.
 */
export const CLIENT_PREFIX = "pai-lsp.";

/** The client command that wraps a server command shown in a code lens, if there is one. */
export function clientCommandFor(serverCommand: string): string | undefined {
  const wrapped: Record<string, string> = {
    "pai.submitJob": `${CLIENT_PREFIX}submitJob`,
    "pai.runLocally": `${CLIENT_PREFIX}runLocally`,
  };
  return wrapped[serverCommand];
}
