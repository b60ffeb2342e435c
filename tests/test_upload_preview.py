"""Know what you send, through `pai` as a user runs it: `--dry-run` (files, sizes, the
largest, what the last upload there already has, the job name, the final config; nothing sent),
the default excludes, `.paiignore` / `.gitignore` (checked against git itself), and the limits that
refuse a submit unless `--force`."""

from __future__ import annotations

import getpass
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from .helpers.cli import pai, remote_files, workspace

pytestmark = pytest.mark.subprocess  # `pai`, its daemon and the local cluster

USER = os.environ.get("USER") or getpass.getuser()
EVERYTHING = {"pai.job.upload.include": ["**/*"]}


def put(ws: Path, files: dict[str, int | str]) -> None:
    """Files by path: an int is a size (that many bytes), a str the content."""
    for rel, content in files.items():
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * content if isinstance(content, int) else content.encode())


def listed(result) -> set[str]:
    """The files a `--dry-run --list` names."""
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index("files:") + 1
    end = lines.index("config after substitution:")
    return {line.split(maxsplit=2)[2] for line in lines[start:end] if line.strip()}


def dry_run(env, ws: Path, *more: str):
    return pai(env, "run", "mnist.pai.json", "--dry-run", "--list", *more, cwd=ws)


def test_dry_run_shows_files_name_and_config_and_sends_nothing(env, tmp_path):
    ws = workspace(tmp_path, f"$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/code/{tmp_path.name}", EVERYTHING)
    sizes = {f"src/m{i}.py": 1000 * (i + 1) for i in range(12)}
    put(ws, {**sizes, "weights/model.ckpt": 4096, "data/train.tfrecord": 2048})
    result = pai(env, "run", "mnist.pai.json", "--dry-run", cwd=ws)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    lines = out.splitlines()
    assert lines[0] == "Dry run of mnist.pai.json: nothing was sent."
    name = next(line for line in lines if line.startswith("job name: ")).split()[2]
    assert name.startswith("mnist_") and len(name) == len("mnist_") + 8
    files = sorted(p.relative_to(ws).as_posix() for p in ws.rglob("*") if p.is_file())
    total = sum((ws / f).stat().st_size for f in files)
    upload = next(line for line in lines if line.startswith("upload:"))
    assert f"upload:   {len(files)} files, " in upload and f" to /{USER}/code/{tmp_path.name}" in upload
    assert f"{total / 1024:.1f} KB" in upload
    assert f"0 unchanged since the last upload there (skipped), {len(files)} to send" in out
    largest = lines[lines.index("largest files:") + 1:][:10]
    by_size = sorted(((ws / f).stat().st_size, f) for f in files)[::-1][:10]
    assert [line.split()[-1] for line in largest] == [f for _, f in by_size]
    assert "! 2 files look like data" in out and "weights/model.ckpt" in out and "data/train.tfrecord" in out
    config = json.loads(out[out.index("config after substitution:\n") + len("config after substitution:\n"):])
    assert config["jobName"] == name and config["outputDir"] == f"$PAI_DEFAULT_FS_URI/{USER}/output/{name}"
    assert config["taskRoles"][0]["command"].startswith(f"cd {name} && ")
    # Nothing was sent or submitted.
    assert pai(env, "hdfs", "stat", f"/{USER}/code/{tmp_path.name}").returncode == 3
    assert name not in pai(env, "jobs").stdout
    # After a real upload there, the dry run counts what would not be sent again.
    assert pai(env, "run", "mnist.pai.json", cwd=ws).returncode == 0
    (ws / "src" / "m0.py").write_text("changed\n")
    again = pai(env, "run", "mnist.pai.json", "--dry-run", cwd=ws)
    assert f"{len(files) - 1} unchanged since the last upload there (skipped), 1 to send" in again.stdout


def test_submit_dry_run_to_a_named_cluster_lists_every_file(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME", {"pai.job.upload.include": ["**/*.py"]})
    put(ws, {"lib/a.py": 2048, "lib/b.py": 10, "notes.md": 5})
    result = pai(env, "submit", "mnist.pai.json", "--cluster", "local", "--dry-run", "--list", cwd=ws)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Dry run of mnist.pai.json: nothing was sent.\n")
    assert "cluster:  local (as " in result.stdout
    lines = result.stdout.splitlines()
    files = lines[lines.index("files:") + 1:lines.index("config after substitution:")]
    assert [line.split()[-1] for line in files if line.strip()] == ["lib/a.py", "lib/b.py", "train.py"]
    assert "2.0 KB" in files[0]
    name = next(line for line in lines if line.startswith("job name: ")).split()[2]
    assert name not in pai(env, "jobs", "--cluster", "local").stdout


DEFAULT_EXCLUDED = [".git/config", ".hg/store/data", ".svn/entries", "__pycache__/train.cpython-311.pyc",
                    "pkg/__pycache__/m.cpython-311.pyc", ".venv/lib/site.py", "venv/bin/activate",
                    "node_modules/left-pad/index.js", "web/node_modules/x/y.js", ".ipynb_checkpoints/nb-checkpoint.ipynb",
                    "notebooks/.ipynb_checkpoints/a.ipynb", ".DS_Store", "pkg/.DS_Store", "deep/a/b/.git/HEAD"]


@pytest.mark.parametrize("excluded", DEFAULT_EXCLUDED)
def test_each_default_exclude(env, tmp_path, excluded):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME", EVERYTHING)
    put(ws, {excluded: "x", "pkg/keep.py": "x", "web/app.js": "x", "venv_tools.py": "x", "my.venv/x.py": "x"})
    chosen = listed(dry_run(env, ws))
    assert excluded not in chosen
    assert {"train.py", "pkg/keep.py", "web/app.js", "venv_tools.py", "my.venv/x.py"} <= chosen  # only whole names


@pytest.mark.subprocess
def test_the_default_excludes_are_read_as_pathspec_reads_them_without_loading_it(tmp_path):
    """The defaults' patterns are made without pathspec (a workspace without ignore files never
    loads it): the very patterns pathspec makes of the same lines."""
    import subprocess
    import sys

    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    from pai_lsp.storage.ignore import DEFAULT_EXCLUDES, default_patterns

    ours = [(p.include, p.regex.pattern) for p in default_patterns()]
    assert ours == [(p.include, p.regex.pattern) for p in map(GitIgnoreSpecPattern, DEFAULT_EXCLUDES)]
    code = ("import sys, pathlib; from pai_lsp.storage.ignore import IgnoreRules; "
            "IgnoreRules.load(pathlib.Path(sys.argv[1])); print(sorted(m for m in sys.modules if m.startswith('pathspec')))")
    assert subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                          check=True).stdout.strip() == "[]"


def test_explicit_include_wins_over_defaults_and_paiignore_takes_them_back(env, tmp_path):
    settings = {"pai.job.upload.include": ["**/*.py", "**/*.js", "node_modules/mylib/**"]}
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME", settings)
    put(ws, {"node_modules/mylib/index.js": "x", "node_modules/mylib/lib/util.js": "x", "node_modules/other/o.js": "x",
             "node_modules/other/o.py": "x", "venv/tool.py": "x", ".venv/lib/site.py": "x"})
    assert listed(dry_run(env, ws)) == {"train.py", "node_modules/mylib/index.js", "node_modules/mylib/lib/util.js"}
    (ws / ".paiignore").write_text("# ship the vendored tool\n!venv/\nnode_modules/mylib/lib/\n")
    assert listed(dry_run(env, ws)) == {"train.py", "node_modules/mylib/index.js", "venv/tool.py"}


def git_untracked(ws: Path) -> set[str]:
    """What git itself would add: untracked files that no .gitignore ignores."""
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    out = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "-z"], cwd=ws, capture_output=True,
                         check=True).stdout.decode()
    return {p for p in out.split("\0") if p}


TREE = ["a.py", "b.log", "keep.log", "build/x.py", "build/keep.txt", "src/build/y.py", "src/a.log", "src/keep.log",
        "data/d.npy", "data/keep/k.txt", "data/keep/sub/k2.txt", "docs/x.md", "foo/keep", "foo/other", "foo/sub/z",
        "lib/x.pyc", "lib/deep/m.txt", "out/o.txt", "src/out/o.txt", "tmp1/x", "tmpA/y", "n/.env", "n/m/.env", "sub2/a.txt",
        "sub2/b.txt", "sub2/inner/c.txt", "sub2/deeper/a.txt", "x y/z.txt", "#hash.txt", "!bang.txt", "a[b].txt",
        "deep/a/b/c/d.txt", "deep/a/q.txt", "deep/d.txt", "logs/a.log", "logs/important.log", "only/dir/f.txt"]
GITIGNORE = """# negation, anchored patterns, folders
*.log
!keep.log
/build/
!build/keep.txt
data/**
!data/keep/
!data/keep/**
foo/**
!foo/keep
*.pyc
/out
tmp[0-9]/
.env
\\#hash.txt
\\!bang.txt
deep/**/d.txt
logs/
!logs/important.log
only/
"""


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_gitignore_semantics_are_git_s(env, tmp_path):
    """Negation, anchored patterns (`/build/`, `/out`), folders (`logs/` cannot be re-opened by
    `!logs/important.log`), `**`, character classes, escapes, and a nested .gitignore: whatever git
    adds, the upload sends, and nothing else."""
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME", EVERYTHING)
    put(ws, {rel: "x" for rel in TREE})
    (ws / ".gitignore").write_text(GITIGNORE)
    (ws / "sub2" / ".gitignore").write_text("a.txt\n/inner/\n")
    chosen = listed(dry_run(env, ws))
    expected = git_untracked(ws) - {".vscode/settings.json"}
    assert chosen - {".vscode/settings.json"} == expected
    assert {"keep.log", "src/keep.log", "src/build/y.py", "data/keep/k.txt", "data/keep/sub/k2.txt", "foo/keep",
            "src/out/o.txt", "tmpA/y", "sub2/b.txt", "deep/a/q.txt", "x y/z.txt", "a[b].txt"} <= chosen
    assert not chosen & {"b.log", "src/a.log", "build/x.py", "build/keep.txt", "data/d.npy", "foo/other", "foo/sub/z",
                         "out/o.txt", "tmp1/x", "n/.env", "n/m/.env", "sub2/a.txt", "sub2/deeper/a.txt", "sub2/inner/c.txt",
                         "deep/a/b/c/d.txt", "deep/d.txt", "logs/a.log", "logs/important.log", "only/dir/f.txt",
                         "#hash.txt", "!bang.txt", "lib/x.pyc"}
    # pai.job.upload.respectGitignore false: .gitignore is not read at all.
    (ws / ".vscode" / "settings.json").write_text(json.dumps({**EVERYTHING, "pai.job.upload.respectGitignore": False}))
    assert {"b.log", "build/x.py", "sub2/a.txt", "logs/important.log", "n/.env"} <= listed(dry_run(env, ws))


def test_paiignore_speaks_last(env, tmp_path):
    """.paiignore (gitignore syntax) is asked before .gitignore: it can leave out more, or take back."""
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME", EVERYTHING)
    put(ws, {"a.log": "x", "b.log": "x", "ckpt/e1.ckpt": "x", "ckpt/best.ckpt": "x", "docs/guide.md": "x",
             "docs/api/x.md": "x", "src/docs/y.md": "x", "data/small.csv": "x", "data/big.csv": "x"})
    (ws / ".gitignore").write_text("*.log\ndata/*\n")
    (ws / ".paiignore").write_text("!a.log\nckpt/*\n!ckpt/best.ckpt\n/docs/\n!data/small.csv\n")
    chosen = listed(dry_run(env, ws))
    assert {"a.log", "ckpt/best.ckpt", "src/docs/y.md", "data/small.csv"} <= chosen
    assert not chosen & {"b.log", "ckpt/e1.ckpt", "docs/guide.md", "docs/api/x.md", "data/big.csv"}


def test_over_the_limits_is_refused_unless_forced(env, tmp_path):
    code_dir = f"code/limits-{tmp_path.name}"
    ws = workspace(tmp_path, f"$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/{code_dir}",
                   {**EVERYTHING, "pai.job.upload.maxFiles": 5, "pai.job.upload.maxBytes": 100 * 1024})
    put(ws, {"a.py": 10, "b.py": 10, "c.py": 10, "d.py": 10, "weights.bin": 150 * 1024, "e.py": 10})
    refused = pai(env, "run", "mnist.pai.json", cwd=ws)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    line = refused.stderr
    total = sum(p.stat().st_size for p in ws.rglob("*") if p.is_file())
    count = sum(1 for p in ws.rglob("*") if p.is_file())
    over = f"{count} files (limit 5, pai.job.upload.maxFiles) and {total / 1024:.1f} KB (limit 100.0 KB, pai.job.upload.maxBytes)"
    assert line.startswith(f"pai run: mnist.pai.json: the upload is over the limit: {over}; ")
    assert "largest: weights.bin (150.0 KB), train.py (1.5 KB)" in line and "--force" in line
    assert pai(env, "hdfs", "stat", f"/{USER}/{code_dir}").returncode == 3  # nothing sent
    preview = pai(env, "run", "mnist.pai.json", "--dry-run", cwd=ws)
    assert f"! over the limit: {over}: submit refuses it (unless --force)" in preview.stdout
    forced = pai(env, "run", "mnist.pai.json", "--force", cwd=ws)
    assert forced.returncode == 0, forced.stderr
    assert "weights.bin" in remote_files(env, f"/{USER}/{code_dir}")


def test_a_paiignore_line_that_is_no_pattern_refuses_the_submit(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME", EVERYTHING)
    (ws / ".paiignore").write_text("*.npy\n!\n")
    refused = pai(env, "run", "mnist.pai.json", cwd=ws)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1
    assert refused.stderr.startswith(f"pai run: {ws / '.paiignore'}:2: '!' is not a gitignore pattern")
    assert "! .paiignore:2: '!' is not a gitignore pattern" in pai(env, "run", "mnist.pai.json", "--dry-run", cwd=ws).stdout
    assert pai(env, "run", "mnist.pai.json", "--force", cwd=ws).returncode == 0


def test_dry_run_of_a_bad_config_is_one_line(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    (ws / "bad.pai.json").write_text('{"jobName": "a~b", "image": "x", "taskRoles": [{"name": "w", "command": "c"}]}')
    result = pai(env, "run", "bad.pai.json", "--dry-run", cwd=ws)
    assert result.returncode == 1 and result.stderr.startswith("pai run: bad.pai.json:1:13: ")
    assert result.stderr.count("\n") == 1 and result.stdout == ""


def test_zh_dry_run(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    result = pai(dict(env, LANG="zh_CN.UTF-8"), "run", "mnist.pai.json", "--dry-run", cwd=ws)
    assert result.stdout.startswith("mnist.pai.json 的试运行：未发送任何内容。") and "替换变量后的配置：" in result.stdout


NAMES = ["a", "b", "build", "data", "x.log", "k.txt", "m.py", "sub"]
PATTERNS = ["*.log", "!x.log", "/build/", "build", "data/**", "!data/k.txt", "sub/", "!sub/", "a/*", "!a/b/", "**/m.py",
            "/a/b", "b/**/k.txt", "*.txt", "!*.txt", "[ab]/", "?", "data/*/", "!build/m.py", "**/", "\\!x", "*/", "a/**/b/"]
# Not "sub/**/": pathspec reads it as "sub/" (the folder itself), git as the folders inside sub/.


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_random_ignore_files_agree_with_git(tmp_path):
    """Random trees and .gitignore / nested .gitignore files: the files an upload takes are the files
    git would add (the fast scan that finds candidates never hides one from pathspec)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from pai_lsp.core.model import Settings
    from pai_lsp.service.selection import choose

    paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=4).map("/".join)

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(tree=st.sets(paths, min_size=1, max_size=25), top=st.lists(st.sampled_from(PATTERNS), max_size=6),
           nested=st.lists(st.sampled_from(PATTERNS), max_size=3), where=st.sampled_from(["a", "sub", "build/sub"]))
    def check(tree, top, nested, where):
        ws = Path(tempfile.mkdtemp(dir=tmp_path))
        for rel in sorted(tree, key=len, reverse=True):  # a path that is a file elsewhere stays a folder
            path = ws / rel
            if path.exists() or any((ws / p).is_file() for p in Path(rel).parents if str(p) != "."):
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x")
        (ws / ".gitignore").write_text("\n".join(top) + "\n")
        if (ws / where).is_dir():
            (ws / where / ".gitignore").write_text("\n".join(nested) + "\n")
        chosen = {f.rel for f in choose(ws, Settings(upload_include=("**",))).files}
        assert chosen == git_untracked(ws), (top, nested, where)

    check()
