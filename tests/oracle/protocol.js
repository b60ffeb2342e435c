// The real v2 server's whole verdict on a submitted job, as a test oracle: what rest-server's
// middlewares/v2/protocol.js does before a job reaches the scheduler (at HEAD;
// ../../shared/specs/openpai-api.md §2.3, §2.4): js-yaml 3.13.1's safeLoad (an exception: a 500),
// the Ajv 6 schema (v2.js; a 400), its cross-reference checks in its order (a 400 with its words),
// then protocolRender (render.js; mustache's exception, "Unclosed tag at N": a 500).
// Reads JSON lines {"text": <YAML>} on stdin; writes {"status": 202 | 400 | 500, "message": ...} lines.
'use strict';
const yaml = require('js-yaml');
const readline = require('readline');
const {validate} = require('./v2');
const {rendered} = require('./render');

function verdict(text) {
  let job;
  try {
    job = yaml.safeLoad(text);
  } catch (e) {
    return {status: 500, message: e.message};
  }
  if (!validate(job)) {
    return {status: 400, message: JSON.stringify(validate.errors)};
  }
  const byType = {script: {}, output: {}, data: {}, dockerimage: {}};
  const names = new Set();
  for (const item of job.prerequisites || []) {
    if (Object.prototype.hasOwnProperty.call(byType[item.type], item.name)) {
      return {status: 400, message: `Duplicate ${item.type} prerequisites ${item.name}.`};
    }
    byType[item.type][item.name] = item;
    names.add(item.name);
  }
  const deployments = {};
  for (const item of job.deployments || []) {
    if (Object.prototype.hasOwnProperty.call(deployments, item.name)) {
      return {status: 400, message: `Duplicate deployments ${item.name}.`};
    }
    deployments[item.name] = item;
  }
  try {
    for (const role of Object.keys(job.taskRoles)) {
      for (const name of job.taskRoles[role].prerequisites || []) {
        if (!names.has(name)) return {status: 400, message: `Prerequisite ${name} does not exist.`};
      }
    }
    for (const role of Object.keys(job.taskRoles)) {
      for (const field of ['script', 'output', 'data', 'dockerImage']) {
        if (field in job.taskRoles[role] && !(job.taskRoles[role][field] in byType[field.toLowerCase()])) {
          return {status: 400, message: `Prerequisite ${job.taskRoles[role][field]} does not exist.`};
        }
      }
    }
    if ('defaults' in job && 'deployment' in job.defaults && !(job.defaults.deployment in deployments)) {
      return {status: 400, message: `Default deployment ${job.defaults.deployment} does not exist.`};
    }
    rendered(job);
  } catch (e) {
    return {status: 500, message: e.message};
  }
  return {status: 202, message: ''};
}

readline.createInterface({input: process.stdin}).on('line', (line) => {
  process.stdout.write(JSON.stringify(verdict(JSON.parse(line).text)) + '\n');
});
