"""Every user-facing text by its code: the diagnostics with their severity, and (as `TEXT`) the
words of hovers, completions, progress, previews and every error the service layer and the daemon raise.

The English is here, beside its code; the translations are gettext catalogues, one per layer
(`locale/zh_CN/LC_MESSAGES/{core,service,cli}.po`: msgctxt the code, msgid the English, msgstr the
Chinese), compiled to `pai_lsp/locale` and read by core/translations.py. scripts/catalogue keeps the
two together (and moves an entry written the old way, `code: (severity, English, 中文)`, into the
catalogue); tests/core/test_messages.py holds every code to both languages and finds texts written
anywhere else. Code that does not know its reader's language yet (the daemon, the service layer)
says a `Message`, a code with its arguments, and whoever shows it renders it in the reader's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

ERROR, WARNING, INFO = "error", "warning", "info"
TEXT = "text"  # not a diagnostic: words shown elsewhere (a hover, a progress report, an error's one line)


class Plural(NamedTuple):
    """A text that counts something: English for one and for many, chosen (and in other languages
    translated, `ngettext`) by the argument `count` names."""

    one: str
    other: str
    count: str


# code: (severity, English) or (severity, Plural(English for one, for many, the counting argument)).
# Templates use str.format fields. An entry added as (severity, English, 中文) works as it is until
# scripts/catalogue moves its Chinese into the catalogue.
CATALOGUE: dict[str, tuple[Any, ...]] = {
    # -- syntax ------------------------------------------------------------------------
    "syntax.empty": (ERROR, "The file is empty: a job config is a JSON object."),
    "syntax.missing-comma": (ERROR, "Missing comma before the next entry."),
    "syntax.missing-colon": (ERROR, "Missing ':' after the key."),
    "syntax.expected-value": (ERROR, "A value is expected here."),
    "syntax.expected-property": (ERROR, "A property (\"key\": value) is expected here."),
    "syntax.unterminated-string": (ERROR, "This string is not closed: add the closing '\"'."),
    "syntax.invalid-escape": (ERROR, "Invalid escape sequence in this string."),
    "syntax.invalid-number": (ERROR, "'{text}' is not a valid JSON number."),
    "syntax.bare-word": (ERROR, "'{text}' is not a JSON value: use true, false, null, a number or a \"quoted string\"."),
    "syntax.unquoted-key": (ERROR, "Keys must be quoted: \"{text}\"."),
    "syntax.unclosed-object": (ERROR, "This '{{' is never closed: add '}}'."),
    "syntax.unclosed-array": (ERROR, "This '[' is never closed: add ']'."),
    "syntax.trailing-content": (ERROR, "Unexpected text after the end of the config."),
    "syntax.unterminated-comment": (ERROR, "This comment is not closed: add '*/'."),
    "syntax.comment": (WARNING, "Comments are fine in the editor, but the PAI server refuses them: pai strips them on submit."),
    "syntax.trailing-comma": (WARNING, "Trailing comma: the PAI server refuses it; pai removes it on submit."),
    "syntax.duplicate-key": (WARNING, "Duplicate key \"{key}\": the server accepts it, but only the last one counts."),
    "syntax.too-deep": (ERROR, "Nested more than {limit} levels deep: no job config needs that, and pai reads no further into it."),
    "syntax.number-too-long": (
        ERROR,
        "This number has {digits} digits: no job setting takes such a number (JavaScript reads it as a rounded float or Infinity).",
    ),
    "syntax.lone-surrogate": (
        WARNING,
        "This string holds half of a UTF-16 surrogate pair (such as \\ud800), which is no character: the job would get U+FFFD (�) in its place.",
    ),
    # -- YAML syntax (v2 job files, read as the server's js-yaml 3 reads them; core/yaml/tree.py) --
    "syntax.yaml-empty": (ERROR, "The file is empty: a v2 job is a YAML mapping (protocolVersion: 2, name, type, taskRoles)."),
    "syntax.yaml-unexpected": (ERROR, "YAML cannot read this line here: check its indentation and punctuation."),
    "syntax.yaml-indentation": (ERROR, "Bad indentation: this line lines up with nothing above it."),
    "syntax.yaml-tab": (ERROR, "A tab indents this line: YAML indents with spaces only."),
    "syntax.yaml-unclosed-quote": (ERROR, "This {quote} is never closed: add the closing {quote}."),
    "syntax.yaml-duplicate-key": (ERROR, "Duplicate key \"{key}\": the server refuses the file (js-yaml: duplicated mapping key)."),
    "syntax.yaml-multi-document": (
        ERROR,
        "A second YAML document starts here: the server reads exactly one (js-yaml: expected a single document).",
    ),
    "syntax.yaml-unknown-alias": (ERROR, "*{name} names no anchor &{name} defined above it."),
    "syntax.yaml-recursive-alias": (ERROR, "The alias *{name} is inside the node it names (&{name}): the value would contain itself."),
    "syntax.yaml-alias-limit": (
        ERROR,
        "Aliases here expand to more than {limit} values (or nest too deep): pai reads no further into them.",
    ),
    "syntax.yaml-bad-merge": (ERROR, "'<<' merges a mapping or a list of mappings, nothing else."),
    "syntax.yaml-alias-key": (ERROR, "An alias as a key: pai does not follow it, use the key itself."),
    "syntax.yaml-complex-key": (ERROR, "Nested lists cannot be keys (js-yaml refuses them)."),
    "syntax.yaml-unknown-tag": (ERROR, "Unknown tag {tag} here: the server's reader knows only YAML's standard tags."),
    "syntax.yaml-bad-tagged-value": (ERROR, "{text!r} cannot be read as {tag}."),
    "syntax.yaml-block-header": (ERROR, "Bad block scalar header: one of '+' / '-' and one indentation digit 1-9 at most."),
    # -- schema ------------------------------------------------------------------------
    "schema.type": (ERROR, "\"{field}\" must be {expected}, not {actual}."),
    "schema.type-coerced": (WARNING, "\"{field}\" should be {expected}: the server converts {value} for you, but other tools may not."),
    "schema.converted-invalid": (ERROR, "The server converts \"{field}\" to {value} and then refuses it: {detail}."),
    "schema.unsafe-integer": (
        ERROR,
        "\"{field}\" is {value}: beyond 2^53 − 1 JavaScript cannot hold it exactly, and the server refuses it as no integer.",
    ),
    "schema.not-enforced": (
        WARNING,
        "\"{field}\" should be {expected}: the server accepts {value} but ignores it (only true turns this on).",
    ),
    "schema.required": (ERROR, "Missing required field \"{missing}\"."),
    "schema.unknown-key": (ERROR, "Unknown key \"{key}\": the server rejects unknown keys.{hint}"),
    "schema.did-you-mean": (WARNING, " Did you mean \"{suggestion}\"?"),
    "schema.scm-only": (
        ERROR,
        "\"{key}\" is an SCM extension: plain OpenPAI rejects it. If your cluster is SCM, set \"pai.cluster.kind\": \"scm\".",
    ),
    "schema.minimum": (ERROR, "\"{field}\" must be at least {limit}, not {value}."),
    "schema.maximum": (ERROR, "\"{field}\" must be at most {limit}, not {value}."),
    "schema.min-length": (ERROR, "\"{field}\" must not be empty."),
    "schema.min-items": (ERROR, "\"{field}\" needs at least {limit} entry."),
    "schema.pattern": (ERROR, "\"{value}\" is not a valid {field}: it {explanation}."),
    "schema.key-pattern": (ERROR, "Key \"{key}\" is not allowed here."),
    "schema.deprecated": (WARNING, "\"{field}\" is obsolete. {doc}"),
    "schema.other": (ERROR, "{detail}"),
    # -- semantic checks no schema expresses -------------------------------------------
    "semantic.duplicate-role": (
        ERROR,
        "Task role \"{name}\" is defined twice: the server accepts the config, but the scheduler keys roles by name, "
        "so the job fails when it is scheduled.",
    ),
    "semantic.min-count-exceeds-tasks": (
        ERROR,
        Plural("{field} is {value} but this role has only {tasks} task: the server refuses this "
               "(minFailedTaskCount or minSucceededTaskCount should not be greater than tasks number).",
               "{field} is {value} but this role has only {tasks} tasks: the server refuses this "
               "(minFailedTaskCount or minSucceededTaskCount should not be greater than tasks number).", "tasks"),
    ),
    "semantic.shm-exceeds-memory": (
        ERROR,
        "shmMB ({shm}) is larger than memoryMB ({memory}{default_note}): the server refuses it, since shared memory is "
        "part of the task's memory.",
    ),
    "semantic.default-shm-exceeds-memory": (
        WARNING,
        "memoryMB ({memory}) is below the default shared memory ({shm} MB): the server accepts it without checking, but a "
        "task that fills its /dev/shm can be killed for using more memory than it asked for. Set shmMB to at most {memory}.",
    ),
    "semantic.duplicate-port-label": (
        WARNING,
        "Port label \"{label}\" is listed twice in this role: the server accepts it and keeps only the last one.",
    ),
    "semantic.unknown-variable": (WARNING, "${name} is not a variable PAI sets: it will be empty.{hint}"),
    "semantic.undefined-role": (WARNING, "${name} refers to task role \"{role}\", which this config does not define (roles: {known})."),
    "semantic.undefined-task-index": (
        WARNING,
        Plural("${name} refers to task {index} of role \"{role}\", which has only {count} task (index 0).",
               "${name} refers to task {index} of role \"{role}\", which has only {count} tasks (indices 0–{last}).", "count"),
    ),
    "semantic.undefined-port-label": (
        WARNING,
        "${name} refers to port label \"{label}\", which no portList in this config defines (labels: {known}).",
    ),
    "semantic.not-substituted": (
        WARNING,
        "${name} is not replaced in {field}: the server replaces only $PAI_DEFAULT_FS_URI, $PAI_JOB_NAME and "
        "$PAI_USER_NAME there.",
    ),
    # -- the v2 job protocol (*.pai.yaml; core/v2): the server's checks beyond its schema, and what
    # the web portal, HiveD, the scheduler or the runtime refuse although the server accepts it -----
    "v2.enum": (ERROR, "\"{field}\" must be {allowed}, not {value}."),
    "v2.min-properties": (ERROR, "\"{field}\" needs at least one entry."),
    "v2.max-length": (ERROR, "\"{field}\" is {length} characters long: the server takes at most {limit}."),
    "v2.bad-name": (ERROR, "\"{key}\" cannot name a {what}: use letters, digits and '_', not starting with a digit "
                    "(the server refuses the job)."),
    "v2.shm-in-resources": (ERROR, "shmMB belongs under extraContainerOptions, not resourcePerInstance: the server refuses unknown "
                            "keys here."),
    "v2.not-allowed-key": (ERROR, "The server refuses a key named \"additionalProperties\" here (its schema has a rule of that name "
                           "in the wrong place)."),
    "v2.duplicate-prerequisite": (ERROR, "Duplicate {type} prerequisites {name}: the server refuses the job (two prerequisites of "
                                  "one type share a name)."),
    "v2.duplicate-deployment": (ERROR, "Duplicate deployments {name}: the server refuses the job."),
    "v2.missing-prerequisite": (ERROR, "Prerequisite {name} does not exist: {field} names a prerequisite of type {type} "
                                "(this job has: {known}); the server refuses the job.{hint}"),
    "v2.uri-not-prerequisite": (ERROR, "{field} names a prerequisite, not {what}: \"{name}\" is no prerequisite of this job (the "
                                "server answers \"Prerequisite {name} does not exist.\"). Define a {type} prerequisite with this uri "
                                "and name it here."),
    "v2.prerequisite-wrong-type": (ERROR, "\"{name}\" is a {actual} prerequisite: {field} names one of type {type} (the server "
                                   "answers \"Prerequisite {name} does not exist.\")."),
    "v2.unknown-prerequisite": (ERROR, "Prerequisite {name} does not exist: the server refuses the job.{hint}"),
    "v2.unknown-deployment": (ERROR, "Default deployment {name} does not exist: the server refuses the job (deployments: {known})."),
    "v2.server-crash": (ERROR, "The server's schema lets {field} be {actual}, but its code cannot use that and fails "
                        "(500 \"{message}\"): write {expected} here."),
    "v2.server-letters": (ERROR, "The server reads this string letter by letter, each letter a name, and refuses the job "
                          "({status} \"{message}\"): write {expected} here."),
    "v2.server-refuses": (ERROR, "The server refuses the job here ({status} \"{message}\")."),
    "v2.template-error": (ERROR, "The server cannot fill in the templates of this command: {message} (it answers 500)."),
    "v2.undefined-parameter": (WARNING, "<% $parameters.{name} %> names no parameter of this job: the server leaves the tag as "
                               "written, and the shell stops at '<%'.{hint}"),
    "v2.undefined-secret": (WARNING, "<% $secrets.{name} %> names no secret of this job: it is left as written, and the shell "
                            "stops at '<%'.{hint}"),
    "v2.no-prerequisite-for-template": (WARNING, "<% {expr} %> is filled in from the role's {field} prerequisite, and this role "
                                        "names none: it is left as written."),
    "v2.undefined-template-member": (WARNING, "\"{name}\" has no {member}: <% {expr} %> is left as written."),
    "v2.unknown-template": (WARNING, "<% {expr} %> names nothing the server fills in ($parameters, $secrets, $script, $output, "
                            "$data): it is left as written.{hint}"),
    "v2.dropped-tag": (WARNING, "The server drops this tag (and what a section holds): only <% $name %> tags are filled in."),
    "v2.template-not-filled": (WARNING, "Templates are filled in only in commands and a Docker image's auth: this one stays as "
                               "written."),
    "v2.plain-secret": (WARNING, "{what} is written in plain text: it is stored with the job, where anyone who can see the job "
                        "reads it. Put it in secrets (masked) and write <% $secrets.{name} %>."),
    "v2.retry-ignored": (WARNING, "taskRetryCount is ignored while gang allocation is on (the default): a failed instance fails "
                         "the whole attempt. Set extras.gangAllocation: false for task retries."),
    "v2.hived-unknown-role": (WARNING, "extras.hivedScheduler names task role \"{role}\", which this job does not have: a cluster that "
                              "runs HiveD refuses the job (\"Taskrole {role} does not exist.\").{hint}"),
    "v2.hived-sku-and-cell": (WARNING, "Task role \"{role}\" sets both skuType and pinnedCellId: a cluster that runs HiveD refuses "
                              "the job (only one is allowed)."),
    "v2.hived-affinity": (WARNING, "Affinity group \"{group}\" holds roles with different skuType or pinnedCellId ({roles}): a cluster "
                          "that runs HiveD refuses the job."),
    "v2.hived-unknown-key": (WARNING, "HiveD reads no \"{key}\" here: a misspelt key passes silently.{hint}"),
    "v2.unknown-plugin": (WARNING, "\"{name}\" is no runtime plugin OpenPAI has (ssh, tensorboard, teamwise_storage, cmd): the "
                          "runtime cannot run it.{hint}"),
    "v2.plugin-parameter-missing": (WARNING, "The {plugin} plugin needs parameters.{name}: the web portal refuses the job without it."),
    "v2.plugin-parameter-unknown": (WARNING, "The {plugin} plugin has no parameter \"{name}\": the web portal refuses it, and the "
                                    "plugin ignores it.{hint}"),
    "v2.plugin-parameter-type": (WARNING, "parameters.{name} of the {plugin} plugin should be {expected}: the web portal refuses {actual}."),
    "v2.plugin-item-key": (WARNING, "\"{key}\" is not read in a runtime plugin entry (plugin, parameters, failurePolicy, hook): the web "
                           "portal refuses it.{hint}"),
    "v2.unknown-extra": (WARNING, "Nothing reads extras.{key}: the server checks nothing in extras, so a misspelt key passes "
                         "silently.{hint}"),
    "v2.deployment-unknown-role": (WARNING, "This deployment gives commands to task role \"{role}\", which the job does not have: "
                                   "nothing runs them.{hint}"),
    "v2.undefined-port-label": (WARNING, "${name} refers to port label \"{label}\", which no role's resourcePerInstance.ports defines "
                                "(labels: {known})."),
    "v2.yarn-variable": (WARNING, "${name} is set on YARN-era clusters only: a v2 job's containers do not have it, and their "
                         "commands (run with set -o nounset) stop there."),
    "v2.warning": (WARNING, "{message}"),
    # -- what an upload would send (facts counted outside the core) ------------------------
    "upload.over-limit": (
        WARNING,
        "The upload from this workspace is over the limit: {over}. Largest: {largest}. Leave files out with "
        "pai.job.upload.exclude or .paiignore; submitting needs --force.",
    ),
    "upload.data-files": (
        WARNING,
        Plural("The upload includes {count} file that looks like data: {files}. codeDir should hold code only "
               "(put data on HDFS and read it through dataDir).",
               "The upload includes {count} files that look like data: {files}. codeDir should hold code only "
               "(put data on HDFS and read it through dataDir).", "count"),
    ),
    "upload.ignore-file": (WARNING, "{problem}"),
    # -- .vscode/settings.json: the pai.* keys ------------------------------------------------
    "settings.type": (ERROR, "{key} should be {expected}, not {actual}: pai ignores it and uses the default ({default})."),
    "settings.glob-type": (
        ERROR,
        "Each entry of {key} is a glob (a non-empty string), not {actual}: pai ignores the whole list and uses the default.",
    ),
    "settings.unknown": (INFO, "{key} is not a pai setting: nothing reads it."),
    "settings.glob-unmatched": (
        WARNING,
        "No file in this workspace matches {glob}: it uploads nothing (after the default excludes, .paiignore and .gitignore).",
    ),
    "settings.glob-hidden": (
        WARNING,
        "Every file {glob} matches is left out again (pai.job.upload.exclude or a !pattern): it uploads nothing.",
    ),
    "settings.exclude-hides-all": (
        WARNING,
        "pai.job.upload.exclude leaves out every file the include globs choose: the upload would be empty.",
    ),
    # -- PaddlePaddle Cloud job files (core/paddle.py) --------------------------------------
    "paddle.name": (ERROR, "\"{value}\" is not a valid PaddlePaddle Cloud job name: {why}."),
    "paddle.name-empty": (TEXT, "it is empty"),
    "paddle.name-separators": (TEXT, "it contains '_' or '.', which paddlecloud refuses"),
    "paddle.name-too-long": (TEXT, "it is {length} characters long; at most {limit} leave room for the -trainer/-pserver suffixes"),
    "paddle.name-not-dns": (TEXT, "it is not a lowercase DNS label (letters a-z, digits and '-', starting and ending with a letter or digit)"),
    "paddle.quantity": (ERROR, "\"{value}\" is not a Kubernetes quantity: write a number with a unit such as 512Mi, 1Gi or 2G."),
    "paddle.tiny-memory": (WARNING, "\"{field}\" is {value}, which is {size} bytes: did you mean {suggestion}?"),
    "paddle.no-entry": (ERROR, "Neither \"entry\" nor \"topology\" is set: the server needs one of them to start the trainers."),
    "paddle.registry-prefix": (WARNING, "The cluster stores registries as \"{full}\": \"{value}\" alone is not found when "
                               "the image is pulled (pai adds the prefix on submit)."),
    "paddle.unknown-variable": (WARNING, "${name} is not set by PaddlePaddle Cloud in a trainer: it may be empty."),
    "paddle.variable-not-set": (TEXT, "Not set by PaddlePaddle Cloud in a trainer."),
    # -- words inside the messages above, hovers and completions ----------------------------
    "type.string": (TEXT, "a string"),
    "type.integer": (TEXT, "an integer"),
    "type.number": (TEXT, "a number"),
    "type.boolean": (TEXT, "true or false"),
    "type.null": (TEXT, "null"),
    "type.object": (TEXT, "an object"),
    "type.array": (TEXT, "a list"),
    "type.either": (TEXT, "{first} or {second}"),
    "type.positive-integer": (TEXT, "a positive integer"),
    "type.globs": (TEXT, "a list of globs"),
    "type.empty-string": (TEXT, "an empty string"),
    "type.missing": (TEXT, "left out"),
    "schema.pattern-fallback": (TEXT, "must match {pattern}"),
    "semantic.the-default": (TEXT, "{value} (the default)"),
    "semantic.default-note": (TEXT, ", the default"),
    "hover.default": (TEXT, "Default"),
    "hover.allowed": (TEXT, "Allowed"),
    "hover.minimum": (TEXT, "Minimum"),
    "hover.maximum": (TEXT, "Maximum"),
    "hover.pattern": (TEXT, "Pattern"),
    "hover.example": (TEXT, "Example"),
    "hover.variable-not-set": (TEXT, "Not set by PAI in this config."),
    "hover.role-each": (TEXT, "{cpu} CPU, {memory}, {gpu} GPU"),
    "hover.role-tasks": (TEXT, Plural("{tasks} task", "{tasks} tasks", "tasks")),
    "completion.default": (TEXT, "default"),
    "completion.example": (TEXT, "example"),
    "completion.example-prefix": (TEXT, "Example: "),
    "completion.role-list": (TEXT, "a list with one task role"),
    "completion.port-list": (TEXT, "a list with one labelled port"),
    "completion.role": (TEXT, "a new task role"),
    "completion.port": (TEXT, "a labelled port"),
    # -- v2 job files (core/v2/): completion labels, hovers, what a rename or a conversion refuses --
    "v2.word.image": (TEXT, "an image"),
    "v2.word.uri": (TEXT, "a URI"),
    "v2.word.registry-password": (TEXT, "The registry password"),
    "v2.word.parameter": (TEXT, "Parameter \"{name}\""),
    "v2.word.this-secret": (TEXT, "This secret"),
    "v2.word.key": (TEXT, "key"),
    "v2.word.task-role": (TEXT, "task role"),
    "v2.word.port-label": (TEXT, "port label"),
    "v2.word.deployment": (TEXT, "deployment"),
    "v2.word.runtime-plugin": (TEXT, "runtime plugin"),
    "v2.completion.job": (TEXT, "OpenPAI v2 job"),
    "v2.completion.job-detail": (TEXT, "a whole job: an image, one task role"),
    "v2.completion.prerequisite": (TEXT, "{kind} prerequisite"),
    "v2.completion.prerequisite-detail": (TEXT, "a new prerequisite"),
    "v2.completion.deployment-detail": (TEXT, "commands around the roles' own"),
    "v2.completion.secret": (TEXT, "secret (masked)"),
    "v2.completion.parameters": (TEXT, "the job's parameters"),
    "v2.completion.secrets": (TEXT, "the job's secrets"),
    "v2.completion.role-prerequisite": (TEXT, "the role's {field} prerequisite"),
    "v2.hover.used-as": (TEXT, "Used in commands as"),
    "v2.hover.instances": (TEXT, Plural("{instances} instance", "{instances} instances", "instances")),
    "v2.hover.shm": (TEXT, "Shared memory (/dev/shm): {shm} MB"),
    "v2.hover.image": (TEXT, "Image: `{uri}`"),
    "v2.hover.auth": (TEXT, "Pulled with the registry credentials in `auth`."),
    "v2.hover.cannot-render": (TEXT, "The server cannot render this command: {message}"),
    "v2.hover.dropped-tag": (TEXT, "The server drops this tag."),
    "v2.hover.runs": (TEXT, "The server runs:"),
    "v2.hover.yarn-only": (TEXT, "Set on YARN-era clusters only: not in a v2 job's containers."),
    "v2.hover.not-set": (TEXT, "Not set for this job."),
    "v2.rename.role": (TEXT, "{new!r} cannot name a task role: letters, digits and '_', not starting with a digit."),
    "v2.rename.name": (TEXT, "{new!r} is no valid name: letters, digits, '_' and '-'."),
    "v2.rename.template": (TEXT, "{new!r} cannot be written in a template: letters, digits, '_' and '-'."),
    "v2.convert.title": (TEXT, "Convert to OpenPAI protocol v2 ({name})"),
    "v2.convert.fix-first": (TEXT, "Fix the errors of this config first."),
    "v2.convert.header": (TEXT, "# {file} in OpenPAI's v2 job protocol (written by pai-lsp; the original is unchanged)"),
    "v2.convert.auth-file": (TEXT, "authFile (a private registry login on HDFS) has no v2 equivalent: give the image's registry "
                                   "credentials to the cluster's admins or use a public image"),
    "file.too-large": (INFO, "This file is {mb} MB: pai-lsp checks job configs up to {limit} MB, so checks, completion, hover and "
                             "the outline are off for it."),
    # -- `pai why`'s report around the explanation's own words (cli/cmd_why.py) -------------------
    "why.nothing": (TEXT, "{job}: {state} (nothing to explain: it did not fail)"),
    "why.task": (TEXT, " (task {task})"),
    "why.where": (TEXT, "where:"),
    "why.evidence": (TEXT, "evidence:"),
    "why.last-lines": (TEXT, "last lines:"),
    "why.in-function": (TEXT, " in {function}"),
    "why.changed": (TEXT, " (changed since the upload)"),
    # -- capacity: why a job waits (core/waiting.py) and whether one being written fits (core/fit.py) --
    "paddle.no-capacity": (TEXT, "{name} is a PaddlePaddle Cloud cluster: it does not tell its capacity or queue (see pai quota)"),
    "capacity.not-yours": (TEXT, " (not yours to use)"),
    "capacity.no-nodes": (TEXT, "(the cluster does not list its nodes)"),
    "capacity.vc-summary": (TEXT, "free {gpu} of {gpus} GPUs, {cpu} of {cpus} CPUs, {memory} of {memories} MB; {waiting} waiting"),
    "capacity.res-gpu": (TEXT, "GPUs"),
    "capacity.res-cpu": (TEXT, "CPUs"),
    "capacity.res-memory_mb": (TEXT, "MB of memory"),
    "capacity.waiting": (TEXT, "waiting: {reason}"),
    "capacity.vc-short": (TEXT, "not enough free {res} in {vc}: it asks {need}, {free} free of {total}"),
    "capacity.no-node": (TEXT, "no node has {need} free GPUs for one instance (the most free on one node: {most})"),
    "capacity.never-node": (TEXT, "it can never run: an instance asks {need} GPUs, the largest node has {most}"),
    "capacity.never-vc": (TEXT, "it can never run: it asks {need} {res} in all, {vc} has {total}"),
    "capacity.gang": (TEXT, "gang allocation: {placed} of {total} instances are placed, the job starts when all are"),
    "capacity.image-pulling": (TEXT, "pulling the image ({message})"),
    "capacity.image-failing": (TEXT, "the image cannot be pulled: {message}"),
    "capacity.retried": (TEXT, "retried after a failure ({retries} so far): waiting to start again"),
    "capacity.scheduler-says": (TEXT, "the scheduler says: {message}"),
    "capacity.not-placed-yet": (TEXT, "it fits now: waiting for the scheduler to place it"),
    "capacity.ahead": (TEXT, "jobs ahead: {count} (an estimate: {rule})"),
    "capacity.ahead-rule": (TEXT, "waiting jobs of {vc} with a higher priority class, or the same class submitted earlier; "
                                  "a smaller job may start before them"),
    "capacity.free": (TEXT, "free now in {vc}: {gpu} GPUs, {cpu} CPUs, {memory} MB"),
    "capacity.free-node": (TEXT, "; the most free on one node of the cluster: {most} GPUs"),
    "capacity.held-by": (TEXT, "held by:"),
    "capacity.holder": (TEXT, "{job} ({user}, {gpus} GPUs, since {since})"),
    "capacity.stale": (TEXT, " (cluster data from {age} s ago)"),
    "capacity.never-forbidden": (ERROR, "This job can never run: you may not use virtual cluster {vc} (the server refuses it with 403); "
                                        "yours: {mine}."),
    "capacity.never-unknown-vc": (ERROR, "This job can never run: the cluster has no virtual cluster {vc}; it has {known}."),
    "capacity.never-instance": (ERROR, "This job can never run: an instance of {role} asks {need} GPUs, the largest node has {most}."),
    "capacity.never-total": (ERROR, "This job can never run: it asks {need} {res} in all, {vc} has {total}."),
    "capacity.never-skus": (ERROR, "This job can never run: it asks {need} SKUs, {vc} has {cells} (the server refuses it with 400)."),
    "capacity.never-sku-type": (ERROR, "This job can never run: SKU type {sku} of {role} is not in {vc}; it has {known}."),
    "capacity.wait-vc": (WARNING, Plural("This job will wait: it asks {need} {res}; {vc} has {free} free of {total}, {ahead} job waiting ahead.",
                                         "This job will wait: it asks {need} {res}; {vc} has {free} free of {total}, {ahead} jobs waiting ahead.",
                                         "ahead")),
    "capacity.wait-node": (WARNING, "This job will wait: an instance of {role} asks {need} GPUs; no node has that many free now "
                                    "(the most: {most})."),
    # -- what an upload would send, outside diagnostics (core/upload.py) --------------------
    "upload.over-files": (TEXT, "{files:,} files (limit {limit:,}, pai.job.upload.maxFiles)"),
    "upload.over-bytes": (TEXT, "{size} (limit {limit}, pai.job.upload.maxBytes)"),
    "upload.over-both": (TEXT, "{files} and {bytes}"),
    "upload.counting": (TEXT, "*Counting the workspace files an upload would send…*"),
    "upload.hover": (TEXT, Plural("**Upload**: {files:,} file, {size} from this workspace "
                                  "(`pai.job.upload.include` / `exclude`, `.paiignore`, `.gitignore`)",
                                  "**Upload**: {files:,} files, {size} from this workspace "
                                  "(`pai.job.upload.include` / `exclude`, `.paiignore`, `.gitignore`)", "files")),
    "upload.largest": (TEXT, "Largest:"),
    "upload.listing-more": (TEXT, "{files}, … (+{more} more)"),
    "upload.hover-over": (TEXT, "⚠ Over the limit: {over}."),
    "upload.hover-data": (TEXT, "⚠ Looks like data: {files}"),
    # -- the editor: code lenses and progress (server/) -------------------------------------
    "lens.submit": (TEXT, "Submit Job to PAI Cluster"),
    "lens.run-locally": (TEXT, "Run Job Locally"),
    "lens.debug": (TEXT, "Debug Job"),
    "lens.preview": (TEXT, "Preview"),
    "progress.submitting-job": (TEXT, "Submitting job"),
    "progress.uploading": (TEXT, "uploading"),
    "progress.downloading": (TEXT, "downloading"),
    "progress.submitting": (TEXT, "submitting"),
    "progress.submitted": (TEXT, "submitted {job}"),
    "progress.transfer": (TEXT, "{verb} {files}/{total_files} files, {done} of {total}"),
    "lsp.open-to-submit": (TEXT, "Open a *.pai.json file to submit it."),
    "lsp.open-to-preview": (TEXT, "Open a job file to preview it."),
    "lsp.submit-cancelled": (TEXT, "Submit cancelled: nothing was submitted."),
    "lsp.job-ended": (TEXT, "Job {job} {state}"),
    # -- extras.jobStatusChangeNotification in a job file (core/status_notification.py) ----------------
    "status-notification.object": (TEXT, "Which of the job's state changes the cluster e-mails you about."),
    "status-notification.note": (TEXT, "The cluster only e-mails, and only where its admin turned job-status notifications on "
                                 "(alert-manager with SMTP); it looks every 120 s, so a job that fails within 120 s of starting "
                                 "gets no \"running\" mail. pai tells you of every watched job's end itself — desktop, editor, "
                                 "webhooks (notices.json) — on any cluster."),
    "status-notification.running": (TEXT, "E-mail when the job starts running (sent once; a job that ends between two 120 s polls "
                                    "gets none)."),
    "status-notification.succeeded": (TEXT, "E-mail when the job succeeds."),
    "status-notification.stopped": (TEXT, "E-mail when the job is stopped."),
    "status-notification.failed": (TEXT, "E-mail when the job fails."),
    "status-notification.retried": (TEXT, "E-mail when the job is retried (one mail per poll, with the retry count)."),
    # -- a job's end, told wherever the user is (service/notice_channels.py) ----------------------------
    "notice.succeeded": (TEXT, "Job {job} succeeded"),
    "notice.failed": (TEXT, "Job {job} failed"),
    "notice.stopped": (TEXT, "Job {job} was stopped"),
    "notice.retried": (TEXT, "Job {job} is running again (retry {retries})"),
    "notice.on-cluster": (TEXT, "on cluster {cluster}"),
    "notice.webhook-failed": (TEXT, "the webhook {url} did not take the notice of job {job}: {reason}"),
    "notice.desktop-failed": (TEXT, "no desktop notification: {reason}"),
    "notice.settings-not-object": (TEXT, "the notice settings must be a JSON object"),
    "notice.webhook-url": (TEXT, "each webhook needs a `url` starting with http:// or https://"),
    "notice.webhook-format": (TEXT, "unknown webhook format {format!r} (one of: {formats})"),
    "notice.settings-unreadable": (TEXT, "the notice settings were left as they are: {problem} (fix or remove the file)"),
    "notice.no-such-webhook": (TEXT, "no webhook {which}: give its number (1 to {count}) or its address, as `pai notices` lists them"),
    "notice.no-secret-stdin": (TEXT, "no secret on standard input: --secret-stdin reads the bot's signing secret from its first line"),
    # -- the dry run of a submit (service/preview.py) ----------------------------------------
    "preview.code-storage": (TEXT, "The job has no codeDir: its code goes to storage {storage}, so pai adds to the job (shown below) "
                             "an extras.storages entry for {storage} (mounted at {mount}) and `cd {folder}` before each "
                             "role's commands. The file on disk is not changed."),
    "preview.title": (TEXT, "Dry run of {file}: nothing was sent."),
    "preview.name-drawn": (TEXT, " (a new name is drawn at submit)"),
    "preview.job-name": (TEXT, "job name: "),
    "preview.cluster": (TEXT, "cluster:  {cluster} (as {user})"),
    "preview.no-upload": (TEXT, "upload:   none (no codeDir, or pai.job.upload.enabled is false)"),
    "preview.upload": (TEXT, Plural("upload:   {files:,} file, {size} from {workspace} to {remote}",
                                    "upload:   {files:,} files, {size} from {workspace} to {remote}", "files")),
    "preview.unchanged": (TEXT, "          {unchanged:,} unchanged since the last upload there (skipped), {send:,} to send"),
    "preview.largest": (TEXT, "largest files:"),
    "preview.over": (TEXT, "! over the limit: {over}: submit refuses it (unless --force)"),
    "preview.data": (TEXT, Plural("! {count} file looks like data (codeDir should hold code only):",
                                  "! {count} files look like data (codeDir should hold code only):", "count")),
    "preview.files": (TEXT, "files:"),
    "preview.config": (TEXT, "config after substitution:"),
    "preview.rendered": (TEXT, "the job as the server will see it:"),
    "preview.converted": (TEXT, "sent as this v1 config ({cluster} takes v1 jobs only):"),
    # -- errors of the service layer and the daemon (errors.py classes carry these codes) ----
    "config.no-file": (TEXT, "no such file"),
    "config.directory": (TEXT, "is a directory"),
    "config.not-regular": (TEXT, "not a regular file"),
    "config.too-large": (TEXT, "larger than {limit} MB: not a job config"),
    "config.not-utf8": (TEXT, "not UTF-8 text"),
    "check.unreadable": (TEXT, "{file}: cannot read: {why}"),
    "error.at-file": (TEXT, "{file}: {reason}"),
    "jobs.wrong-format": (TEXT, "{file}: {cluster} is a {kind} cluster and runs {wanted} job files"),
    "jobs.v1-only": (TEXT, "{cluster} is a YARN-era cluster that takes v1 jobs only, and v1 cannot express {what}: submit "
                     "it to a Kubernetes-era cluster (job protocol v2), or change the job"),
    "jobs.refused": (TEXT, "{file}:{line}:{column}: {problem}{more}"),
    # what a v1 config cannot express of a v2 job (`jobs.v1-only`'s `what`), each thing named
    "v1-only.roles-empty": (TEXT, "taskRoles is an empty list, not a mapping of task role names to task roles: the job has no task role "
                                  "to run."),
    "v1-only.roles-type": (TEXT, "taskRoles is a {type}, not a mapping of task role names to task roles: the job has no task role to run."),
    "v1-only.bad-count": (TEXT, "taskRoles.{role}.{field} is {value}: the scheduler needs a whole number of 0 or more."),
    "v1-only.ports-list": (TEXT, "taskRoles.{role}.resourcePerInstance.ports is a list: the scheduler needs a mapping of port labels "
                                 "to how many ports each task gets."),
    "v1-only.bad-port-count": (TEXT, "taskRoles.{role}.resourcePerInstance.ports.{label} is {value}: the scheduler needs a whole number."),
    "v1-only.images": (TEXT, "task roles in different Docker images ({images}): v1 runs a job in one image"),
    "v1-only.registry-login": (TEXT, "the registry login of image {image} (auth): v1 takes one only as an authFile on HDFS"),
    "v1-only.secrets": (TEXT, "secrets in the commands of {role} ({secrets}): a YARN-era cluster stores commands as written "
                              "and shows job configs to anyone"),
    "v1-only.task-retry": (TEXT, "taskRetryCount of {role}: v1 retries whole jobs only (retryCount)"),
    "v1-only.shm": (TEXT, "shmMB {shm} of {role}, above its memoryMB {memory} (v1 refuses it)"),
    "v1-only.infiniband": (TEXT, "extraContainerOptions.infiniband of {role}"),
    "v1-only.plugin-prerequisite": (TEXT, "prerequisite {name}, run by the plugin {plugin} at start"),
    "v1-only.plugins": (TEXT, Plural("the runtime plugin {plugins} (v1 has ssh built in, and no others)",
                                     "the runtime plugins {plugins} (v1 has ssh built in, and no others)", "count")),
    "v1-only.storages": (TEXT, "storage mounts (extras.storages)"),
    "v1-only.hived": (TEXT, "HiveD's scheduling choices (extras.hivedScheduler)"),
    "v1-only.and": (TEXT, "{first}; {second}"),
    "jobs.refused-more": (TEXT, " (and {count} more: run `pai check {file}`)"),
    "jobs.name-taken": (TEXT, "a job named {job} already exists on {cluster}: rename it or enable pai.job.generateJobName.enabled"),
    "jobs.name-taken-terminating": (TEXT, "a job named {job} already exists on {cluster} (or its pods are still terminating): rename "
                                          "it or enable pai.job.generateJobName.enabled"),
    "jobs.cancelled": (TEXT, "cancelled: nothing was submitted"),
    "jobs.cancelled-upload": (TEXT, "cancelled"),
    "jobs.no-task": (TEXT, "job {job} has no task {task}"),
    "jobs.no-such-task": (TEXT, "job {job} has no task {task}: its tasks are {tasks}"),
    "jobs.no-such-task-form": (TEXT, "job {job} has no task {task} (a task is ROLE:INDEX, e.g. worker:0): its tasks are {tasks}"),
    "jobs.ended-already": (TEXT, "{job} has ended already ({state}): nothing to stop"),
    "jobs.outputs-into-file": (TEXT, "{path} is a file, not a folder to download the outputs of {job} into"),
    "jobs.none-running": (TEXT, "no task of {job} is running now (state {state})"),
    "jobs.no-output-dir": (TEXT, "job {job} has no outputDir"),
    "jobs.no-outputs": (TEXT, "job {job} wrote nothing to its outputDir {path}"),
    "upload.bad-ignore-line": (TEXT, "{file}:{line}: {problem}; nothing was sent (fix it, or submit with --force)"),
    "upload.refused": (TEXT, "{at}the upload is over the limit: {over}; largest: {largest}. Nothing was sent: leave files out "
                             "(pai.job.upload.exclude, {ignore}), raise the limit, or submit with --force"),
    # -- a failed HTTP call, whichever client made it (storage/http.py); {what} is one of the "http.at-*"
    "http.at-cluster": (TEXT, "the cluster at {url}"),
    "http.the-cluster": (TEXT, "the cluster"),
    "http.at-paddlecloud": (TEXT, "PaddlePaddle Cloud at {url}"),
    "http.at-storage": (TEXT, "{storage} at {url}"),
    "http.tls": (TEXT, "TLS with {what} failed: {why}{hint}"),
    "http.tls-plain": (TEXT, " (is the address https:// where the server speaks plain http://?)"),
    "http.timeout": (TEXT, "{what} did not answer in time"),
    "http.unknown-host": (TEXT, "cannot reach {what}: its host name is not known"),
    "http.refused": (TEXT, "cannot reach {what}: connection refused or no route"),
    "http.broke": (TEXT, "cannot talk to {what}: the connection broke ({why})"),
    "http.credentials": (TEXT, "{what} refused the credentials ({why})"),
    "http.credentials-of": (TEXT, "{what} refused the credentials of {user}"),
    "http.not-json": (TEXT, "{what} sent something that is not JSON{to}"),
    "http.no-password": (TEXT, "no password stored for {user} at {url}: run `pai cluster login {name}`"),
    "http.login-failed": (TEXT, "login to {url} as {user} failed: {why}"),
    "http.answered": (TEXT, "{what} answered {status}{error}: {detail}"),
    "storage.missing": (TEXT, "{path}: no such file or directory on {storage}"),
    "storage.login-refused": (TEXT, "{what} refused the user name and password the cluster gave for it"),
    "storage.bad-path": (TEXT, "{path}: not a path on {storage} (no '..', '\\' or NUL in its names)"),
    "storage.type-unreachable": (TEXT, "storage {name} is of type {type}, which pai cannot open from this machine yet (it can: {types})"),
    "storage.detail-missing": (TEXT, "the cluster's answer for storage {name} has no {key}"),
    "storage.failed": (TEXT, "{path}: {storage} failed: {why}"),
    "storage.read-only": (TEXT, "storage {name} is read-only: jobs mount it read-only, and pai writes nothing to it"),
    "storage.denied": (TEXT, "{path}: permission denied on {storage} ({why})"),
    "storage.nfs-client-missing": (TEXT, "storage {name} is an NFS storage, and this machine lacks pai's NFS client "
                                         "(nfs-rs, which has wheels for Linux x86_64 with Python 3.11 or later)"),
    "storage.local": (TEXT, "the local storage"),
    "storage.link-out": (TEXT, "a link out of the storage's folder"),
    "storage.local-read-only": (TEXT, "read-only storage"),
    "storage.access-denied": (TEXT, "access denied"),
    "storage.read-only-fs": (TEXT, "read-only file system"),
    "storage.short-write": (TEXT, "the server wrote {written} of {size} bytes"),
    "storage.no-credits": (TEXT, "the server granted {left} credits where a request needs {charge}"),
    # -- what an upload leaves out: problems in .paiignore / .gitignore (storage/ignore.py) --
    "ignore.problem": (TEXT, "{source}:{line}: {problem}"),
    "ignore.not-pattern": (TEXT, "{pattern!r} is not a gitignore pattern ({why})"),
    "ignore.not-utf8": (TEXT, "not UTF-8 text: ignored"),
    "ignore.unreadable": (TEXT, "cannot be read ({why}): ignored"),
    "hdfs.rm-folder": (TEXT, "{path} is a folder: use -r to remove it with everything in it"),
    "hdfs.not-a-file": (TEXT, "{path} is a folder, not a file"),
    "hdfs.no-local": (TEXT, "{path}: no such local file or folder"),
    "hdfs.put-stopped-whole": (TEXT, "{reason}: the put of {name} stopped; nothing was written to {remote}"),
    "hdfs.put-stopped": (TEXT, Plural("{reason}: put stopped with {left} of {total} file not uploaded to {remote} "
                                      "(those uploaded are in place; none is there in part)",
                                      "{reason}: put stopped with {left} of {total} files not uploaded to {remote} "
                                      "(those uploaded are in place; none is there in part)", "total")),
    "hdfs.unsafe-name": (TEXT, "refusing to download a remote entry named {name!r}: it would land outside the destination"),
    # why Windows cannot hold a file of that name (common/winnames.py)
    "names.windows-characters": (TEXT, "it holds one of \\ / : * ? \" < > | or a control character, which Windows keeps out of names"),
    "names.windows-trailing": (TEXT, "it ends with a dot or a space, which Windows drops"),
    "names.windows-device": (TEXT, "it is the name of a device on Windows"),
    "hdfs.unfit-name": (TEXT, "refusing to download a remote entry named {name!r}: {problem}; rename it on the cluster"),
    "hdfs.outside": (TEXT, "refusing to write {target}: outside {root}"),
    "hdfs.not-utf8": (TEXT, "{path}: not UTF-8 text, which {storage} paths are"),
    "hdfs.mkdir-over-file": (TEXT, "{path} is a file: no folder can be made there"),
    "hdfs.mkdir-in-file": (TEXT, "{above} is a file: no folder can be made in it ({path})"),
    "hdfs.dangling-link": (TEXT, "{path}: a symbolic link to nothing"),
    "hdfs.link-loop": (TEXT, "{path}: a symbolic link that loops (it leads back to itself)"),
    "hdfs.local-error": (TEXT, "{path}: {reason}"),
    "hdfs.kind-fifo": (TEXT, "a FIFO (a named pipe)"),
    "hdfs.kind-device": (TEXT, "a device"),
    "hdfs.kind-socket": (TEXT, "a socket"),
    "hdfs.kind-special": (TEXT, "no regular file"),
    "hdfs.not-regular": (TEXT, "{path} is {what}, not a file or folder: nothing of a known size to upload"),
    "hdfs.put-into-file": (TEXT, "{remote} is a file, not a folder to put {name} into"),
    "hdfs.get-into-file": (TEXT, "{path} is a file, not a folder to download into"),
    "hdfs.exists": (TEXT, "{path} exists already"),
    "hdfs.cannot-replace-folder": (TEXT, "{target} is a folder; {source} is not: it cannot replace it"),
    "hdfs.cannot-replace-file": (TEXT, "{target} is a file; {source} is not: it cannot replace it"),
    "hdfs.put-cancelled": (TEXT, "cancelled: nothing was written to {remote}"),
    "hdfs.put-cancelled-kept": (TEXT, "cancelled: nothing was written to {remote} (what was there is as it was)"),
    "hdfs.get-cancelled": (TEXT, "cancelled: nothing was written to {path}"),
    "hdfs.get-stopped": (TEXT, Plural("cancelled: {done} of {total} file downloaded to {path} (each whole; none is there in part)",
                                      "cancelled: {done} of {total} files downloaded to {path} (each whole; none is there in part)",
                                      "total")),
    "clusters.storage-required": (TEXT, "cluster {name}: give its {storage} URI (--webhdfs)"),
    "clusters.not-added": (TEXT, "cluster {name} was not added: {reason}"),
    "clusters.no-such": (TEXT, "no cluster named {name!r}: see `pai cluster list`"),
    "clusters.local-name": (TEXT, "the name '{name}' is the embedded local cluster; choose another"),
    "clusters.no-kind": (TEXT, "no cluster kind {name!r}: the kinds are {kinds}"),
    "clusters.no-keyring": (TEXT, "no OS keyring is available to keep the password: install one (e.g. gnome-keyring), or set "
                                  "PAI_LSP_SECRETS=file to keep secrets in {file} (mode 600)"),
    "profiles.folder": (TEXT, "{path} is a folder, not a file of cluster profiles: {fix}"),
    "file.unreadable": (TEXT, "{path}: cannot read it ({why})"),
    "profiles.empty": (TEXT, "{path} is empty, not a JSON object of cluster profiles: {fix}"),
    "profiles.not-utf8": (TEXT, "{path} is not UTF-8 text (a binary file?): {fix}"),
    "profiles.not-json": (TEXT, "{path} is not valid JSON ({why}): {fix}"),
    "profiles.invalid": (TEXT, "{path}: {where}{why} (see schemas/pai-cluster.schema.json): {fix}"),
    "profiles.at": (TEXT, "at {where}: "),
    "profiles.fix": (TEXT, "fix it, or move it away to start with no profiles"),
    "paddle-config.missing": (TEXT, "{path}: no such file (the paddlecloud client keeps its datacenters there)"),
    "paddle-config.yaml": (TEXT, "{path}{where}: not valid YAML ({why})"),
    "paddle-config.no-list": (TEXT, "{path}: no `datacenters:` list in it"),
    "paddle-config.not-mapping": (TEXT, "{path}: datacenter {n} is not a mapping"),
    "paddle-config.missing-keys": (TEXT, "{path}: datacenter {name} has no {keys}"),
    "paddle-config.bad-endpoint": (TEXT, "{path}: datacenter {name}: endpoint {endpoint!r} is not an http(s) URL"),
    "paddle-config.bad-current": (TEXT, "{path}: current-datacenter {current!r} names no datacenter in the file ({names})"),
    "openpai.no-quota": (TEXT, "{name} is an OpenPAI cluster: quotas are PaddlePaddle Cloud's (see its virtual clusters)"),
    "openpai.no-registries": (TEXT, "{name} is an OpenPAI cluster: registry secrets are PaddlePaddle Cloud's"),
    "openpai.no-storages": (TEXT, "{name} is a YARN-era OpenPAI cluster: it has no storages (its jobs' files are on HDFS: pai hdfs)"),
    "openpai.bad-storages": (TEXT, "{url} answered the storage list with something that is not one"),
    "openpai.no-metrics": (TEXT, "{name} is a YARN-era OpenPAI cluster: it has no job metrics (no Prometheus serves them)"),
    "openpai.no-prometheus": (TEXT, "{url} has no Prometheus for job metrics: {why}"),
    "openpai.bad-metrics": (TEXT, "{url} answered a metrics query with something that is not a query result ({why})"),
    "metrics.no-tasks": (TEXT, "no task of {job} reports metrics now (it is not running, or its first samples are not in yet)"),
    "status.cluster-code": (TEXT, "cluster code {number}"),
    "status.cluster-code-why": (TEXT, "cluster code {number}: {why}"),
    "status.exit-code": (TEXT, "exit code {number}"),
    "status.exit-code-then": (TEXT, "exit code {number}; {platform}"),
    "status.idle-gpu": (TEXT, "its GPUs are idle: {average}% on average over the last {minutes} minutes (below {threshold}%)"),
    "paddle.no-metrics": (TEXT, "{name} is a PaddlePaddle Cloud cluster: it offers no job metrics"),
    "paddle.no-storages": (TEXT, "{name} is a PaddlePaddle Cloud cluster: it has no storages (its files are on PFS: pai hdfs)"),
    "openpai.code-dir": (TEXT, "codeDir {uri!r} is not a path on the cluster's HDFS"),
    "paddle.no-job-kept": (TEXT, "no job {job} on {cluster} (PaddlePaddle Cloud keeps no finished or killed jobs)"),
    "paddle.no-config-kept": (TEXT, "PaddlePaddle Cloud keeps no job configs: {job} was not submitted from this session"),
    "paddle.stopped-by-user": (TEXT, "stopped by its user"),
    "paddle.trainer-failed": (TEXT, "trainer {worker} failed"),
    "paddle.trainer-failed-why": (TEXT, "trainer {worker} failed: {why}"),
    "jobs.no-such": (TEXT, "no job {job} on {cluster}"),
    # -- submission records (what a job ran) ------------------------------------------------
    "records.secrets-not-kept": (TEXT, "{job} is a v2 job with secrets, which its record does not keep: run its job file "
                                       "again (pai run FILE), or rerun it with --edit and give them"),
    "records.none": (TEXT, "job {job} has no submission record: it was submitted before pai-lsp kept records, or by another tool"),
    "records.no-good-copy": (TEXT, "{notes}, and this machine's journal has no good copy"),
    "records.and": (TEXT, "{first}; {second}"),
    "records.too-big": (TEXT, "the submission record of {job} at {location} is {size:,} bytes: too big to be one"),
    "records.deleted": (TEXT, "the submission record of {job} at {location} was deleted"),
    "records.changed": (TEXT, "the submission record of {job} at {location} was changed after the job was submitted "
                        "(its SHA-256 is not the one the job carries)"),
    "records.unreadable": (TEXT, "the submission record of {job} at {location} is unreadable: {why}"),
    "records.unchecked": (TEXT, "the submission record of {job} at {location} could not be checked: the job carries no "
                          "fingerprint and this machine's journal has no copy"),
    "records.unchecked-rerun": (TEXT, "the submission record of {job} at {location} cannot be checked (the job carries no "
                                      "fingerprint and this machine's journal has no copy): pai reruns only a record it can "
                                      "check; `pai show {job}` shows it as it is"),
    "records.journal-unreadable": (TEXT, "this machine's journal copy is unreadable: {why}"),
    "records.not-written": (TEXT, "the submission record could not be written to {location} ({why}); it is kept on this machine only"),
    "records.bad-name": (TEXT, "name {name!r} has characters a job or profile name cannot have"),
    "records.outside": (TEXT, "the submission record names a file {path!r} outside the code folder: it was not written by pai"),
    "records.files-missing": (TEXT, Plural("{count} file of what {job} ran is nowhere as it was sent (changed or gone in its "
                                           "code folder, not in this machine's journal, not in git): {files}",
                                           "{count} files of what {job} ran are nowhere as they were sent (changed or gone in "
                                           "its code folder, not in this machine's journal, not in git): {files}", "count")),
    "records.dest-not-empty": (TEXT, "{dest} exists and is not empty: choose another folder, or use --force to write into it"),
    "records.no-file": (TEXT, "{job} sent no file {path}"),
    "records.not-a-record": (TEXT, "not a pai-lsp submission record"),
    "records.not-json": (TEXT, "not JSON"),
    "records.version": (TEXT, "a submission record of version {version} (this pai-lsp reads version {known})"),
    "records.damaged": (TEXT, "a damaged submission record ({why})"),
    "records.code-hash": (TEXT, "its file list does not match its code hash (edited by hand?)"),
    "records.not-sha256": (TEXT, "not a SHA-256: {value!r}"),
    "records.editor-failed": (TEXT, "the editor ({editor}) exited with {status}: nothing was submitted"),
    "records.edited-not-json": (TEXT, "the edited config is not JSON ({why}): nothing was submitted"),
    "records.edited-not-object": (TEXT, "the edited config is not a JSON object: nothing was submitted"),
    # a record in words (`pai show`): each line a label, padded to one column, then its facts
    "records.summary-job": (TEXT, "job        {job} on {cluster} ({kind}) as {user}"),
    "records.summary-submitted": (TEXT, "submitted  {submitted} with pai-lsp {tool} (python {python}, {os}, host {host})"),
    "records.summary-config": (TEXT, "config     {file} in {workspace}"),
    "records.summary-rerun": (TEXT, "rerun of   {job}"),
    "records.summary-code": (TEXT, Plural("code       {count} file, {bytes:,} bytes at {folder} (code hash {hash})",
                                          "code       {count} files, {bytes:,} bytes at {folder} (code hash {hash})", "count")),
    "records.summary-no-code": (TEXT, "code       none uploaded"),
    "records.summary-no-git": (TEXT, "git        not a git repository"),
    "records.detached": (TEXT, "(detached)"),
    "records.summary-git-clean": (TEXT, "git        {branch} @ {commit}{remote}, clean"),
    "records.summary-git-dirty": (TEXT, "git        {branch} @ {commit}{remote}, uncommitted changes ({bytes:,} bytes of diff)"),
    "records.summary-git-diff-too-large": (TEXT, "git        {branch} @ {commit}{remote}, uncommitted changes: the diff is too large "
                                                 "to keep ({bytes:,} bytes)"),
    "records.summary-untracked": (TEXT, "untracked  {files}"),
    "records.summary-sent": (TEXT, Plural("sent as    OpenPAI protocol v2 YAML ({count} line: `pai show -o json` has it)",
                                          "sent as    OpenPAI protocol v2 YAML ({count} lines: `pai show -o json` has it)", "count")),
    "records.summary-variables": (TEXT, "variables  {values}"),
    # where the files of what a job ran came from (`pai code`, `pai rerun`)
    "records.from-cluster": (TEXT, Plural("{count} file from its code folder {folder}", "{count} files from its code folder {folder}",
                                          "count")),
    "records.from-journal": (TEXT, Plural("{count} file from this machine's journal", "{count} files from this machine's journal",
                                          "count")),
    "records.from-git": (TEXT, Plural("{count} file from the recorded git commit {commit}",
                                      "{count} files from the recorded git commit {commit}", "count")),
    "records.list": (TEXT, "{first}, {second}"),
    "records.no-files": (TEXT, "no files"),
    "records.code-unchanged": (TEXT, "the code of {job} from its code folder {folder} (unchanged; nothing uploaded)"),
    "records.code-none": (TEXT, "no code (the first run sent none)"),
    "records.code-uploaded": (TEXT, "the code of {job}: {sources} (each checked against its hash), uploaded to {folder}"),
    # two runs compared (`pai diff`)
    "records.diff-config": (TEXT, "config ({first} → {second}):"),
    "records.diff-config-same": (TEXT, "config: the same"),
    "records.diff-code": (TEXT, "code:"),
    "records.diff-code-same": (TEXT, "code: the same"),
    "records.diff-commit": (TEXT, "commit:"),
    "records.diff-commit-same": (TEXT, "commit: the same"),
    "records.diff-environment": (TEXT, "environment:"),
    "records.diff-environment-same": (TEXT, "environment: the same"),
    "records.diff-none": (TEXT, "(none)"),
    "records.diff-uncommitted": (TEXT, "  ~ uncommitted changes: {old:,} → {new:,} bytes of diff"),
    "records.binary-differs": (TEXT, "Binary file {path} differs ({old:,} → {new:,} bytes)"),
    "records.more-diff-lines": (TEXT, Plural("… ({count} more diff line)", "… ({count} more diff lines)", "count")),
    "upload.unreadable": (TEXT, "cannot read {name}: {why}"),
    "upload.shrank": (TEXT, "{name} got shorter while it was uploaded: upload again"),
    "upload.code-dir-file": (TEXT, "codeDir {remote} is a file on HDFS, not a folder"),
    "hdfs.mv-refused": (TEXT, "cannot move {src} to {dst}: something is there already, or its folder is missing"),
    "hdfs.no-datanode": (TEXT, "{path}: the namenode gave no datanode location"),
    "hdfs.bad-answer": (TEXT, "WebHDFS answered without the {name} it owes: is the address a WebHDFS server's?"),
    "hdfs.not-a-folder": (TEXT, "{path} is a file, not a folder"),
    "pfs.no-data": (TEXT, "{path}: PFS sent no data"),
    "pfs.public-read-only": (TEXT, "{public}/ is read-only public data"),
    "pfs.bad-chunk": (TEXT, "{path}: PFS sent a chunk that cannot be read"),
    "ssh.no-client": (TEXT, "no ssh client on this machine"),
    "ssh.no-port": (TEXT, "task {task} of {job} has no ssh port"),
    "ssh.no-key": (TEXT, "no SSH key to log in to {target} as {user}: none in ~/.ssh, no ssh agent and none given (the private "
                         "key whose public key the job's ssh plugin holds in userssh)"),
    "ssh.key-unreadable": (TEXT, "cannot read the SSH key {path}: {why}"),
    "ssh.auth-refused": (TEXT, "the task's SSH server {target} refused the key for {user}: the job's ssh plugin (userssh) must hold "
                               "its public key"),
    "ssh.no-answer": (TEXT, "no answer"),
    "ssh.no-answer-in": (TEXT, "no answer in {seconds:g} s"),
    "ssh.unreachable": (TEXT, "cannot reach the task's SSH server {target}: {why}"),
    "ssh.port-closed": (TEXT, "nothing listens on {remote} in the task (asked through its SSH server {target}): not yet, or on "
                              "another address"),
    # -- debugging a job's tasks (core/debug, service/debug.py) ----------------------------------
    "debug.no-roles": (TEXT, "this job file has no task roles pai can debug"),
    "debug.bad-selector": (TEXT, "'{tasks}' names no tasks: use first, all, a task role, or ROLE:INDEX"),
    "debug.unknown-role": (TEXT, "the job has no task role '{role}' (it has: {roles})"),
    "debug.no-index": (TEXT, "task role {role} has {count} instances: it has no index {index}"),
    "debug.cannot-wrap": (TEXT, "task role {role} starts no Python program pai can debug ({command}): pai debug runs "
                                "`python x.py`, `python -m pkg`, `torchrun …` and `python -m torch.distributed.launch …` under debugpy"),
    "debug.bad-via": (TEXT, "a debugger reaches a task directly or through ssh, not '{via}'"),
    "debug.ssh-no-plugin": (TEXT, "a debugger reaches a task through ssh by the ssh runtime plugin of OpenPAI v2 jobs "
                                  "(*.pai.yaml), which this job's format has not: debug it directly (via direct), or write it as a v2 job"),
    "debug.bad-post-mortem": (TEXT, "post-mortem minutes are a whole number above 0, not {minutes}"),
    "debug.not-debugged": (TEXT, "{job} was not submitted for debugging, nor does its command start debugpy: "
                                 "submit it with Debug Job (pai debug)"),
    "debug.self-started": (TEXT, "{job} starts debugpy itself: whether it waits for a debugger yet, only its log says; "
                                 "breakpoints bind where the workspace is the program's working folder"),
    "debug.no-record": (TEXT, "no submission record of {job} on this machine: breakpoints bind only where the job's paths "
                              "match the workspace's"),
    "debug.job-ended": (TEXT, "{job} ended ({state}) before any task waited for a debugger"),
    "debug.gave-up": (TEXT, "task {task} stopped waiting for a debugger: its log says why"),
    "clusters.local-no-paddle": (TEXT, "the running local cluster does not serve the PaddlePaddle Cloud API: stop it "
                                       "(`pai cluster stop-local`) and the next command starts one that does"),
    "pfs.no-rename": (TEXT, "PaddlePaddle Cloud's file server (PFS) cannot rename or move files: download and upload them under "
                            "the new name, then remove the old one"),
    "pfs.part-left": (TEXT, "{reason}; {path} holds part of the file and could not be removed ({why}): remove it with "
                            "`pai hdfs rm {path}`, or put it again"),
    "pfs.upload-stopped": (TEXT, Plural("{reason}: upload to {remote} stopped with {left} of {total} file not complete; the next "
                                        "upload sends only what is missing (chunks already there are kept)",
                                        "{reason}: upload to {remote} stopped with {left} of {total} files not complete; the next "
                                        "upload sends only what is missing (chunks already there are kept)", "total")),
    "upload.stopped": (TEXT, Plural("{reason}: upload to {remote} stopped with {left} of {total} file not sent; nothing was changed "
                                    "at {remote}",
                                    "{reason}: upload to {remote} stopped with {left} of {total} files not sent; nothing was changed "
                                    "at {remote}", "total")),
    "upload.patch-unchanged": (TEXT, "{reason}: upload to {remote} arrived but could not be switched into place; nothing was "
                                     "changed at {remote}"),
    "upload.patch-removed": (TEXT, "{reason}: upload to {remote} arrived but could not be switched into place; {remote} was "
                                   "removed rather than left half-updated: upload again (all files will be sent)"),
    "upload.not-switched": (TEXT, "upload to {remote} arrived but could not be switched into place ({why}); {remote} still holds the "
                                  "previous upload"),
    "daemon.cancel-unsaid": (TEXT, "cancelled; the pai daemon did not say within {seconds} s what it stopped (see {log})"),
    "clusters.bad-url": (TEXT, "{option} {url}: not a URL ({reason})"),
    "clusters.not-http-url": (TEXT, "{option} {url}: not an http:// or https:// URL with a host"),
    "clusters.bad-name": (TEXT, "{name!r} cannot name a cluster profile: use letters, digits, '.', '_' and '-'"),
    "clusters.local-not-removable": (TEXT, "{name} is the embedded local cluster, which is always there: it cannot be removed "
                                           "(`pai cluster stop-local` stops it)"),
    "http.name-other-resource": (TEXT, "{value} cannot be a {what} name: it would name another resource"),
    "http.name-not-utf8": (TEXT, "{value} cannot be a {what} name: it is not UTF-8 text"),
    "cli.no-storages": (TEXT, "({cluster} gives you no storage: an administrator adds them to your groups)"),
    "cli.code-storage": (TEXT, Plural("{files} file → storage {storage}:{path}, mounted at {mount} (the job runs in {folder})",
                                      "{files} files → storage {storage}:{path}, mounted at {mount} (the job runs in {folder})", "files")),
    "cli.storage-path": (TEXT, "{value}: say a storage path as STORAGE:PATH, e.g. local:/code (`pai storage list` names the storages)"),
    "cli.storage-mv-across": (TEXT, "{src} and {dst} are in different storages: mv moves within one (get, then put)"),
    "v2.render-too-large": (TEXT, "its templates fill in to more than {limit} of commands (a long parameter used many "
                                  "times?): pai renders no more, and no cluster runs commands that long"),
    "v2.render-too-many-tags": (TEXT, "its templates fill in more than {limit} tags: pai renders no more"),
    "cli.f-replaces": (TEXT, " (-f replaces it)"),
    "cli.bad-locale": (TEXT, "{value}: pai speaks en (English) and zh-CN (Simplified Chinese)"),
    "cli.no-password-stdin": (TEXT, "no password on standard input: --password-stdin reads it from the first line "
                                    "(e.g. `pass show pai | pai … --password-stdin`)"),
    "cli.no-terminal-password": (TEXT, "no terminal to ask for the password on: give it on standard input with --password-stdin"),
    "cli.empty-value": (TEXT, "an empty value: give one, or leave the option out"),
    "cli.no-password": (TEXT, "no password given"),
    "cli.list-needs-dry-run": (TEXT, "--list shows what --dry-run would upload: give both (nothing was submitted)"),
    "jobs.log-range": (TEXT, "a log range starts at byte 0 or later and has a length of 0 or more, not {offset} and {length}"),
    "cli.tail-lines": (TEXT, "--tail takes a number of lines from 1 on, not {lines}"),
    "cli.bad-grep": (TEXT, "--grep {pattern!r} is not a regular expression: {reason} (-F takes it as plain text)"),
    "cli.stopped-following": (TEXT, "stopped following {job}; the job goes on (`pai stop {job}` stops it)"),
    "daemon.no-restart": (TEXT, "the pai daemon did not stop to restart: see {log}"),
    "http.invalid-url": (TEXT, "{what}: not a valid URL ({reason})"),
    "clusters.local-no-login": (TEXT, "the local cluster needs no login"),
    "daemon.secret-refused": (TEXT, "the pai daemon at {where} (from {file}) refused the secret in that file, which no longer matches it: end "
                                    "that daemon's process and try again"),
    "daemon.not-ours": (TEXT, "{where} (from {file}) is not your pai daemon: another program listens there; stop it, or delete {file} and try again"),
    "daemon.not-answering-as-one": (TEXT, "{where} (from {file}) is not your pai daemon: it did not answer as one ({why}); stop what "
                                          "listens there, or delete the file and try again"),
    "daemon.endpoint-unreadable": (TEXT, "{path}: cannot read the pai daemon's endpoint ({why}): delete it and try again"),
    "daemon.endpoint-invalid": (TEXT, "{path}: not a pai daemon endpoint file: delete it and try again"),
    "daemon.endpoint-remote": (TEXT, "{path}: names {host}, not this machine's loopback: refusing to send anything there; delete it "
                                     "and try again"),
    "daemon.endpoint-owner": (TEXT, "{path} belongs to another user (uid {uid}), not you: refusing to use it; delete it and try again"),
    "daemon.endpoint-mode": (TEXT, "{path} can be read or changed by other users (mode {mode}): refusing to use the secret in it; "
                                   "delete it and try again (the daemon writes a new one, mode 600)"),
    "daemon.endpoint-acl-unreadable": (TEXT, "{path}: {why}: refusing to use the secret in it; delete it and try again"),
    "daemon.endpoint-others": (TEXT, "{path} can be read or changed by others ({who}), not only you: refusing to use the secret "
                                     "in it; delete it and try again (the daemon writes a new one, private)"),
    "daemon.endpoint-acl-unset": (TEXT, "cannot make it readable by you only ({why})"),
    "daemon.endpoint-acl-unknown": (TEXT, "cannot read who may read it ({why})"),
    "daemon.endpoint-owner-other": (TEXT, "the owner {name}"),
    "daemon.endpoint-no-acl": (TEXT, "Everyone (the file has no access list)"),
    "daemon.endpoint-more": (TEXT, "{first}, {then}"),
    "daemon.closed": (TEXT, "the pai daemon closed the connection"),
    "daemon.cut-off": (TEXT, "the connection closed in the middle of a message"),
    "daemon.no-unix-sockets": (TEXT, "no Unix sockets on Windows"),
    "daemon.not-running": (TEXT, "the pai daemon is not running"),
    "daemon.did-not-start": (TEXT, "the pai daemon did not start: see {log}"),
    "daemon.stopped-unanswered": (TEXT, "the pai daemon stopped before it answered `{method}`, which may or may not have been "
                                        "done: check, then try again (see {log})"),
    "daemon.keeps-stopping": (TEXT, "the pai daemon keeps stopping: see {log}"),
    "params.not-object": (TEXT, "{method}: params must be an object"),
    "params.no-argument": (TEXT, "{command}: its argument, an object, is missing (see docs/protocol.md)"),
    "params.missing": (TEXT, "{method}: `{key}` is missing"),
    "params.type": (TEXT, "{method}: `{key}` must be {expected}"),
    "params.unknown-method": (TEXT, "unknown method {method}"),
    "params.request-id": (TEXT, "submit: requestId: {reason}"),
    # -- how a job's code reaches its cluster (core/route_rules.py), storages in the job file (core/v2/storage_checks.py)
    "route.upload-off": (ERROR, "`{path}` is a file of the workspace, but uploads are off (pai.job.upload.enabled) and the job names no {field}: on {cluster} the command will not find it."),
    "route.no-storages": (ERROR, "`{path}` is a file of the workspace, but {cluster} gets code only through HDFS and the job names no {field}: the command will not find it."),
    "route.no-code-dir": (ERROR, "`{path}` is a file of the workspace, but the job names no {field}, so nothing uploads it: on {cluster} the command will not find it."),
    "route.no-default-storage": (ERROR, "`{path}` is a file of the workspace, but on {cluster} no storage takes the code: you have no default storage pai may write to. Mount one of yours ({storages}) in extras.storages, or name one in pai.job.upload.storage."),
    "route.no-writable-storage": (ERROR, "`{path}` is a file of the workspace, but {cluster} gives you no storage pai may write the code to (none, or only read-only ones): ask its administrator for one, or put the code in the image."),
    "route.setting-unknown": (ERROR, "`{path}` is a file of the workspace, but pai.job.upload.storage sends {cluster}'s code to storage {storage}, which you may not use there (yours: {storages})."),
    "route.setting-read-only": (ERROR, "`{path}` is a file of the workspace, but pai.job.upload.storage sends {cluster}'s code to storage {storage}, which is read-only."),
    "route.not-uploaded": (TEXT, "the job runs `{path}` of the workspace, but the upload leaves it out (pai.job.upload.include is {include}; pai.job.upload.exclude, .paiignore and .gitignore leave files out): name it there, or the command will not find it."),
    "route.fix-upload-on": (TEXT, "Turn uploads on (pai.job.upload.enabled in .vscode/settings.json)"),
    # quick fixes' titles (a code action's line in the editor's light-bulb menu)
    "fix.insert-comma": (TEXT, "Insert ','"),
    "fix.remove-trailing-comma": (TEXT, "Remove the trailing comma"),
    "fix.write": (TEXT, "Write {value}"),
    "fix.rename": (TEXT, "Rename to \"{name}\""),
    "fix.replace": (TEXT, "Replace with {value}"),
    "fix.add": (TEXT, "Add \"{name}\""),
    "fix.make-list": (TEXT, "Make it a list"),
    "fix.move-shm": (TEXT, "Move shmMB to extraContainerOptions"),
    "fix.remove-empty-ports": (TEXT, "Remove the empty ports list"),
    "fix.ports-map": (TEXT, "Write ports as a map (label: count)"),
    "fix.define-prerequisite-for": (TEXT, "Define prerequisite \"{new}\" for {name} and name it here"),
    "fix.define-prerequisite": (TEXT, "Define {type} prerequisite \"{name}\""),
    "fix.gang-allocation-off": (TEXT, "Turn gang allocation off (extras.gangAllocation: false)"),
    "fix.define-in": (TEXT, "Define \"{key}\" in {section}"),
    "fix.to-secret": (TEXT, "Move it to secrets as {key}"),
    "route.fix-mount": (TEXT, "Mount storage {storage} and upload the code there"),
    "route.fix-code-dir": (TEXT, "Upload the code to HDFS: add {field} and `cd $PAI_JOB_NAME`"),
    "route.refused": (TEXT, "{file}: {problem} (to submit anyway: --without-code, or pai.job.upload.requireRoute: false)"),
    "route.sent-anyway": (TEXT, "{problem} (submitted anyway: pai.job.upload.requireRoute is false)"),
    "route.none": (TEXT, "none"),
    "preview.code-storage-setting": (TEXT, "(storage and folder from pai.job.upload.storage for {cluster})"),
    "preview.code-storage-default": (TEXT, "(your default storage on {cluster}; pai.job.upload.storage chooses another)"),
    "preview.code-storage-job": (TEXT, "(a storage the job mounts already: you have no default storage on {cluster})"),
    "settings.storage-type": (ERROR, "pai.job.upload.storage is an object of cluster names, each {{\"storage\": name, \"path\": folder in it}} (path optional, default $PAI_USER_NAME~$PAI_JOB_NAME): this value is not."),
    "v2.storage-unknown": (ERROR, "Storage `{name}` is not one you may use on {cluster}: the server refuses the job (404 NoStorageError, \"Storage {name} is not found.\"). Yours: {storages}."),
    "v2.storage-fix-name": (TEXT, "Use storage {name}"),
    "v2.storage-read-only-ignored": (WARNING, "The server ignores this readOnly: storage {name} is read-only, and every job mounts it read-only."),
    "v2.storage-writable-ignored": (WARNING, "The server ignores this readOnly: it takes readOnly from storage {name}, which is writable, so the job mounts it writable (there is no way to mount it read-only)."),
    "storage.hover-title": (TEXT, "**Storage {name}** ({type}) on {cluster}"),
    "storage.hover-server": (TEXT, "server: `{server}`"),
    "storage.hover-read-only": (TEXT, "read-only: jobs mount it read-only"),
    "storage.hover-writable": (TEXT, "writable"),
    "storage.hover-mount": (TEXT, "mounted at `{mount}`"),
    "storage.hover-default": (TEXT, "one of your default storages (mounted when extras.storages is [])"),
    "storage.hover-own-folder": (TEXT, "not shared: the job sees only its `{user}/` folder"),
    "storage.hover-stale": (TEXT, "(as the cluster said a while ago: it could not be asked again yet)"),
}


def is_chinese(locale: str | None) -> bool:
    """Whether a locale (zh-CN, zh_CN.UTF-8, zh) asks for Chinese: pai speaks Simplified Chinese to all of them."""
    return bool(locale) and locale.lower().replace("_", "-").startswith("zh")


def pick(locale: str | None, en: str, zh: str) -> str:
    """One of two texts by the reader's language: for the data tables that keep their texts beside
    their records (a format's or a kind's title, a variable's doc). Everything else is a code of
    `CATALOGUE`, rendered with `render` (tests/core/test_messages.py finds literal pairs passed here)."""
    return zh if is_chinese(locale) else en


def severity(code: str) -> str:
    return CATALOGUE[code][0]


def template(code: str, locale: str | None, count: object = None) -> str:
    """The unformatted text of `code` in the reader's language (for a `Plural`, the form for `count`)."""
    entry = CATALOGUE[code]
    text = entry[1]
    if len(entry) > 2 and is_chinese(locale):  # written the old way, its Chinese beside it
        return entry[2]
    if isinstance(text, Plural):
        n = count if isinstance(count, int) else 0
        if is_chinese(locale):
            from .translations import chinese

            return chinese().npgettext(code, text.one, text.other, n)
        return text.one if n == 1 else text.other
    if is_chinese(locale):
        from .translations import chinese

        return chinese().pgettext(code, text)
    return text


def render(code: str, locale: str | None, **args: object) -> str:
    """The text of `code` in the reader's language; arguments that are `Message`s are rendered in it too."""
    text = CATALOGUE[code][1]
    chosen = template(code, locale, args.get(text.count) if isinstance(text, Plural) else None)
    values = {k: v.render(locale) if isinstance(v, Message) else v for k, v in args.items()}
    try:
        return chosen.format(**values)
    except (KeyError, IndexError, ValueError):
        return chosen


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
