"""What the test folders share (issue 28): the server process launcher (:mod:`.server`), websocket players
(:mod:`.clients`), the databases (:mod:`.databases`: PostgreSQL schemas, Redis), the compiled-accelerator
checks (:mod:`.accel`; :mod:`.compiled_digest`, a script hashing what the compiled engine computes) and the
scripts of ``examples/`` as modules (:mod:`.examples`). Every folder under ``tests/`` is a package
(tests/test_architecture.py), so a test imports these relatively (``from ..support.server import
ServerProcess``), never through ``sys.path``."""
