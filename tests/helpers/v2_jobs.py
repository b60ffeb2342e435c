"""Generated v2 jobs of the classes where the readers of a job used to disagree (`taskRoles` and `ports`
given as lists or null, which the server's schema lets through; Infinity, which Ajv 6 counts as an
integer; an unclosed `<%`, which the server's renderer refuses with a 500; sections, comments and
changed tags): for comparing the local cluster, the editor and the v1 conversion with the real server."""

from __future__ import annotations

import random

BASE = """\
protocolVersion: 2
name: NAME
type: job
prerequisites:
  - {name: image, type: dockerimage, uri: "ubuntu:18.04"}
  - {name: code, type: script, uri: "https://x/y.git"}
parameters: {n: 3}
deployments:
  - name: dep
    taskRoles:
      worker: {preCommands: [PRE], postCommands: [echo post]}
defaults: {deployment: dep}
taskRoles:
  worker:
    instances: INSTANCES
    dockerImage: IMAGE
    script: code
    resourcePerInstance: {cpu: CPU, memoryMB: 64, gpu: 0, ports: PORTS}
    commands: [COMMAND]
"""
CHOICES = {
    "INSTANCES": ["1", "2", ".inf", "-.inf", ".nan", "1.0", "1.5", "'1'", "0"],
    "IMAGE": ["image", "code", "nothing", "Image"],
    "CPU": ["1", ".inf", "1.0", "2.5", "-1", "null"],
    "PORTS": ["{http: 1}", "[]", "null", "{}", "[http]", "{http: .inf}", "{bad-label: 1}", "{http: '1'}"],
    "COMMAND": ["echo <% $parameters.n %>", "echo <% $parameters.n", "echo <%# s %>x", "echo <%/ s %>", "'echo <% $script.uri %>'",
                "'echo ok'", "''", "'<%= [[ ]] =%> [[ $parameters.n ]]'"],
    "PRE": ["echo pre", "echo <% unclosed", "'echo <%! c %>'"],
}
ROLES = "taskRoles:\n  worker:\n"
SHAPES = [  # the mapping itself varies: taskRoles is BASE's last entry
    lambda text: text[:text.index(ROLES)] + "taskRoles:\n  - worker:\n" + text[text.index(ROLES) + len(ROLES):].replace("    ", "      "),
    lambda text: text[:text.index(ROLES)] + "taskRoles: []\n",
    lambda text: text[:text.index(ROLES)] + "taskRoles: null\n",
    lambda text: text[:text.index(ROLES)] + "taskRoles: {}\n",
    lambda text: text.replace("defaults: {deployment: dep}", "defaults: {deployment: other}"),
    lambda text: text.replace("  - {name: code, type: script", "  - {name: image, type: dockerimage"),
    lambda text: text.replace("parameters: {n: 3}", "parameters: {n: 3}\nparameters: {n: 4}"),
]


def generated(count: int, seed: int = 20) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for i in range(count):
        text = BASE.replace("NAME", f"v2verdict{i}")
        for key, options in CHOICES.items():
            text = text.replace(key, options[0] if rng.random() < 0.75 else rng.choice(options))
        if rng.random() < 0.3:
            text = rng.choice(SHAPES)(text)
        texts.append(text)
    return texts
