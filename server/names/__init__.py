"""Names and passwords: who a player is, and how a name is kept.

- :mod:`.rules`: what a name may be, and when two names are one (NFKC, case
  folding, the UTS #39 skeleton); chat text cleaned;
- :mod:`.confusables`: Unicode's table of look-alike characters, as shipped;
- :mod:`.passwords`: Argon2id hashes on a bounded pool, wrong passwords counted.

The name rules are this package's face; the passwords are imported from their
module by what signs players in.
"""

from tilehall.server.names.rules import (
    KEYS_VERSION,
    MAX_MARKS,
    MAX_NAME,
    OWN_PROTOTYPES,
    check_new_name,
    clean_chat,
    folded_skeleton,
    is_bot_name,
    is_plain_bot_name,
    name_key,
    same_name,
    skeleton,
    validate_name,
)

__all__ = [
    "KEYS_VERSION",
    "MAX_MARKS",
    "MAX_NAME",
    "OWN_PROTOTYPES",
    "check_new_name",
    "clean_chat",
    "folded_skeleton",
    "is_bot_name",
    "is_plain_bot_name",
    "name_key",
    "same_name",
    "skeleton",
    "validate_name",
]
