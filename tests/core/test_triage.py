"""Failure explanations (pai_lsp.core.triage), in process: every class from the log text real
frameworks print (PyTorch, TensorFlow, PaddlePaddle, NCCL, gloo, torchrun, bash, dash, coreutils,
Hadoop's shell), the exit facts OpenPAI and the local cluster report, tracebacks mapped back to a
workspace package three modules deep, both languages, and hostile 1 MB logs classified fast."""

from __future__ import annotations

import json
import re
import sys
from textwrap import dedent

import pytest

from pai_lsp.core.triage import (
    CodeLayout,
    ExitSpec,
    Explanation,
    JobFacts,
    TaskFacts,
    Text,
    catalogue,
    explain_job,
    explain_task,
    specs,
    with_note,
)
from pai_lsp.core.triage.explain import spec_matching
from pai_lsp.core.triage.logtext import MAX_LOG
from pai_lsp.core.triage.rules import RULES

CJK = re.compile(r"[\u4e00-\u9fff]")
WIDE = re.compile(r"[\u3000-\u303f\uff00-\uffef]")  # full-width punctuation: a clause that is only a number in brackets

# The workspace: a package three modules deep under the job's code, uploaded as is.
MANIFEST = {rel: rel for rel in ("train.py", "mnist/__init__.py", "mnist/data.py", "mnist/transforms.py", "mnist/ops.py",
                                 "scripts/run.sh")}
LAYOUT = CodeLayout.for_job(MANIFEST, "mnist", code_dir="$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME", user="alice",
                            workdir="/pai/work")
SITE = "/opt/conda/lib/python3.8/site-packages"


def log(text: str) -> str:
    return dedent(text).lstrip("\n")


def explain(text: str = "", **facts) -> Explanation:
    facts.setdefault("layout", LAYOUT)
    result = explain_task(TaskFacts(log=log(text), **facts))
    _check_words(result)
    return result


def _check_words(e: Explanation) -> None:
    """Every explanation speaks both languages, whole: no template field left, Chinese in Chinese."""
    for text in (e.title, e.message) + ((e.exit_words,) if e.exit_words else ()):
        assert text.en and text.zh
        assert "{" not in text.en and "{" not in text.zh, text
        assert CJK.search(text.zh) or text.zh == text.en, text
    assert CJK.search(e.message.zh), e.message


# -- one class each, from real output ------------------------------------------------------------
PYTORCH_OOM = log(f"""
    Epoch 3:  41%|████      | 412/1000 [03:02<04:21,  2.25it/s, loss=0.412]
    Traceback (most recent call last):
      File "/pai/work/alice~mnist/train.py", line 58, in <module>
        loss.backward()
      File "{SITE}/torch/_tensor.py", line 487, in backward
        torch.autograd.backward(
      File "{SITE}/torch/autograd/__init__.py", line 200, in backward
        Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
    torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 15.78 GiB of which 1.19 GiB is free. Including non-PyTorch memory, this process has 14.58 GiB memory in use. Of the allocated memory 13.91 GiB is allocated by PyTorch, and 301.55 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
""")


def test_pytorch_cuda_oom_names_the_allocation_and_the_gpu():
    e = explain(PYTORCH_OOM, exit_code=255, user_exit_code=1)
    assert e.kind == "cuda-oom"
    assert "2.00 GiB" in e.message.en and "GPU 0" in e.message.en and "batch" in e.message.en
    assert "2.00 GiB" in e.message.zh and "显存" in e.message.zh
    assert e.phrase == "ContainerCudaOOMKilled" and e.spec_code == 226
    assert e.evidence[-1].text.startswith("torch.cuda.OutOfMemoryError: CUDA out of memory") and e.evidence[-1].line == 9
    assert e.traceback.primary.workspace == "train.py" and e.traceback.primary.line == 58
    assert e.exit_words.en == "exit code 1 (the program reported an error); cluster code 255 (PAIRuntimeUnknownFailed)"


def test_pytorch_1x_and_thc_wordings_are_cuda_oom():
    old = explain("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.56 GiB "
                  "already allocated; 3.44 MiB free; 14.71 GiB reserved in total by PyTorch)\n", exit_code=1)
    assert old.kind == "cuda-oom" and "20.00 MiB" in old.message.en and "GPU 0" in old.message.en
    thc = explain("RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510\n",
                  exit_code=1)
    assert thc.kind == "cuda-oom" and thc.phrase == "ContainerCudaOOMKilled"


TF_OOM = log(f"""
    2023-05-02 10:11:12.123456: W tensorflow/core/common_runtime/bfc_allocator.cc:479] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.53GiB (rounded to 1642070016)requested by op model/conv2d_3/Conv2D
    Traceback (most recent call last):
      File "/pai/work/alice~mnist/train.py", line 91, in <module>
        model.fit(dataset, epochs=10)
      File "{SITE}/keras/utils/traceback_utils.py", line 70, in error_handler
        raise e.with_traceback(filtered_tb) from None
      File "{SITE}/tensorflow/python/eager/execute.py", line 54, in quick_execute
        tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
    tensorflow.python.framework.errors_impl.ResourceExhaustedError: Graph execution error:
      (0) Resource exhausted: OOM when allocating tensor with shape[64,256,56,56] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
    \t [[{{{{node model/conv2d_3/Conv2D}}}}]]
    Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info. This isn't available when running in Eager mode.
    \t [[_Recv[client_terminated=false, recv_device="/job:localhost/replica:0/task:0/device:CPU:0", send_device="/job:localhost/replica:0/task:0/device:GPU:0"]]]
""")


def test_tensorflow_resource_exhausted_is_cuda_oom_even_with_cpu_devices_in_the_message():
    e = explain(TF_OOM, exit_code=221, user_exit_code=1)
    assert e.kind == "cuda-oom"
    assert e.phrase == "ContainerTensorflowOOMKilled"
    assert "GPU 0" in e.message.en
    assert e.exit_words.en.endswith("cluster code 221 (ContainerTensorflowOOMKilled)")


def test_tensorflow_allocator_and_cpu_oom():
    e = explain("2023-05-02 10:11:12: W tensorflow/core/common_runtime/bfc_allocator.cc:479] Allocator (GPU_0_bfc) ran out of "
                "memory trying to allocate 2.20GiB with freed_by_count=0.\nAborted (core dumped)\n", exit_code=134)
    assert e.kind == "cuda-oom" and "2.20GiB" in e.message.en
    cpu = explain("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with "
                  "shape[100000,4096] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu\n",
                  exit_code=1, memory_mb=8192)
    assert cpu.kind == "host-oom" and "memoryMB 8192" in cpu.message.en and "memoryMB 8192" in cpu.message.zh


def test_paddle_gpu_oom():
    e = explain("""
        Traceback (most recent call last):
          File "train.py", line 40, in <module>
            loss = model(x)
        SystemError: (Fatal) Operator conv2d raises an paddle::memory::allocation::BadAlloc exception.
        The exception content is
        :ResourceExhaustedError:

        Out of memory error on GPU 0. Cannot allocate 256.000244MB memory on GPU 0, 15.750000GB memory has been allocated and available memory is only 0.000000B.

        Please check whether there is any other process using GPU 0.
    """, exit_code=1)
    assert e.kind == "cuda-oom" and "256.000244MB" in e.message.en
    assert e.traceback.primary.workspace == "train.py"


def test_host_oom_kill_by_exit_code_by_the_bash_line_and_by_the_platform():
    likely = explain("epoch 1 step 200 loss 0.8\n", exit_code=137, memory_mb=4096)
    assert likely.kind == "host-oom" and likely.signal == "SIGKILL"
    assert "memoryMB 4096" in likely.message.en and "137" in likely.message.en and "137" in likely.message.zh
    assert likely.exit_words.en == "exit code 137 (killed by SIGKILL: killed)"
    assert likely.phrase == "ContainerSigKillReceived"
    bash = explain("loading 12000000 rows\nbash: line 1:  4711 Killed                  python train.py\n", exit_code=137)
    assert bash.kind == "host-oom" and bash.evidence[-1].text.startswith("bash: line 1:  4711 Killed")
    platform = explain("", exit_code=-1200, exit_spec=ExitSpec(-1200, "UserContainerDockerOOMKilled", "USER_FAILURE"), memory_mb=2048)
    assert platform.kind == "host-oom" and platform.phrase == "UserContainerDockerOOMKilled" and "limit" in platform.message.en
    local = explain("step 1\n", exit_code=137, oom_killed=True, memory_mb=512)
    assert local.kind == "host-oom" and "killed for using more memory" in local.message.en
    yarn = explain("", exit_code=255, diagnostics="Container [pid=4711,containerID=container_1_0001_01_000002] is running beyond "
                   "physical memory limits. Current usage: 4.1 GB of 4 GB physical memory used; 6.2 GB of 8.4 GB virtual memory used. "
                   "Killing container.")
    assert yarn.kind == "host-oom" and yarn.evidence[0].source == "diagnostics" and "4.1 GB of 4 GB" in yarn.message.en


def test_torchrun_child_killed_by_sigkill_is_host_memory():
    e = explain(f"""
        [2024-01-14 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 0 (pid: 14750) of binary: /usr/bin/python3
        Traceback (most recent call last):
          File "/usr/local/bin/torchrun", line 8, in <module>
            sys.exit(main())
          File "{SITE}/torch/distributed/launcher/api.py", line 263, in launch_agent
            raise ChildFailedError(
        torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
        ============================================================
        train.py FAILED
        ------------------------------------------------------------
        Root Cause (first observed failure):
        [0]:
          time      : 2024-01-14_10:00:00
          rank      : 0 (local_rank: 0)
          exitcode  : -9 (pid: 14750)
          error_file: <N/A>
          traceback : Signal 9 (SIGKILL) received by PID 14750
        ============================================================
    """, exit_code=255, user_exit_code=1, memory_mb=16384)
    assert e.kind == "host-oom" and e.signal == "SIGKILL" and "memoryMB 16384" in e.message.en


def test_dataloader_bus_error_is_shared_memory():
    e = explain(f"""
        ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).
        Traceback (most recent call last):
          File "{SITE}/torch/utils/data/dataloader.py", line 1132, in _try_get_data
            data = self._data_queue.get(timeout=timeout)
        RuntimeError: DataLoader worker (pid 4321) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.
    """, exit_code=1, shm_mb=64)
    assert e.kind == "shared-memory" and "shmMB 64" in e.message.en and "shmMB" in e.message.zh


NCCL_WATCHDOG = log("""
    [rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.
    [rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: 1579.
    [rank1]:[E ProcessGroupNCCL.cpp:577] [Rank 1] To avoid data inconsistency, we are taking the entire process down.
    terminate called after throwing an instance of 'c10::DistBackendError'
      what():  [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE) ran for 600060 milliseconds before timing out.
""")


def test_nccl_watchdog_timeout_that_aborts_the_process_is_distributed():
    e = explain(NCCL_WATCHDOG, exit_code=134)
    assert e.kind == "distributed" and "timed out" in e.message.en and "OpType=ALLREDUCE" in e.message.en
    assert "超时" in e.message.zh
    assert e.exit_words.en == "exit code 134 (killed by SIGABRT: aborted)"


def test_nccl_error_gloo_reset_store_timeout_and_connection_reset():
    nccl = explain("""
        gpu-node-3:231:245 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.7<0>
        gpu-node-3:231:245 [0] NCCL WARN Connect to 10.0.0.5<45123> failed : Connection refused
        Traceback (most recent call last):
          File "train.py", line 22, in <module>
            dist.all_reduce(t)
        RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1656352465323/work/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.10.3
        ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. It can be also caused by unexpected exit of a remote peer, you can check NCCL warnings for failure reason and see if there is connection closure by a peer.
    """, exit_code=1)
    assert nccl.kind == "distributed" and "(unhandled system error)" in nccl.message.en
    gloo = explain("RuntimeError: [/opt/conda/conda-bld/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed "
                   "by peer [10.0.0.5]:21345\n", exit_code=1)
    assert gloo.kind == "distributed" and "reset" in gloo.message.en
    store = explain("RuntimeError: Timed out initializing process group in store based barrier on rank: 1, for key: "
                    "store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)\n", exit_code=1)
    assert store.kind == "distributed" and "timed out" in store.message.en
    reset = explain("""
        Traceback (most recent call last):
          File "/pai/work/mnist/mnist/data.py", line 7, in fetch
            return sock.recv(4096)
        ConnectionResetError: [Errno 104] Connection reset by peer
    """, exit_code=1)
    assert reset.kind == "distributed" and reset.traceback.primary.workspace == "mnist/data.py"


def test_gpu_ecc_and_no_device():
    ecc = explain("RuntimeError: CUDA error: uncorrectable ECC error encountered\nCUDA kernel errors might be asynchronously "
                  "reported at some other API call, so the stacktrace below might be incorrect.\n", exit_code=1)
    assert ecc.kind == "gpu-ecc" and "hardware" in ecc.message.en and "硬件" in ecc.message.zh
    tf_ecc = explain("F tensorflow/stream_executor/lib/statusor.cc:34] Attempting to fetch value instead of handling error Internal: "
                     "failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered\n",
                     exit_code=134)
    assert tf_ecc.kind == "gpu-ecc" and tf_ecc.phrase == "ContainerCudaUncorrectableECCError"
    none = explain("""
        Traceback (most recent call last):
          File "train.py", line 12, in <module>
            model.cuda()
        RuntimeError: CUDA error: no CUDA-capable device is detected
    """, exit_code=1)
    assert none.kind == "gpu-unavailable" and "gpuNumber" in none.message.en
    driver = explain("RuntimeError: The NVIDIA driver on your system is too old (found version 10010). Please update your GPU "
                     "driver\n", exit_code=1, image="pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime")
    assert driver.kind == "gpu-unavailable" and "pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime" in driver.message.en


def test_missing_package_is_named_with_the_image():
    e = explain("""
        Traceback (most recent call last):
          File "/pai/work/alice~mnist/train.py", line 3, in <module>
            import cv2
        ModuleNotFoundError: No module named 'cv2'
    """, exit_code=255, user_exit_code=1, image="openpai/standard:python_3.6-pytorch_1.2.0-gpu")
    assert e.kind == "missing-module" and e.module == "cv2" and e.package == "opencv-python"
    assert "pip install opencv-python" in e.message.en and "openpai/standard:python_3.6-pytorch_1.2.0-gpu" in e.message.en
    assert "镜像 openpai/standard:python_3.6-pytorch_1.2.0-gpu 中" in e.message.zh
    assert e.title.en == "Missing Python package: opencv-python" and e.phrase == "ContainerImportError"


def test_missing_module_of_the_users_own_package_says_where_to_run():
    e = explain("""
        Traceback (most recent call last):
          File "/pai/work/scripts/../train.py", line 2, in <module>
            from mnist.data import load
        ModuleNotFoundError: No module named 'mnist'
    """, exit_code=1)
    assert e.kind == "missing-module" and e.package is None and "mnist/__init__.py" in e.message.en and "PYTHONPATH" in e.message.en


def test_import_name_and_missing_library():
    name = explain(f"""
        Traceback (most recent call last):
          File "train.py", line 1, in <module>
            import jinja2
          File "{SITE}/jinja2/__init__.py", line 12, in <module>
            from .environment import Environment
        ImportError: cannot import name 'soft_unicode' from 'markupsafe' ({SITE}/markupsafe/__init__.py)
    """, exit_code=1, image="python:3.8")
    assert name.kind == "missing-module" and name.package == "markupsafe" and "soft_unicode" in name.message.en
    library = explain("ImportError: libcudart.so.10.0: cannot open shared object file: No such file or directory\n", exit_code=1)
    assert library.kind == "missing-module" and "libcudart.so.10.0" in library.message.en and library.package is None


def test_paths_not_found_locally_on_hdfs_a_script_and_a_folder():
    local = explain("""
        Traceback (most recent call last):
          File "/pai/work/alice~mnist/mnist/data.py", line 31, in load
            with open(path) as f:
        FileNotFoundError: [Errno 2] No such file or directory: '/data/mnist/train.csv'
    """, exit_code=1)
    assert local.kind == "path-not-found" and local.path == "/data/mnist/train.csv" and not local.hdfs
    assert local.title.en == "Path not found: /data/mnist/train.csv" and "/data/mnist/train.csv" in local.message.zh
    hdfs = explain("copyToLocal: `hdfs://10.151.40.179:9000/user/alice/mnist/data': No such file or directory\n", exit_code=1)
    assert hdfs.kind == "path-not-found" and hdfs.hdfs and hdfs.path == "hdfs://10.151.40.179:9000/user/alice/mnist/data"
    assert "HDFS" in hdfs.message.en
    java = explain("Exception in thread \"main\" java.io.FileNotFoundException: File does not exist: /user/alice/mnist/labels.csv\n",
                   exit_code=1)
    assert java.kind == "path-not-found" and java.hdfs and java.path == "/user/alice/mnist/labels.csv"
    script = explain("python3: can't open file '/pai/work/train.py': [Errno 2] No such file or directory\n", exit_code=2)
    assert script.kind == "path-not-found" and script.path == "/pai/work/train.py" and "cd $PAI_JOB_NAME" in script.message.en
    folder = explain("bash: line 1: cd: alice~mnist: No such file or directory\n", exit_code=1)
    assert folder.kind == "path-not-found" and folder.path == "alice~mnist" and "cd into" in folder.message.en
    tf = explain("tensorflow.python.framework.errors_impl.NotFoundError: /data/train.tfrecord; No such file or directory\n",
                 exit_code=1)
    assert tf.kind == "path-not-found" and tf.path == "/data/train.tfrecord"


def test_permission_denied_locally_on_hdfs_and_not_executable():
    local = explain("PermissionError: [Errno 13] Permission denied: '/data/output/model.pt'\n", exit_code=1)
    assert local.kind == "permission-denied" and local.path == "/data/output/model.pt"
    hdfs = explain('put: Permission denied: user=alice, access=WRITE, inode="/user/bob/out":bob:supergroup:drwxr-xr-x\n', exit_code=1)
    assert hdfs.kind == "permission-denied" and hdfs.hdfs and hdfs.path == "/user/bob/out" and "WRITE" in hdfs.message.en
    script = explain("/bin/bash: line 1: ./scripts/run.sh: Permission denied\n", exit_code=126)
    assert script.kind == "permission-denied" and script.path == "./scripts/run.sh"
    bare = explain("", exit_code=126)
    assert bare.kind == "permission-denied" and "chmod +x" in bare.message.en


def test_command_not_found_in_bash_dash_docker_and_by_exit_code():
    bash = explain("/bin/bash: line 1: pythn: command not found\n", exit_code=127, image="ubuntu:18.04")
    assert bash.kind == "command-not-found" and bash.command == "pythn" and "ubuntu:18.04" in bash.message.en
    assert bash.phrase == "UserCommandExitWithError" and bash.title.en == "Command not found: pythn"
    dash = explain("/bin/sh: 1: nvidia-smi: not found\n", exit_code=127)
    assert dash.kind == "command-not-found" and dash.command == "nvidia-smi"
    docker = explain('exec: "trainer": executable file not found in $PATH\n', exit_code=127)
    assert docker.command == "trainer"
    bare = explain("", exit_code=127)
    assert bare.kind == "command-not-found" and "127" in bare.message.en


def test_windows_line_ends_and_bad_interpreters():
    crlf = explain("/bin/bash: ./scripts/run.sh: /bin/bash^M: bad interpreter: No such file or directory\n", exit_code=126)
    assert crlf.kind == "command-not-found" and "CRLF" in crlf.message.en and "CRLF" in crlf.message.zh
    crlf_cr = explain("scripts/run.sh: line 2: $'\\r': command not found\n", exit_code=127)
    assert crlf_cr.kind == "command-not-found" and "CRLF" in crlf_cr.message.en
    env = explain("/usr/bin/env: ‘python\r’: No such file or directory\n", exit_code=127)
    assert env.kind == "command-not-found" and "CRLF" in env.message.en
    missing = explain("/bin/bash: ./scripts/run.sh: /usr/local/bin/python3.9: bad interpreter: No such file or directory\n", exit_code=126)
    assert missing.kind == "command-not-found" and missing.command == "/usr/local/bin/python3.9"
    assert "./scripts/run.sh" in missing.message.en and "#!" in missing.message.en


def test_segfault_and_other_signals_by_code_and_by_words():
    bash = explain("bash: line 1:   812 Segmentation fault      (core dumped) python train.py\n", exit_code=139)
    assert bash.kind == "signal" and bash.signal == "SIGSEGV" and bash.phrase == "ContainerSigvFault"
    assert bash.title.en == "Killed by SIGSEGV" and "段错误" in bash.message.zh
    for code, name in ((134, "SIGABRT"), (135, "SIGBUS"), (136, "SIGFPE"), (132, "SIGILL"), (143, "SIGTERM"), (141, "SIGPIPE")):
        e = explain("step 10\n", exit_code=code)
        assert (e.kind, e.signal) == ("signal", name)
        assert e.phrase == specs.table("k8s")[code].phrase
    negative = explain("", exit_code=None, user_exit_code=-11)
    assert negative.signal == "SIGSEGV"
    words = explain("Floating point exception (core dumped)\n", exit_code=1)
    assert (words.kind, words.signal) == ("signal", "SIGFPE")


def test_faulthandler_dump_maps_the_crash_to_the_users_file():
    e = explain(f"""
        Fatal Python error: Segmentation fault

        Thread 0x00007f3a7f5fe700 (most recent call first):
          File "/usr/lib/python3.8/threading.py", line 302 in wait

        Current thread 0x00007f3a8c5b6740 (most recent call first):
          File "{SITE}/torch/nn/functional.py", line 1457 in relu
          File "/pai/work/alice~mnist/mnist/ops.py", line 12 in fused
          File "/pai/work/alice~mnist/mnist/transforms.py", line 40 in apply
          File "/pai/work/alice~mnist/train.py", line 70 in <module>
        Segmentation fault (core dumped)
    """, exit_code=139)
    assert e.kind == "signal" and e.signal == "SIGSEGV"
    assert (e.traceback.primary.workspace, e.traceback.primary.line) == ("mnist/ops.py", 12)
    assert [f.workspace for f in e.traceback.related] == ["mnist/transforms.py", "train.py"]


def test_non_zero_exit_without_traceback_shows_the_last_lines():
    e = explain("""
        loading 60000 images
        validation accuracy 0.12 is below the threshold 0.50


        ==========
    """, exit_code=255, user_exit_code=3)
    assert e.kind == "exit-nonzero" and e.title.en == "Exited with code 3"
    assert [x.text for x in e.last_lines] == ["loading 60000 images", "validation accuracy 0.12 is below the threshold 0.50"]
    assert [x.line for x in e.last_lines] == [1, 2]
    assert "exit code 3" in e.message.en and "退出码 3" in e.message.zh


def test_argparse_refusing_its_arguments():
    e = explain("usage: train.py [-h] [--lr LR] [--epochs EPOCHS]\ntrain.py: error: unrecognized arguments: --epoch 10\n",
                exit_code=2)
    assert e.kind == "exit-nonzero" and "unrecognized arguments: --epoch 10" in e.message.en


def test_user_stop_and_retries_exhausted():
    stopped = explain("step 5\n", exit_code=-210)
    assert stopped.kind == "user-stop" and "StopFrameworkRequested" in stopped.message.en
    yarn = explain_task(TaskFacts(exit_code=-7351, era="yarn"))
    assert yarn.kind == "user-stop" and yarn.phrase == "APP_STOP_FRAMEWORK_REQUESTED"
    job = explain_job(JobFacts(state="STOPPED", exit_code=-210, stopped_by_user=True))
    assert job.kind == "user-stop"
    task = explain(PYTORCH_OOM, exit_code=255, user_exit_code=1, role="worker", index=0)
    exhausted = explain_job(JobFacts(exit_code=255, trigger_role="worker", trigger_index=0, retries=3, retries_allowed=3), [task])
    assert exhausted.kind == "retries-exhausted" and exhausted.cause.kind == "cuda-oom"
    assert exhausted.title.en == "Failed after all retries: CUDA out of memory" and "3 retries" in exhausted.message.en
    assert "3 次重试" in exhausted.message.zh and exhausted.traceback is task.traceback
    retried = explain_job(JobFacts(exit_code=255, trigger_role="worker", trigger_index=0, retries=1, retries_allowed=3), [task])
    assert retried.kind == "cuda-oom" and retried.retries == 1


def test_job_explained_by_its_cause_not_by_the_other_ranks_consequences():
    victim = explain(NCCL_WATCHDOG, exit_code=134, role="worker", index=1)
    cause = explain(PYTORCH_OOM, exit_code=255, user_exit_code=1, role="worker", index=0)
    job = explain_job(JobFacts(exit_code=134, trigger_role="worker", trigger_index=1), [victim, cause])
    assert (job.kind, job.role, job.index) == ("cuda-oom", "worker", 0)


def test_platform_failures_need_no_log():
    image = explain("", exit_code=254, exit_spec=specs.lookup(254), image="myregistry/trainer:v9")
    assert image.kind == "platform" and "myregistry/trainer:v9" in image.message.en and image.phrase == "ContainerImageNotExists"
    evicted = explain("", exit_code=-1000)
    assert evicted.kind == "platform" and evicted.phrase == "PodEvicted" and "not your code" in evicted.message.en
    gang = explain("", exit_code=-7252, era="yarn")
    assert gang.kind == "platform" and "resources in time" in gang.message.en


def test_unrecognised_output_still_says_something():
    e = explain("W0102 warming up\nI0102 step 1\n", exit_code=255)
    assert e.kind == "exit-nonzero" and e.last_lines[-1].text == "I0102 step 1"
    assert e.exit_words.en == "cluster code 255 (PAIRuntimeUnknownFailed)"
    plain = explain("step 10 loss 0.5\n", exit_code=1)  # a code no spec entry defines is not the platform's doing
    assert plain.kind == "exit-nonzero" and plain.exit_words.en == "exit code 1 (the program reported an error)"
    nothing = explain_task(TaskFacts())
    assert nothing.kind == "unknown" and nothing.message.en and CJK.search(nothing.message.zh)


# -- tracebacks on the user's files --------------------------------------------------------------
DEEP = log(f"""
    Epoch 1: loading
    Traceback (most recent call last):
      File "/pai/work/alice~mnist/train.py", line 12, in <module>
        main()
      File "/pai/work/alice~mnist/train.py", line 9, in main
        batch = data.load(args.path)
      File "/pai/work/alice~mnist/mnist/data.py", line 21, in load
        return transforms.normalize(raw)
      File "/pai/work/alice~mnist/mnist/transforms.py", line 8, in normalize
        return np.divide(x, x.std(axis=1))
      File "{SITE}/numpy/core/_methods.py", line 269, in _std
        ret = _var(a, axis=axis, dtype=dtype, out=out, ddof=ddof,
    ValueError: axis 1 is out of bounds for array of dimension 1
""")


def test_traceback_three_modules_deep_maps_to_the_workspace():
    e = explain(DEEP, exit_code=255, user_exit_code=1)
    assert e.kind == "python-exception" and e.title.en == "Python exception: ValueError"
    frame = e.traceback.primary
    assert (frame.workspace, frame.line, frame.function, frame.matched_by) == ("mnist/transforms.py", 8, "normalize", "code-dir")
    assert frame.source == "return np.divide(x, x.std(axis=1))" and frame.log_line == 9
    assert [(f.workspace, f.line) for f in e.traceback.related] == [("mnist/data.py", 21), ("train.py", 9), ("train.py", 12)]
    library = e.traceback.exception.frames[-1]
    assert not library.user and library.workspace is None
    assert "mnist/transforms.py:8" in e.message.en and "axis 1 is out of bounds" in e.message.en
    assert "mnist/transforms.py 第 8 行" in e.message.zh
    assert e.evidence[-1].text == "ValueError: axis 1 is out of bounds for array of dimension 1" and e.evidence[-1].line == 13


@pytest.mark.parametrize("root", ["/pai/work/mnist", "/home/u/.local/share/pai/local/jobs/x/0/worker/0/work/mnist",
                                  "/root/alice~mnist", "mnist"])
def test_frames_map_from_every_layout_of_the_code_folder(root):
    e = explain(DEEP.replace("/pai/work/alice~mnist", root), exit_code=1)
    assert e.traceback.primary.workspace == "mnist/transforms.py"


def test_relative_paths_after_cd_and_suffix_matches():
    cd = explain('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    x = 1/0\n'
                 "ZeroDivisionError: division by zero\n", exit_code=1)
    assert cd.traceback.primary.workspace == "train.py" and cd.traceback.primary.matched_by == "code-dir"
    elsewhere = explain('Traceback (most recent call last):\n  File "/tmp/copy/mnist/ops.py", line 3, in f\n    x = 1/0\n'
                        "ZeroDivisionError: division by zero\n", exit_code=1)
    assert elsewhere.traceback.primary.workspace == "mnist/ops.py" and elsewhere.traceback.primary.matched_by == "suffix"
    # A library file that happens to share a name with an uploaded one is not the user's.
    lib = explain(f'Traceback (most recent call last):\n  File "{SITE}/train.py", line 3, in f\n    x = 1/0\n'
                  "ZeroDivisionError: division by zero\n", exit_code=1)
    assert lib.traceback.primary is None


def test_chained_exceptions_keep_the_chain_and_the_last_wins():
    e = explain("""
        Traceback (most recent call last):
          File "/pai/work/mnist/mnist/data.py", line 5, in lookup
            return table[key]
        KeyError: 'label'

        During handling of the above exception, another exception occurred:

        Traceback (most recent call last):
          File "/pai/work/mnist/train.py", line 30, in <module>
            lookup("label")
          File "/pai/work/mnist/mnist/data.py", line 7, in lookup
            raise ValueError(f"no column {key!r}") from None
        ValueError: no column 'label'
    """, exit_code=1)
    assert [x.type for x in e.traceback.chain] == ["KeyError", "ValueError"]
    assert (e.traceback.primary.workspace, e.traceback.primary.line) == ("mnist/data.py", 7)
    assert ("mnist/data.py", 5) in [(f.workspace, f.line) for f in e.traceback.related]
    assert "ValueError" in e.message.en


def test_the_last_traceback_ends_the_task_and_an_earlier_logged_one_does_not():
    e = explain("""
        WARNING:root:retrying download
        Traceback (most recent call last):
          File "/pai/work/mnist/mnist/data.py", line 50, in fetch
            urlopen(url)
        TimeoutError: timed out
        epoch 1 done
        Traceback (most recent call last):
          File "/pai/work/mnist/train.py", line 80, in <module>
            assert acc > 0.5, acc
        AssertionError: 0.12
    """, exit_code=1)
    assert e.traceback.exception.type == "AssertionError" and len(e.traceback.chain) == 1
    assert e.traceback.primary.workspace == "train.py"


def test_multiprocessing_pool_child_traceback_is_where_the_bug_is():
    e = explain("""
        multiprocessing.pool.RemoteTraceback:
        \"\"\"
        Traceback (most recent call last):
          File "/usr/lib/python3.8/multiprocessing/pool.py", line 125, in worker
            result = (True, func(*args, **kwds))
          File "/usr/lib/python3.8/multiprocessing/pool.py", line 48, in mapstar
            return list(map(*args))
          File "/pai/work/mnist/mnist/transforms.py", line 15, in resize
            return img[:, :h]
        TypeError: 'NoneType' object is not subscriptable
        \"\"\"

        The above exception was the direct cause of the following exception:

        Traceback (most recent call last):
          File "/pai/work/mnist/train.py", line 44, in <module>
            images = pool.map(resize, paths)
          File "/usr/lib/python3.8/multiprocessing/pool.py", line 364, in map
            return self._map_async(func, iterable, mapstar, chunksize).get()
          File "/usr/lib/python3.8/multiprocessing/pool.py", line 771, in get
            raise self._value
        TypeError: 'NoneType' object is not subscriptable
    """, exit_code=1)
    assert e.traceback.chain[0].child and not e.traceback.chain[1].child
    assert (e.traceback.primary.workspace, e.traceback.primary.line) == ("mnist/transforms.py", 15)
    assert ("train.py", 44) in [(f.workspace, f.line) for f in e.traceback.related]


def test_torch_multiprocessing_spawn_child():
    e = explain(f"""
        Traceback (most recent call last):
          File "/pai/work/mnist/train.py", line 90, in <module>
            mp.spawn(run, nprocs=2)
          File "{SITE}/torch/multiprocessing/spawn.py", line 160, in join
            raise ProcessRaisedException(msg, error_index, failed_process.pid)
        torch.multiprocessing.spawn.ProcessRaisedException:

        -- Process 1 terminated with the following error:
        Traceback (most recent call last):
          File "{SITE}/torch/multiprocessing/spawn.py", line 69, in _wrap
            fn(i, *args)
          File "/pai/work/mnist/mnist/data.py", line 61, in run
            shard = shards[rank]
        IndexError: list index out of range
    """, exit_code=1)
    assert e.traceback.exception.child and e.traceback.exception.type == "IndexError"
    assert e.traceback.primary.workspace == "mnist/data.py"
    assert e.phrase == "ContainerIndexOutOfRange"  # the spec's runtime pattern matches the exception


def test_torchrun_rank_prefixed_traceback_before_the_launchers():
    e = explain(f"""
        [rank1]: Traceback (most recent call last):
        [rank0]: step 10
        [rank1]:   File "/pai/work/alice~mnist/train.py", line 33, in <module>
        [rank1]:     step(batch)
        [rank1]:   File "/pai/work/alice~mnist/mnist/ops.py", line 4, in step
        [rank1]:     raise RuntimeError("bad shape " + str(x.shape))
        [rank1]: RuntimeError: bad shape (3, 4)
        E0325 20:57:27.620000 2606 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 2630) of binary: /usr/bin/python3
        Traceback (most recent call last):
          File "/usr/local/bin/torchrun", line 8, in <module>
            sys.exit(main())
          File "{SITE}/torch/distributed/launcher/api.py", line 269, in launch_agent
            raise ChildFailedError(
        torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
        ============================================================
        train.py FAILED
    """, exit_code=1)
    assert [x.type.rsplit(".", 1)[-1] for x in e.traceback.chain] == ["RuntimeError", "ChildFailedError"]
    assert e.kind == "python-exception" and "bad shape (3, 4)" in e.message.en
    assert (e.traceback.primary.workspace, e.traceback.primary.line) == ("mnist/ops.py", 4)


def test_a_traceback_after_a_progress_bar_and_with_other_output_inside():
    progress = "Epoch 1:  13%|█▎        | 130/1000 [00:34<03:47,  3.83it/s]"
    text = DEEP.replace("Epoch 1: loading\n", progress).replace(
        "        main()\n", "        main()\nINFO:root:heartbeat from the data loader\nW0102 12:00:01.000 prefetch slow\n")
    e = explain(text, exit_code=1)
    assert e.kind == "python-exception" and e.traceback.exception.type == "ValueError"
    assert (e.traceback.primary.workspace, e.traceback.primary.line) == ("mnist/transforms.py", 8)


def test_a_launchers_report_does_not_blame_an_old_unrelated_traceback():
    old = DEEP  # logged and survived long before
    launcher = log("""
        Traceback (most recent call last):
          File "/usr/local/bin/torchrun", line 8, in <module>
            sys.exit(main())
        torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
        ============================================================
        Root Cause (first observed failure):
          exitcode  : -9 (pid: 14750)
    """)
    e = explain(old + "step 10 loss 0.5\n" * 20000 + launcher, exit_code=1)
    assert e.kind == "host-oom" and [x.type.rsplit(".", 1)[-1] for x in e.traceback.chain] == ["ChildFailedError"]
    assert e.traceback.primary is None  # the launcher's own frames are nobody's code


def test_syntax_error_location_is_a_frame():
    e = explain("""
        Traceback (most recent call last):
          File "/pai/work/mnist/train.py", line 1, in <module>
            from mnist import ops
          File "/pai/work/mnist/mnist/ops.py", line 9
            def fused(x:
                       ^
        SyntaxError: '(' was never closed
    """, exit_code=1)
    assert (e.traceback.primary.workspace, e.traceback.primary.line, e.traceback.primary.function) == ("mnist/ops.py", 9, None)


# -- the result on the wire, the facts from the REST detail ----------------------------------------
def test_line_numbers_count_from_where_the_tail_begins():
    e = explain(DEEP, exit_code=1, first_line=90001)  # the daemon read the log's last megabyte, from line 90001 on
    assert e.evidence[-1].line == 90013 and e.traceback.primary.log_line == 90009 and e.last_lines[-1].line == 90013
    assert e.traceback.exception.header_line == 90002


def test_explanation_round_trips_through_json():
    e = explain(DEEP, exit_code=255, user_exit_code=1, role="worker", index=0, image="python:3.8")
    job = explain_job(JobFacts(exit_code=255, trigger_role="worker", trigger_index=0, retries=2, retries_allowed=2), [e])
    for value in (e, job):
        wire = json.loads(json.dumps(value.to_json()))
        assert Explanation.from_json(wire) == value
        assert "offset" not in json.dumps(wire)  # internal
    assert wire["cause"]["traceback"]["primary"]["workspace"] == "mnist/transforms.py"
    assert wire["title"] == {"en": job.title.en, "zh": job.title.zh}


def test_facts_from_an_openpai_job_detail():
    detail = {"name": "mnist", "jobStatus": {
        "state": "FAILED", "retries": 1, "appExitCode": 255, "appExitDiagnostics": "",
        "appExitSpec": {"code": 255, "phrase": "PAIRuntimeUnknownFailed", "type": "UNKNOWN_FAILURE"},
        "appExitMessages": {"runtime": "exitCode: 255\noriginUserExitCode: 1\nerrorLogs:\n  user: |\n    ModuleNotFoundError: No module named 'yaml'\n"},
        "appExitTriggerTaskRoleName": "worker", "appExitTriggerTaskIndex": 0},
        "taskRoles": {"worker": {"taskStatuses": [{"taskIndex": 0, "taskState": "FAILED", "containerExitCode": 255,
                                                   "containerExitSpec": {"code": 255, "phrase": "PAIRuntimeUnknownFailed"}}]}}}
    facts = TaskFacts.from_detail(detail, "worker", 0, image="python:3.8")
    assert (facts.exit_code, facts.user_exit_code, facts.exit_spec.phrase) == (255, 1, "PAIRuntimeUnknownFailed")
    e = explain_task(facts)  # the log could not be read: the runtime's report still has its lines
    assert e.kind == "missing-module" and e.package == "PyYAML"
    job = JobFacts.from_detail(detail, retries_allowed=1)
    assert (job.trigger_role, job.trigger_index, job.retries) == ("worker", 0, 1)
    assert explain_job(job, [e]).kind == "retries-exhausted"


def test_notes_the_daemon_adds_later():
    e = explain("copyToLocal: `hdfs://nn:9000/user/alice/data': No such file or directory\n", exit_code=1)
    assert with_note(e, "path.exists-now").message.en.endswith("It exists on HDFS now: a rerun may find it.")
    changed = with_note(e, "frame.changed", file="mnist/data.py")
    assert "mnist/data.py" in changed.message.zh and CJK.search(changed.message.zh)


# -- the catalogue and the specs --------------------------------------------------------------------
def test_every_text_has_both_languages_and_the_same_fields():
    from string import Formatter

    def fields(template: str) -> set[str]:
        return {name for _, name, _, _ in Formatter().parse(template) if name}

    for table in (catalogue.FAILURE_CLASSES, catalogue.PLAIN_TITLES, catalogue.MESSAGES, catalogue.CLAUSES, catalogue.EXIT_CODES,
                  catalogue.PLATFORM_ADVICE):
        for key, (en, zh) in table.items():
            assert en and (CJK.search(zh) or WIDE.search(zh)), key
            assert fields(en) == fields(zh), key
    for (en, zh), (advice_en, advice_zh) in catalogue.SIGNAL_WORDS.values():
        assert CJK.search(zh) and CJK.search(advice_zh) and en and advice_en
    kinds = {rule.kind for rule in RULES}
    assert kinds <= set(catalogue.FAILURE_CLASSES)
    for rule in RULES:
        assert rule.id.startswith(rule.kind + ".") and rule.keyword == rule.keyword.lower()
        key = f"{rule.kind}.{rule.variant}" if rule.variant else rule.kind
        assert key in catalogue.MESSAGES or rule.kind in ("host-oom", "signal"), rule.id


def test_exit_specs_carry_both_eras_and_fall_back_like_the_rest_server():
    assert len(specs.table("k8s")) > 50 and len(specs.table("yarn")) > 40
    assert specs.lookup(137).phrase == "ContainerSigKillReceived"
    assert specs.lookup(137, "yarn").phrase == "CONTAINER_KILLED_BY_SIGKILL"
    assert specs.lookup(-7351).phrase == "APP_STOP_FRAMEWORK_REQUESTED"
    unknown = specs.lookup(77)
    assert (unknown.code, unknown.phrase, unknown.specific) == (77, "PAIRuntimeExitAbnormally", False)
    assert not ExitSpec.from_wire({"code": 3, "phrase": "PAIRuntimeExitAbnormally"}).specific
    assert specs.lookup(-4242).phrase == "ContainerUndefinedNegativeExitCode"
    assert ExitSpec.from_wire({"code": 254, "phrase": "ContainerImageNotExists", "type": "USER_FAILURE"}).type == "USER_FAILURE"
    assert ExitSpec.from_wire({"phrase": 3}) is None


# Lines the OpenPAI runtime's own patterns (exit_specs.json) match, and the class our rules give them.
RUNTIME_SAMPLES = {
    220: ("/bin/bash: foo: command not found", "command-not-found", 127),
    221: ("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[8,8]", "cuda-oom", 1),
    222: ("[gpu-3:01234] Signal code: Address not mapped (1)", "signal", 1),
    223: ("failed call to cuInit: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered", "gpu-ecc", 1),
    224: ("CUDA driver version is insufficient for CUDA runtime version", "gpu-unavailable", 1),
    225: ("RuntimeError: dropout supported only in cudnn v4", "gpu-unavailable", 1),
    232: ("ImportError: No module named tensorflow", "missing-module", 1),
    234: ("Segmentation fault", "signal", 1),
    235: ("Aborted (core dumped)", "signal", 1),
}


@pytest.mark.parametrize("code", sorted(RUNTIME_SAMPLES))
def test_lines_the_openpai_runtime_recognises_are_recognised_the_same(code):
    line, kind, exit_code = RUNTIME_SAMPLES[code]
    spec = specs.table("k8s")[code]
    assert any(re.search(p, line) for p in spec.user_log_patterns)  # the runtime's own pattern
    e = explain(line + "\n", exit_code=exit_code)
    assert e.kind == kind
    assert spec_matching(line).code == code or e.spec_code == code or (code == 235 and e.signal == "SIGABRT")


# -- bounded work -------------------------------------------------------------------------------
HOSTILE = {
    "one endless line of keywords": "tensorflow ResourceExhaustedError " * (MAX_LOG // 34),
    "headers only": "Traceback (most recent call last):\n" * (MAX_LOG // 35),
    "frames without end": "Traceback (most recent call last):\n" + '  File "x.py", line 1, in f\n' * (MAX_LOG // 28),
    "near misses": "No module named '" + "a" * 250 + "\n" + ("NCCL error in: " + "/x" * 300 + "\n") * 1500,
    "killed everywhere": "killed by nothing at all\n" * (MAX_LOG // 25),
    "newlines": "\n" * MAX_LOG,
    "carriage returns": "\r" * MAX_LOG,
    "quotes": ("PermissionError: [Errno 13] Permission denied: '" + "'" * 2000 + "\n") * 400,
    "chains": ("Traceback (most recent call last):\nValueError: x\n\nDuring handling of the above exception, another "
               "exception occurred:\n\n") * 8000,
}


# A megabyte of training output (a progress bar, log lines) ending in the failure.
BUSY = {
    "progress then CUDA OOM": (("Epoch 3:  41%|████      | 412/1000 [03:02<04:21,  2.25it/s, loss=0.412]\r" * 30 + "\n")
                               * (MAX_LOG // 2200) + PYTORCH_OOM, 1, "cuda-oom"),
    "steps then a traceback": ("step 10 loss 0.5 lr 0.001 time 0.2s\n" * (MAX_LOG // 36) + DEEP, 1, "python-exception"),
    "steps then a kill": ("step 10 loss 0.5 lr 0.001 time 0.2s\n" * (MAX_LOG // 36), 137, "host-oom"),
    "NCCL chatter then the watchdog": ("gpu-3:231:245 [0] NCCL INFO Channel 00/02 :    0   1\n" * (MAX_LOG // 52) + NCCL_WATCHDOG,
                                       134, "distributed"),
}


def calls_made(work) -> tuple[object, int]:
    """(what `work()` returns, how many Python and C functions it called): its work, counted rather
    than timed (a loaded machine stretches times, not counts; bench/triage.py times it)."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        result = work()
    finally:
        sys.setprofile(None)
    return result, calls


def explained_in_bounded_work(text: str, code: int | None):
    """The explanation of `text`, once its calls are known not to grow with the log: the regexes scan
    it, not Python line by line (a megabyte costs less than twice the calls of its last 64 KB). A
    regex that backtracks without end fails by the timeout."""
    calls_made(lambda: explain_task(TaskFacts(log=text[-65536:], exit_code=code, layout=LAYOUT)))  # the first call's imports
    _, small = calls_made(lambda: explain_task(TaskFacts(log=text[-65536:], exit_code=code, layout=LAYOUT)))
    e, whole = calls_made(lambda: explain_task(TaskFacts(log=text, exit_code=code, layout=LAYOUT)))
    assert whole < 2 * small, f"{whole} calls for {len(text):,} characters, {small} for the last 65,536"
    return e


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(BUSY))
def test_a_busy_megabyte_is_explained_in_bounded_work(name):
    text, code, kind = BUSY[name]
    assert explained_in_bounded_work(text[-MAX_LOG:], code).kind == kind


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_megabyte_is_classified_in_bounded_work(name):
    for code in (1, 139, None):
        e = explained_in_bounded_work(HOSTILE[name], code)
        assert e.kind and e.message.en


def test_more_than_a_megabyte_is_cut_to_its_end():
    e = explain_task(TaskFacts(log="x" * (3 * MAX_LOG) + "\nbash: line 1:  9 Segmentation fault      python x.py\n", exit_code=139))
    assert e.kind == "signal" and e.evidence[-1].text.startswith("bash: line 1:  9 Segmentation fault")


def test_text_picks_the_language():
    t = Text("Out of memory", "内存不足")
    assert (t.pick("zh-CN"), t.pick("zh_TW"), t.pick("en-US"), t.pick(None)) == ("内存不足", "内存不足", "Out of memory", "Out of memory")


def test_a_missing_script_is_said_by_what_the_submit_uploaded_and_where():
    """Not "the uploaded code is in $PAI_JOB_NAME/" when nothing was uploaded, nor when pai put the
    code in a storage and ran the commands there: what the submit did, said."""
    missing = "python3: can't open file '/work/train.py': [Errno 2] No such file or directory\n"
    nothing = explain(missing, exit_code=2, layout=CodeLayout.for_job({}, "mnist", uploaded=False))
    assert nothing.kind == "path-not-found" and "nothing was uploaded for this job" in nothing.message.en
    assert "$PAI_JOB_NAME" not in nothing.message.en
    folder = "/mnt/local/alice~mnist_1a2b"
    stored = explain(missing, exit_code=2, layout=CodeLayout.for_job(
        {"model.py": "model.py", "data.py": "data.py"}, "mnist_1a2b", user="alice", uploaded=True,
        code_place="local:/alice~mnist_1a2b", code_folder=folder))
    assert f"is not in {folder}, where pai put the job's code (storage local:/alice~mnist_1a2b; files uploaded: 2)" in stored.message.en
    assert folder in stored.message.zh and "$PAI_JOB_NAME" not in stored.message.en
    unknown = explain(missing, exit_code=2)  # submitted elsewhere: the codeDir habit, as before
    assert "cd $PAI_JOB_NAME" in unknown.message.en
    # The codeDir habit kept in a job whose code went to a storage: the route already runs the commands there.
    cd = explain("/bin/bash: line 4: cd: alice~mnist_1a2b: No such file or directory\n", exit_code=1, layout=CodeLayout.for_job(
        {"model.py": "model.py"}, "mnist_1a2b", user="alice", uploaded=True, code_place="local:/alice~mnist_1a2b",
        code_folder=folder))
    assert cd.message.en == (f"The command could not cd into alice~mnist_1a2b: pai put the job's code in {folder} (storage "
                             "local:/alice~mnist_1a2b) and runs the commands there already: leave out the cd, or name a "
                             "folder relative to that one.")
    assert "$PAI_JOB_NAME" not in cd.message.zh and folder in cd.message.zh


def test_a_missing_script_of_a_code_dir_job_says_what_went_there():
    """Uploaded to its codeDir: how many files went where, and whether the script was among them."""
    layout = CodeLayout.for_job({"model.py": "model.py", "train.py": "train.py"}, "mnist_1", user="alice", uploaded=True,
                                code_place="/user/alice/mnist_1")
    there = explain("python3: can't open file 'train.py': [Errno 2] No such file or directory\n", exit_code=2, layout=layout)
    assert "pai uploaded 2 files to /user/alice/mnist_1 (the job's codeDir)" in there.message.en
    assert "cd $PAI_JOB_NAME" in there.message.en and "/user/alice/mnist_1" in there.message.zh
    left_out = explain("python3: can't open file 'mnist_1/eval.py': [Errno 2] No such file or directory\n", exit_code=2,
                       layout=layout)
    assert left_out.message.en.startswith("The script mnist_1/eval.py was not uploaded: pai uploaded 2 files to /user/alice/mnist_1")
    assert "pai.job.upload.include" in left_out.message.en
