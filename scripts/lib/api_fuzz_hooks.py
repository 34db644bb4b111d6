"""schemathesis hooks for scripts/api-fuzz.sh (SCHEMATHESIS_HOOKS=api_fuzz_hooks): bodies of the media types
the document declares and schemathesis has no generator for."""

from hypothesis import strategies as st

import schemathesis

# A tus piece (PATCH /uploads/tus/{id}, and a first piece with POST /uploads/tus): any bytes.
schemathesis.openapi.media_type("application/offset+octet-stream", st.binary(max_size=64 << 10))
