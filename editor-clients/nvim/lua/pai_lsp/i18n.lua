-- The plugin's own texts in the user's language: English, or Simplified Chinese when the
-- language ($LC_ALL, $LC_MESSAGES, $LANG, else v:lang) is Chinese. The server's messages follow
-- the same choice (the plugin sends it as `pai.locale`).
local M = {}

--- "zh-CN" when the user's language is Chinese, else nil (English).
function M.locale()
  local lang = vim.env.LC_ALL
  if not lang or lang == "" then
    lang = vim.env.LC_MESSAGES
  end
  if not lang or lang == "" then
    lang = vim.env.LANG
  end
  if not lang or lang == "" then
    lang = vim.v.lang or ""
  end
  return lang:match("^zh") and "zh-CN" or nil
end

local ZH = {
  -- submit, logs, notifications
  [", %d file(s) uploaded, %d unchanged"] = "，上传 %d 个文件，%d 个未变",
  ["open a job file (%s) to submit it"] = "请先打开要提交的作业文件（%s）",
  ["job %s submitted to %s%s"] = "作业 %s 已提交到 %s%s",
  ["%d files → storage %s:%s, mounted at %s"] = "%d 个文件 → 存储 %s:%s，挂载于 %s",
  ["no upload to cancel"] = "没有可取消的上传",
  ["open a job file (%s) to preview its upload"] = "请先打开要预览上传的作业文件（%s）",
  ["open a job file (%s) to see it rendered"] = "请先打开要查看渲染结果的作业文件（%s）",
  ["preview again (the files as they are now)"] = "重新预览（按文件当前的状态）",
  ["job %s %s"] = "作业 %s %s",
  ["could not follow the log"] = "无法跟踪日志",
  ["which job? :PaiLogs {job}"] = "哪个作业？:PaiLogs {job}",
  ["the language server stopped (exit %s, signal %s); starting it again"] = "语言服务器已退出（退出码 %s，信号 %s），正在重新启动",
  ["the language server stopped (exit %s); the next command starts it again"] = "语言服务器已退出（退出码 %s），下一个命令会重新启动它",
  ["could not start %s"] = "无法启动 %s",
  ["%s does not say which files are job files (exit %s)"] = "%s 没有说明哪些文件是作业文件（退出码 %s）",
  -- shared keys
  ["close this window"] = "关闭此窗口",
  ["this help"] = "本帮助",
  ["refresh"] = "刷新",
  ["(? help)"] = "(? 帮助)",
  -- jobs
  ["Jobs on %s as %s: %d of %d"] = "%s 上 %s 的作业：%d / %d",
  ["NAME"] = "名称",
  ["STATE"] = "状态",
  ["STARTED"] = "开始时间",
  ["DURATION"] = "时长",
  ["TASK"] = "任务",
  ["EXIT"] = "退出码",
  ["PORTS"] = "端口",
  ["… %d more: + shows them"] = "… 还有 %d 个：按 + 显示",
  ["no job on this line"] = "这一行没有作业",
  ["Job"] = "作业",
  ["Cluster"] = "集群",
  ["State"] = "状态",
  ["Started"] = "开始",
  ["Portal"] = "门户",
  ["Note"] = "说明",
  ["  (exit code %s)"] = "  （退出码 %s）",
  ["   ran %s"] = "   运行 %s",
  ["SSH and ports of running tasks:"] = "运行中任务的 SSH 与端口：",
  ["Stop job %s?"] = "停止作业 %s？",
  ["stopping job %s"] = "正在停止作业 %s",
  ["Download outputs of %s into: "] = "下载 %s 的输出到：",
  ["outputs of %s downloaded to %s"] = "%s 的输出已下载到 %s",
  ["tasks, ports and state of the job"] = "作业的状态、任务和端口",
  ["the job's log (live while it runs)"] = "作业日志（运行时实时更新）",
  ["stop the job (asks first)"] = "停止作业（先确认）",
  ["download the job's outputs"] = "下载作业输出",
  ["the job's config as submitted"] = "作业提交时的配置",
  ["refresh the list"] = "刷新列表",
  ["show more jobs"] = "显示更多作业",
  ["Listing jobs…"] = "正在列出作业…",
  [":PaiJobs keys"] = ":PaiJobs 按键",
  -- HDFS
  ["  on %s"] = "  （%s）",
  ["no file or folder on this line"] = "这一行没有文件或文件夹",
  ["%s: showing its first %s of %s"] = "%s：只显示前 %s（共 %s）",
  ["Upload to %s: "] = "上传到 %s：",
  ["uploaded %s to %s (%d file(s), %s)"] = "已上传 %s 到 %s（%d 个文件，%s）",
  ["Download %s to: "] = "下载 %s 到：",
  ["downloaded %s to %s (%d file(s), %s)"] = "已下载 %s 到 %s（%d 个文件，%s）",
  ["Delete folder %s and everything in it?"] = "删除文件夹 %s 及其中所有内容？",
  ["Delete %s?"] = "删除 %s？",
  ["deleted %s"] = "已删除 %s",
  ["New folder in %s: "] = "在 %s 中新建文件夹：",
  ["Rename to: "] = "重命名为：",
  ["copied %s"] = "已复制 %s",
  ["open the folder, or the file (read-only)"] = "打开文件夹，或（只读）打开文件",
  ["the parent folder"] = "上级文件夹",
  ["upload a local file or folder here"] = "上传本地文件或文件夹到这里",
  ["download the file or folder"] = "下载文件或文件夹",
  ["delete the file or folder (asks first)"] = "删除文件或文件夹（先确认）",
  ["new folder"] = "新建文件夹",
  ["rename or move"] = "重命名或移动",
  ["copy the path"] = "复制路径",
  [":PaiHdfs keys"] = ":PaiHdfs 按键",
  -- storages (the HDFS browser on a storage)
  ["  storage %s (in jobs: %s)"] = "  存储 %s（作业中：%s）",
  [", read-only"] = "，只读",
  [":PaiStorages keys"] = ":PaiStorages 按键",
  ["the parent folder (from the top: the storages)"] = "上级文件夹（在最上层时：存储列表）",
  ["copy the path as jobs see it"] = "复制作业中看到的路径",
  ["Storages of %s"] = "%s 的存储",
  ["TYPE"] = "类型",
  ["ACCESS"] = "权限",
  ["IN JOBS AT"] = "作业中位置",
  ["SERVER"] = "服务器",
  ["read-only"] = "只读",
  ["read-write"] = "读写",
  [" (your folder)"] = "（您的文件夹）",
  ["(no storage: an administrator adds them to your groups)"] = "（没有存储：由管理员把存储加入您的用户组）",
  ["no storage on this line"] = "这一行没有存储",
  ["%s has no storage %s that you may use"] = "%s 没有您可使用的存储 %s",
  ["browse the storage"] = "浏览该存储",
  ["the cluster's HDFS (:PaiHdfs)"] = "集群的 HDFS（:PaiHdfs）",
  -- clusters
  ["Cluster profiles"] = "集群配置",
  ["USER"] = "用户",
  ["KIND"] = "类型",
  ["LOGIN"] = "登录",
  ["running"] = "运行中",
  ["%s. Replace it?"] = "%s。要替换吗？",
  ["stopped"] = "已停止",
  ["logged in"] = "已登录",
  ["no login"] = "未登录",
  ["(embedded, on this machine)"] = "（内置，在本机）",
  ["no cluster on this line"] = "这一行没有集群",
  ["Profile name: "] = "配置名称：",
  ["REST server URL: "] = "REST 服务器地址：",
  ["WebHDFS URL: "] = "WebHDFS 地址：",
  ["User name: "] = "用户名：",
  ["Cluster kind:"] = "集群类型：",
  ["Password (empty: log in later): "] = "密码（留空：稍后登录）：",
  ["added cluster %s%s"] = "已添加集群 %s%s",
  [", logged in"] = "，已登录",
  ["cluster %s: %s"] = "集群 %s：%s",
  ["default cluster: %s"] = "默认集群：%s",
  ["Password of %s on %s: "] = "%s 在 %s 上的密码：",
  ["logged in to %s"] = "已登录 %s",
  ["Remove cluster profile %s (and its password)?"] = "删除集群配置 %s（及其密码）？",
  ["removed cluster %s"] = "已删除集群 %s",
  ["add a cluster profile (asks for its URLs, user and password)"] = "添加集群配置（询问地址、用户和密码）",
  ["make it the default cluster"] = "设为默认集群",
  ["log in again (asks for the password)"] = "重新登录（询问密码）",
  ["remove the profile (asks first)"] = "删除配置（先确认）",
  ["Listing clusters…"] = "正在列出集群…",
  [":PaiClusters keys"] = ":PaiClusters 按键",
  -- :PaiWhy
  ["called from %s"] = "由 %s 调用",
  ["called from here"] = "由此处调用",
  ["nothing to explain: it did not fail"] = "没有需要说明的：作业没有失败",
  ["Where:"] = "位置：",
  ["in %s"] = "在 %s 中",
  ["changed since the upload"] = "上传后已修改",
  ["Evidence:"] = "证据：",
  ["Last lines:"] = "最后几行：",
  ["which job? :PaiWhy {job}"] = "哪个作业？:PaiWhy {作业}",
  ["why %s failed: %s"] = "%s 失败的原因：%s",
  -- what a job ran (records.lua)
  [":PaiCode keys"] = ":PaiCode 按键",
  ["no file on this line"] = "此行没有文件",
  ["open the file as the job sent it"] = "打开作业提交时的文件",
  ["compare the file with the workspace's"] = "与工作区中的文件比较",
  ["Code of %s: %d file(s), sent to %s"] = "%s 的代码：%d 个文件，已发送到 %s",
  ["code hash %s, record from the %s"] = "代码哈希 %s，记录来自 %s",
  ["the workspace holds exactly the code %s ran"] = "工作区中的代码与 %s 运行的完全相同",
  ["%d file(s) differ from what %s ran: "] = "%d 个文件与 %s 运行的不同：",
  ["job %s submitted: rerun of %s with %s"] = "作业 %s 已提交：重新运行 %s，使用 %s",
  ["the code the job was submitted with"] = "作业提交时的代码",
  ["compare the job's code with the workspace (diff split)"] = "将作业的代码与工作区比较（diff 分屏）",
  ["rerun the job: the same code and config, a new name"] = "重新运行作业：相同的代码和配置，新的名称",
}

--- `text` in the user's language, formatted with the arguments when there are any.
function M.t(text, ...)
  local chosen = M.locale() == "zh-CN" and ZH[text] or text
  if select("#", ...) > 0 then
    return chosen:format(...)
  end
  return chosen
end

return M
