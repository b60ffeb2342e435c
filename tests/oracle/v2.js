// The real v2 server's schema verdict on a job file, as a test oracle: the protocol schema of OpenPAI
// rest-server (src/rest-server/src/config/v2/protocol.js at HEAD, as ../../shared/specs/openpai-api.md §2.2
// records it) compiled by the real Ajv 6.12.3 with ajv-merge-patch 4.1 (`$merge` of base.json into the
// prerequisite shapes), on the YAML read by js-yaml 3.13.1's safeLoad (middlewares/v2/protocol.js).
// Reads JSON lines {"text": <YAML>} on stdin; writes {"ok": bool, "errors": [{keyword, dataPath}]} lines
// ({"ok": false, "yaml": message} when js-yaml refuses the text).
'use strict';
const Ajv = require('ajv');
const ajvMerge = require('ajv-merge-patch/keywords/merge');
const yaml = require('js-yaml');
const readline = require('readline');

const ajv = new Ajv({allErrors: true});
ajvMerge(ajv);

const strings = {type: 'array', items: {type: 'string'}};
const roleKey = '^[a-zA-Z_][a-zA-Z0-9_]*$';
const base = {
  $id: 'base.json',
  type: 'object',
  properties: {
    protocolVersion: {enum: ['2', 2]},
    name: {type: 'string', pattern: '^[a-zA-Z0-9_-]+$', maxLength: 255},
    version: {type: ['string', 'number']},
    contributor: {type: 'string'},
    description: {type: 'string'},
  },
};
const ref = (name) => ({$ref: `base.json#/properties/${name}`});
const prerequisite = (types, uri, extra, required, additionalProperties) => ({
  $merge: {
    source: {$ref: 'base.json#'},
    with: {
      properties: Object.assign({type: {type: 'string', enum: types}}, extra, {uri}),
      required,
      additionalProperties,
    },
  },
});
const protocol = {
  $id: 'protocol.json',
  type: 'object',
  properties: {
    protocolVersion: ref('protocolVersion'),
    name: ref('name'),
    type: {type: 'string', enum: ['job']},
    version: ref('version'),
    contributor: ref('contributor'),
    description: ref('description'),
    prerequisites: {
      type: 'array',
      items: {
        type: 'object',
        oneOf: [
          prerequisite(['script', 'output'], {type: 'string'}, {plugin: {type: 'string'}, require: strings},
              ['name', 'type'], true),
          prerequisite(['data'], strings, {plugin: {type: 'string'}, require: strings}, ['name', 'type'], true),
          prerequisite(['dockerimage'], {type: 'string'}, {auth: {type: 'object', properties: {
            username: {type: 'string'}, password: {type: 'string'}, registryuri: {type: 'string'}}}},
          ['name', 'type', 'uri'], false),
        ],
      },
      minItems: 1,
    },
    parameters: {type: 'object', additionalProperties: true},
    secrets: {type: 'object', additionalProperties: true},
    jobRetryCount: {type: 'integer', minimum: 0},
    taskRoles: {
      patternProperties: {
        [roleKey]: {
          type: 'object',
          properties: {
            protocolVersion: ref('protocolVersion'),
            instances: {type: 'integer', minimum: 1},
            completion: {
              type: 'object',
              properties: {
                minFailedInstances: {type: ['integer', 'null']},
                minSucceededInstances: {type: ['integer', 'null']},
              },
              additionalProperties: false,
            },
            taskRetryCount: {type: 'integer'},
            prerequisites: strings,
            dockerImage: {type: 'string'},
            data: {type: 'string'},
            output: {type: 'string'},
            script: {type: 'string'},
            extraContainerOptions: {
              type: 'object',
              properties: {shmMB: {type: 'integer'}, additionalProperties: false},
            },
            resourcePerInstance: {
              type: 'object',
              properties: {
                cpu: {type: 'integer'},
                memoryMB: {type: 'integer'},
                gpu: {type: 'integer'},
                ports: {
                  patternProperties: {[roleKey]: {type: 'integer'}},
                  minProperties: 1,
                  additionalProperties: false,
                },
              },
              required: ['cpu', 'memoryMB', 'gpu'],
              additionalProperties: false,
            },
            commands: {type: 'array', items: {type: 'string'}, minItems: 1},
          },
          required: ['dockerImage', 'resourcePerInstance', 'commands'],
          additionalProperties: false,
        },
      },
      minProperties: 1,
      additionalProperties: false,
    },
    deployments: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          protocolVersion: ref('protocolVersion'),
          name: ref('name'),
          taskRoles: {
            patternProperties: {
              [roleKey]: {
                type: 'object',
                properties: {
                  preCommands: {type: 'array', items: {type: 'string'}, minItems: 1},
                  postCommands: {type: 'array', items: {type: 'string'}, minItems: 1},
                },
                additionalProperties: false,
              },
            },
            minProperties: 1,
            additionalProperties: false,
          },
        },
        required: ['name', 'taskRoles'],
      },
      minItems: 1,
    },
    defaults: {type: 'object', properties: {deployment: {type: 'string'}}},
    extras: {type: 'object'},
  },
  required: ['protocolVersion', 'name', 'type', 'taskRoles'],
  additionalProperties: false,
};
const validate = ajv.addSchema(base).compile(protocol);

module.exports = {validate};  // for protocol.js

if (require.main === module) {
  readline.createInterface({input: process.stdin}).on('line', (line) => {
    let out;
    try {
      const job = yaml.safeLoad(JSON.parse(line).text);
      const ok = validate(job);
      out = {ok, errors: (validate.errors || []).map((e) => ({keyword: e.keyword, dataPath: e.dataPath}))};
    } catch (e) {
      out = {ok: false, yaml: e.message};
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  });
}
