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
