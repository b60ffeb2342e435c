"""A tiny stand-in for a training script: prints progress and writes a result file."""

import argparse
import os
import time

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--out", default="output")
args = parser.parse_args()

loss = 2.3
for epoch in range(1, args.epochs + 1):
    loss *= 0.6
    print(f"epoch {epoch}/{args.epochs} loss={loss:.4f} task={os.environ.get('PAI_CURRENT_TASK_ROLE_NAME', '?')}", flush=True)
    time.sleep(0.2)
os.makedirs("output", exist_ok=True)
with open(os.path.join("output", "result.txt"), "w") as f:
    f.write(f"final loss {loss:.4f}\n")
print("done", flush=True)
