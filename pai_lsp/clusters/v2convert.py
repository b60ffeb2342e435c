"""A v1 job config as OpenPAI protocol v2 YAML, for submitting to a Kubernetes-era cluster: the
conversion itself is the core's (`core/v2convert.py`, which the editor's "Convert to protocol v2"
uses too); here what v2 cannot express becomes the client side's `InvalidInput`."""

from __future__ import annotations

from ..core.v2convert import ConversionError
from ..core.v2convert import to_v2_yaml as _to_v2_yaml
from ..errors import InvalidInput


def to_v2_yaml(config: dict) -> str:
    try:
        return _to_v2_yaml(config)
    except ConversionError as e:
        raise InvalidInput(e.message) from None
