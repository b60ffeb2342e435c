// Pure helpers, kept apart from the `vscode` module so they can be tested with node alone.

export const documentSelector = [
  { scheme: "file", pattern: "**/*.pai.json" },
  { scheme: "untitled", language: "json" },
];

export function serverCommand(configured: string[] | undefined): [string, ...string[]] {
  const parts = (configured ?? []).filter((part) => part.trim() !== "");
  return parts.length > 0 ? (parts as [string, ...string[]]) : ["pai-lsp"];
}

export function commandArguments(uri: string | undefined): string[] {
  return uri ? [uri] : [];
}
