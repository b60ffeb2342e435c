"""A user whose VS Code runs in Simplified Chinese (display language zh-cn): the extension's menus,
views, notifications, the language server's diagnostics and code lens, and the job's progress all
speak Chinese, with no setting of ours (`pai.locale` unset) — they follow VS Code's display language."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def locale() -> str:
    return "zh-cn"


def test_views_menus_and_code_lens_are_in_chinese(workbench):
    workbench.command("View: Show PAI")
    titles = workbench.page.locator(".pane-header h3.title")
    workbench.wait_for(lambda: {"作业", "HDFS", "集群"} <= set(titles.all_inner_texts()), "the PAI views' Chinese titles")
    # An empty list says so in Chinese, under the local cluster (the default: 默认).
    workbench.wait_for(lambda: any(text.startswith("local 默认") for text in workbench.view_texts("作业")), "the local cluster in 作业")
    workbench.wait_for(lambda: "还没有作业。" in workbench.view_texts("作业"), "'no jobs yet' in Chinese")
    workbench.wait_for(lambda: any(text.startswith("主目录") for text in workbench.view_texts("HDFS")), "the HDFS home folder")
    # The language server speaks the display language too: its code lens and its diagnostics.
    editor = workbench.open_file("mnist.pai.json")
    lens = editor.locator(".codelens-decoration a")
    workbench.wait_for(lambda: {"提交作业到 PAI 集群", "在本地运行作业"} <= set(lens.all_inner_texts()), "the Chinese code lens")
    workbench.double_click_word("mnist.pai.json", '"memoryMB"')
    workbench.page.keyboard.type("memoryMb")
    rows = workbench.wait_for(lambda: [r for r in workbench.problems() if "memoryMb" in r], "the mistake in Problems")
    assert '未知字段 "memoryMb"' in rows[0], rows
    workbench.command("File: Revert File")
    workbench.wait_for(lambda: not [r for r in workbench.problems() if "memoryMb" in r], "Problems to clear")
    workbench.screenshot("zh-cn-views")


def test_run_job_locally_from_the_chinese_menu(workbench):
    workbench.command("File: Focus on Files Explorer")
    workbench.context_menu(workbench.explorer_row("mnist.pai.json"), "在本地运行作业")  # "Run Job Locally"
    workbench.wait_for(lambda: any("正在本地运行 mnist.pai.json" in toast for toast in workbench.toasts()),
                       "the Chinese progress notification")
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: mnist_"), "the job's Output channel")
    job = workbench.output_channel().removeprefix("PAI: ")
    workbench.wait_for(lambda: "epoch 3/3" in workbench.output_text(), "the job's log")
    workbench.wait_for(lambda: any(f"作业 {job} SUCCEEDED" in text for text in workbench.notifications()), "the Chinese end notification")
    buttons = workbench.page.locator(".notifications-center .notification-list-item").filter(has_text=job).locator(".monaco-button")
    assert {"显示日志", "下载输出"} <= set(buttons.all_inner_texts())  # "Show Logs", "Download Outputs"
    workbench.close_notifications()
    workbench.command("PAI: Focus on 作业 View")
    workbench.wait_for(lambda: any(job in text and "SUCCEEDED" in text for text in workbench.view_texts("作业")), f"{job} in 作业")
    workbench.screenshot("zh-cn-job")


def test_preview_upload_in_chinese(workbench):
    """Preview Upload (预览上传): the menu entry, the document's tab and the report are in Chinese."""
    workbench.command("File: Focus on Files Explorer")
    workbench.context_menu(workbench.explorer_row("mnist.pai.json"), "预览上传")  # "Preview Upload"
    editor = workbench.page.locator(".editor-instance .monaco-editor[data-uri^='pai-preview:']")
    text = workbench.wait_for(lambda: editor.count() and editor.locator(".view-lines").inner_text().replace("\u00a0", " "),
                              "the preview document")
    assert text.startswith("mnist.pai.json 的试运行：未发送任何内容。"), text
    assert "上传：    1 个文件" in text and "最大的文件：" in text and "train.py" in text, text
    tab = workbench.page.locator(".tabs-container .tab.active")
    assert tab.get_attribute("aria-label").startswith("mnist.pai.json（上传预览）"), tab.get_attribute("aria-label")
    workbench.screenshot("zh-cn-upload-preview")
