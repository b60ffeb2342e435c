"""A real local cluster for each test module (tests/helpers/localcluster.py), stopped at the end."""

from __future__ import annotations

import os

import pytest

from ..helpers.localcluster import start_cluster, stop_cluster


@pytest.fixture(scope="session", autouse=True)
def private_config(tmp_path_factory):
    """The clusters' secrets go to the config dir: a temporary one, never the real ~/.config."""
    saved = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config"))
    yield
    if saved is None:
        os.environ.pop("XDG_CONFIG_HOME", None)
    else:
        os.environ["XDG_CONFIG_HOME"] = saved


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, starts_processes):
    c = start_cluster(tmp_path_factory.mktemp("cluster"))
    yield c
    stop_cluster(c)


