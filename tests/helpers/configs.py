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
