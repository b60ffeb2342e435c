"""Every user-facing diagnostic text, in English and Simplified Chinese, with its severity.

One table so that a translator (or a reviewer) sees all messages at once.
"""

from __future__ import annotations

ERROR, WARNING, INFO = "error", "warning", "info"

# code: (severity, English, 简体中文). Templates use str.format fields.
CATALOGUE: dict[str, tuple[str, str, str]] = {
    # -- syntax ------------------------------------------------------------------------
    "syntax.empty": (ERROR, "The file is empty: a job config is a JSON object.", "文件为空：作业配置应是一个 JSON 对象。"),
    "syntax.missing-comma": (ERROR, "Missing comma before the next entry.", "下一项之前缺少逗号。"),
    "syntax.missing-colon": (ERROR, "Missing ':' after the key.", "键后面缺少 ':'。"),
    "syntax.expected-value": (ERROR, "A value is expected here.", "此处需要一个值。"),
    "syntax.expected-property": (ERROR, "A property (\"key\": value) is expected here.", "此处需要一个属性（\"键\": 值）。"),
    "syntax.unterminated-string": (ERROR, "This string is not closed: add the closing '\"'.", "字符串未结束：请补上结尾的 '\"'。"),
    "syntax.invalid-escape": (ERROR, "Invalid escape sequence in this string.", "字符串中有无效的转义序列。"),
    "syntax.invalid-number": (ERROR, "'{text}' is not a valid JSON number.", "'{text}' 不是有效的 JSON 数字。"),
    "syntax.bare-word": (
        ERROR,
        "'{text}' is not a JSON value: use true, false, null, a number or a \"quoted string\".",
        "'{text}' 不是 JSON 值：请使用 true、false、null、数字或带引号的字符串。",
    ),
    "syntax.unquoted-key": (ERROR, "Keys must be quoted: \"{text}\".", "键必须加引号：\"{text}\"。"),
    "syntax.unclosed-object": (ERROR, "This '{{' is never closed: add '}}'.", "此 '{{' 没有闭合：请补上 '}}'。"),
    "syntax.unclosed-array": (ERROR, "This '[' is never closed: add ']'.", "此 '[' 没有闭合：请补上 ']'。"),
    "syntax.trailing-content": (ERROR, "Unexpected text after the end of the config.", "配置结束后出现多余的内容。"),
    "syntax.unterminated-comment": (ERROR, "This comment is not closed: add '*/'.", "注释未结束：请补上 '*/'。"),
    "syntax.comment": (
        WARNING,
        "Comments are fine in the editor, but the PAI server refuses them: pai strips them on submit.",
        "编辑器中可以使用注释，但 PAI 服务器不接受：提交时 pai 会删除它们。",
    ),
    "syntax.trailing-comma": (
        WARNING,
        "Trailing comma: the PAI server refuses it; pai removes it on submit.",
        "多余的尾随逗号：PAI 服务器不接受；提交时 pai 会删除它。",
    ),
    "syntax.duplicate-key": (
        WARNING,
        "Duplicate key \"{key}\": the server accepts it, but only the last one counts.",
        "重复的键 \"{key}\"：服务器会接受，但只有最后一个生效。",
    ),
    "syntax.too-deep": (
        ERROR,
        "Nested more than {limit} levels deep: no job config needs that, and pai reads no further into it.",
        "嵌套超过 {limit} 层：作业配置不需要这么深，pai 不再读取其内部。",
    ),
    "syntax.number-too-long": (
        ERROR,
        "This number has {digits} digits: no job setting takes such a number (JavaScript reads it as a rounded float or Infinity).",
        "此数字有 {digits} 位：没有任何作业设置接受这样的数字（JavaScript 会把它读成近似的浮点数或 Infinity）。",
    ),
    "syntax.lone-surrogate": (
        WARNING,
        "This string holds half of a UTF-16 surrogate pair (such as \\ud800), which is no character: the job would get U+FFFD (�) in its place.",
        "此字符串包含半个 UTF-16 代理对（如 \\ud800），它不是字符：作业收到的将是 U+FFFD（�）。",
    ),
    # -- YAML syntax (v2 job files, read as the server's js-yaml 3 reads them; core/yaml_tree.py) --
    "syntax.yaml-empty": (ERROR, "The file is empty: a v2 job is a YAML mapping (protocolVersion: 2, name, type, taskRoles).",
                          "文件为空：v2 作业应是一个 YAML 映射（protocolVersion: 2、name、type、taskRoles）。"),
    "syntax.yaml-unexpected": (ERROR, "YAML cannot read this line here: check its indentation and punctuation.",
                               "YAML 无法在此处读取这一行：请检查缩进和标点。"),
    "syntax.yaml-indentation": (ERROR, "Bad indentation: this line lines up with nothing above it.",
                                "缩进错误：这一行与上面任何一行都没有对齐。"),
    "syntax.yaml-tab": (ERROR, "A tab indents this line: YAML indents with spaces only.", "这一行用制表符缩进：YAML 只能用空格缩进。"),
    "syntax.yaml-unclosed-quote": (ERROR, "This {quote} is never closed: add the closing {quote}.", "此 {quote} 没有闭合：请补上结尾的 {quote}。"),
    "syntax.yaml-duplicate-key": (
        ERROR,
        "Duplicate key \"{key}\": the server refuses the file (js-yaml: duplicated mapping key).",
        "重复的键 \"{key}\"：服务器会拒绝此文件（js-yaml：duplicated mapping key）。",
    ),
    "syntax.yaml-multi-document": (
        ERROR,
        "A second YAML document starts here: the server reads exactly one (js-yaml: expected a single document).",
        "这里开始了第二个 YAML 文档：服务器只读取一个（js-yaml：expected a single document）。",
    ),
    "syntax.yaml-unknown-alias": (ERROR, "*{name} names no anchor &{name} defined above it.", "*{name} 引用的锚点 &{name} 在它之前没有定义。"),
    "syntax.yaml-recursive-alias": (ERROR, "*{name} is inside its own anchor &{name}: the value would contain itself.",
                                    "*{name} 位于它自己的锚点 &{name} 之内：值会包含它自己。"),
    "syntax.yaml-alias-limit": (
        ERROR,
        "Aliases here expand to more than {limit} values (or nest too deep): pai reads no further into them.",
        "这些别名展开后超过 {limit} 个值（或嵌套过深）：pai 不再展开它们。",
    ),
    "syntax.yaml-bad-merge": (ERROR, "'<<' merges a mapping or a list of mappings, nothing else.", "'<<' 只能合并一个映射或映射的列表。"),
    "syntax.yaml-alias-key": (ERROR, "An alias as a key: pai does not follow it, use the key itself.", "用别名作键：pai 不会解析它，请直接写出键。"),
    "syntax.yaml-complex-key": (ERROR, "Nested lists cannot be keys (js-yaml refuses them).", "嵌套的列表不能作为键（js-yaml 不接受）。"),
    "syntax.yaml-unknown-tag": (ERROR, "Unknown tag {tag} here: the server's reader knows only YAML's standard tags.",
                                "此处的标签 {tag} 未知：服务器的读取器只认识 YAML 的标准标签。"),
    "syntax.yaml-bad-tagged-value": (ERROR, "{text!r} cannot be read as {tag}.", "{text!r} 无法按 {tag} 读取。"),
    "syntax.yaml-block-header": (ERROR, "Bad block scalar header: one of '+' / '-' and one indentation digit 1-9 at most.",
                                 "块标量头无效：最多一个 '+' / '-' 和一个 1-9 的缩进数字。"),
    # -- schema ------------------------------------------------------------------------
    "schema.type": (ERROR, "\"{field}\" must be {expected}, not {actual}.", "\"{field}\" 必须是{expected}，而不是{actual}。"),
    "schema.type-coerced": (
        WARNING,
        "\"{field}\" should be {expected}: the server converts {value} for you, but other tools may not.",
        "\"{field}\" 应该是{expected}：服务器会自动转换 {value}，但其他工具可能不会。",
    ),
    "schema.converted-invalid": (
        ERROR,
        "The server converts \"{field}\" to {value} and then refuses it: {detail}.",
        "服务器把 \"{field}\" 转换为 {value} 后拒绝了它：{detail}。",
    ),
    "schema.unsafe-integer": (
        ERROR,
        "\"{field}\" is {value}: beyond 2^53 − 1 JavaScript cannot hold it exactly, and the server refuses it as no integer.",
        "\"{field}\" 为 {value}：超过 2^53 − 1，JavaScript 无法精确表示，服务器会以“不是整数”拒绝。",
    ),
    "schema.not-enforced": (
        WARNING,
        "\"{field}\" should be {expected}: the server accepts {value} but ignores it (only true turns this on).",
        "\"{field}\" 应该是{expected}：服务器接受 {value}，但会忽略它（只有 true 才会开启）。",
    ),
    "schema.required": (ERROR, "Missing required field \"{missing}\".", "缺少必填字段 \"{missing}\"。"),
    "schema.unknown-key": (
        ERROR,
        "Unknown key \"{key}\": the server rejects unknown keys.{hint}",
        "未知字段 \"{key}\"：服务器会拒绝未知字段。{hint}",
    ),
    "schema.did-you-mean": (WARNING, " Did you mean \"{suggestion}\"?", "你是不是想写 \"{suggestion}\"？"),
    "schema.scm-only": (
        ERROR,
        "\"{key}\" is an SCM extension: plain OpenPAI rejects it. If your cluster is SCM, set \"pai.cluster.kind\": \"scm\".",
        "\"{key}\" 是 SCM 扩展字段：普通 OpenPAI 会拒绝它。如果你的集群是 SCM，请设置 \"pai.cluster.kind\": \"scm\"。",
    ),
    "schema.minimum": (ERROR, "\"{field}\" must be at least {limit}, not {value}.", "\"{field}\" 不能小于 {limit}，当前为 {value}。"),
    "schema.maximum": (ERROR, "\"{field}\" must be at most {limit}, not {value}.", "\"{field}\" 不能大于 {limit}，当前为 {value}。"),
    "schema.min-length": (ERROR, "\"{field}\" must not be empty.", "\"{field}\" 不能为空。"),
    "schema.min-items": (ERROR, "\"{field}\" needs at least {limit} entry.", "\"{field}\" 至少需要 {limit} 项。"),
    "schema.pattern": (ERROR, "\"{value}\" is not a valid {field}: it {explanation}.", "\"{value}\" 不是有效的 {field}：{explanation}。"),
    "schema.key-pattern": (ERROR, "Key \"{key}\" is not allowed here.", "此处不允许使用键 \"{key}\"。"),
    "schema.deprecated": (WARNING, "\"{field}\" is obsolete. {doc}", "\"{field}\" 已废弃。{doc}"),
    "schema.other": (ERROR, "{detail}", "{detail}"),
    # -- semantic checks no schema expresses -------------------------------------------
    "semantic.duplicate-role": (
        ERROR,
        "Task role \"{name}\" is defined twice: the server accepts the config, but the scheduler keys roles by name, "
        "so the job fails when it is scheduled.",
        "任务角色 \"{name}\" 被定义了两次：服务器会接受此配置，但调度器按名称区分角色，作业在调度时会失败。",
    ),
    "semantic.min-count-exceeds-tasks": (
        ERROR,
        "{field} is {value} but this role has only {tasks} task(s): the server refuses this "
        "(minFailedTaskCount or minSucceededTaskCount should not be greater than tasks number).",
        "{field} 为 {value}，但此角色只有 {tasks} 个任务：服务器会拒绝"
        "（minFailedTaskCount 或 minSucceededTaskCount 不能大于任务数）。",
    ),
    "semantic.shm-exceeds-memory": (
        ERROR,
        "shmMB ({shm}) is larger than memoryMB ({memory}{default_note}): the server refuses it, since shared memory is "
        "part of the task's memory.",
        "shmMB（{shm}）大于 memoryMB（{memory}{default_note}）：服务器会拒绝，因为共享内存属于任务内存的一部分。",
    ),
    "semantic.default-shm-exceeds-memory": (
        WARNING,
        "memoryMB ({memory}) is below the default shared memory ({shm} MB): the server accepts it without checking, but a "
        "task that fills its /dev/shm can be killed for using more memory than it asked for. Set shmMB to at most {memory}.",
        "memoryMB（{memory}）小于默认共享内存（{shm} MB）：服务器不检查就会接受，但任务写满 /dev/shm 时可能因超出所申请的内存而被终止。"
        "请把 shmMB 设为不超过 {memory}。",
    ),
    "semantic.duplicate-port-label": (
        WARNING,
        "Port label \"{label}\" is listed twice in this role: the server accepts it and keeps only the last one.",
        "端口标签 \"{label}\" 在此角色中出现了两次：服务器会接受，但只保留最后一个。",
    ),
    "semantic.unknown-variable": (
        WARNING,
        "${name} is not a variable PAI sets: it will be empty.{hint}",
        "${name} 不是 PAI 设置的环境变量：它的值将为空。{hint}",
    ),
    "semantic.undefined-role": (
        WARNING,
        "${name} refers to task role \"{role}\", which this config does not define (roles: {known}).",
        "${name} 引用了任务角色 \"{role}\"，但此配置中没有定义它（已有角色：{known}）。",
    ),
    "semantic.undefined-task-index": (
        WARNING,
        "${name} refers to task {index} of role \"{role}\", which has only {count} task(s) (indices 0–{last}).",
        "${name} 引用了角色 \"{role}\" 的第 {index} 个任务，但该角色只有 {count} 个任务（序号 0–{last}）。",
    ),
    "semantic.undefined-port-label": (
        WARNING,
        "${name} refers to port label \"{label}\", which no portList in this config defines (labels: {known}).",
        "${name} 引用了端口标签 \"{label}\"，但此配置的 portList 中没有定义它（已有标签：{known}）。",
    ),
    "semantic.not-substituted": (
        WARNING,
        "${name} is not replaced in {field}: the server replaces only $PAI_DEFAULT_FS_URI, $PAI_JOB_NAME and "
        "$PAI_USER_NAME there.",
        "{field} 中的 ${name} 不会被替换：服务器只替换 $PAI_DEFAULT_FS_URI、$PAI_JOB_NAME 和 $PAI_USER_NAME。",
    ),
    # -- the v2 job protocol (*.pai.yaml; core/v2): the server's checks beyond its schema, and what
    # the web portal, HiveD, the scheduler or the runtime refuse although the server accepts it -----
    "v2.enum": (ERROR, "\"{field}\" must be {allowed}, not {value}.", "\"{field}\" 必须是 {allowed}，而不是 {value}。"),
    "v2.min-properties": (ERROR, "\"{field}\" needs at least one entry.", "\"{field}\" 至少需要一项。"),
    "v2.max-length": (ERROR, "\"{field}\" is {length} characters long: the server takes at most {limit}.",
                      "\"{field}\" 长 {length} 个字符：服务器最多接受 {limit} 个。"),
    "v2.bad-name": (ERROR, "\"{key}\" cannot name a {what}: use letters, digits and '_', not starting with a digit "
                    "(the server refuses the job).", "\"{key}\" 不能作为{what}名称：只能使用字母、数字和 '_'，且不能以数字开头（服务器会拒绝此作业）。"),
    "v2.shm-in-resources": (ERROR, "shmMB belongs under extraContainerOptions, not resourcePerInstance: the server refuses unknown "
                            "keys here.", "shmMB 应放在 extraContainerOptions 下，而不是 resourcePerInstance：服务器会拒绝此处的未知字段。"),
    "v2.not-allowed-key": (ERROR, "The server refuses a key named \"additionalProperties\" here (its schema has a rule of that name "
                           "in the wrong place).", "服务器拒绝此处名为 \"additionalProperties\" 的键（其 schema 把同名规则放错了位置）。"),
    "v2.duplicate-prerequisite": (ERROR, "Duplicate {type} prerequisites {name}: the server refuses the job (two prerequisites of "
                                  "one type share a name).", "重复的 {type} 前置条件 {name}：服务器会拒绝此作业（同一类型的两个前置条件同名）。"),
    "v2.duplicate-deployment": (ERROR, "Duplicate deployments {name}: the server refuses the job.", "重复的部署 {name}：服务器会拒绝此作业。"),
    "v2.missing-prerequisite": (ERROR, "Prerequisite {name} does not exist: {field} names a prerequisite of type {type} "
                                "(this job has: {known}); the server refuses the job.{hint}",
                                "前置条件 {name} 不存在：{field} 应引用 {type} 类型的前置条件（此作业已有：{known}）；服务器会拒绝此作业。{hint}"),
    "v2.uri-not-prerequisite": (ERROR, "{field} names a prerequisite, not {what}: \"{name}\" is no prerequisite of this job (the "
                                "server answers \"Prerequisite {name} does not exist.\"). Define a {type} prerequisite with this uri "
                                "and name it here.", "{field} 应引用前置条件的名称，而不是{what}：\"{name}\" 不是此作业的前置条件"
                                "（服务器会回答 \"Prerequisite {name} does not exist.\"）。请定义一个带此 uri 的 {type} 前置条件，并在此引用它的名称。"),
    "v2.prerequisite-wrong-type": (ERROR, "\"{name}\" is a {actual} prerequisite: {field} names one of type {type} (the server "
                                   "answers \"Prerequisite {name} does not exist.\").",
                                   "\"{name}\" 是 {actual} 类型的前置条件：{field} 应引用 {type} 类型的前置条件"
                                   "（服务器会回答 \"Prerequisite {name} does not exist.\"）。"),
    "v2.unknown-prerequisite": (ERROR, "Prerequisite {name} does not exist: the server refuses the job.{hint}",
                                "前置条件 {name} 不存在：服务器会拒绝此作业。{hint}"),
    "v2.unknown-deployment": (ERROR, "Default deployment {name} does not exist: the server refuses the job (deployments: {known}).",
                              "默认部署 {name} 不存在：服务器会拒绝此作业（已有部署：{known}）。"),
    "v2.template-error": (ERROR, "The server cannot fill in the templates of this command: {message} (it answers 500).",
                          "服务器无法填充此命令中的模板：{message}（它会返回 500）。"),
    "v2.undefined-parameter": (WARNING, "<% $parameters.{name} %> names no parameter of this job: the server leaves the tag as "
                               "written, and the shell stops at '<%'.{hint}",
                               "<% $parameters.{name} %> 引用的参数在此作业中不存在：服务器会原样保留此标签，shell 会在 '<%' 处出错。{hint}"),
    "v2.undefined-secret": (WARNING, "<% $secrets.{name} %> names no secret of this job: it is left as written, and the shell "
                            "stops at '<%'.{hint}", "<% $secrets.{name} %> 引用的密钥在此作业中不存在：它会被原样保留，shell 会在 '<%' 处出错。{hint}"),
    "v2.no-prerequisite-for-template": (WARNING, "<% {expr} %> is filled in from the role's {field} prerequisite, and this role "
                                        "names none: it is left as written.",
                                        "<% {expr} %> 取自角色的 {field} 前置条件，但此角色没有指定：它会被原样保留。"),
    "v2.undefined-template-member": (WARNING, "\"{name}\" has no {member}: <% {expr} %> is left as written.",
                                     "\"{name}\" 没有 {member}：<% {expr} %> 会被原样保留。"),
    "v2.unknown-template": (WARNING, "<% {expr} %> names nothing the server fills in ($parameters, $secrets, $script, $output, "
                            "$data): it is left as written.{hint}",
                            "<% {expr} %> 引用的内容服务器不会填充（只有 $parameters、$secrets、$script、$output、$data）：它会被原样保留。{hint}"),
    "v2.dropped-tag": (WARNING, "The server drops this tag (and what a section holds): only <% $name %> tags are filled in.",
                       "服务器会丢弃此标签（以及节中的内容）：只有 <% $名称 %> 标签会被填充。"),
    "v2.template-not-filled": (WARNING, "Templates are filled in only in commands and a Docker image's auth: this one stays as "
                               "written.", "模板只在命令和 Docker 镜像的 auth 中填充：这里的模板会被原样保留。"),
    "v2.plain-secret": (WARNING, "{what} is written in plain text: it is stored with the job, where anyone who can see the job "
                        "reads it. Put it in secrets (masked) and write <% $secrets.{name} %>.",
                        "{what}以明文写出：它会随作业保存，能查看作业的人都能读到。请把它放进 secrets（会被遮盖），并写成 <% $secrets.{name} %>。"),
    "v2.retry-ignored": (WARNING, "taskRetryCount is ignored while gang allocation is on (the default): a failed instance fails "
                         "the whole attempt. Set extras.gangAllocation: false for task retries.",
                         "成组分配开启时（默认）taskRetryCount 会被忽略：一个实例失败就会使整次尝试失败。要让任务重试，请设置 extras.gangAllocation: false。"),
    "v2.hived-unknown-role": (WARNING, "extras.hivedScheduler names task role \"{role}\", which this job does not have: a cluster that "
                              "runs HiveD refuses the job (\"Taskrole {role} does not exist.\").{hint}",
                              "extras.hivedScheduler 引用了任务角色 \"{role}\"，但此作业没有它：运行 HiveD 的集群会拒绝此作业"
                              "（\"Taskrole {role} does not exist.\"）。{hint}"),
    "v2.hived-sku-and-cell": (WARNING, "Task role \"{role}\" sets both skuType and pinnedCellId: a cluster that runs HiveD refuses "
                              "the job (only one is allowed).", "任务角色 \"{role}\" 同时设置了 skuType 和 pinnedCellId：运行 HiveD 的集群会拒绝此作业（只允许其一）。"),
    "v2.hived-affinity": (WARNING, "Affinity group \"{group}\" holds roles with different skuType or pinnedCellId ({roles}): a cluster "
                          "that runs HiveD refuses the job.", "亲和组 \"{group}\" 中各角色的 skuType 或 pinnedCellId 不一致（{roles}）：运行 HiveD 的集群会拒绝此作业。"),
    "v2.hived-unknown-key": (WARNING, "HiveD reads no \"{key}\" here: a misspelt key passes silently.{hint}",
                             "HiveD 不会读取此处的 \"{key}\"：拼错的键会被静默忽略。{hint}"),
    "v2.unknown-plugin": (WARNING, "\"{name}\" is no runtime plugin OpenPAI has (ssh, tensorboard, teamwise_storage, cmd): the "
                          "runtime cannot run it.{hint}", "\"{name}\" 不是 OpenPAI 的运行时插件（ssh、tensorboard、teamwise_storage、cmd）："
                          "运行时无法运行它。{hint}"),
    "v2.plugin-parameter-missing": (WARNING, "The {plugin} plugin needs parameters.{name}: the web portal refuses the job without it.",
                                    "{plugin} 插件需要 parameters.{name}：缺少它时网页门户会拒绝此作业。"),
    "v2.plugin-parameter-unknown": (WARNING, "The {plugin} plugin has no parameter \"{name}\": the web portal refuses it, and the "
                                    "plugin ignores it.{hint}", "{plugin} 插件没有参数 \"{name}\"：网页门户会拒绝它，插件也会忽略它。{hint}"),
    "v2.plugin-parameter-type": (WARNING, "parameters.{name} of the {plugin} plugin should be {expected}: the web portal refuses {actual}.",
                                 "{plugin} 插件的 parameters.{name} 应为{expected}：网页门户不接受{actual}。"),
    "v2.plugin-item-key": (WARNING, "\"{key}\" is not read in a runtime plugin entry (plugin, parameters, failurePolicy, hook): the web "
                           "portal refuses it.{hint}", "运行时插件条目中不会读取 \"{key}\"（只有 plugin、parameters、failurePolicy、hook）：网页门户会拒绝它。{hint}"),
    "v2.unknown-extra": (WARNING, "Nothing reads extras.{key}: the server checks nothing in extras, so a misspelt key passes "
                         "silently.{hint}", "没有任何组件读取 extras.{key}：服务器不检查 extras 中的内容，拼错的键会被静默忽略。{hint}"),
    "v2.deployment-unknown-role": (WARNING, "This deployment gives commands to task role \"{role}\", which the job does not have: "
                                   "nothing runs them.{hint}", "此部署为任务角色 \"{role}\" 提供了命令，但作业中没有该角色：这些命令不会运行。{hint}"),
    "v2.undefined-port-label": (WARNING, "${name} refers to port label \"{label}\", which no role's resourcePerInstance.ports defines "
                                "(labels: {known}).", "${name} 引用了端口标签 \"{label}\"，但没有任何角色的 resourcePerInstance.ports 定义它（已有标签：{known}）。"),
    "v2.yarn-variable": (WARNING, "${name} is set on YARN-era clusters only: a v2 job's containers do not have it, and their "
                         "commands (run with set -o nounset) stop there.",
                         "${name} 只在 YARN 时代的集群中设置：v2 作业的容器中没有它，命令（以 set -o nounset 运行）会在此处出错。"),
    "v2.warning": (WARNING, "{message}", "{message}"),
    # -- what an upload would send (facts counted outside the core) ------------------------
    "upload.over-limit": (
        WARNING,
        "The upload from this workspace is over the limit: {over}. Largest: {largest}. Leave files out with "
        "pai.job.upload.exclude or .paiignore; submitting needs --force.",
        "此工作区的上传超出上限：{over}。最大的文件：{largest}。请用 pai.job.upload.exclude 或 .paiignore 排除文件；"
        "否则提交需要 --force。",
    ),
    "upload.data-files": (
        WARNING,
        "The upload includes {count} file(s) that look like data: {files}. codeDir should hold code only "
        "(put data on HDFS and read it through dataDir).",
        "上传包含 {count} 个看起来像数据的文件：{files}。codeDir 只应包含代码（数据请放在 HDFS 上并通过 dataDir 读取）。",
    ),
    "upload.ignore-file": (WARNING, "{problem}", "{problem}"),
    # -- .vscode/settings.json: the pai.* keys ------------------------------------------------
    "settings.type": (
        ERROR,
        "{key} should be {expected}, not {actual}: pai ignores it and uses the default ({default}).",
        "{key} 应为{expected}，而不是{actual}：pai 会忽略它并使用默认值（{default}）。",
    ),
    "settings.glob-type": (
        ERROR,
        "Each entry of {key} is a glob (a non-empty string), not {actual}: pai ignores the whole list and uses the default.",
        "{key} 的每一项都应是 glob（非空字符串），而不是{actual}：pai 会忽略整个列表并使用默认值。",
    ),
    "settings.unknown": (INFO, "{key} is not a pai setting: nothing reads it.", "{key} 不是 pai 的设置：不会被读取。"),
    "settings.glob-unmatched": (
        WARNING,
        "No file in this workspace matches {glob}: it uploads nothing (after the default excludes, .paiignore and .gitignore).",
        "此工作区中没有文件匹配 {glob}：它不会上传任何文件（已排除默认排除项、.paiignore 和 .gitignore）。",
    ),
    "settings.glob-hidden": (
        WARNING,
        "Every file {glob} matches is left out again (pai.job.upload.exclude or a !pattern): it uploads nothing.",
        "{glob} 匹配的每个文件都又被排除了（pai.job.upload.exclude 或 !模式）：它不会上传任何文件。",
    ),
    "settings.exclude-hides-all": (
        WARNING,
        "pai.job.upload.exclude leaves out every file the include globs choose: the upload would be empty.",
        "pai.job.upload.exclude 排除了 include 选中的所有文件：上传将为空。",
    ),
}

# Words used inside messages.
TYPE_NAMES: dict[str, tuple[str, str]] = {
    "string": ("a string", "字符串"),
    "integer": ("an integer", "整数"),
    "number": ("a number", "数字"),
    "boolean": ("true or false", "布尔值（true 或 false）"),
    "null": ("null", "null"),
    "object": ("an object", "对象"),
    "array": ("a list", "列表"),
}


def is_chinese(locale: str | None) -> bool:
    return bool(locale) and locale.lower().replace("_", "-").startswith("zh")


def pick(locale: str | None, en: str, zh: str) -> str:
    return zh if is_chinese(locale) else en


def severity(code: str) -> str:
    return CATALOGUE[code][0]


def render(code: str, locale: str | None, **args: object) -> str:
    _, en, zh = CATALOGUE[code]
    template = zh if is_chinese(locale) else en
    try:
        return template.format(**args)
    except (KeyError, IndexError):
        return template


def type_name(kind: str, locale: str | None) -> str:
    en, zh = TYPE_NAMES.get(kind, (kind, kind))
    return pick(locale, en, zh)


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
