// How the OpenPAI v2 server reads a job file: js-yaml 3.13.1's safeLoad (the version its yarn.lock pins;
// src/rest-server/src/middlewares/v2/protocol.js), as a test oracle for the editor's YAML reader.
// Reads JSON lines {"text": <YAML>} on stdin; writes {"ok": true, "value": <value>} or {"ok": false,
// "message": str, "line": n, "column": n} lines. Values JSON cannot hold are tagged: {"$number": "Infinity"},
// {"$date": <ISO text>}, and a number JavaScript cannot hold exactly as {"$number": <its text>}.
'use strict';
const yaml = require('js-yaml');
const readline = require('readline');

function tagged(value) {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return {$number: String(value)};
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return {$number: String(value)};
    return value;
  }
  if (value instanceof Date) return {$date: value.toISOString()};
  if (Array.isArray(value)) return value.map(tagged);
  if (value !== null && typeof value === 'object') {
    const out = {};
    for (const key of Object.keys(value)) out[key] = tagged(value[key]);
    return out;
  }
  return value === undefined ? null : value;
}

readline.createInterface({input: process.stdin}).on('line', (line) => {
  let out;
  try {
    out = {ok: true, value: tagged(yaml.safeLoad(JSON.parse(line).text))};
  } catch (e) {
    const mark = e.mark || {};
    out = {ok: false, message: e.reason || e.message, line: mark.line, column: mark.column};
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
