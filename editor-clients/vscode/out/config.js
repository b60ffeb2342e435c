"use strict";
// Pure helpers, kept apart from the `vscode` module so they can be tested with node alone.
Object.defineProperty(exports, "__esModule", { value: true });
exports.documentSelector = void 0;
exports.serverCommand = serverCommand;
exports.commandArguments = commandArguments;
exports.documentSelector = [
    { scheme: "file", pattern: "**/*.pai.json" },
    { scheme: "untitled", language: "json" },
];
function serverCommand(configured) {
    const parts = (configured ?? []).filter((part) => part.trim() !== "");
    return parts.length > 0 ? parts : ["pai-lsp"];
}
function commandArguments(uri) {
    return uri ? [uri] : [];
}
//# sourceMappingURL=config.js.map