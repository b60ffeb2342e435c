"""Job configs the tests type into the editor or hand to `pai`."""

VALID = """{
  "jobName": "mnist",
  "image": "openpai/pai.example.tensorflow",
  "taskRoles": [
    {
      "name": "worker",
      "taskNumber": 2,
      "memoryMB": 8192,
      "command": "python train.py --hosts $PAI_TASK_ROLE_worker_HOST_LIST"
    }
  ]
}
"""

# A PaddlePaddle Cloud job file (`*.paddle.json`) with one mistake of each kind its checks find.
PADDLE_JOB = """{
  // PaddlePaddle Cloud job
  "name": "Fit_A.Line",
  "parallelism": 2,
  "memory": "1GB",
  "psmemory": "1Gi",
  "registry": "mine",
  "entry": "python train.py --id $PADDLE_INIT_TRAINER_ID",
}
"""

# A v2 job file (`*.pai.yaml`) that runs anywhere in a moment: a parameter and a secret in its commands.
V2_HELLO = """\
protocolVersion: 2
name: hello_v2
type: job
prerequisites:
  - {name: image, type: dockerimage, uri: "ubuntu:18.04"}
parameters: {greeting: hello}
secrets: {token: s3cr3t-value}
taskRoles:
  worker:
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}
    commands:
      - echo "<% $parameters.greeting %> from $PAI_CURRENT_TASK_ROLE_NAME"
      - test -n "<% $secrets.token %>" && echo done
"""

# A v2 job (`*.pai.yaml`) with a comment, a parameter, a port and `$PAI_…` variables: the v2 tests start from it.
V2_JOB = """\
protocolVersion: 2
name: demo_job
type: job
# the image the roles run in
prerequisites:
  - name: img
    type: dockerimage
    uri: ubuntu:18.04
parameters:
  epochs: 10
taskRoles:
  worker:
    instances: 2
    dockerImage: img
    resourcePerInstance:
      cpu: 1
      memoryMB: 1024
      gpu: 0
      ports:
        tb: 1
    commands:
      - python train.py --epochs <% $parameters.epochs %>  # keep me
      - echo $PAI_TASK_ROLE_worker_HOST_LIST $PAI_PORT_LIST_worker_0_tb
defaults:
  virtualCluster: default
"""

# Job files typed into at `|`, a character at a time (from TYPING_WORDS): the end of one command.
TYPING_WORDS = "the quick brown fox jumps over the lazy dog "

TYPING_V1 = """{
  "jobName": "typing",
  "image": "openpai/pai.example.tensorflow",
  "taskRoles": [
    {
      "name": "worker",
      "taskNumber": 1,
      "memoryMB": 8192,
      "command": "python train.py --hosts $PAI_TASK_ROLE_worker_HOST_LIST |"
    }
  ]
}
"""

TYPING_V2 = """protocolVersion: 2
name: typing
type: job
parameters:
  epochs: 10
prerequisites:
  - name: image
    type: dockerimage
    uri: ubuntu:18.04
taskRoles:
  worker:
    instances: 1
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands:
      - python train.py --epochs <% $parameters.epochs %> --hosts $PAI_TASK_ROLE_worker_HOST_LIST |
"""


def typing_start(template: str, line_length: int = 0) -> tuple[str, int, int]:
    """A TYPING_ template with `line_length` characters already typed at its `|`: the text, and the
    (line, column) where typing goes on."""
    at = template.index("|")
    typed = (TYPING_WORDS * (line_length // len(TYPING_WORDS) + 1))[:line_length]
    text = template[:at] + typed + template[at + 1 :]
    return text, text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1) + line_length

# The most natural v2 job a new user writes: no codeDir, no storage, a workspace file run by name.
FIRST_RUN = """protocolVersion: 2
name: firstrun
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: python:3}
taskRoles:
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}
    commands:
      - python3 train.py
"""
