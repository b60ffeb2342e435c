"""Every user-facing text, in English and Simplified Chinese: the diagnostics with their severity,
and (as `TEXT`) the words of hovers, completions, progress, previews and every error the service
layer and the daemon raise.

One table so that a translator (or a reviewer) sees all messages at once; tests/core/test_messages.py
holds every code to both languages and finds English/Chinese pairs written anywhere else. Code that
does not know its reader's language yet (the daemon, the service layer) says a `Message`, a code
with its arguments, and whoever shows it renders it in the reader's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ERROR, WARNING, INFO = "error", "warning", "info"
TEXT = "text"  # not a diagnostic: words shown elsewhere (a hover, a progress report, an error's one line)

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
    # -- YAML syntax (v2 job files, read as the server's js-yaml 3 reads them; core/yaml/tree.py) --
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
    "syntax.yaml-recursive-alias": (ERROR, "The alias *{name} is inside the node it names (&{name}): the value would contain itself.",
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
    "v2.server-crash": (ERROR, "The server's schema lets {field} be {actual}, but its code cannot use that and fails "
                        "(500 \"{message}\"): write {expected} here.",
                        "服务器的 schema 允许 {field} 为{actual}，但其代码无法处理而出错（500 \"{message}\"）：此处应写{expected}。"),
    "v2.server-letters": (ERROR, "The server reads this string letter by letter, each letter a name, and refuses the job "
                          "({status} \"{message}\"): write {expected} here.",
                          "服务器会把这个字符串逐个字符当作名称读取，并拒绝此作业（{status} \"{message}\"）：此处应写{expected}。"),
    "v2.server-refuses": (ERROR, "The server refuses the job here ({status} \"{message}\").",
                          "服务器会在此处拒绝此作业（{status} \"{message}\"）。"),
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
    # -- PaddlePaddle Cloud job files (core/paddle.py) --------------------------------------
    "paddle.name": (ERROR, "\"{value}\" is not a valid PaddlePaddle Cloud job name: {why}.",
                    "\"{value}\" 不是有效的 PaddlePaddle Cloud 作业名：{why}。"),
    "paddle.name-empty": (TEXT, "it is empty", "它为空"),
    "paddle.name-separators": (TEXT, "it contains '_' or '.', which paddlecloud refuses", "包含 '_' 或 '.'，paddlecloud 会拒绝"),
    "paddle.name-too-long": (TEXT, "it is {length} characters long; at most {limit} leave room for the -trainer/-pserver suffixes",
                             "长度为 {length}；最多 {limit} 个字符，以便为 -trainer/-pserver 后缀留出空间"),
    "paddle.name-not-dns": (TEXT, "it is not a lowercase DNS label (letters a-z, digits and '-', starting and ending with a letter or digit)",
                            "不是小写 DNS 标签（只能使用 a-z、数字和 '-'，以字母或数字开头和结尾）"),
    "paddle.quantity": (ERROR, "\"{value}\" is not a Kubernetes quantity: write a number with a unit such as 512Mi, 1Gi or 2G.",
                        "\"{value}\" 不是 Kubernetes 数量：请写成带单位的数字，如 512Mi、1Gi 或 2G。"),
    "paddle.tiny-memory": (WARNING, "\"{field}\" is {value}, which is {size} bytes: did you mean {suggestion}?",
                           "\"{field}\" 为 {value}，即 {size} 字节：你是不是想写 {suggestion}？"),
    "paddle.no-entry": (ERROR, "Neither \"entry\" nor \"topology\" is set: the server needs one of them to start the trainers.",
                        "\"entry\" 和 \"topology\" 都没有设置：服务器需要其中之一来启动 trainer。"),
    "paddle.registry-prefix": (WARNING, "The cluster stores registries as \"{full}\": \"{value}\" alone is not found when "
                               "the image is pulled (pai adds the prefix on submit).",
                               "集群以 \"{full}\" 保存镜像仓库凭据：单独的 \"{value}\" 在拉取镜像时找不到（提交时 pai 会补上前缀）。"),
    "paddle.unknown-variable": (WARNING, "${name} is not set by PaddlePaddle Cloud in a trainer: it may be empty.",
                                "${name} 不是 PaddlePaddle Cloud 在 trainer 中设置的变量：它可能为空。"),
    "paddle.variable-not-set": (TEXT, "Not set by PaddlePaddle Cloud in a trainer.", "PaddlePaddle Cloud 不会在 trainer 中设置它。"),
    # -- words inside the messages above, hovers and completions ----------------------------
    "type.string": (TEXT, "a string", "字符串"),
    "type.integer": (TEXT, "an integer", "整数"),
    "type.number": (TEXT, "a number", "数字"),
    "type.boolean": (TEXT, "true or false", "布尔值（true 或 false）"),
    "type.null": (TEXT, "null", "null"),
    "type.object": (TEXT, "an object", "对象"),
    "type.array": (TEXT, "a list", "列表"),
    "type.either": (TEXT, "{first} or {second}", "{first}或{second}"),
    "type.positive-integer": (TEXT, "a positive integer", "正整数"),
    "type.globs": (TEXT, "a list of globs", "glob 列表"),
    "type.empty-string": (TEXT, "an empty string", "空字符串"),
    "type.missing": (TEXT, "left out", "缺省"),
    "schema.pattern-fallback": (TEXT, "must match {pattern}", "必须匹配 {pattern}"),
    "semantic.the-default": (TEXT, "{value} (the default)", "{value}（默认值）"),
    "semantic.default-note": (TEXT, ", the default", "，默认值"),
    "hover.default": (TEXT, "Default", "默认值"),
    "hover.allowed": (TEXT, "Allowed", "可选值"),
    "hover.minimum": (TEXT, "Minimum", "最小值"),
    "hover.maximum": (TEXT, "Maximum", "最大值"),
    "hover.pattern": (TEXT, "Pattern", "格式"),
    "hover.example": (TEXT, "Example", "示例"),
    "hover.variable-not-set": (TEXT, "Not set by PAI in this config.", "在此配置中 PAI 不会设置它。"),
    "hover.role-each": (TEXT, "{cpu} CPU, {memory}, {gpu} GPU", "{cpu} 个 CPU，{memory}，{gpu} 个 GPU"),
    "hover.role-tasks": (TEXT, "{tasks} task{s}", "{tasks} 个任务"),
    "completion.default": (TEXT, "default", "默认值"),
    "completion.example": (TEXT, "example", "示例"),
    "completion.example-prefix": (TEXT, "Example: ", "示例："),
    "completion.role-list": (TEXT, "a list with one task role", "含一个任务角色的列表"),
    "completion.port-list": (TEXT, "a list with one labelled port", "含一个带标签端口的列表"),
    "completion.role": (TEXT, "a new task role", "新的任务角色"),
    "completion.port": (TEXT, "a labelled port", "带标签的端口"),
    # -- v2 job files (core/v2/): completion labels, hovers, what a rename or a conversion refuses --
    "v2.word.image": (TEXT, "an image", "镜像"),
    "v2.word.uri": (TEXT, "a URI", "URI"),
    "v2.word.registry-password": (TEXT, "The registry password", "镜像仓库密码"),
    "v2.word.parameter": (TEXT, "Parameter \"{name}\"", "参数 \"{name}\""),
    "v2.word.this-secret": (TEXT, "This secret", "此密钥"),
    "v2.word.key": (TEXT, "key", "键"),
    "v2.word.task-role": (TEXT, "task role", "任务角色"),
    "v2.word.port-label": (TEXT, "port label", "端口标签"),
    "v2.word.deployment": (TEXT, "deployment", "部署"),
    "v2.word.runtime-plugin": (TEXT, "runtime plugin", "运行时插件"),
    "v2.completion.job": (TEXT, "OpenPAI v2 job", "OpenPAI v2 作业"),
    "v2.completion.job-detail": (TEXT, "a whole job: an image, one task role", "完整作业：一个镜像、一个任务角色"),
    "v2.completion.prerequisite": (TEXT, "{kind} prerequisite", "{kind} 前置条件"),
    "v2.completion.prerequisite-detail": (TEXT, "a new prerequisite", "新的前置条件"),
    "v2.completion.deployment-detail": (TEXT, "commands around the roles' own", "角色命令前后的命令"),
    "v2.completion.secret": (TEXT, "secret (masked)", "密钥（已遮盖）"),
    "v2.completion.parameters": (TEXT, "the job's parameters", "作业的参数"),
    "v2.completion.secrets": (TEXT, "the job's secrets", "作业的密钥"),
    "v2.completion.role-prerequisite": (TEXT, "the role's {field} prerequisite", "角色的 {field} 前置条件"),
    "v2.hover.used-as": (TEXT, "Used in commands as", "在命令中写作"),
    "v2.hover.instances": (TEXT, "{instances} instance{s}", "{instances} 个实例"),
    "v2.hover.shm": (TEXT, "Shared memory (/dev/shm): {shm} MB", "共享内存（/dev/shm）：{shm} MB"),
    "v2.hover.image": (TEXT, "Image: `{uri}`", "镜像：`{uri}`"),
    "v2.hover.auth": (TEXT, "Pulled with the registry credentials in `auth`.", "使用 `auth` 中的镜像仓库凭据拉取。"),
    "v2.hover.cannot-render": (TEXT, "The server cannot render this command: {message}", "服务器无法渲染此命令：{message}"),
    "v2.hover.dropped-tag": (TEXT, "The server drops this tag.", "服务器会丢弃此标签。"),
    "v2.hover.runs": (TEXT, "The server runs:", "服务器运行："),
    "v2.hover.yarn-only": (TEXT, "Set on YARN-era clusters only: not in a v2 job's containers.", "只在 YARN 时代的集群中设置：v2 作业的容器中没有它。"),
    "v2.hover.not-set": (TEXT, "Not set for this job.", "此作业中不会设置它。"),
    "v2.rename.role": (TEXT, "{new!r} cannot name a task role: letters, digits and '_', not starting with a digit.",
                       "{new!r} 不能作为任务角色名称：只能使用字母、数字和 '_'，且不能以数字开头。"),
    "v2.rename.name": (TEXT, "{new!r} is no valid name: letters, digits, '_' and '-'.", "{new!r} 不是有效的名称：只能使用字母、数字、'_' 和 '-'。"),
    "v2.rename.template": (TEXT, "{new!r} cannot be written in a template: letters, digits, '_' and '-'.",
                           "{new!r} 无法写在模板中：只能使用字母、数字、'_' 和 '-'。"),
    "v2.convert.title": (TEXT, "Convert to OpenPAI protocol v2 ({name})", "转换为 OpenPAI v2 协议（{name}）"),
    "v2.convert.fix-first": (TEXT, "Fix the errors of this config first.", "请先修正此配置中的错误。"),
    "v2.convert.header": (TEXT, "# {file} in OpenPAI's v2 job protocol (written by pai-lsp; the original is unchanged)",
                          "# {file} 的 OpenPAI v2 作业协议版本（由 pai-lsp 生成；原文件未改动）"),
    "v2.convert.auth-file": (TEXT, "authFile (a private registry login on HDFS) has no v2 equivalent: give the image's registry "
                                   "credentials to the cluster's admins or use a public image",
                             "authFile（HDFS 上的私有镜像仓库登录信息）在 v2 中没有对应项：请把镜像仓库凭据交给集群管理员，或使用公开镜像"),
    "file.too-large": (INFO, "This file is {mb} MB: pai-lsp checks job configs up to {limit} MB, so checks, completion, hover and "
                             "the outline are off for it.",
                       "此文件有 {mb} MB：pai-lsp 只检查不超过 {limit} MB 的作业配置，因此对它关闭了检查、补全、悬停提示和大纲。"),
    # -- `pai why`'s report around the explanation's own words (cli/cmd_why.py) -------------------
    "why.nothing": (TEXT, "{job}: {state} (nothing to explain: it did not fail)", "{job}：{state}（没有需要说明的：作业没有失败）"),
    "why.task": (TEXT, " (task {task})", "（任务 {task}）"),
    "why.where": (TEXT, "where:", "位置："),
    "why.evidence": (TEXT, "evidence:", "证据："),
    "why.last-lines": (TEXT, "last lines:", "最后几行："),
    "why.in-function": (TEXT, " in {function}", "，在 {function} 中"),
    "why.changed": (TEXT, " (changed since the upload)", "（上传后已修改）"),
    # -- what an upload would send, outside diagnostics (core/upload.py) --------------------
    "upload.over-files": (TEXT, "{files:,} files (limit {limit:,}, pai.job.upload.maxFiles)",
                          "{files:,} 个文件（上限 {limit:,}，pai.job.upload.maxFiles）"),
    "upload.over-bytes": (TEXT, "{size} (limit {limit}, pai.job.upload.maxBytes)", "{size}（上限 {limit}，pai.job.upload.maxBytes）"),
    "upload.over-both": (TEXT, "{files} and {bytes}", "{files}，{bytes}"),
    "upload.counting": (TEXT, "*Counting the workspace files an upload would send…*", "*正在统计上传将发送的工作区文件…*"),
    "upload.hover": (TEXT, "**Upload**: {files:,} file{s}, {size} from this workspace "
                           "(`pai.job.upload.include` / `exclude`, `.paiignore`, `.gitignore`)",
                     "**上传**：此工作区的 {files:,} 个文件，共 {size}（`pai.job.upload.include` / `exclude`、`.paiignore`、`.gitignore`）"),
    "upload.largest": (TEXT, "Largest:", "最大的文件："),
    "upload.hover-over": (TEXT, "⚠ Over the limit: {over}.", "⚠ 超出上限：{over}。"),
    "upload.hover-data": (TEXT, "⚠ Looks like data: {files}", "⚠ 看起来像数据：{files}"),
    # -- the editor: code lenses and progress (server/) -------------------------------------
    "lens.submit": (TEXT, "Submit Job to PAI Cluster", "提交作业到 PAI 集群"),
    "lens.run-locally": (TEXT, "Run Job Locally", "在本地运行作业"),
    "lens.preview": (TEXT, "Preview", "预览"),
    "progress.submitting-job": (TEXT, "Submitting job", "正在提交作业"),
    "progress.uploading": (TEXT, "uploading", "正在上传"),
    "progress.downloading": (TEXT, "downloading", "正在下载"),
    "progress.submitting": (TEXT, "submitting", "正在提交"),
    "progress.submitted": (TEXT, "submitted {job}", "已提交 {job}"),
    "progress.transfer": (TEXT, "{verb} {files}/{total_files} files, {done} of {total}", "{verb} {files}/{total_files} 个文件，{done} / {total}"),
    "lsp.open-to-submit": (TEXT, "Open a *.pai.json file to submit it.", "请先打开要提交的 *.pai.json 文件。"),
    "lsp.open-to-preview": (TEXT, "Open a job file to preview it.", "请先打开要预览的作业文件。"),
    "lsp.submit-cancelled": (TEXT, "Submit cancelled: nothing was submitted.", "已取消提交：没有提交任何作业。"),
    "lsp.job-ended": (TEXT, "Job {job} {state}", "作业 {job} {state}"),
    # -- the dry run of a submit (service/preview.py) ----------------------------------------
    "preview.code-storage": (TEXT, "The job has no codeDir: its code goes to storage {storage}, so pai adds to the job (shown below) "
                             "an extras.storages entry for {storage} (mounted at {mount}) and `cd {folder}` before each "
                             "role's commands. The file on disk is not changed.",
                             "作业没有 codeDir：代码上传到存储 {storage}，因此 pai 向作业添加（见下文）{storage} 的 extras.storages "
                             "条目（挂载于 {mount}），并在每个角色的命令前加上 `cd {folder}`。磁盘上的文件不会改变。"),
    "preview.title": (TEXT, "Dry run of {file}: nothing was sent.", "{file} 的试运行：未发送任何内容。"),
    "preview.name-drawn": (TEXT, " (a new name is drawn at submit)", "（提交时会重新生成名称）"),
    "preview.job-name": (TEXT, "job name: ", "作业名称："),
    "preview.cluster": (TEXT, "cluster:  {cluster} (as {user})", "集群：    {cluster} (用户 {user})"),
    "preview.no-upload": (TEXT, "upload:   none (no codeDir, or pai.job.upload.enabled is false)",
                          "上传：    无（没有 codeDir，或 pai.job.upload.enabled 为 false）"),
    "preview.upload": (TEXT, "upload:   {files:,} files, {size} from {workspace} to {remote}",
                       "上传：    {files:,} 个文件，共 {size}，从 {workspace} 到 {remote}"),
    "preview.upload-one": (TEXT, "upload:   {files:,} file, {size} from {workspace} to {remote}",
                           "上传：    {files:,} 个文件，共 {size}，从 {workspace} 到 {remote}"),
    "preview.unchanged": (TEXT, "          {unchanged:,} unchanged since the last upload there (skipped), {send:,} to send",
                          "          {unchanged:,} 个自上次上传后未改变（跳过），{send:,} 个需发送"),
    "preview.largest": (TEXT, "largest files:", "最大的文件："),
    "preview.over": (TEXT, "! over the limit: {over}: submit refuses it (unless --force)", "! 超出上限：{over}：提交会被拒绝（除非使用 --force）"),
    "preview.data": (TEXT, "! {count} file(s) look like data (codeDir should hold code only):",
                     "! {count} 个文件看起来像数据（codeDir 只应包含代码）："),
    "preview.files": (TEXT, "files:", "文件："),
    "preview.config": (TEXT, "config after substitution:", "替换变量后的配置："),
    "preview.rendered": (TEXT, "the job as the server will see it:", "服务器将看到的作业："),
    "preview.converted": (TEXT, "sent as this v1 config ({cluster} takes v1 jobs only):",
                          "以如下 v1 配置发送（{cluster} 只接受 v1 作业）："),
    # -- errors of the service layer and the daemon (errors.py classes carry these codes) ----
    "config.no-file": (TEXT, "no such file", "没有这个文件"),
    "config.directory": (TEXT, "is a directory", "是一个目录"),
    "config.not-regular": (TEXT, "not a regular file", "不是普通文件"),
    "config.too-large": (TEXT, "larger than {limit} MB: not a job config", "大于 {limit} MB：不是作业配置"),
    "config.not-utf8": (TEXT, "not UTF-8 text", "不是 UTF-8 文本"),
    "check.unreadable": (TEXT, "{file}: cannot read: {why}", "{file}：无法读取：{why}"),
    "error.at-file": (TEXT, "{file}: {reason}", "{file}：{reason}"),
    "jobs.wrong-format": (TEXT, "{file}: {cluster} is a {kind} cluster and runs {wanted} job files",
                          "{file}：{cluster} 是 {kind} 集群，只运行 {wanted} 作业文件"),
    "jobs.v1-only": (TEXT, "{cluster} is a YARN-era cluster that takes v1 jobs only, and v1 cannot express {what}: submit "
                     "it to a Kubernetes-era cluster (job protocol v2), or change the job",
                     "{cluster} 是 YARN 时代的集群，只接受 v1 作业，而 v1 无法表达 {what}：请提交到 Kubernetes 时代的集群"
                     "（作业协议 v2），或修改作业"),
    "jobs.refused": (TEXT, "{file}:{line}:{column}: {problem}{more}", "{file}:{line}:{column}：{problem}{more}"),
    "jobs.refused-more": (TEXT, " (and {count} more: run `pai check {file}`)", "（另有 {count} 处：运行 `pai check {file}` 查看）"),
    "jobs.name-taken": (TEXT, "a job named {job} already exists on {cluster}{wait}: rename it or enable pai.job.generateJobName.enabled",
                        "{cluster} 上已有名为 {job} 的作业{wait}：请改名，或启用 pai.job.generateJobName.enabled"),
    "jobs.cancelled": (TEXT, "cancelled: nothing was submitted", "已取消：没有提交任何作业"),
    "jobs.cancelled-upload": (TEXT, "cancelled", "已取消"),
    "jobs.no-task": (TEXT, "job {job} has no task {task}", "作业 {job} 没有任务 {task}"),
    "jobs.no-such-task": (TEXT, "job {job} has no task {task}: its tasks are {tasks}", "作业 {job} 没有任务 {task}：它的任务有 {tasks}"),
    "jobs.no-such-task-form": (TEXT, "job {job} has no task {task} (a task is ROLE:INDEX, e.g. worker:0): its tasks are {tasks}",
                               "作业 {job} 没有任务 {task}（任务写作 角色:序号，如 worker:0）：它的任务有 {tasks}"),
    "jobs.ended-already": (TEXT, "{job} has ended already ({state}): nothing to stop", "{job} 已经结束（{state}）：没有可停止的"),
    "jobs.outputs-into-file": (TEXT, "{path} is a file, not a folder to download the outputs of {job} into",
                               "{path} 是文件，不是可以下载 {job} 输出的文件夹"),
    "jobs.none-running": (TEXT, "no task of {job} is running now (state {state})", "作业 {job} 现在没有正在运行的任务（状态 {state}）"),
    "jobs.no-output-dir": (TEXT, "job {job} has no outputDir", "作业 {job} 没有 outputDir"),
    "jobs.no-outputs": (TEXT, "job {job} wrote nothing to its outputDir {path}", "作业 {job} 没有向其 outputDir {path} 写入任何内容"),
    "upload.bad-ignore-line": (TEXT, "{file}:{line}: {problem}; nothing was sent (fix it, or submit with --force)",
                               "{file}:{line}：{problem}；未发送任何内容（请修正，或用 --force 提交）"),
    "upload.refused": (TEXT, "{at}the upload is over the limit: {over}; largest: {largest}. Nothing was sent: leave files out "
                             "(pai.job.upload.exclude, {ignore}), raise the limit, or submit with --force",
                       "{at}上传超出上限：{over}；最大的文件：{largest}。未发送任何内容：请排除文件（pai.job.upload.exclude、{ignore}）、"
                       "提高上限，或用 --force 提交"),
    # -- a failed HTTP call, whichever client made it (storage/http.py); {what} is one of the "http.at-*"
    "http.at-cluster": (TEXT, "the cluster at {url}", "位于 {url} 的集群"),
    "http.the-cluster": (TEXT, "the cluster", "集群"),
    "http.at-paddlecloud": (TEXT, "PaddlePaddle Cloud at {url}", "位于 {url} 的 PaddlePaddle Cloud"),
    "http.at-storage": (TEXT, "{storage} at {url}", "位于 {url} 的 {storage}"),
    "http.tls": (TEXT, "TLS with {what} failed: {why}{hint}", "与 {what} 的 TLS 连接失败：{why}{hint}"),
    "http.tls-plain": (TEXT, " (is the address https:// where the server speaks plain http://?)",
                       "（地址是否写成了 https://，而服务器只用普通的 http://？）"),
    "http.timeout": (TEXT, "{what} did not answer in time", "{what} 没有及时应答"),
    "http.unknown-host": (TEXT, "cannot reach {what}: its host name is not known", "无法连接{what}：主机名未知"),
    "http.refused": (TEXT, "cannot reach {what}: connection refused or no route", "无法连接{what}：连接被拒绝或没有路由"),
    "http.broke": (TEXT, "cannot talk to {what}: the connection broke ({why})", "无法与{what}通信：连接中断（{why}）"),
    "http.credentials": (TEXT, "{what} refused the credentials ({why})", "{what} 拒绝了凭据（{why}）"),
    "http.credentials-of": (TEXT, "{what} refused the credentials of {user}", "{what} 拒绝了 {user} 的凭据"),
    "http.not-json": (TEXT, "{what} sent something that is not JSON{to}", "{what} 发来的不是 JSON{to}"),
    "http.no-password": (TEXT, "no password stored for {user} at {url}: run `pai cluster login {name}`",
                         "没有保存 {user} 在 {url} 的密码：请运行 `pai cluster login {name}`"),
    "http.login-failed": (TEXT, "login to {url} as {user} failed: {why}", "以 {user} 登录 {url} 失败：{why}"),
    "http.answered": (TEXT, "{what} answered {status}{error}: {detail}", "{what} 返回 {status}{error}：{detail}"),
    "storage.missing": (TEXT, "{path}: no such file or directory on {storage}", "{path}：{storage} 上没有这个文件或目录"),
    "storage.login-refused": (TEXT, "{what} refused the user name and password the cluster gave for it",
                              "{what} 拒绝了集群为它提供的用户名和密码"),
    "storage.bad-path": (TEXT, "{path}: not a path on {storage} (no '..', '\\' or NUL in its names)",
                         "{path}：不是 {storage} 上的路径（名称中不能有 '..'、'\\' 或 NUL）"),
    "storage.type-unreachable": (TEXT, "storage {name} is of type {type}, which pai cannot open from this machine yet (it can: {types})",
                                 "存储 {name} 的类型是 {type}，pai 目前还不能从本机打开（可以打开的类型：{types}）"),
    "storage.detail-missing": (TEXT, "the cluster's answer for storage {name} has no {key}", "集群关于存储 {name} 的回答中没有 {key}"),
    "storage.failed": (TEXT, "{path}: {storage} failed: {why}", "{path}：{storage} 出错：{why}"),
    "storage.read-only": (TEXT, "storage {name} is read-only: jobs mount it read-only, and pai writes nothing to it",
                          "存储 {name} 是只读的：作业以只读方式挂载它，pai 也不向其中写入"),
    "storage.denied": (TEXT, "{path}: permission denied on {storage} ({why})", "{path}：{storage} 拒绝访问（{why}）"),
    "hdfs.rm-folder": (TEXT, "{path} is a folder: use -r to remove it with everything in it", "{path} 是文件夹：请用 -r 连同其内容一起删除"),
    "hdfs.not-a-file": (TEXT, "{path} is a folder, not a file", "{path} 是文件夹，不是文件"),
    "hdfs.no-local": (TEXT, "{path}: no such local file or folder", "{path}：本地没有这个文件或文件夹"),
    "hdfs.put-stopped-whole": (TEXT, "{reason}: the put of {name} stopped; nothing was written to {remote}",
                               "{reason}：{name} 的上传已停止；{remote} 中没有写入任何内容"),
    "hdfs.put-stopped": (TEXT, "{reason}: put stopped with {left} of {total} file(s) not uploaded to {remote} "
                               "(those uploaded are in place; none is there in part)",
                         "{reason}：上传已停止，{total} 个文件中有 {left} 个没有上传到 {remote}（已上传的都已就位；没有只传了一部分的文件）"),
    "hdfs.unsafe-name": (TEXT, "refusing to download a remote entry named {name!r}: it would land outside the destination",
                         "拒绝下载名为 {name!r} 的远程条目：它会落在目标位置之外"),
    "hdfs.unfit-name": (TEXT, "refusing to download a remote entry named {name!r}: {problem}; rename it on the cluster",
                        "拒绝下载名为 {name!r} 的远程条目：{problem}；请在集群上重命名它"),
    "hdfs.outside": (TEXT, "refusing to write {target}: outside {root}", "拒绝写入 {target}：它在 {root} 之外"),
    "hdfs.not-utf8": (TEXT, "{path}: not UTF-8 text, which {storage} paths are", "{path}：不是 UTF-8 文本，而 {storage} 路径必须是"),
    "hdfs.mkdir-over-file": (TEXT, "{path} is a file: no folder can be made there", "{path} 是文件：不能在那里创建文件夹"),
    "hdfs.mkdir-in-file": (TEXT, "{above} is a file: no folder can be made in it ({path})", "{above} 是文件：不能在其中创建文件夹（{path}）"),
    "hdfs.dangling-link": (TEXT, "{path}: a symbolic link to nothing", "{path}：指向不存在之处的符号链接"),
    "hdfs.link-loop": (TEXT, "{path}: a symbolic link that loops (it leads back to itself)", "{path}：循环的符号链接（它指回自己）"),
    "hdfs.local-error": (TEXT, "{path}: {reason}", "{path}：{reason}"),
    "hdfs.kind-fifo": (TEXT, "a FIFO (a named pipe)", "一个 FIFO（命名管道）"),
    "hdfs.kind-device": (TEXT, "a device", "一个设备"),
    "hdfs.kind-socket": (TEXT, "a socket", "一个套接字"),
    "hdfs.kind-special": (TEXT, "no regular file", "不是普通文件"),
    "hdfs.not-regular": (TEXT, "{path} is {what}, not a file or folder: nothing of a known size to upload",
                         "{path} 是{what}，不是文件或文件夹：没有已知大小的内容可上传"),
    "hdfs.put-into-file": (TEXT, "{remote} is a file, not a folder to put {name} into", "{remote} 是文件，不是可以放入 {name} 的文件夹"),
    "hdfs.get-into-file": (TEXT, "{path} is a file, not a folder to download into", "{path} 是文件，不是可以下载到其中的文件夹"),
    "hdfs.exists": (TEXT, "{path} exists already", "{path} 已存在"),
    "hdfs.cannot-replace-folder": (TEXT, "{target} is a folder; {source} is not: it cannot replace it",
                                   "{target} 是文件夹；{source} 不是：不能替换它"),
    "hdfs.cannot-replace-file": (TEXT, "{target} is a file; {source} is not: it cannot replace it", "{target} 是文件；{source} 不是：不能替换它"),
    "hdfs.put-cancelled": (TEXT, "cancelled: nothing was written to {remote}", "已取消：{remote} 中没有写入任何内容"),
    "hdfs.put-cancelled-kept": (TEXT, "cancelled: nothing was written to {remote} (what was there is as it was)",
                                "已取消：{remote} 中没有写入任何内容（原有内容保持不变）"),
    "hdfs.get-cancelled": (TEXT, "cancelled: nothing was written to {path}", "已取消：{path} 中没有写入任何内容"),
    "hdfs.get-stopped": (TEXT, "cancelled: {done} of {total} file(s) downloaded to {path} (each whole; none is there in part)",
                         "已取消：{total} 个文件中已有 {done} 个下载到 {path}（每个都完整；没有只下载了一部分的文件）"),
    "clusters.storage-required": (TEXT, "cluster {name}: give its {storage} URI (--webhdfs)", "集群 {name}：请给出它的 {storage} URI（--webhdfs）"),
    "clusters.not-added": (TEXT, "cluster {name} was not added: {reason}", "集群 {name} 未添加：{reason}"),
    "clusters.no-such": (TEXT, "no cluster named {name!r}: see `pai cluster list`", "没有名为 {name!r} 的集群：请查看 `pai cluster list`"),
    "clusters.local-name": (TEXT, "the name '{name}' is the embedded local cluster; choose another", "名称 '{name}' 是内置的本地集群；请换一个名称"),
    "clusters.no-kind": (TEXT, "no cluster kind {name!r}: the kinds are {kinds}", "没有集群类型 {name!r}：可用的类型有 {kinds}"),
    "clusters.no-keyring": (TEXT, "no OS keyring is available to keep the password: install one (e.g. gnome-keyring), or set "
                                  "PAI_LSP_SECRETS=file to keep secrets in {file} (mode 600)",
                            "没有可用的系统密钥环来保存密码：请安装一个（例如 gnome-keyring），或设置 PAI_LSP_SECRETS=file，"
                            "把密钥保存在 {file} 中（权限 600）"),
    "profiles.folder": (TEXT, "{path} is a folder, not a file of cluster profiles: {fix}", "{path} 是文件夹，不是集群配置文件：{fix}"),
    "file.unreadable": (TEXT, "{path}: cannot read it ({why})", "{path}：无法读取（{why}）"),
    "profiles.empty": (TEXT, "{path} is empty, not a JSON object of cluster profiles: {fix}", "{path} 是空的，不是集群配置的 JSON 对象：{fix}"),
    "profiles.not-utf8": (TEXT, "{path} is not UTF-8 text (a binary file?): {fix}", "{path} 不是 UTF-8 文本（是二进制文件吗？）：{fix}"),
    "profiles.not-json": (TEXT, "{path} is not valid JSON ({why}): {fix}", "{path} 不是有效的 JSON（{why}）：{fix}"),
    "profiles.invalid": (TEXT, "{path}: {where}{why} (see schemas/pai-cluster.schema.json): {fix}",
                         "{path}：{where}{why}（见 schemas/pai-cluster.schema.json）：{fix}"),
    "profiles.at": (TEXT, "at {where}: ", "位于 {where}："),
    "profiles.fix": (TEXT, "fix it, or move it away to start with no profiles", "请修正它，或把它移走，从没有配置开始"),
    "paddle-config.missing": (TEXT, "{path}: no such file (the paddlecloud client keeps its datacenters there)",
                              "{path}：没有这个文件（paddlecloud 客户端把数据中心保存在这里）"),
    "paddle-config.yaml": (TEXT, "{path}{where}: not valid YAML ({why})", "{path}{where}：不是有效的 YAML（{why}）"),
    "paddle-config.no-list": (TEXT, "{path}: no `datacenters:` list in it", "{path}：其中没有 `datacenters:` 列表"),
    "paddle-config.not-mapping": (TEXT, "{path}: datacenter {n} is not a mapping", "{path}：第 {n} 个数据中心不是映射"),
    "paddle-config.missing-keys": (TEXT, "{path}: datacenter {name} has no {keys}", "{path}：数据中心 {name} 缺少 {keys}"),
    "paddle-config.bad-endpoint": (TEXT, "{path}: datacenter {name}: endpoint {endpoint!r} is not an http(s) URL",
                                   "{path}：数据中心 {name}：endpoint {endpoint!r} 不是 http(s) URL"),
    "paddle-config.bad-current": (TEXT, "{path}: current-datacenter {current!r} names no datacenter in the file ({names})",
                                  "{path}：current-datacenter {current!r} 不是文件中的任何数据中心（{names}）"),
    "openpai.no-quota": (TEXT, "{name} is an OpenPAI cluster: quotas are PaddlePaddle Cloud's (see its virtual clusters)",
                         "{name} 是 OpenPAI 集群：配额属于 PaddlePaddle Cloud（请查看它的虚拟集群）"),
    "openpai.no-registries": (TEXT, "{name} is an OpenPAI cluster: registry secrets are PaddlePaddle Cloud's",
                              "{name} 是 OpenPAI 集群：镜像仓库密钥属于 PaddlePaddle Cloud"),
    "openpai.no-storages": (TEXT, "{name} is a YARN-era OpenPAI cluster: it has no storages (its jobs' files are on HDFS: pai hdfs)",
                            "{name} 是 YARN 时代的 OpenPAI 集群：没有存储（作业的文件在 HDFS 上：pai hdfs）"),
    "openpai.bad-storages": (TEXT, "{url} answered the storage list with something that is not one",
                             "{url} 对存储列表的回答不是存储列表"),
    "paddle.no-storages": (TEXT, "{name} is a PaddlePaddle Cloud cluster: it has no storages (its files are on PFS: pai hdfs)",
                           "{name} 是 PaddlePaddle Cloud 集群：没有存储（文件在 PFS 上：pai hdfs）"),
    "openpai.code-dir": (TEXT, "codeDir {uri!r} is not a path on the cluster's HDFS", "codeDir {uri!r} 不是集群 HDFS 上的路径"),
    "paddle.no-job-kept": (TEXT, "no job {job} on {cluster} (PaddlePaddle Cloud keeps no finished or killed jobs)",
                           "{cluster} 上没有作业 {job}（PaddlePaddle Cloud 不保留已结束或已终止的作业）"),
    "paddle.no-config-kept": (TEXT, "PaddlePaddle Cloud keeps no job configs: {job} was not submitted from this session",
                              "PaddlePaddle Cloud 不保存作业配置：{job} 不是从本会话提交的"),
    "jobs.no-such": (TEXT, "no job {job} on {cluster}", "{cluster} 上没有作业 {job}"),
    # -- submission records (what a job ran) ------------------------------------------------
    "records.secrets-not-kept": (TEXT, "{job} is a v2 job with secrets, which its record does not keep: run its job file "
                                       "again (pai run FILE), or rerun it with --edit and give them",
                                 "{job} 是带有 secrets 的 v2 作业，其记录不保存 secrets：请重新运行它的作业文件（pai run FILE），"
                                 "或用 --edit 重新运行并填入它们"),
    "records.none": (TEXT, "job {job} has no submission record: it was submitted before pai-lsp kept records, or by another tool",
                     "作业 {job} 没有提交记录：它提交于 pai-lsp 开始保存记录之前，或由其他工具提交"),
    "records.no-good-copy": (TEXT, "{notes}, and this machine's journal has no good copy", "{notes}，且本机日志中也没有完好的副本"),
    "records.and": (TEXT, "{first}; {second}", "{first}；{second}"),
    "records.too-big": (TEXT, "the submission record of {job} at {location} is {size:,} bytes: too big to be one",
                        "{job} 位于 {location} 的提交记录有 {size:,} 字节：太大，不可能是提交记录"),
    "records.deleted": (TEXT, "the submission record of {job} at {location} was deleted", "{job} 位于 {location} 的提交记录已被删除"),
    "records.changed": (TEXT, "the submission record of {job} at {location} was changed after the job was submitted "
                        "(its SHA-256 is not the one the job carries)",
                        "{job} 位于 {location} 的提交记录在作业提交后被改动过（其 SHA-256 与作业所带的不一致）"),
    "records.unreadable": (TEXT, "the submission record of {job} at {location} is unreadable: {why}",
                           "{job} 位于 {location} 的提交记录无法读取：{why}"),
    "records.unchecked": (TEXT, "the submission record of {job} at {location} could not be checked: the job carries no "
                          "fingerprint and this machine's journal has no copy",
                          "{job} 位于 {location} 的提交记录无法校验：作业没有携带指纹，本机日志中也没有副本"),
    "records.unchecked-rerun": (TEXT, "the submission record of {job} at {location} cannot be checked (the job carries no "
                                      "fingerprint and this machine's journal has no copy): pai reruns only a record it can "
                                      "check; `pai show {job}` shows it as it is",
                                "{job} 位于 {location} 的提交记录无法校验（作业没有携带指纹，本机日志中也没有副本）：pai 只重新运行能校验的记录；"
                                "`pai show {job}` 可按原样显示它"),
    "records.journal-unreadable": (TEXT, "this machine's journal copy is unreadable: {why}", "本机日志中的副本无法读取：{why}"),
    "records.not-written": (TEXT, "the submission record could not be written to {location} ({why}); it is kept on this machine only",
                            "提交记录无法写入 {location}（{why}）；它只保存在本机"),
    "records.bad-name": (TEXT, "name {name!r} has characters a job or profile name cannot have",
                         "名称 {name!r} 含有作业名或配置名不能包含的字符"),
    "records.outside": (TEXT, "the submission record names a file {path!r} outside the code folder: it was not written by pai",
                        "提交记录中的文件 {path!r} 位于代码文件夹之外：该记录不是 pai 写的"),
    "records.files-missing": (TEXT, "{count} file(s) of what {job} ran are nowhere as they were sent (changed or gone in its "
                              "code folder, not in this machine's journal, not in git): {files}",
                              "{job} 运行时的 {count} 个文件已找不到原样副本（代码文件夹中已改动或删除，本机日志和 git 中也没有）：{files}"),
    "records.dest-not-empty": (TEXT, "{dest} exists and is not empty: choose another folder, or use --force to write into it",
                               "{dest} 已存在且不为空：请换一个文件夹，或使用 --force 写入其中"),
    "records.no-file": (TEXT, "{job} sent no file {path}", "{job} 没有提交文件 {path}"),
    "records.not-a-record": (TEXT, "not a pai-lsp submission record", "不是 pai-lsp 的提交记录"),
    "records.not-json": (TEXT, "not JSON", "不是 JSON"),
    "records.version": (TEXT, "a submission record of version {version} (this pai-lsp reads version {known})",
                        "版本为 {version} 的提交记录（此 pai-lsp 读取的版本是 {known}）"),
    "records.damaged": (TEXT, "a damaged submission record ({why})", "损坏的提交记录（{why}）"),
    "records.code-hash": (TEXT, "its file list does not match its code hash (edited by hand?)", "其文件列表与代码哈希不符（被手工改过？）"),
    "records.not-sha256": (TEXT, "not a SHA-256: {value!r}", "不是 SHA-256：{value!r}"),
    "records.editor-failed": (TEXT, "the editor ({editor}) exited with {code}: nothing was submitted",
                              "编辑器（{editor}）以 {code} 退出：没有提交任何作业"),
    "records.edited-not-json": (TEXT, "the edited config is not JSON ({why}): nothing was submitted",
                                "编辑后的配置不是 JSON（{why}）：没有提交任何作业"),
    "records.edited-not-object": (TEXT, "the edited config is not a JSON object: nothing was submitted",
                                  "编辑后的配置不是 JSON 对象：没有提交任何作业"),
    "upload.unreadable": (TEXT, "cannot read {name}: {why}", "无法读取 {name}：{why}"),
    "upload.shrank": (TEXT, "{name} got shorter while it was uploaded: upload again", "{name} 在上传过程中变短了：请重新上传"),
    "upload.code-dir-file": (TEXT, "codeDir {remote} is a file on HDFS, not a folder", "codeDir {remote} 是 HDFS 上的文件，不是文件夹"),
    "hdfs.mv-refused": (TEXT, "cannot move {src} to {dst}: something is there already, or its folder is missing",
                        "无法把 {src} 移动到 {dst}：目标位置已有内容，或其所在文件夹不存在"),
    "hdfs.no-datanode": (TEXT, "{path}: the namenode gave no datanode location", "{path}：namenode 没有给出 datanode 的位置"),
    "hdfs.bad-answer": (TEXT, "WebHDFS answered without the {name} it owes: is the address a WebHDFS server's?",
                        "WebHDFS 的回答缺少应有的 {name}：这个地址是 WebHDFS 服务器吗？"),
    "hdfs.not-a-folder": (TEXT, "{path} is a file, not a folder", "{path} 是文件，不是文件夹"),
    "pfs.bad-chunk": (TEXT, "{path}: PFS sent a chunk that cannot be read", "{path}：PFS 发来的数据块无法读取"),
    "ssh.no-client": (TEXT, "no ssh client on this machine", "本机没有 ssh 客户端"),
    "ssh.no-port": (TEXT, "task {task} of {job} has no ssh port", "{job} 的任务 {task} 没有 ssh 端口"),
    "clusters.local-no-paddle": (TEXT, "the running local cluster does not serve the PaddlePaddle Cloud API: stop it "
                                       "(`pai cluster stop-local`) and the next command starts one that does",
                                 "正在运行的本地集群不提供 PaddlePaddle Cloud API：请停止它（`pai cluster stop-local`），下一条命令会启动一个提供它的本地集群"),
    "pfs.no-rename": (TEXT, "PaddlePaddle Cloud's file server (PFS) cannot rename or move files: download and upload them under "
                            "the new name, then remove the old one",
                      "PaddlePaddle Cloud 的文件服务器（PFS）不能重命名或移动文件：请下载后以新名称上传，再删除旧文件"),
    "pfs.part-left": (TEXT, "{reason}; {path} holds part of the file and could not be removed ({why}): remove it with "
                            "`pai hdfs rm {path}`, or put it again",
                      "{reason}；{path} 中留有文件的一部分且无法删除（{why}）：请用 `pai hdfs rm {path}` 删除，或重新上传"),
    "pfs.upload-stopped": (TEXT, "{reason}: upload to {remote} stopped with {left} of {total} file(s) not complete; the next upload "
                                 "sends only what is missing (chunks already there are kept)",
                           "{reason}：上传到 {remote} 已停止，{total} 个文件中有 {left} 个未完成；下次上传只发送缺少的部分（已在那里的数据块会保留）"),
    "upload.stopped": (TEXT, "{reason}: upload to {remote} stopped with {left} of {total} file(s) not sent; nothing was changed at {remote}",
                       "{reason}：上传到 {remote} 已停止，{total} 个文件中有 {left} 个未发送；{remote} 没有任何改变"),
    "upload.patch-unchanged": (TEXT, "{reason}: upload to {remote} arrived but could not be switched into place; nothing was "
                                     "changed at {remote}",
                               "{reason}：上传到 {remote} 的内容已到达，但无法切换到位；{remote} 没有任何改变"),
    "upload.patch-removed": (TEXT, "{reason}: upload to {remote} arrived but could not be switched into place; {remote} was "
                                   "removed rather than left half-updated: upload again (all files will be sent)",
                             "{reason}：上传到 {remote} 的内容已到达，但无法切换到位；为免留下更新了一半的内容，{remote} 已被删除："
                             "请重新上传（将发送全部文件）"),
    "upload.not-switched": (TEXT, "upload to {remote} arrived but could not be switched into place ({why}); {remote} still holds the "
                                  "previous upload",
                            "上传到 {remote} 的内容已到达，但无法切换到位（{why}）；{remote} 仍是上一次上传的内容"),
    "daemon.cancel-unsaid": (TEXT, "cancelled; the pai daemon did not say within {seconds} s what it stopped (see {log})",
                             "已取消；pai 守护进程在 {seconds} 秒内没有说明它停止了什么（见 {log}）"),
    "clusters.bad-url": (TEXT, "{option} {url}: not a URL ({reason})", "{option} {url}：不是 URL（{reason}）"),
    "clusters.not-http-url": (TEXT, "{option} {url}: not an http:// or https:// URL with a host", "{option} {url}：不是带主机名的 http:// 或 https:// URL"),
    "clusters.bad-name": (TEXT, "{name!r} cannot name a cluster profile: use letters, digits, '.', '_' and '-'",
                          "{name!r} 不能作为集群配置名：请使用字母、数字、'.'、'_' 和 '-'"),
    "clusters.local-not-removable": (TEXT, "{name} is the embedded local cluster, which is always there: it cannot be removed "
                                           "(`pai cluster stop-local` stops it)",
                                     "{name} 是内置的本地集群，始终存在：不能删除（`pai cluster stop-local` 可停止它）"),
    "http.name-other-resource": (TEXT, "{value} cannot be a {what} name: it would name another resource",
                                 "{value} 不能作为 {what} 名称：它会指向另一个资源"),
    "http.name-not-utf8": (TEXT, "{value} cannot be a {what} name: it is not UTF-8 text", "{value} 不能作为 {what} 名称：它不是 UTF-8 文本"),
    "cli.no-storages": (TEXT, "({cluster} gives you no storage: an administrator adds them to your groups)",
                        "（{cluster} 没有给你任何存储：由管理员把存储加入你的组）"),
    "cli.code-storage": (TEXT, "{files} files → storage {storage}:{path}, mounted at {mount} (the job runs in {folder})",
                         "{files} 个文件 → 存储 {storage}:{path}，挂载于 {mount}（作业在 {folder} 中运行）"),
    "cli.storage-path": (TEXT, "{value}: say a storage path as STORAGE:PATH, e.g. local:/code (`pai storage list` names the storages)",
                         "{value}：存储路径应写作 STORAGE:PATH，例如 local:/code（`pai storage list` 列出存储）"),
    "cli.storage-mv-across": (TEXT, "{src} and {dst} are in different storages: mv moves within one (get, then put)",
                              "{src} 和 {dst} 在不同的存储中：mv 只在同一存储内移动（请先 get 再 put）"),
    "v2.render-too-large": (TEXT, "its templates fill in to more than {limit} of commands (a long parameter used many "
                                  "times?): pai renders no more, and no cluster runs commands that long",
                            "其模板填充后的命令超过 {limit}（是否有很长的参数被多次使用？）：pai 不再渲染，也没有集群能运行这么长的命令"),
    "v2.render-too-many-tags": (TEXT, "its templates fill in more than {limit} tags: pai renders no more",
                                "其模板填充的标签超过 {limit} 个：pai 不再渲染"),
    "cli.f-replaces": (TEXT, " (-f replaces it)", "（-f 可替换它）"),
    "cli.bad-locale": (TEXT, "{value}: pai speaks en (English) and zh-CN (Simplified Chinese)", "{value}：pai 支持 en（英语）和 zh-CN（简体中文）"),
    "cli.no-password-stdin": (TEXT, "no password on standard input: --password-stdin reads it from the first line "
                                    "(e.g. `pass show pai | pai … --password-stdin`)",
                              "标准输入中没有密码：--password-stdin 从第一行读取密码（例如 `pass show pai | pai … --password-stdin`）"),
    "cli.no-terminal-password": (TEXT, "no terminal to ask for the password on: give it on standard input with --password-stdin",
                                 "没有可以询问密码的终端：请用 --password-stdin 从标准输入给出密码"),
    "cli.empty-value": (TEXT, "an empty value: give one, or leave the option out", "值为空：请给出一个值，或省略该选项"),
    "cli.no-password": (TEXT, "no password given", "没有给出密码"),
    "cli.list-needs-dry-run": (TEXT, "--list shows what --dry-run would upload: give both (nothing was submitted)",
                               "--list 显示 --dry-run 将上传的内容：请同时给出两者（没有提交任何作业）"),
    "cli.stopped-following": (TEXT, "stopped following {job}; the job goes on (`pai stop {job}` stops it)",
                              "已停止跟踪 {job}；作业仍在运行（`pai stop {job}` 可停止它）"),
    "daemon.no-restart": (TEXT, "the pai daemon did not stop to restart: see {log}", "pai 守护进程没有停止以便重启：见 {log}"),
    "http.invalid-url": (TEXT, "{what}: not a valid URL ({reason})", "{what}：不是有效的 URL（{reason}）"),
    "clusters.local-no-login": (TEXT, "the local cluster needs no login", "本地集群无需登录"),
    "daemon.secret-refused": (TEXT, "the pai daemon at {where} (from {file}) refused the secret in that file, which no longer matches it: end "
                                    "that daemon's process and try again",
                              "位于 {where}（来自 {file}）的 pai 守护进程拒绝了该文件中的密钥（已不再匹配）：请结束那个守护进程，然后重试"),
    "daemon.not-ours": (TEXT, "{where} (from {file}) is not your pai daemon: another program listens there; stop it, or delete {file} and try again",
                        "{where}（来自 {file}）不是你的 pai 守护进程：那里有别的程序在监听；请停止它，或删除 {file} 后重试"),
    "daemon.not-answering-as-one": (TEXT, "{where} (from {file}) is not your pai daemon: it did not answer as one ({why}); stop what "
                                          "listens there, or delete the file and try again",
                                    "{where}（来自 {file}）不是你的 pai 守护进程：它没有像守护进程那样应答（{why}）；请停止在那里监听的程序，或删除该文件后重试"),
    "daemon.endpoint-unreadable": (TEXT, "{path}: cannot read the pai daemon's endpoint ({why}): delete it and try again",
                                   "{path}：无法读取 pai 守护进程的端点（{why}）：请删除它后重试"),
    "daemon.endpoint-invalid": (TEXT, "{path}: not a pai daemon endpoint file: delete it and try again",
                                "{path}：不是 pai 守护进程的端点文件：请删除它后重试"),
    "daemon.endpoint-remote": (TEXT, "{path}: names {host}, not this machine's loopback: refusing to send anything there; delete it "
                                     "and try again",
                               "{path}：指向 {host}，不是本机的回环地址：拒绝向那里发送任何内容；请删除它后重试"),
    "daemon.endpoint-owner": (TEXT, "{path} belongs to another user (uid {uid}), not you: refusing to use it; delete it and try again",
                              "{path} 属于另一个用户（uid {uid}），不是你：拒绝使用它；请删除它后重试"),
    "daemon.endpoint-mode": (TEXT, "{path} can be read or changed by other users (mode {mode}): refusing to use the secret in it; "
                                   "delete it and try again (the daemon writes a new one, mode 600)",
                             "{path} 可被其他用户读取或修改（权限 {mode}）：拒绝使用其中的密钥；请删除它后重试（守护进程会写入新文件，权限 600）"),
    "daemon.endpoint-acl-unreadable": (TEXT, "{path}: {why}: refusing to use the secret in it; delete it and try again",
                                       "{path}：{why}：拒绝使用其中的密钥；请删除它后重试"),
    "daemon.endpoint-others": (TEXT, "{path} can be read or changed by others ({who}), not only you: refusing to use the secret "
                                     "in it; delete it and try again (the daemon writes a new one, private)",
                               "{path} 可被他人读取或修改（{who}），不只是你：拒绝使用其中的密钥；请删除它后重试（守护进程会写入新的私有文件）"),
    "daemon.not-running": (TEXT, "the pai daemon is not running", "pai 守护进程没有运行"),
    "daemon.did-not-start": (TEXT, "the pai daemon did not start: see {log}", "pai 守护进程没有启动：请查看 {log}"),
    "daemon.stopped-unanswered": (TEXT, "the pai daemon stopped before it answered `{method}`, which may or may not have been "
                                        "done: check, then try again (see {log})",
                                  "pai 守护进程在回答 `{method}` 之前停止了，该操作可能已完成也可能没有：请先检查，再重试（见 {log}）"),
    "daemon.keeps-stopping": (TEXT, "the pai daemon keeps stopping: see {log}", "pai 守护进程不断停止：请查看 {log}"),
    "params.not-object": (TEXT, "{method}: params must be an object", "{method}：参数必须是对象"),
    "params.no-argument": (TEXT, "{command}: its argument, an object, is missing (see docs/protocol.md)",
                           "{command}：缺少它的参数（一个对象，见 docs/protocol.md）"),
    "params.missing": (TEXT, "{method}: `{key}` is missing", "{method}：缺少 `{key}`"),
    "params.type": (TEXT, "{method}: `{key}` must be {expected}", "{method}：`{key}` 必须是{expected}"),
    "params.unknown-method": (TEXT, "unknown method {method}", "未知的方法 {method}"),
    "params.request-id": (TEXT, "submit: requestId: {reason}", "submit：requestId：{reason}"),
}


def is_chinese(locale: str | None) -> bool:
    return bool(locale) and locale.lower().replace("_", "-").startswith("zh")


def pick(locale: str | None, en: str, zh: str) -> str:
    """One of two texts by the reader's language: for the data tables that keep their texts beside
    their records (a format's or a kind's title, a variable's doc). Everything else is a code of
    `CATALOGUE`, rendered with `render` (tests/core/test_messages.py finds literal pairs passed here)."""
    return zh if is_chinese(locale) else en


def severity(code: str) -> str:
    return CATALOGUE[code][0]


def render(code: str, locale: str | None, **args: object) -> str:
    """The text of `code` in the reader's language; arguments that are `Message`s are rendered in it too."""
    _, en, zh = CATALOGUE[code]
    template = zh if is_chinese(locale) else en
    values = {k: v.render(locale) if isinstance(v, Message) else v for k, v in args.items()}
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return template


@dataclass(frozen=True)
class Message:
    """A text said before its reader's language is known (an error the daemon sends to whoever
    asked): its catalogue code and arguments (plain JSON values, or `Message`s said inside it).
    Whoever shows it renders it (`render`); `str()` is the English, for logs and old clients."""

    code: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def render(self, locale: str | None) -> str:
        return render(self.code, locale, **self.args)

    def __str__(self) -> str:
        return self.render(None)

    def replaced(self, old: str, new: str) -> Message:
        """The same message with `old` replaced by `new` in its arguments."""
        return Message(self.code, {k: v.replaced(old, new) if isinstance(v, Message) else v.replace(old, new) if isinstance(v, str)
                                   else v for k, v in self.args.items()})

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "args": {k: v.to_json() if isinstance(v, Message) else _plain(v) for k, v in self.args.items()}}

    @classmethod
    def from_json(cls, data: Any) -> Message | None:
        """A message from the wire; None when it is not one this catalogue knows (a newer sender's)."""
        if not isinstance(data, dict) or data.get("code") not in CATALOGUE or not isinstance(data.get("args", {}), dict):
            return None
        args: dict[str, Any] = {}
        for key, value in data.get("args", {}).items():
            inner = cls.from_json(value) if isinstance(value, dict) and "code" in value else None
            if isinstance(value, dict) and inner is None:
                return None
            args[key] = inner if inner is not None else value
        return cls(data["code"], args)


def message(code: str, **args: Any) -> Message:
    """`Message(code, args)`, checked: the code must be in the catalogue."""
    if code not in CATALOGUE:
        raise KeyError(f"no message {code!r} in the catalogue")
    return Message(code, args)


def _plain(value: Any) -> Any:
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def type_name(kind: str, locale: str | None) -> str:
    code = "type." + kind
    return render(code, locale) if code in CATALOGUE else kind


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
