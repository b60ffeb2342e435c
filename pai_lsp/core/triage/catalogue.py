"""Every text of a failure explanation, in English and Simplified Chinese, in one table (as
`core/messages.py` keeps the diagnostics' texts): the classes' titles, one sentence per class (and
variant) saying what happened and what to do, and the words for exit codes and signals.

Templates use str.format fields; a field's value may be a `Text`, so a clause is put in each
language's sentence in that language.
"""

from __future__ import annotations

from .result import Text

# class id: (title in English, title in Chinese). Titles are what a list row shows.
FAILURE_CLASSES: dict[str, tuple[str, str]] = {
    "python-exception": ("Python exception: {exception}", "Python 异常：{exception}"),
    "missing-module": ("Missing Python package: {package}", "缺少 Python 包：{package}"),
    "cuda-oom": ("CUDA out of memory", "GPU 显存不足"),
    "host-oom": ("Out of memory", "内存不足"),
    "shared-memory": ("Shared memory (/dev/shm) too small", "共享内存（/dev/shm）不足"),
    "distributed": ("Distributed communication failed", "分布式通信失败"),
    "gpu-ecc": ("GPU ECC error", "GPU ECC 错误"),
    "gpu-unavailable": ("No usable GPU", "没有可用的 GPU"),
    "path-not-found": ("Path not found: {path}", "路径不存在：{path}"),
    "permission-denied": ("Permission denied", "权限不足"),
    "command-not-found": ("Command not found: {command}", "找不到命令：{command}"),
    "signal": ("Killed by {signal}", "被 {signal} 信号终止"),
    "exit-nonzero": ("Exited with code {code}", "以退出码 {code} 结束"),
    "user-stop": ("Stopped", "已停止"),
    "retries-exhausted": ("Failed after all retries: {cause}", "重试已用完：{cause}"),
    "platform": ("Ended by the platform: {phrase}", "被平台终止：{phrase}"),
    "unknown": ("Failed", "失败"),
}

# Titles when the field a title names is not known.
PLAIN_TITLES: dict[str, tuple[str, str]] = {
    "python-exception": ("Python exception", "Python 异常"),
    "missing-module": ("Missing Python package", "缺少 Python 包"),
    "path-not-found": ("Path not found", "路径不存在"),
    "command-not-found": ("Command not found", "找不到命令"),
    "signal": ("Killed by a signal", "被信号终止"),
    "exit-nonzero": ("Non-zero exit", "非零退出"),
    "platform": ("Ended by the platform", "被平台终止"),
}

# key ("<class>" or "<class>.<variant>"): (English, 简体中文).
MESSAGES: dict[str, tuple[str, str]] = {
    "python-exception": (
        "{exception} was raised{where}: {detail}. Fix the code there; the traceback shows how it was reached.",
        "程序抛出 {exception}{where}：{detail}。请修正该处代码；回溯信息显示了调用路径。",
    ),
    "python-exception.bare": (
        "{exception} was raised{where}. Fix the code there; the traceback shows how it was reached.",
        "程序抛出 {exception}{where}。请修正该处代码；回溯信息显示了调用路径。",
    ),
    "missing-module": (
        "Python could not import {module}: the package {package} is not installed in {image}. Install it at the start of "
        "the command (pip install {package}) or use an image that has it.",
        "Python 无法导入 {module}：{image}中没有安装 {package} 包。请在命令开头安装（pip install {package}），或换用包含它的镜像。",
    ),
    "missing-module.own": (
        "Python could not import {module}, which is in your uploaded code ({uploaded}): the command does not run where it "
        "is. Start it in the code folder (cd $PAI_JOB_NAME) or add that folder to PYTHONPATH.",
        "Python 无法导入 {module}，而它就在你上传的代码中（{uploaded}）：命令的运行目录不对。请在代码目录中运行"
        "（cd $PAI_JOB_NAME），或把该目录加入 PYTHONPATH。",
    ),
    "missing-module.name": (
        "{name} cannot be imported from {module}: the version of {package} in {image} does not have it. Install the "
        "version your code was written for (pip install '{package}==<version>') or use a matching image.",
        "无法从 {module} 导入 {name}：{image}中的 {package} 版本没有它。请安装代码所需的版本"
        "（pip install '{package}==<版本>'），或换用匹配的镜像。",
    ),
    "missing-module.library": (
        "The shared library {library} is missing from {image}: a package was built for libraries (often CUDA's) the image "
        "does not have. Use an image whose CUDA and framework versions match, or install the library.",
        "{image}中缺少共享库 {library}：某个包依赖的库（通常是 CUDA 的）在镜像中不存在。请换用 CUDA 与框架版本匹配的镜像，或安装该库。",
    ),
    "missing-module.other": (
        "An import failed: {detail}. Check that the image has the packages, and the versions, the code was written for.",
        "导入失败：{detail}。请检查镜像中是否有代码所需的包及其版本。",
    ),
    "cuda-oom": (
        "The GPU ran out of memory{detail}: use a smaller batch or model, mixed precision or gradient checkpointing, or ask "
        "for a GPU with more memory (or more GPUs to spread the model over).",
        "GPU 显存不足{detail}：请减小 batch 或模型、使用混合精度或梯度检查点，或申请显存更大（或更多）的 GPU。",
    ),
    "host-oom.killed": (
        "The task was killed for using more memory than its limit{limit}: ask for more memory (memoryMB) or use less "
        "(smaller batches, fewer DataLoader workers, data loaded lazily).",
        "任务因内存用量超过上限{limit}而被终止：请申请更多内存（memoryMB），或减少用量（更小的 batch、更少的 DataLoader worker、按需加载数据）。",
    ),
    "host-oom.likely": (
        "The task was killed by SIGKILL{code}, most likely for going over its memory limit{limit}: ask for more memory "
        "(memoryMB) or use less. If it stayed well under the limit, something else killed it.",
        "任务被 SIGKILL 终止{code}，很可能是超出了内存上限{limit}：请申请更多内存（memoryMB）或减少用量。如果内存远未用满，则是其他原因终止了它。",
    ),
    "host-oom.error": (
        "The program ran out of host memory (RAM){limit}: ask for more memory (memoryMB), or use less: smaller batches, "
        "data loaded lazily, fewer copies of it.",
        "程序耗尽了主机内存{limit}：请申请更多内存（memoryMB），或减少用量：更小的 batch、按需加载数据、减少数据副本。",
    ),
    "shared-memory": (
        "The task ran out of shared memory (/dev/shm{shm}), which PyTorch's DataLoader workers and NCCL use: raise shmMB "
        "in the task role, or use fewer DataLoader workers (num_workers).",
        "任务的共享内存（/dev/shm{shm}）不足，PyTorch 的 DataLoader worker 和 NCCL 都要用到它：请在任务角色中调大 shmMB，"
        "或减少 DataLoader worker 数（num_workers）。",
    ),
    "distributed": (
        "Communication between the job's tasks failed{detail}: usually another task failed first, so look at the task that "
        "failed earliest. If none did, check the network settings (NCCL_SOCKET_IFNAME, NCCL_IB_DISABLE) and that every task started.",
        "作业各任务之间的通信失败{detail}：通常是另一个任务先失败了，请查看最早失败的任务。如果没有，请检查网络设置"
        "（NCCL_SOCKET_IFNAME、NCCL_IB_DISABLE）以及所有任务是否都已启动。",
    ),
    "distributed.timeout": (
        "A collective operation or the rendezvous between the tasks timed out{detail}: usually a task crashed, hung or "
        "started late, so look at the task that failed earliest; if they are all just slow, raise the timeout "
        "(init_process_group(timeout=…)).",
        "任务之间的集合通信或会合（rendezvous）超时{detail}：通常是某个任务崩溃、卡住或启动过晚，请查看最早失败的任务；"
        "如果只是都很慢，请调大超时（init_process_group(timeout=…)）。",
    ),
    "distributed.reset": (
        "A connection between the tasks was refused or reset{detail}: the other side had usually exited already, so look at "
        "the task that failed earliest. If it keeps happening, check the ports and the network between the nodes.",
        "任务之间的连接被拒绝或重置{detail}：通常对方已经退出，请查看最早失败的任务。如果反复出现，请检查端口和节点间的网络。",
    ),
    "gpu-ecc": (
        "The GPU reported an uncorrectable ECC error: a hardware fault, not your code. Resubmit the job (it will likely get "
        "another GPU) and tell the cluster's administrators which node it was.",
        "GPU 报告了不可纠正的 ECC 错误：这是硬件故障，不是代码问题。请重新提交作业（通常会分配到别的 GPU），并告诉集群管理员出问题的节点。",
    ),
    "gpu-unavailable": (
        "The task found no usable GPU: ask for GPUs in the task role (gpuNumber of at least 1) and use an image with the "
        "CUDA build of your framework.",
        "任务中没有可用的 GPU：请在任务角色中申请 GPU（gpuNumber 至少为 1），并使用包含框架 CUDA 版本的镜像。",
    ),
    "gpu-unavailable.version": (
        "The CUDA (or cuDNN) in {image} does not work with the node's GPU driver: use an image built for a CUDA version "
        "the cluster's driver supports.",
        "{image}中的 CUDA（或 cuDNN）与节点的 GPU 驱动不兼容：请使用集群驱动所支持的 CUDA 版本的镜像。",
    ),
    "gpu-unavailable.cpu-build": (
        "The PyTorch in {image} was built without CUDA: use an image with a CUDA build of PyTorch.",
        "{image}中的 PyTorch 是不带 CUDA 的版本：请换用带 CUDA 的 PyTorch 镜像。",
    ),
    "path-not-found": (
        "{path} does not exist: check the path in the command or the code, and that the data is there.",
        "{path} 不存在：请检查命令或代码中的路径，并确认数据确实在那里。",
    ),
    "path-not-found.hdfs": (
        "The HDFS path {path} does not exist: check the path, and that the data was uploaded there (pai hdfs ls).",
        "HDFS 路径 {path} 不存在：请检查路径，并确认数据已上传到那里（pai hdfs ls）。",
    ),
    "path-not-found.script": (
        "The script {path} is not where the command looks for it: the uploaded code is in $PAI_JOB_NAME/ under the task's "
        "working folder, so start the command with cd $PAI_JOB_NAME, and check that the file was uploaded (pai.job.upload.include).",
        "命令找不到脚本 {path}：上传的代码位于任务工作目录下的 $PAI_JOB_NAME/，请在命令开头加上 cd $PAI_JOB_NAME，"
        "并确认该文件已上传（pai.job.upload.include）。",
    ),
    "path-not-found.script-nothing-uploaded": (
        "The script {path} is not there: nothing was uploaded for this job (its file has no codeDir and no storage took "
        "its code), so the task has only what its image holds: name the files to upload (pai.job.upload.include) and "
        "submit it to a cluster with a storage, or give it a codeDir.",
        "脚本 {path} 不存在：这个作业没有上传任何代码（作业文件没有 codeDir，也没有存储接收它的代码），任务中只有镜像里的文件："
        "请指定要上传的文件（pai.job.upload.include），并提交到有存储的集群，或为它设置 codeDir。",
    ),
    "path-not-found.script-in-storage": (
        "The script {path} is not in {folder}, where pai put the job's code (storage {place}; files uploaded: {files}) and ran its "
        "commands: check that the file was among them (pai.job.upload.include) and that the command names it relative to that folder.",
        "脚本 {path} 不在 {folder} 中：pai 把作业的代码（存储 {place}；已上传文件数：{files}）放在那里并在那里运行命令："
        "请确认该文件在上传之列（pai.job.upload.include），且命令中的路径是相对于该目录的。",
    ),
    "path-not-found.script-in-code-dir": (
        "The script {path} is not where the command looks for it: pai uploaded {files} files to {place} (the job's codeDir), "
        "which the task gets in $PAI_JOB_NAME/ under its working folder: start the command with cd $PAI_JOB_NAME.",
        "命令找不到脚本 {path}：pai 把 {files} 个文件上传到了 {place}（作业的 codeDir），任务在其工作目录下的 $PAI_JOB_NAME/ "
        "中得到它们：请在命令开头加上 cd $PAI_JOB_NAME。",
    ),
    "path-not-found.script-not-uploaded": (
        "The script {path} was not uploaded: pai uploaded {files} files to {place} (the job's codeDir), and it was not among "
        "them: name it in pai.job.upload.include (or take it out of .paiignore / .gitignore).",
        "脚本 {path} 没有上传：pai 把 {files} 个文件上传到了 {place}（作业的 codeDir），其中没有它："
        "请在 pai.job.upload.include 中包含它（或从 .paiignore / .gitignore 中移除）。",
    ),
    "path-not-found.cd": (
        "The command could not cd into {path}: the uploaded code is in $PAI_JOB_NAME/ under the task's working folder; "
        "check the folder's name and codeDir.",
        "命令无法进入目录 {path}：上传的代码位于任务工作目录下的 $PAI_JOB_NAME/；请检查目录名和 codeDir。",
    ),
    "path-not-found.cd-in-storage": (
        "The command could not cd into {path}: pai put the job's code in {folder} (storage {place}) and runs the commands "
        "there already: leave out the cd, or name a folder relative to that one.",
        "命令无法进入目录 {path}：pai 已把作业的代码放在 {folder}（存储 {place}），并在那里运行命令：请去掉这个 cd，"
        "或写相对于该目录的路径。",
    ),
    "path-not-found.unnamed": (
        "A file or folder the program needed does not exist: the log line below names it.",
        "程序需要的文件或目录不存在：见下面的日志行。",
    ),
    "permission-denied": (
        "Permission denied on {path}: write to a folder the task's user owns (the output folder, the working folder), and "
        "run a script with its interpreter (bash run.sh) or make it executable (chmod +x) before uploading.",
        "访问 {path} 被拒绝：请写入任务用户有权限的目录（输出目录、工作目录），并用解释器运行脚本（bash run.sh），或在上传前设为可执行（chmod +x）。",
    ),
    "permission-denied.hdfs": (
        "HDFS refused {user} {access} access to {path}: use a path under your own HDFS folder, or ask its owner for access.",
        "HDFS 拒绝了用户 {user} 对 {path} 的 {access} 访问：请使用你自己的 HDFS 目录下的路径，或请所有者授权。",
    ),
    "permission-denied.exec": (
        "The command was found but could not be run (exit code 126): run the script with its interpreter (bash run.sh, "
        "python3 x.py) or make it executable (chmod +x).",
        "找到了命令但无法执行（退出码 126）：请用解释器运行脚本（bash run.sh、python3 x.py），或设为可执行（chmod +x）。",
    ),
    "permission-denied.unnamed": (
        "Permission was denied to a file or folder the program needed: the log line below names it.",
        "程序需要的文件或目录访问被拒绝：见下面的日志行。",
    ),
    "command-not-found": (
        "The command {command} is not in {image}: check its spelling, install it at the start of the command, or call it "
        "by its full path.",
        "{image}中没有命令 {command}：请检查拼写、在命令开头安装它，或使用完整路径调用。",
    ),
    "command-not-found.unnamed": (
        "A command was not found (exit code 127): check the command's spelling and that {image} has the programs it calls.",
        "找不到某个命令（退出码 127）：请检查命令拼写，并确认{image}中有它调用的程序。",
    ),
    "command-not-found.crlf": (
        "A shell script has Windows line ends (CRLF): bash reads the \\r as part of each line. Convert it to LF line ends "
        "(dos2unix, or the editor's status bar) and upload it again.",
        "某个 shell 脚本使用了 Windows 换行符（CRLF）：bash 会把 \\r 当作每行的一部分。请把它转为 LF 换行（dos2unix，或在编辑器状态栏切换）后重新上传。",
    ),
    "command-not-found.interpreter": (
        "The interpreter {command} on the first line (#!) of {script} is not in {image}: fix the #! line, or run the script "
        "with an interpreter that exists (bash {script}, python3 {script}).",
        "{script} 第一行（#!）指定的解释器 {command} 不在{image}中：请修改 #! 行，或用存在的解释器运行脚本（bash {script}、python3 {script}）。",
    ),
    "command-not-found.env": (
        "The program {command} that a #!/usr/bin/env line asks for is not in {image}: install it, or change the #! line "
        "(for instance to python3).",
        "#!/usr/bin/env 行要求的程序 {command} 不在{image}中：请安装它，或修改 #! 行（例如改为 python3）。",
    ),
    "signal": ("The program was killed by {signal} ({words}){code}: {advice}", "程序被 {signal}（{words}）终止{code}：{advice}"),
    "exit-nonzero": (
        "The command exited with {code} without a Python traceback: the last lines of its log, below, tell what it did last.",
        "命令以{code}结束，没有 Python 回溯：下面是日志的最后几行，说明了它最后做了什么。",
    ),
    "exit-nonzero.usage": (
        "The program refused its arguments ({detail}): fix the arguments in the task role's command.",
        "程序不接受给定的参数（{detail}）：请修改任务角色命令中的参数。",
    ),
    "user-stop": (
        "The job was stopped on request ({phrase}): nothing failed. Submit it again to rerun it.",
        "作业按请求被停止（{phrase}）：没有出错。如需再次运行请重新提交。",
    ),
    "user-stop.completion": (
        "The task was stopped because the job completed ({phrase}): another task's result decided the job.",
        "作业已结束，任务随之被停止（{phrase}）：作业的结果由另一个任务决定。",
    ),
    "retries-exhausted": (
        "The job failed on every attempt and used all {allowed} retries (retryCount). Last attempt: {cause} Retrying does not "
        "help until that is fixed.",
        "作业每次尝试都失败，已用完全部 {allowed} 次重试（retryCount）。最后一次：{cause}在解决这个问题之前，重试无济于事。",
    ),
    "platform": ("The platform ended the task ({phrase}): {advice}", "平台终止了任务（{phrase}）：{advice}"),
    "platform.image": (
        "The image {image} could not be pulled ({phrase}): check its name and tag, and that the cluster may read it "
        "(a private registry needs an auth file).",
        "无法拉取镜像 {image}（{phrase}）：请检查名称和标签，以及集群是否有权读取（私有仓库需要认证文件）。",
    ),
    "unknown": (
        "The task failed{code} and its log shows no cause we recognise: its last lines are below.",
        "任务失败{code}，日志中没有可识别的原因：下面是最后几行。",
    ),
    "unknown.no-log": ("The task failed{code} and left no log that explains it.", "任务失败{code}，没有留下能说明原因的日志。"),
    # What the daemon adds once it has looked at HDFS and the workspace (the core does no I/O).
    "path.exists-now": ("It exists on HDFS now: a rerun may find it.", "该路径现在已存在于 HDFS：重新运行也许能找到它。"),
    "path.missing-now": ("It does not exist on HDFS now either.", "该路径现在在 HDFS 上也不存在。"),
    "frame.changed": (
        "{file} changed since it was uploaded: the line numbers are those of the uploaded version.",
        "{file} 在上传后已修改：行号对应上传时的版本。",
    ),
}

# Clauses put into the sentences above.
CLAUSES: dict[str, tuple[str, str]] = {
    "where": (" at {file}:{line}", "（{file} 第 {line} 行）"),
    "in-function": (" in {function}", "（{function} 中）"),
    "image": ("the image {image}", "镜像 {image} "),
    "no-image": ("the job's image", "作业镜像"),
    "oom-size-gpu": (" (it tried to allocate {size} on GPU {gpu})", "（尝试在 GPU {gpu} 上分配 {size}）"),
    "oom-size": (" (it tried to allocate {size})", "（尝试分配 {size}）"),
    "oom-gpu": (" (GPU {gpu})", "（GPU {gpu}）"),
    "limit": (" (memoryMB {mb})", "（memoryMB {mb}）"),
    "usage": (" ({usage})", "（{usage}）"),
    "shm": (", shmMB {mb}", "，shmMB {mb}"),
    "detail": (" ({detail})", "（{detail}）"),
    "code": (" (exit code {code})", "（退出码 {code}）"),
}

# Exit codes with a meaning of their own (the shells', argparse's).
EXIT_CODES: dict[int, tuple[str, str]] = {
    0: ("exit code 0 (success)", "退出码 0（成功）"),
    1: ("exit code 1 (the program reported an error)", "退出码 1（程序报告了错误）"),
    2: ("exit code 2 (wrong usage: a command's arguments, or a shell built-in)", "退出码 2（用法错误：命令参数或 shell 内建命令）"),
    126: ("exit code 126 (found, but not executable)", "退出码 126（找到了命令但无法执行）"),
    127: ("exit code 127 (command not found)", "退出码 127（找不到命令）"),
}
EXIT_CODE = ("exit code {code}", "退出码 {code}")
EXIT_SIGNAL = ("exit code {code} (killed by {signal}: {words})", "退出码 {code}（被 {signal} 终止：{words}）")
CLUSTER_CODE = ("cluster code {code} ({phrase})", "集群代码 {code}（{phrase}）")

# A signal: (what it is, in words; what to do).
SIGNAL_WORDS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "SIGSEGV": (("segmentation fault", "段错误"), (
        "a crash in native code (a C/C++ extension, a CUDA kernel, mismatched library versions). Run it with "
        "python -X faulthandler to see the Python line, and check that the framework matches the image's CUDA.",
        "原生代码崩溃（C/C++ 扩展、CUDA 内核、库版本不匹配）。请用 python -X faulthandler 运行以定位 Python 代码行，并检查框架与镜像中的 CUDA 是否匹配。")),
    "SIGABRT": (("aborted", "中止"), (
        "the program aborted itself (a failed check or an uncaught C++ exception): the lines before it say why.",
        "程序自行中止（检查失败或未捕获的 C++ 异常）：之前的日志说明了原因。")),
    "SIGBUS": (("bus error", "总线错误"), (
        "a memory access the hardware refused; in a container this is most often too little shared memory (/dev/shm): "
        "raise shmMB.",
        "硬件拒绝了一次内存访问；在容器中最常见的原因是共享内存（/dev/shm）不足：请调大 shmMB。")),
    "SIGFPE": (("floating-point exception", "浮点异常"), (
        "an arithmetic fault in native code, such as an integer division by zero.",
        "原生代码中的算术错误，例如整数除以零。")),
    "SIGILL": (("illegal instruction", "非法指令"), (
        "the CPU lacks an instruction the program uses (for instance a framework built with AVX on an older CPU): use a "
        "build that matches the node's CPU.",
        "CPU 不支持程序使用的指令（例如为 AVX 编译的框架运行在旧 CPU 上）：请使用与节点 CPU 匹配的版本。")),
    "SIGTERM": (("terminated", "被终止"), (
        "it was asked to stop (by the platform, a stop request, or a time limit).",
        "它被要求停止（平台、停止请求或时间限制）。")),
    "SIGINT": (("interrupted", "被中断"), ("it was interrupted (Ctrl-C, or a stop request).", "它被中断（Ctrl-C 或停止请求）。")),
    "SIGKILL": (("killed", "被强制终止"), (
        "something killed it outright, most often the memory limit.", "它被强制终止，最常见的原因是超出内存上限。")),
    "SIGPIPE": (("broken pipe", "管道破裂"), (
        "it wrote to a pipe whose reader had exited (for instance python x.py | head).",
        "它向读取端已退出的管道写入（例如 python x.py | head）。")),
}
OTHER_SIGNAL = (("a signal", "信号"), ("the log lines before it may say why.", "之前的日志也许说明了原因。"))

# What the platform's spec type means for the user, when only the platform knows why.
PLATFORM_ADVICE: dict[str, tuple[str, str]] = {
    "PLATFORM_FAILURE": (
        "not your code. The job is retried if retries remain; if it keeps happening, tell the cluster's administrators.",
        "不是代码问题。若还有重试次数，作业会被重试；如果反复出现，请告诉集群管理员。"),
    "RESOURCE_ALLOCATION_TIMEOUT": (
        "the cluster could not give every task its resources in time. Ask for fewer or smaller tasks, or submit when the "
        "virtual cluster is less busy.",
        "集群未能及时为所有任务分配资源。请减少任务数或每个任务的资源，或在虚拟集群较空闲时提交。"),
    "USER_FAILURE": (
        "check the job config: the image, the command and the resources it asks for.",
        "请检查作业配置：镜像、命令以及申请的资源。"),
}
PLATFORM_OTHER = ("the diagnostics below may say more; tell the cluster's administrators if it keeps happening.",
                  "下面的诊断信息也许有更多说明；如果反复出现，请告诉集群管理员。")


def _pick(value: object, zh: bool) -> object:
    return (value.zh if zh else value.en) if isinstance(value, Text) else value


def fill(pair: tuple[str, str], **args: object) -> Text:
    """A pair of templates filled in; `Text` arguments give each language its own words."""
    en, zh = pair
    return Text(en.format(**{k: _pick(v, False) for k, v in args.items()}),
                zh.format(**{k: _pick(v, True) for k, v in args.items()}))


def message(key: str, **args: object) -> Text:
    return fill(MESSAGES[key], **args)


def clause(key: str, **args: object) -> Text:
    return fill(CLAUSES[key], **args)


def title(kind: str, **args: object) -> Text:
    """A class's title, with its subject when the subject is known."""
    if all(v not in (None, "") for v in args.values()) or kind not in PLAIN_TITLES:
        try:
            return fill(FAILURE_CLASSES[kind], **args)
        except (KeyError, IndexError):
            pass
    return fill(PLAIN_TITLES[kind])


def nothing() -> Text:
    return Text("", "")
