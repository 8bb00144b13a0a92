"""Per-algorithm checks of the protocol vector files, keyed by the file's ``algorithm``.

Each check is ``check(group, test) -> None``: it returns when the test agrees with this
implementation (a valid test reproduces, an invalid test is refused) and raises
``VectorFailure`` otherwise.
"""

from . import double_ratchet, envelope, link, payload, records, safety_number, sender_key, x3dh
from .common import VectorFailure  # noqa: F401

CHECKS = {module.ALGORITHM: module.check
          for module in (x3dh, double_ratchet, sender_key, envelope, payload, safety_number,
                         records, link)}
