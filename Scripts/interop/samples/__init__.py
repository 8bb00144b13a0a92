"""Sample protocol test cases built with this Python implementation (self-check only).

These are NOT the published vectors: those must come from the Swift code. The samples exercise
the verifier: same layout as TestVectors/protocol/README.md, fixed seeds, every negative case
the README lists. Each ``*_cases()`` returns ``(notes, [(group_type, test), ...])``; every
invalid case is checked while it is built to be refused with the intended typed error.
"""

from .envelopes import envelope_cases  # noqa: F401
from .link import link_cases  # noqa: F401
from .payload import payload_cases  # noqa: F401
from .ratchet import Conversation, ratchet_cases  # noqa: F401
from .records import record_cases  # noqa: F401
from .safety_number import safety_number_cases  # noqa: F401
from .sender_key import sender_key_cases  # noqa: F401
from .x3dh import x3dh_cases, x3dh_inputs  # noqa: F401
