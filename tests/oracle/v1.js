// The real stack's verdict on a v1 job config, as a test oracle: the job schema of OpenPAI rest-server
// v1.0.0 (src/rest-server/src/config/job.js, as ../../shared/specs/openpai-api.md §1.2 records it)
// validated by the real Joi 13.0.2 with default options, then the server's min-count check
// (middlewares/job.js), then what the YARN launcher and the scheduler refuse afterwards (task counts
// 0..50000, at least one CPU and 1 MB, no negative GPUs, shared memory or port numbers, one role per name).
// Reads JSON lines {"text": <request body>} on stdin; writes {"ok": bool, "message": str} lines.
'use strict';
const Joi = require('joi');
const readline = require('readline');

const port = Joi.object().keys({
  label: Joi.string().regex(/^[A-Za-z0-9._~]+$/).required(),
  beginAt: Joi.number().integer().default(0),
  portNumber: Joi.number().integer().default(1),
});
const role = Joi.object().keys({
  name: Joi.string().regex(/^[A-Za-z0-9._~]+$/).required(),
  taskNumber: Joi.number().integer().default(1),
  cpuNumber: Joi.number().integer().default(1),
  memoryMB: Joi.number().integer().default(100),
  shmMB: Joi.number().integer().max(Joi.ref('memoryMB')).default(64),
  gpuNumber: Joi.number().integer().default(0),
  portList: Joi.array().items(port).default([]),
  command: Joi.string().required(),
  minFailedTaskCount: Joi.number().integer().min(1).allow(null).default(1),
  minSucceededTaskCount: Joi.number().integer().min(1).allow(null).default(null),
});
const job = Joi.object().keys({
  jobName: Joi.string().regex(/^[A-Za-z0-9\-._]+$/).required(),
  image: Joi.string().required(),
  authFile: Joi.string().allow('').default(''),
  dataDir: Joi.string().allow('').default(''),
  outputDir: Joi.string().allow('').default(''),
  codeDir: Joi.string().allow('').default(''),
  taskRoles: Joi.array().items(role).min(1).required(),
  gpuType: Joi.string().allow('').default(''),
  killAllOnCompletedTaskNumber: Joi.number().integer(),
  virtualCluster: Joi.string().allow('').default('default'),
  retryCount: Joi.number().integer().min(-2).default(0),
  jobEnvs: Joi.object().pattern(/\w+/, Joi.required()),
  extras: Joi.object().pattern(/[A-Za-z0-9._]+/, Joi.required()),
}).required();

function verdict(body) {
  const result = Joi.validate(body, job);
  if (result.error) return {ok: false, message: result.error.message};
  const roles = result.value.taskRoles;
  for (const r of roles) {
    if ((r.minFailedTaskCount || 0) > r.taskNumber || (r.minSucceededTaskCount || 0) > r.taskNumber) {
      return {ok: false, message: 'minFailedTaskCount or minSucceededTaskCount should not be greater than tasks number.'};
    }
  }
  for (const r of roles) {
    const badPort = r.portList.some((p) => p.beginAt < 0 || p.portNumber < 0);
    if (r.taskNumber < 0 || r.taskNumber > 50000 || r.cpuNumber < 1 || r.memoryMB < 1 || r.gpuNumber < 0 || r.shmMB < 0 || badPort) {
      return {ok: false, message: 'launcher: resource out of range in role ' + r.name};
    }
  }
  const names = roles.map((r) => r.name);
  if (new Set(names).size !== names.length) return {ok: false, message: 'scheduler: duplicate task role names'};
  return {ok: true, message: ''};
}

readline.createInterface({input: process.stdin}).on('line', (line) => {
  let out;
  try {
    out = verdict(JSON.parse(JSON.parse(line).text));
  } catch (e) {
    out = {ok: false, message: 'not JSON: ' + e.message};
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
