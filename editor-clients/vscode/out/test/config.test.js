"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const node_test_1 = require("node:test");
const assert = require("node:assert/strict");
const config_1 = require("../config");
(0, node_test_1.test)("the server command defaults to pai-lsp and keeps configured arguments", () => {
    assert.deepEqual((0, config_1.serverCommand)(undefined), ["pai-lsp"]);
    assert.deepEqual((0, config_1.serverCommand)(["", " "]), ["pai-lsp"]);
    assert.deepEqual((0, config_1.serverCommand)(["python", "-m", "pai_lsp", "lsp"]), ["python", "-m", "pai_lsp", "lsp"]);
});
(0, node_test_1.test)("commands pass the file they were invoked on", () => {
    assert.deepEqual((0, config_1.commandArguments)("file:///w/job.pai.json"), ["file:///w/job.pai.json"]);
    assert.deepEqual((0, config_1.commandArguments)(undefined), []);
});
(0, node_test_1.test)("only *.pai.json files on disk are served", () => {
    assert.equal(config_1.documentSelector[0].pattern, "**/*.pai.json");
});
//# sourceMappingURL=config.test.js.map