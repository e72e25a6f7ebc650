"""``fix`` edits the file and nothing else about it: symlinks stay links (their target is
fixed), hard links stay one inode, owner, group and mode stay, read-only files are refused.
Link loops and broken links are one-line errors, never tracebacks."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autota.cli.main import main
from tests.cli.helpers import GROWTH, run


USER = "autota-test"


def fixed(path: Path) -> bool:
    return "out_parts.append(jnp.copy(jnp.ravel(x)))" in path.read_text()


def test_a_symlink_named_on_the_command_line_fixes_its_target(capsys, tmp_path):
    target = tmp_path / "real.py"
    target.write_text(GROWTH)
    link = tmp_path / "link.py"
    link.symlink_to(target.name)
    code, out, _ = run(capsys, "fix", "-j", "1", str(link))
    assert code == 0 and "Fixed 1 finding" in out
    assert link.is_symlink() and os.readlink(link) == "real.py"
    assert fixed(target)


def test_a_walk_fixes_the_real_file_once_and_keeps_the_link(capsys, tmp_path):
    (tmp_path / "real.py").write_text(GROWTH)
    (tmp_path / "a_link.py").symlink_to("real.py")  # sorted first: found before its target
    code, out, _ = run(capsys, "check", "-j", "1", str(tmp_path))
    assert code == 1 and out.count("AT101") == 1 and f"{tmp_path / 'real.py'}:7:" in out
    code, out, _ = run(capsys, "fix", "-j", "1", str(tmp_path))
    assert code == 0 and "Fixed 1 finding, 0 remaining." in out
    assert (tmp_path / "a_link.py").is_symlink() and fixed(tmp_path / "real.py")


def test_symlink_loops_and_broken_links_are_errors(capsys, tmp_path):
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    (tmp_path / "gone.py").symlink_to("missing.py")
    (tmp_path / "ok.py").write_text(GROWTH)
    code, out, err = run(capsys, "check", str(tmp_path / "a.py"))
    assert code == 2 and err == f"{tmp_path / 'a.py'}: error: symbolic link loop\n"
    code, out, err = run(capsys, "check", "-j", "1", str(tmp_path))
    assert code == 2
    assert f"{tmp_path / 'a.py'}: error: symbolic link loop" in err
    assert f"{tmp_path / 'gone.py'}: error: broken symbolic link" in err
    assert f"{tmp_path / 'ok.py'}:7:" in out  # the rest is still checked


def test_hard_links_stay_one_file(capsys, tmp_path):
    first = tmp_path / "first.py"
    first.write_text(GROWTH)
    second = tmp_path / "second.py"
    os.link(first, second)
    inode = first.stat().st_ino
    code, out, _ = run(capsys, "fix", "-j", "1", str(tmp_path))
    assert code == 0 and "Fixed 1 finding" in out  # one file, reached by two names
    assert first.stat().st_ino == inode == second.stat().st_ino and first.stat().st_nlink == 2
    assert fixed(second)


def test_mode_is_kept_and_read_only_files_are_refused(capsys, tmp_path):
    kept = tmp_path / "kept.py"
    kept.write_text(GROWTH)
    kept.chmod(0o640)
    frozen = tmp_path / "frozen.py"
    frozen.write_text(GROWTH)
    frozen.chmod(0o444)
    code, out, err = run(capsys, "fix", "-j", "1", str(tmp_path))
    assert code == 2
    assert err == f"{frozen}: error: cannot write: the file is read-only\n"
    assert frozen.read_text() == GROWTH and (frozen.stat().st_mode & 0o777) == 0o444
    assert fixed(kept) and (kept.stat().st_mode & 0o777) == 0o640


@pytest.fixture(scope="module")
def other_user():
    """A non-root user, made with useradd where this runs as root; else the test is skipped."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give files to another user")
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        pass
    if not shutil.which("useradd"):
        pytest.skip("no useradd to make a non-root user")
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True,
                   capture_output=True)
    return pwd.getpwnam(USER)


def test_root_keeps_the_owner_of_a_file_it_fixes(capsys, tmp_path, other_user):
    path = tmp_path / "theirs.py"
    path.write_text(GROWTH)
    os.chown(path, other_user.pw_uid, other_user.pw_gid)
    code, _, _ = run(capsys, "fix", "-j", "1", str(path))
    assert code == 0 and fixed(path)
    st = path.stat()
    assert (st.st_uid, st.st_gid) == (other_user.pw_uid, other_user.pw_gid)


def _as_user(user, argv: list[str]) -> tuple[int, str]:
    """``main(argv)`` in a forked child that has become ``user``; its exit code and stderr."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        code = 99
        try:
            os.close(read)
            sys.stderr = os.fdopen(write, "w")
            sys.stdout = open(os.devnull, "w")
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            code = main(argv)
            sys.stderr.flush()
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as fh:  # the child flushes stderr as it exits
        err = fh.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), err


@pytest.fixture
def their_folder(other_user):
    """A folder the other user owns (may create and rename files in), below folders they can
    enter (pytest's tmp_path is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="autota-owner-"))
    folder.chmod(0o755)
    os.chown(folder, other_user.pw_uid, other_user.pw_gid)
    yield folder
    shutil.rmtree(folder)


def test_a_non_root_user_cannot_rewrite_a_read_only_file(their_folder, other_user):
    folder = their_folder
    path = folder / "mine.py"
    path.write_text(GROWTH)
    os.chown(path, other_user.pw_uid, other_user.pw_gid)
    path.chmod(0o444)
    code, err = _as_user(other_user, ["fix", "-j", "1", str(path)])
    assert code == 2 and f"{path}: error: cannot write: the file is read-only" in err, err
    assert path.read_text() == GROWTH and path.stat().st_uid == other_user.pw_uid


def test_a_non_root_user_fixing_a_group_writable_file_keeps_its_owner(their_folder, other_user):
    folder = their_folder
    path = folder / "roots.py"
    path.write_text(GROWTH)
    os.chown(path, 0, other_user.pw_gid)  # root's file, writable by the user's group
    path.chmod(0o664)
    code, err = _as_user(other_user, ["fix", "-j", "1", str(path)])
    assert code == 0, err
    assert fixed(path)
    st = path.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (0, other_user.pw_gid, 0o664)
