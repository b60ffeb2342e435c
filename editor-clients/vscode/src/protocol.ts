// Generated from pai_lsp/api.py by scripts/protocol-schema (docs/protocol.schema.json): do not edit.
// The language server's commands, their arguments and results, and its notifications, as the
// client is compiled against them.

export interface Amounts {
  cpu: number;
  memory: number;
  gpu: number;
}

/** What the editor's checks need of the cluster (its storages, whether it reads v2 jobs, its capacity and queue), from the daemon's one cache of it: fetched in the background, kept a while; the local cluster is never started for it. Fails (`unreachable`) while the cluster cannot be asked and nothing is kept. */
export interface ClusterFacts {
  cluster?: string | null;
}

/** What the editor's checks need of a cluster, from the daemon's cache (`age` seconds old): its storages for the storage checks, its capacity and queue for "will it fit". */
export interface ClusterFactsResult {
  cluster: string;
  user: string;
  takesV2: boolean;
  storages: StorageInfo[] | null;
  age: number;
  stale: boolean;
  state: Record<string, unknown> | null;
}

export interface ClusterRow {
  name: string;
  local: boolean;
  default: boolean;
  loggedIn: boolean;
  running: boolean | null;
  rest: string | null;
  webhdfs: string | null;
  user: string | null;
  kind: string;
  protocol: number;
  datacenter?: string | null;
}

/** A password, when given, goes to the OS keyring and is checked by logging in once. */
export interface ClustersAdd {
  name: string;
  rest: string;
  webhdfs?: string | null;
  user: string;
  kind?: string;
  protocol?: number | null;
  password?: string | null;
  datacenter?: string | null;
  makeDefault?: boolean;
}

export interface ClustersAddResult {
  name: string;
  protocol: number;
  protocolNote: string;
  loggedIn: boolean;
  kind: string;
  isDefault: boolean;
}

/** One profile per datacenter of a paddlecloud config (`~/.paddle/config` by default); its passwords are stored (the keyring, or secrets.json), and taken out of the file only with `removePasswords` (the file is the paddlecloud client's). `keepFile` is accepted and means the default. */
export interface ClustersImportPaddle {
  config?: string | null;
  removePasswords?: boolean;
  keepFile?: boolean;
}

export interface ClustersImportPaddleResult {
  config: string;
  clusters: ImportedCluster[];
  default: string;
  passwordsRemoved: boolean;
  secretStore?: string | null;
}

export interface ClustersList {
}

export interface ClustersListResult {
  default: string;
  clusters: ClusterRow[];
}

export interface ClustersLogin {
  name?: string | null;
  password: string;
}

export interface ClustersLoginResult {
  name: string;
  user: string;
}

export interface ClustersRemove {
  name: string;
}

export interface ClustersRemoveResult {
  name: string;
  default: string;
}

export interface ClustersSetDefault {
  name: string;
}

export interface ClustersSetDefaultResult {
  default: string;
}

export interface ClustersStopLocal {
}

/** Where a job's code went when it went to a storage the job mounts (not to a codeDir). */
export interface CodeStorage {
  storage: string;
  path: string;
  mountPath: string;
  jobFolder: string;
  chosenBy?: string | null;
}

/** A command's answer when it failed: its message in the editor's language. */
export interface CommandFailure {
  ok: false;
  kind: "auth" | "cancelled" | "config" | "exists" | "interrupted" | "invalid" | "name-taken" | "not-found" | "permission" | "server" | "unreachable";
  message: string;
}

export interface Config {
  cluster?: string | null;
  job: string;
}

export interface ConfigResult {
  job: string;
  config: Record<string, unknown> | string;
}

export interface ConfigText {
  job: string;
  config: Record<string, unknown> | string;
  text: string;
}

/** `submit`, with the chosen tasks' Python command run under debugpy waiting for a client. */
export interface Debug {
  cluster?: string | null;
  file: string;
  shown?: string | null;
  force?: boolean;
  settings?: Record<string, unknown> | null;
  progressToken?: string | number | null;
  locale?: string | null;
  requestId?: string | null;
  debug?: DebugOptions;
}

/** Close what the daemon opened to reach the job's tasks (SSH tunnels). */
export interface DebugEnd {
  cluster?: string | null;
  job: string;
}

export interface DebugEndResult {
  job: string;
  closed: number;
}

/** `pai.debugJob`: submit the job file so that the chosen tasks wait for a debugger (`job.debug`). */
export interface DebugJob {
  uri: string;
  cluster?: string | null;
  tasks?: string;
  postMortemMinutes?: number | null;
  via?: string;
  workDoneToken?: string | number | null;
}

/** Which tasks of a Debug Job wait for a debugger, and how: `tasks` "first" (the first instance of the first task role), "all", "ROLE" or "ROLE:INDEX"; `post_mortem_minutes`: instead of waiting at the start, a process that fails waits this long, stopped at the exception; `via`: how the debugger reaches the task, "direct" or "ssh" (a tunnel the daemon opens). */
export interface DebugOptions {
  tasks: string;
  postMortemMinutes?: number | null;
  via: string;
}

/** A Debug Job submit: the job, and which of its tasks wait for a debugger. */
export interface DebugResult {
  job: string;
  cluster: string;
  user: string | null;
  upload: UploadSummary | null;
  warnings: string[];
  record?: RecordSummary | null;
  codeStorage?: CodeStorage | null;
  tasks: string[];
}

/** A debugged task's process as a debugger attaches to it: `host` and `port` go to debugpy's `attach` `connect` as they are (the local end of an SSH tunnel when one was needed), with `path_mappings`. `state`: "waiting" (not listening yet: host and port may still be empty), "listening", "ended". */
export interface DebugTarget {
  job: string;
  task: string;
  host: string;
  port: number;
  pathMappings: PathMapping[];
  state: string;
  postMortem?: string | null;
  worker?: number | null;
}

/** The debugged tasks of a job and where each waits for a debugger; with `wait` (seconds), the answer waits until one more task listens than `known` says, or every debugged task has ended. */
export interface DebugTargets {
  cluster?: string | null;
  job: string;
  wait?: number | null;
  known?: number;
  locale?: string | null;
}

export interface DebugTargetsResult {
  job: string;
  cluster: string;
  targets: DebugTarget[];
  state: string;
  message?: string | null;
}

/** A watched job ended or was run again: the editor says so, offering its log and, when it failed, why. */
export interface EditorJobEnded {
  job: string;
  cluster: string | null;
  uri?: string | null;
  state: string;
  message: string;
  why: string;
  retries?: number | null;
}

/** `text` stands for `length` bytes of the task's log from byte `offset`. */
export interface EditorJobLog {
  job: string;
  cluster: string | null;
  uri?: string | null;
  task: string;
  taskCount: number | null;
  offset: number;
  length: number;
  text: string;
}

/** The relay ended: the job ended (`state`), or `message` says why it could not go on. */
export interface EditorJobLogEnd {
  job: string;
  cluster: string | null;
  uri?: string | null;
  state: string | null;
  offsets: Record<string, number>;
  message?: string | null;
}

export interface EditorJobStatus {
  job: string;
  cluster: string | null;
  uri?: string | null;
  state: string;
  exitCode: number | null;
  diagnostics: string;
}

/** Beside the one line (`message`): which failure, and its message's catalogue code and arguments, to say it in the reader's language. */
export interface Failure {
  kind: "auth" | "cancelled" | "config" | "exists" | "interrupted" | "invalid" | "name-taken" | "not-found" | "permission" | "server" | "unreachable";
  code?: string;
  args?: Record<string, unknown>;
}

export interface FileDiff {
  path: string;
  diff: string;
}

/** Relay the job's log as `pai/jobLog` from `offsets` on, then `pai/jobLogEnd`. */
export interface Follow {
  cluster?: string | null;
  job: string;
  task?: string | null;
  which?: string;
  follow?: boolean;
  offsets?: Record<string, number> | null;
  tail?: number | null;
}

export interface FollowLogs {
  cluster?: string | null;
  job: string;
  task?: string | null;
  which?: string;
  follow?: boolean;
  offsets?: Record<string, number> | null;
  tail?: number | null;
}

export interface FollowLogsResult {
  job: string;
  state: string | null;
  offsets: Record<string, number>;
}

export interface Following {
  job: string;
  cluster: string | null;
}

/** The workspace's git facts at submit time (`diff`: `git diff HEAD`, None when over the limit). */
export interface GitFacts {
  commit: string;
  branch: string | null;
  remote: string | null;
  dirty: boolean;
  diff: string | null;
  diffBytes: number;
  untracked: string[];
}

export interface GpuFigures {
  minor: string;
  utilization: number | null;
  memoryPercent: number | null;
}

export interface HdfsCat {
  cluster?: string | null;
  storage?: string | null;
  path: string;
  offset?: number;
  length?: number | null;
}

export interface HdfsCatText {
  cluster?: string | null;
  storage?: string | null;
  path: string;
  offset?: number;
  length?: number | null;
}

export interface HdfsData {
  path: string;
  data: string;
}

/** Bytes and files held: one row per entry of a folder, or one for the path with `summary`. */
export interface HdfsDu {
  cluster?: string | null;
  storage?: string | null;
  path: string;
  summary?: boolean;
}

export interface HdfsDuResult {
  path: string;
  entries: HdfsUsage[];
  bytes: number;
}

export interface HdfsEntry {
  name: string;
  type: string;
  size: number;
  modified: number | null;
  permission: string | null;
  owner: string | null;
  group: string | null;
}

export interface HdfsGet {
  cluster?: string | null;
  storage?: string | null;
  local: string;
  remote: string;
  progressToken?: string | number | null;
  overwrite?: boolean;
}

export interface HdfsGetWithProgress {
  cluster?: string | null;
  storage?: string | null;
  local: string;
  remote: string;
  progressToken?: string | number | null;
  overwrite?: boolean;
  workDoneToken?: string | number | null;
}

export interface HdfsList {
  cluster?: string | null;
  storage?: string | null;
  path: string;
  recursive?: boolean;
}

export interface HdfsListing {
  path: string;
  entries: HdfsEntry[];
}

export interface HdfsMkdir {
  cluster?: string | null;
  storage?: string | null;
  path: string;
}

export interface HdfsMove {
  cluster?: string | null;
  storage?: string | null;
  from: string;
  to: string;
}

export interface HdfsMoveResult {
  from: string;
  to: string;
}

export interface HdfsPut {
  cluster?: string | null;
  storage?: string | null;
  local: string;
  remote: string;
  progressToken?: string | number | null;
  overwrite?: boolean;
}

export interface HdfsPutWithProgress {
  cluster?: string | null;
  storage?: string | null;
  local: string;
  remote: string;
  progressToken?: string | number | null;
  overwrite?: boolean;
  workDoneToken?: string | number | null;
}

export interface HdfsRemove {
  cluster?: string | null;
  storage?: string | null;
  path: string;
  recursive?: boolean;
}

export interface HdfsStat {
  cluster?: string | null;
  storage?: string | null;
  path: string;
}

export interface HdfsStatResult {
  name: string;
  type: string;
  size: number;
  modified: number | null;
  permission: string | null;
  owner: string | null;
  group: string | null;
  path: string;
}

export interface HdfsTail {
  cluster?: string | null;
  storage?: string | null;
  path: string;
  bytes?: number;
}

export interface HdfsTailText {
  cluster?: string | null;
  storage?: string | null;
  path: string;
  bytes?: number;
}

export interface HdfsText {
  path: string;
  text: string;
}

export interface HdfsTransferResult {
  path: string;
  files: number;
  bytes: number;
}

/** What a file or folder holds (`hdfs dfs -du`). */
export interface HdfsUsage {
  path: string;
  type: string;
  bytes: number;
  files: number;
  folders: number;
}

/** A running job whose GPUs stayed below `threshold` percent over the last `minutes` (the portal's low-GPU rule): `average` is theirs over that window, `gpus` how many GPU series it held. */
export interface IdleGpu {
  average: number;
  threshold: number;
  minutes: number;
  gpus: number;
}

export interface ImportedCluster {
  name: string;
  datacenter: string;
  endpoint: string;
  user: string;
  active: boolean;
  passwordStored: boolean;
}

export interface JobConfig {
  cluster?: string | null;
  job: string;
}

/** A watched job ended (SUCCEEDED, FAILED, STOPPED) or was run again (RETRIED): sent once per end to every subscriber, and as the desktop notice and webhooks the user set (`notices.json`). */
export interface JobEnded {
  job: string;
  cluster: string | null;
  state: string;
  why: string;
  whyZh: string;
  retries: number | null;
  exitCode: number | null;
}

export interface JobFileFormat {
  format: string;
  title: string;
  patterns: string[];
  syntax: string;
}

/** `length` bytes of a task's log from byte `offset`, as text. `length` counts the bytes the task wrote (text never splits a UTF-8 character; bytes that are not UTF-8 show as U+FFFD), so a follower keeps its place in bytes whatever the text. When the bytes are not all UTF-8, `data` carries them exactly (base64), for clients that print what the task printed. */
export interface JobLog {
  job: string;
  task: string;
  offset: number;
  length: number;
  text: string;
  data: string | null;
}

/** Each running task's GPU utilisation and memory (per GPU), CPU and memory now, from the cluster's Prometheus with OpenPAI's dashboard queries. */
export interface JobMetrics {
  cluster?: string | null;
  job: string;
}

/** The same over a time range: `start` (default: an hour before `end`), `end` (default: now), unix seconds; `step` seconds between points (default: the sampling interval, coarser for a long range). */
export interface JobMetricsRange {
  cluster?: string | null;
  job: string;
  start?: number | null;
  end?: number | null;
  step?: number | null;
}

export interface JobMetricsRangeResult {
  job: string;
  cluster: string;
  start: number;
  end: number;
  step: number;
  series: MetricSeries[];
}

export interface JobMetricsResult {
  job: string;
  cluster: string;
  time: number;
  tasks: TaskFigures[];
}

/** The job's outputDir into `dest`, reported on `work_done_token` as it goes. */
export interface JobOutputs {
  cluster?: string | null;
  job: string;
  dest: string;
  workDoneToken?: string | number | null;
  overwrite?: boolean;
}

export interface JobRow {
  name: string;
  state: string;
  created: number | null;
  completed: number | null;
  exitCode: number | null;
  retries: number | null;
  virtualCluster: string | null;
}

/** A job's state, sent on every change. */
export interface JobStatus {
  job: string;
  cluster: string | null;
  state: string;
  exitCode: number | null;
  diagnostics: string;
  userExitCode: number | null;
  exitReason: string;
  retries: number | null;
  diagnosticsSaid?: Record<string, unknown> | null;
}

/** The user's jobs, newest first: `limit` of them from `offset` (all when no limit). */
export interface Jobs {
  cluster?: string | null;
  offset?: number;
  limit?: number | null;
}

export interface JobsResult {
  cluster: string;
  user: string | null;
  total: number;
  offset: number;
  jobs: JobRow[];
}

export interface KindRow {
  name: string;
  title: string;
  jobFormat: string;
  jobFiles: string[];
  storage: string;
  storageRequired: boolean;
  local: string | null;
}

export interface Kinds {
}

export interface KindsResult {
  jobFiles: JobFileFormat[];
  kinds: KindRow[];
}

/** `length` bytes of a task's log from byte `offset`, as text (as `job.log` carries them: `data`, base64, only when they are not all UTF-8). */
export interface LogPiece {
  job: string;
  task: string;
  offset: number;
  length: number;
  text: string;
  data?: string | null;
}

/** Bytes `offset` .. `offset + length` of one task's log (at most 4 MiB): what a view opened at a log's tail reads backwards, on demand. */
export interface LogRead {
  cluster?: string | null;
  job: string;
  task: string;
  offset: number;
  length: number;
  which?: string;
}

export interface MetricSeries {
  role: string;
  index: number;
  metric: string;
  minor: string | null;
  points: number[][];
}

export interface NodeRow {
  name: string;
  gpuUsed: number;
  gpuAvailable: number;
  gpuTotal: number;
}

/** A result with nothing in it (`jobs.subscribe`, which ends only when its connection does). */
export interface Nothing {
}

export interface Outputs {
  cluster?: string | null;
  job: string;
  dest: string;
  progressToken?: string | number | null;
  overwrite?: boolean;
}

/** A folder of the workspace and where it is in the task's container (debugpy's `pathMappings` item). */
export interface PathMapping {
  localRoot: string;
  remoteRoot: string;
}

export interface PathResult {
  path: string;
}

export interface Ping {
}

export interface PingResult {
  pid: number;
  uptime: number;
  watched: number;
  settings?: Record<string, string | null> | null;
}

/** What `submit` would do, nothing sent (`pai submit --dry-run`); `list_files`: every file too. */
export interface Preview {
  cluster?: string | null;
  file: string;
  shown?: string | null;
  settings?: Record<string, unknown> | null;
  locale?: string | null;
  listFiles?: boolean;
  showSecrets?: boolean;
  debug?: DebugOptions | null;
}

/** The job as the server will see it: which job file, for which cluster (the default one when absent), and whether a v2 job's secrets are shown in plain text (masked otherwise). */
export interface PreviewRendered {
  uri: string;
  cluster?: string | null;
  showSecrets?: boolean;
}

export interface PreviewResult {
  job: string;
  cluster: string;
  user: string | null;
  file: string;
  generatedName: boolean;
  upload: UploadPreview | null;
  config: Record<string, unknown>;
  rendered: string;
  v2: boolean;
  converted: Record<string, unknown> | null;
  text: string;
  codeStorage?: CodeStorage | null;
}

/** Which config, to which cluster (the default one when absent), and whether to list every file. */
export interface PreviewUpload {
  uri: string;
  cluster?: string | null;
  listFiles?: boolean;
}

export interface Quota {
  cluster?: string | null;
}

export interface QuotaFigures {
  cpu: string | number | number | null;
  memory: string | number | number | null;
  gpu: string | number | number | null;
  maxParallelism: string | number | number | null;
}

export interface QuotaResult {
  cluster: string;
  limits: QuotaFigures;
  used: QuotaFigures;
}

/** Download exactly what the job ran into `dest` (a new or empty folder, unless `force`). */
export interface RecordCode {
  cluster?: string | null;
  job: string;
  dest: string;
  force?: boolean;
  locale?: string | null;
}

export interface RecordCodeResult {
  job: string;
  path: string;
  files: number;
  bytes: number;
  sources: Record<string, number>;
  from: string;
  notes: string[];
  codeHash: string;
}

/** Which files differ between what the job ran and the folder `workspace` now. */
export interface RecordCompare {
  cluster?: string | null;
  job: string;
  workspace: string;
  locale?: string | null;
}

export interface RecordCompareResult {
  job: string;
  workspace: string;
  changed: string[];
  removed: string[];
  notes: string[];
}

export interface RecordDiff {
  cluster?: string | null;
  job: string;
  other: string;
  locale?: string | null;
}

export interface RecordDiffResult {
  jobs: string[];
  config: Record<string, unknown>[];
  files: Record<string, string[]>;
  diffs: FileDiff[];
  commit: Record<string, unknown>[];
  environment: Record<string, unknown>[];
  notes: string[];
  text: string;
}

/** One file as the job sent it (base64 `data`): an editor's read-only view. */
export interface RecordFile {
  cluster?: string | null;
  job: string;
  path: string;
}

export interface RecordFileResult {
  job: string;
  path: string;
  data: string;
}

/** Submit what the job ran again, under a new generated name (`name`: one already chosen by a dry run); `config`: the final config to send instead of the first run's (edited); `dryRun`: only say the name and config a rerun would send. */
export interface RecordRerun {
  cluster?: string | null;
  job: string;
  config?: Record<string, unknown> | null;
  name?: string | null;
  dryRun?: boolean;
  progressToken?: string | number | null;
  locale?: string | null;
}

/** A rerun submitted, or (`dryRun`) only the name, config and code folder it would send. */
export interface RecordRerunResult {
  job: string;
  rerunOf: string;
  config?: Record<string, unknown> | null;
  codeDir?: string | null;
  cluster?: string | null;
  user?: string | null;
  codeSource?: string | null;
  codeFrom?: string | null;
  upload?: UploadSummary | null;
  record?: RecordSummary | null;
  codeHash?: string | null;
  warnings?: string[] | null;
  notes?: string[] | null;
}

export interface RecordShow {
  cluster?: string | null;
  job: string;
  locale?: string | null;
}

/** A job's submission record, checked; `lines` it in words; `source`: "cluster" (beside its code) or "journal" (this machine's copy); `notes`: what was wrong on the way. */
export interface RecordShowResult {
  record: SubmissionRecord;
  sha256: string;
  source: string;
  location: string | null;
  notes: string[];
  lines: string[];
}

/** Where a submit's record was kept: `location` on the cluster's storage (None: this machine only). */
export interface RecordSummary {
  location: string | null;
  sha256: string;
  codeHash: string;
  files: number;
}

export interface RecordText {
  job: string;
  path: string;
  text: string;
}

export interface Registry {
  name: string;
  secret: string;
  created: string | null;
}

/** `name` without the `pcloud-registry-` prefix (added here) or with it. */
export interface RegistryAdd {
  cluster?: string | null;
  name: string;
  username: string;
  password: string;
  server: string;
}

export interface RegistryList {
  cluster?: string | null;
}

export interface RegistryListResult {
  cluster: string;
  registries: Registry[];
}

export interface RegistryRemove {
  cluster?: string | null;
  name: string;
}

export interface RegistrySecret {
  name: string;
  secret: string;
}

export interface RenderedPreviewResult {
  job: string;
  cluster: string;
  user: string | null;
  file: string;
  generatedName: boolean;
  upload: UploadPreview | null;
  config: Record<string, unknown>;
  rendered: string;
  v2: boolean;
  converted: Record<string, unknown> | null;
  text: string;
  codeStorage?: CodeStorage | null;
  language: string;
}

export interface SentFile {
  size: number;
  sha256: string | null;
}

export interface Ssh {
  cluster?: string | null;
  job: string;
  task?: string | null;
}

export interface SshResult {
  job: string;
  tasks: SshTask[];
}

export interface SshTask {
  task: string;
  ip: string;
  sshPort: string | null;
  command: string | null;
  urls: Record<string, string[]>;
  user: string;
}

/** A running job's status also says whether its GPUs sat below `idle_threshold` percent over the last `idle_minutes` (the portal's rule: 10 % over 10 minutes), where the cluster has metrics. */
export interface Status {
  cluster?: string | null;
  job: string;
  idleThreshold?: number;
  idleMinutes?: number;
}

/** `exitCode` is the cluster's (255 for any failed command), `userExitCode` the command's own when the cluster reports it, `exitReason` the cluster's code in words; `webPortal` the job's page. */
export interface StatusResult {
  name: string;
  cluster: string | null;
  webPortal: string | null;
  state: string;
  created: number | null;
  completed: number | null;
  exitCode: number | null;
  diagnostics: string;
  userExitCode: number | null;
  exitReason: string;
  tasks: TaskRow[];
  diagnosticsSaid?: Record<string, unknown> | null;
  idleGpu?: IdleGpu | null;
}

export interface Stop {
  cluster?: string | null;
  job: string;
}

export interface StopDaemon {
}

export interface StopDaemonResult {
  stopping: boolean;
}

export interface StopResult {
  stopped: string;
  state?: string | null;
}

export interface StoppedResult {
  stopped: boolean;
}

/** One storage as `pai storage list` shows it. */
export interface StorageInfo {
  name: string;
  type: string | null;
  server: string;
  readOnly: boolean;
  mountPath: string;
  default: boolean;
  share: boolean;
}

/** The storages the user may mount, with what a job and a person need of each (never its credentials). The file verbs are `hdfs.*` with `storage` set. */
export interface StorageList {
  cluster?: string | null;
}

export interface StorageListResult {
  cluster: string;
  storages: StorageInfo[];
}

/** What a job ran, as core/record.py writes it (beside the job's code and in the local journal). */
export interface SubmissionRecord {
  version: number;
  job: string;
  cluster: string;
  kind: string;
  user: string;
  submitted: string;
  tool: string;
  environment: Record<string, string>;
  configFile: string;
  workspace: string;
  sourceConfig: Record<string, unknown>;
  config: Record<string, unknown>;
  variables: Record<string, string>;
  codeDir: string | null;
  codeHash: string;
  files: Record<string, SentFile>;
  git: GitFacts | null;
  rerunOf: string | null;
  sent: string | null;
}

export interface Submit {
  cluster?: string | null;
  file: string;
  shown?: string | null;
  force?: boolean;
  settings?: Record<string, unknown> | null;
  progressToken?: string | number | null;
  locale?: string | null;
  requestId?: string | null;
}

/** `pai.submitJob` / `pai.runLocally`; `work_done_token` is the client's progress token, on which the upload is reported and can be cancelled. */
export interface SubmitJob {
  uri: string;
  cluster?: string | null;
  workDoneToken?: string | number | null;
}

export interface SubmitResult {
  job: string;
  cluster: string;
  user: string | null;
  upload: UploadSummary | null;
  warnings: string[];
  record?: RecordSummary | null;
  codeStorage?: CodeStorage | null;
}

/** One file exactly as the job sent it (checked against its recorded hash), as text. */
export interface SubmittedFile {
  cluster?: string | null;
  job: string;
  path: string;
}

export interface Subscribe {
}

/** One task's figures now; None where the cluster had no sample. */
export interface TaskFigures {
  role: string;
  index: number;
  cpuPercent: number | null;
  memoryBytes: number | null;
  memoryLimitBytes: number | null;
  memoryPercent: number | null;
  gpus: GpuFigures[];
}

export interface TaskRow {
  role: string;
  index: number;
  state: string;
  ports: Record<string, string | number>;
  ip: string | null;
  exitCode: number | null;
  log: string | null;
  worker: string | null;
  started: number | null;
  message: string | null;
}

export interface TransferProgress {
  token: string | number;
  bytes: number;
  totalBytes: number;
  files: number;
  totalFiles: number;
}

export interface Unfollow {
  cluster?: string | null;
  job: string;
}

export interface UploadPreview {
  workspace: string;
  remote: string;
  files: number;
  bytes: number;
  largest: ((string | number)[])[];
  dataLike: ((string | number)[])[];
  unchanged: number;
  maxFiles: number;
  maxBytes: number;
  overLimits: string | null;
  problems: string[];
  entries?: ((string | number)[])[] | null;
}

export interface UploadProgress {
  token: string | number;
  bytes: number;
  totalBytes: number;
  files: number;
  totalFiles: number;
}

/** What an upload did (snake_case on the wire, as it always was). */
export interface UploadSummary {
  remote: string;
  sent_files: number;
  sent_bytes: number;
  changed_files: number;
  unchanged_files: number;
  removed_files: number;
  cleaned: string[];
  resent_files: number;
  seconds: number;
}

/** One virtual cluster: what it holds (`total`: its healthy part), uses and has free, its waiting and running jobs (everyone's), and whether the user may submit to it (None: unknown). */
export interface VirtualClusterRow {
  name: string;
  total: Amounts;
  used: Amounts;
  free: Amounts;
  waiting: number;
  running: number;
  permitted: boolean | null;
}

export interface VirtualClusters {
  cluster?: string | null;
}

/** `nodes` is empty where the cluster does not list them; `fetched` is when it answered (ms). */
export interface VirtualClustersResult {
  cluster: string;
  vcs: VirtualClusterRow[];
  nodes: NodeRow[];
  skuTypes: Record<string, Amounts>;
  fetched: number;
}

/** Why the job waits: its events and its virtual cluster's state, asked now. */
export interface Waiting {
  cluster?: string | null;
  job: string;
}

/** `explanation` (only for a WAITING job): `core.waiting.Explanation`'s JSON — the reason as a catalogue message, the jobs-ahead estimate, what is free, who holds it — rendered by the reader. */
export interface WaitingResult {
  cluster: string;
  job: string;
  state: string;
  explanation: Record<string, unknown> | null;
  reason?: string | null;
  lines: string[];
}

export interface Watch {
  cluster?: string | null;
  job?: string | null;
  jobs?: string[] | null;
}

export interface WatchResult {
  watched: number;
}

/** Why the job failed (or was stopped), and where: the daemon's kept explanation (`refresh`: made again). */
export interface Why {
  cluster?: string | null;
  job: string;
  refresh?: boolean;
}

export interface WhyEvidence {
  line: number;
  text: string;
  source: string;
}

export interface WhyException {
  type: string;
  message: string;
  frames: WhyFrame[];
  logLine: number;
  headerLine: number;
  child: boolean;
}

/** `core.triage.Explanation` on the wire: the class (`kind`), its words, the evidence, the frames. */
export interface WhyExplanation {
  kind: string;
  title: WhyText;
  message: WhyText;
  exitCode: number | null;
  userExitCode: number | null;
  exitWords: WhyText | null;
  phrase: string | null;
  specCode: number | null;
  evidence: WhyEvidence[];
  lastLines: WhyEvidence[];
  traceback: WhyTraceback | null;
  signal: string | null;
  package: string | null;
  module: string | null;
  path: string | null;
  hdfs: boolean;
  command: string | null;
  image: string | null;
  role: string | null;
  index: number | null;
  retries: number | null;
  retriesAllowed: number | null;
  cause: WhyExplanation | null;
}

/** A traceback frame; `workspace` the user's file it came from (relative to the result's `workspace`). */
export interface WhyFrame {
  path: string;
  line: number;
  function: string | null;
  source: string | null;
  logLine: number;
  user: boolean;
  uploaded: string | null;
  workspace: string | null;
  matchedBy: string | null;
}

/** Why a job failed (or was stopped), and where: `explanation` null while it runs or when it succeeded; `tasks` the failed tasks' own; `changed` the frames' workspace files changed since the upload. */
export interface WhyResult {
  job: string;
  cluster: string;
  state: string;
  completed: number | null;
  madeAt: number | null;
  tookMs?: number | null;
  explanation: WhyExplanation | null;
  tasks: WhyExplanation[];
  workspace: string | null;
  codeDir: string | null;
  changed: string[];
}

/** One text in English and in Simplified Chinese (the daemon answers clients of either locale). */
export interface WhyText {
  en: string;
  zh: string;
}

export interface WhyTraceback {
  chain: WhyException[];
  primary: WhyFrame | null;
  related: WhyFrame[];
}

/** Every command: the class of its one argument, and what it answers when it worked (besides `ok: true`). */
export interface Commands {
  "pai.submitJob": { argument: SubmitJob; result: SubmitResult };
  "pai.runLocally": { argument: SubmitJob; result: SubmitResult };
  "pai.debugJob": { argument: DebugJob; result: DebugResult };
  "pai.debugTargets": { argument: DebugTargets; result: DebugTargetsResult };
  "pai.debugEnd": { argument: DebugEnd; result: DebugEndResult };
  "pai.previewUpload": { argument: PreviewUpload; result: PreviewResult };
  "pai.previewRendered": { argument: PreviewRendered; result: RenderedPreviewResult };
  "pai.jobs.list": { argument: Jobs; result: JobsResult };
  "pai.job.status": { argument: Status; result: StatusResult };
  "pai.job.why": { argument: Why; result: WhyResult };
  "pai.job.config": { argument: JobConfig; result: ConfigText };
  "pai.job.ssh": { argument: Ssh; result: SshResult };
  "pai.job.stop": { argument: Stop; result: StopResult };
  "pai.job.metrics": { argument: JobMetrics; result: JobMetricsResult };
  "pai.job.metricsRange": { argument: JobMetricsRange; result: JobMetricsRangeResult };
  "pai.job.follow": { argument: Follow; result: Following };
  "pai.job.unfollow": { argument: Unfollow; result: StoppedResult };
  "pai.job.logRead": { argument: LogRead; result: LogPiece };
  "pai.jobOutputs": { argument: JobOutputs; result: PathResult };
  "pai.job.record": { argument: RecordShow; result: RecordShowResult };
  "pai.job.submittedFile": { argument: SubmittedFile; result: RecordText };
  "pai.job.compareWorkspace": { argument: RecordCompare; result: RecordCompareResult };
  "pai.job.diff": { argument: RecordDiff; result: RecordDiffResult };
  "pai.job.rerun": { argument: RecordRerun; result: RecordRerunResult };
  "pai.kinds": { argument: Kinds; result: KindsResult };
  "pai.clusters.list": { argument: ClustersList; result: ClustersListResult };
  "pai.clusters.add": { argument: ClustersAdd; result: ClustersAddResult };
  "pai.clusters.login": { argument: ClustersLogin; result: ClustersLoginResult };
  "pai.clusters.remove": { argument: ClustersRemove; result: ClustersRemoveResult };
  "pai.clusters.setDefault": { argument: ClustersSetDefault; result: ClustersSetDefaultResult };
  "pai.clusters.stopLocal": { argument: ClustersStopLocal; result: StoppedResult };
  "pai.hdfs.ls": { argument: HdfsList; result: HdfsListing };
  "pai.hdfs.stat": { argument: HdfsStat; result: HdfsStatResult };
  "pai.hdfs.mkdir": { argument: HdfsMkdir; result: PathResult };
  "pai.hdfs.rm": { argument: HdfsRemove; result: PathResult };
  "pai.hdfs.mv": { argument: HdfsMove; result: HdfsMoveResult };
  "pai.hdfs.cat": { argument: HdfsCatText; result: HdfsText };
  "pai.hdfs.tail": { argument: HdfsTailText; result: HdfsText };
  "pai.hdfs.put": { argument: HdfsPutWithProgress; result: HdfsTransferResult };
  "pai.hdfs.get": { argument: HdfsGetWithProgress; result: HdfsTransferResult };
  "pai.storages.list": { argument: StorageList; result: StorageListResult };
  "pai.vc.list": { argument: VirtualClusters; result: VirtualClustersResult };
  "pai.job.waiting": { argument: Waiting; result: WaitingResult };
}

/** The server's notifications, by method. */
export interface Notifications {
  "pai/jobLog": EditorJobLog;
  "pai/jobLogEnd": EditorJobLogEnd;
  "pai/jobStatus": EditorJobStatus;
  "pai/jobEnded": EditorJobEnded;
}

export type FailureKind = "auth" | "cancelled" | "config" | "exists" | "interrupted" | "invalid" | "name-taken" | "not-found" | "permission" | "server" | "unreachable";
