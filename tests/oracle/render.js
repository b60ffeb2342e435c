// The real v2 server's rendering of a job's commands, as a test oracle: what rest-server's
// middlewares/v2/protocol.js (protocolRender, at HEAD; ../../shared/specs/openpai-api.md §2.4) does
// with mustache 2.3 (the server's `~2.3.0`) and tags <% %>: only text and plain variable tags are
// written, `a[0]` is read as `a.0`, a name that resolves to nothing is written back as `<% name %>`,
// the result is trimmed. Each role's lines: the default deployment's preCommands, its commands, the
// postCommands, each trimmed, joined by newlines, rendered with $parameters and the role's $script,
// $output and $data prerequisites; a Docker image's auth values with $secrets.
// Reads JSON lines {"text": <YAML>} on stdin (a job the schema accepts); writes
// {"ok": true, "entrypoints": {role: text}, "auth": {name: {...}}} or {"ok": false, "error": message}.
'use strict';
const mustache = require('mustache');
const yaml = require('js-yaml');
const readline = require('readline');

const writer = new mustache.Writer();

function render(template, view) {
  let out = '';
  for (const token of writer.parse(template, ['<%', '%>'])) {
    if (token[0] === 'text') {
      out += token[1];
    } else if (token[0] === 'name') {
      const name = token[1].replace(/\[(\d+)\]/g, '.$1');
      const value = new mustache.Context(view).lookup(name);
      out += value != null ? value : `<% ${name} %>`;
    }
  }
  return out.trim();
}

function rendered(job) {
  const prerequisites = {script: {}, output: {}, data: {}, dockerimage: {}};
  for (const item of job.prerequisites || []) {
    prerequisites[item.type][item.name] = item;
  }
  const deployments = {};
  for (const item of job.deployments || []) {
    deployments[item.name] = item;
  }
  const auth = {};
  for (const name of Object.keys(prerequisites.dockerimage)) {
    const image = prerequisites.dockerimage[name];
    if ('auth' in image) {
      auth[name] = {};
      for (const prop of Object.keys(image.auth)) {
        auth[name][prop] = render(image.auth[prop], {$secrets: job.secrets});
      }
    }
  }
  const deployment = job.defaults && 'deployment' in job.defaults ? deployments[job.defaults.deployment] : null;
  const entrypoints = {};
  for (const role of Object.keys(job.taskRoles)) {
    const spec = job.taskRoles[role];
    let commands = spec.commands;
    if (deployment != null && role in deployment.taskRoles) {
      const hooks = deployment.taskRoles[role];
      if ('preCommands' in hooks) commands = hooks.preCommands.concat(commands);
      if ('postCommands' in hooks) commands = commands.concat(hooks.postCommands);
    }
    entrypoints[role] = render(commands.map((c) => c.trim()).join('\n'), {
      $parameters: job.parameters,
      $script: prerequisites.script[spec.script],
      $output: prerequisites.output[spec.output],
      $data: prerequisites.data[spec.data],
    });
  }
  return {ok: true, entrypoints, auth};
}

module.exports = {rendered};  // for protocol.js

if (require.main === module) {
  readline.createInterface({input: process.stdin}).on('line', (line) => {
    let out;
    try {
      out = rendered(yaml.safeLoad(JSON.parse(line).text));
    } catch (e) {
      out = {ok: false, error: e.message};
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  });
}
