"""The rest of WebHDFS: ACLs, snapshots, times and replication, rename with options, access checks —
with Hadoop's semantics and error classes, driven by the `hdfs` package and raw requests."""

from __future__ import annotations

import getpass

import pytest
from hdfs import HdfsError, InsecureClient

from ..helpers.localcluster import USER
from ..helpers.webhdfs import hdfs, remote_exception

pytestmark = pytest.mark.subprocess  # the local cluster runs as a process

SUPERUSER = getpass.getuser()


@pytest.fixture
def alice(cluster):
    return InsecureClient(cluster.hdfs_url, user=USER)


@pytest.fixture
def root(cluster):
    return InsecureClient(cluster.hdfs_url, user=SUPERUSER)


def test_acls_are_kept_reported_and_enforced(cluster, alice):
    path = f"/user/{USER}/acl/report.txt"
    alice.write(path, data=b"numbers", overwrite=True, permission="600")
    assert hdfs(cluster, "GET", path, "OPEN", "bob").status_code == 403
    alice.set_acl(path, "user::rw-,user:bob:r--,group::---,other::---")
    status = alice.acl_status(path)
    assert status == {"entries": ["user:bob:r--", "group::---"], "group": "supergroup", "owner": USER,
                      "permission": "640", "stickyBit": False}  # the group bits show the mask
    assert alice.status(path)["aclBit"] is True and alice.status(path)["permission"] == "640"
    assert hdfs(cluster, "GET", path, "OPEN", "bob").content == b"numbers"
    assert hdfs(cluster, "GET", path, "OPEN", "carol").status_code == 403
    # Modify merges (and recalculates the mask); remove entries; remove the whole ACL.
    alice.set_acl(path, "user:carol:rw-", clear=False)
    assert alice.acl_status(path)["entries"] == ["user:bob:r--", "user:carol:rw-", "group::---"]
    assert alice.acl_status(path)["permission"] == "660"
    assert hdfs(cluster, "GET", path, "OPEN", "carol").content == b"numbers"
    alice.remove_acl_entries(path, "user:bob:")
    assert alice.acl_status(path)["entries"] == ["user:carol:rw-", "group::---"]
    assert hdfs(cluster, "GET", path, "OPEN", "bob").status_code == 403
    alice.remove_acl(path)
    assert alice.acl_status(path) == {"entries": [], "group": "supergroup", "owner": USER, "permission": "600", "stickyBit": False}
    assert "aclBit" not in alice.status(path)
    # Only the owner (or the superuser) changes an ACL.
    stranger = hdfs(cluster, "PUT", path, "MODIFYACLENTRIES", "bob", aclspec="user:bob:rwx")
    assert remote_exception(stranger) == (403, "AccessControlException",
                                          f"Permission denied. user=bob is not the owner of inode={path}")


def test_default_acls_are_inherited_by_new_files(cluster, alice):
    folder = f"/user/{USER}/shared"
    alice.makedirs(folder)
    alice.set_acl(folder, "default:user:bob:rwx", clear=False)
    entries = alice.acl_status(folder)["entries"]
    assert "default:user:bob:rwx" in entries and "default:mask::rwx" in entries and "default:user::rwx" in entries
    alice.write(f"{folder}/new.txt", data=b"for bob too", permission="640")
    assert alice.acl_status(f"{folder}/new.txt")["entries"] == ["user:bob:rwx", "group::r-x"]
    assert alice.status(f"{folder}/new.txt")["permission"] == "640"  # the mask, limited by the create mode
    assert hdfs(cluster, "GET", f"{folder}/new.txt", "OPEN", "bob").content == b"for bob too"
    alice.remove_default_acl(folder)
    assert not any(e.startswith("default:") for e in alice.acl_status(folder)["entries"])


@pytest.mark.parametrize("op,spec,expected", [
    ("SETACL", "user:bob:rwx", (403, "AclException", "Invalid ACL: the user, group and other entries are required.")),
    ("MODIFYACLENTRIES", "user:bob:rwz", (400, "HadoopIllegalArgumentException", "Invalid permission in <aclSpec> : user:bob:rwz")),
    ("MODIFYACLENTRIES", "owner:bob:rwx", (400, "HadoopIllegalArgumentException", "Invalid type of acl in <aclSpec> :owner:bob:rwx")),
    ("MODIFYACLENTRIES", "user:bob:rwx,user:bob:r--", (403, "AclException",
                                                      "Invalid ACL: multiple entries with same scope, type and name.")),
    ("MODIFYACLENTRIES", "default:user:bob:rwx", (403, "AclException", "Invalid ACL: only directories may have a default ACL.")),
])
def test_bad_acl_specs_get_hadoops_errors(cluster, alice, op, spec, expected):
    path = f"/user/{USER}/acl-errors.txt"
    alice.write(path, data=b"x", overwrite=True)
    assert remote_exception(hdfs(cluster, "PUT", path, op, USER, aclspec=spec)) == expected
    missing = hdfs(cluster, "GET", f"/user/{USER}/no-such", "GETACLSTATUS", USER)
    assert remote_exception(missing) == (404, "FileNotFoundException", f"cannot find /user/{USER}/no-such")


def test_snapshots_keep_what_was_there(cluster, alice, root):
    folder = f"/user/{USER}/snapped"
    alice.write(f"{folder}/model.txt", data=b"version 1", overwrite=True)
    refused = hdfs(cluster, "PUT", folder, "ALLOWSNAPSHOT", USER)
    assert remote_exception(refused) == (403, "AccessControlException", f"Access denied for user {USER}. Superuser privilege is required")
    with pytest.raises(HdfsError, match="is not a snapshottable directory"):
        alice.create_snapshot(folder, "early")
    root.allow_snapshot(folder)
    assert alice.status(folder)["snapshotEnabled"] is True
    assert alice.create_snapshot(folder, "v1") == f"{folder}/.snapshot/v1"
    alice.write(f"{folder}/model.txt", data=b"version 2", overwrite=True)
    alice.write(f"{folder}/extra.txt", data=b"later", overwrite=True)
    with alice.read(f"{folder}/.snapshot/v1/model.txt") as reader:
        assert reader.read() == b"version 1"
    assert alice.list(f"{folder}/.snapshot/v1") == ["model.txt"]
    assert alice.list(f"{folder}/.snapshot") == ["v1"]
    assert alice.list(folder) == ["extra.txt", "model.txt"]  # .snapshot is not a child
    assert alice.status(f"{folder}/.snapshot/v1/model.txt")["owner"] == USER
    # Snapshots are read-only; their folder cannot go while they exist.
    write = hdfs(cluster, "PUT", f"{folder}/.snapshot/v1/model.txt", "CREATE", USER, b"x", overwrite="true")
    assert remote_exception(write) == (403, "SnapshotAccessControlException", "Modification on a read-only snapshot is disallowed")
    gone = hdfs(cluster, "DELETE", folder, "DELETE", USER, recursive="true")
    assert remote_exception(gone)[:2] == (403, "SnapshotException")
    with pytest.raises(HdfsError, match="has snapshot"):
        root.disallow_snapshot(folder)
    alice.rename_snapshot(folder, "v1", "release")
    with pytest.raises(HdfsError, match=f"Cannot delete snapshot v1 from path {folder}: the snapshot does not exist."):
        alice.delete_snapshot(folder, "v1")
    with pytest.raises(HdfsError, match=f"The snapshot v1 does not exist for directory {folder}"):
        alice.rename_snapshot(folder, "v1", "v0")
    alice.create_snapshot(folder, "v2")
    with pytest.raises(HdfsError, match="already exists for directory"):
        alice.rename_snapshot(folder, "v2", "release")
    named = alice.create_snapshot(folder)
    assert named.startswith(f"{folder}/.snapshot/s")
    for name in ("release", "v2", named.rsplit("/", 1)[1]):
        alice.delete_snapshot(folder, name)
    root.disallow_snapshot(folder)
    assert alice.delete(folder, recursive=True)
    reserved = hdfs(cluster, "PUT", f"/user/{USER}/.snapshot", "MKDIRS", USER)
    assert remote_exception(reserved) == (400, "HadoopIllegalArgumentException", '".snapshot" is a reserved name.')


def test_times_on_folders_and_replication_are_kept(cluster, alice):
    folder = f"/user/{USER}/timed"
    alice.write(f"{folder}/f.txt", data=b"12345", overwrite=True)
    alice.set_times(folder, access_time=1234, modification_time=5678)
    status = alice.status(folder)
    assert (status["accessTime"], status["modificationTime"]) == (1234, 5678)
    assert alice.status(f"{folder}/f.txt")["replication"] == 1
    alice.set_replication(f"{folder}/f.txt", 3)
    assert alice.status(f"{folder}/f.txt")["replication"] == 3
    assert alice.content(folder)["spaceConsumed"] == 15  # length × replication
    with pytest.raises(HdfsError, match="is not a file"):
        alice.set_replication(folder, 2)
    zero = hdfs(cluster, "PUT", f"{folder}/f.txt", "SETREPLICATION", USER, replication="0")
    assert remote_exception(zero)[:2] == (400, "IllegalArgumentException")
    alice.write(f"{folder}/g.txt", data=b"x", replication=2)
    assert alice.status(f"{folder}/g.txt")["replication"] == 2
    other = hdfs(cluster, "PUT", f"{folder}/f.txt", "SETREPLICATION", "bob", replication="2")
    assert remote_exception(other)[:2] == (403, "AccessControlException")


def test_rename_with_options_follows_rename2(cluster, alice):
    base = f"/user/{USER}/r2"
    alice.write(f"{base}/a", data=b"a", overwrite=True)
    alice.write(f"{base}/b", data=b"b", overwrite=True)
    exists = hdfs(cluster, "PUT", f"{base}/a", "RENAME", USER, destination=f"{base}/b", renameoptions="NONE")
    assert remote_exception(exists) == (403, "FileAlreadyExistsException", f"rename destination {base}/b already exists.")
    replaced = hdfs(cluster, "PUT", f"{base}/a", "RENAME", USER, destination=f"{base}/b", renameoptions="OVERWRITE")
    assert (replaced.status_code, replaced.content) == (200, b"")
    with alice.read(f"{base}/b") as reader:
        assert reader.read() == b"a"
    missing = hdfs(cluster, "PUT", f"{base}/a", "RENAME", USER, destination=f"{base}/c", renameoptions="NONE")
    assert remote_exception(missing) == (404, "FileNotFoundException", f"rename source {base}/a is not found.")


def test_check_access_and_operations_this_namenode_lacks(cluster, alice):
    path = f"/user/{USER}/checked.txt"
    alice.write(path, data=b"x", overwrite=True, permission="640")
    assert hdfs(cluster, "GET", path, "CHECKACCESS", USER, fsaction="rw-").status_code == 200
    assert remote_exception(hdfs(cluster, "GET", path, "CHECKACCESS", "bob", fsaction="r--"))[:2] == (403, "AccessControlException")
    assert remote_exception(hdfs(cluster, "GET", path, "GETXATTRS", USER)) == (
        400, "UnsupportedOperationException", "GETXATTRS is not supported by the PAI local cluster")
