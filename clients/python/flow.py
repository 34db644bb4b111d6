"""The whole flow of a user, through the Python client generated from openapi/openapi.json.

    python flow.py <service URL> <secret API key>

Every API call goes through the generated code (`shutterbox_client`, made by openapi-python-client; see
scripts/clients.sh and docs/clients.md): presign, confirm, list, get, transform-url, delete, then a 404
and a 401 decoded into the generated `Error` model. Both key header forms are used: `Authorization:
ApiKey <key>` (the generated AuthenticatedClient) and `ApiKey: <key>` (a plain Client with that header).
Only the bytes travel outside it: the PUT to the presigned uploadUrl and the GET of the public transformed
URL, which are not API calls. Exits non-zero at the first thing that is not as documented.
"""

import struct
import sys
import time
import zlib

import httpx
from shutterbox_client import AuthenticatedClient, Client
from shutterbox_client.api.files import (
    create_transform_url,
    delete_file,
    get_file,
    list_files,
)
from shutterbox_client.api.upload import confirm_upload, presign_upload
from shutterbox_client.models import (
    ConfirmRequest,
    ConfirmResponse,
    Error,
    FileEnvelope,
    FileList,
    Message,
    PendingUpload,
    PresignRequest,
    TransformRequest,
    TransformRequestFormat,
    TransformUrl,
)


def png(width: int, height: int) -> bytes:
    """A width×height RGB PNG with a gradient, so it is a real image to resize."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(
        b"\x00" + bytes(v for x in range(width) for v in (x % 256, y % 256, (x + y) % 256)) for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def check(condition: bool, what: str) -> None:
    if not condition:
        print(f"python client flow: FAILED: {what}", file=sys.stderr)
        sys.exit(1)
    print(f"  ok  {what}")


def main() -> None:
    service, key = sys.argv[1].rstrip("/"), sys.argv[2]
    base_url = f"{service}/v1"
    # `Authorization: ApiKey <key>`, the form of every docs/api.md example.
    authorized = AuthenticatedClient(base_url=base_url, token=key, prefix="ApiKey")
    # `ApiKey: <key>`, the other documented form.
    api_key_header = Client(base_url=base_url, headers={"ApiKey": key})

    image = png(320, 200)
    presigned = presign_upload.sync_detailed(
        client=authorized,
        body=PresignRequest(filename="gradient.png", mimetype="image/png", size=len(image), folder_name="sdk/python"),
    )
    check(presigned.status_code == 200 and isinstance(presigned.parsed, PendingUpload), "presign → PendingUpload")
    pending = presigned.parsed
    assert isinstance(pending, PendingUpload)

    put = httpx.put(pending.upload_url, content=image, headers={"Content-Type": "image/png"})
    check(put.status_code in (200, 201, 204), f"PUT to uploadUrl ({put.status_code})")

    confirmed = confirm_upload.sync_detailed(
        client=api_key_header, body=ConfirmRequest(pending_upload_id=pending.pending_upload_id)
    )
    check(isinstance(confirmed.parsed, ConfirmResponse), "confirm (ApiKey header) → ConfirmResponse")
    assert isinstance(confirmed.parsed, ConfirmResponse)
    file = confirmed.parsed.file
    check(file.type_ == "image" and file.raw_type == "image/png", "the file is a PNG image")
    check(file.raw_size == len(image), "rawSize is the uploaded size")
    check(file.folder_id is not None, "folderId is set for a file in a folder")
    check((file.width, file.height) == (320, 200), f"the image's size from confirm ({file.width}×{file.height})")
    check(file.has_alpha is False and file.animated is False and file.frame_count == 1, "alpha and frames")

    listing = list_files.sync_detailed(client=authorized, page=1, page_size=100)
    check(isinstance(listing.parsed, FileList), "list → FileList")
    assert isinstance(listing.parsed, FileList)
    check(any(f.id == file.id for f in listing.parsed.files), "the listing holds the file")
    check(listing.parsed.pagination.page_size == 100, "pagination echoes pageSize")

    got = get_file.sync_detailed(file.id, client=api_key_header)
    check(isinstance(got.parsed, FileEnvelope) and got.parsed.file.id == file.id, "get (ApiKey header) → the file")
    # The placeholders come from a job after confirm: null until it ran.
    for _ in range(100):
        described = get_file.sync_detailed(file.id, client=api_key_header).parsed
        assert isinstance(described, FileEnvelope)
        if isinstance(described.file.placeholder, str):
            break
        time.sleep(0.1)
    check(isinstance(described.file.placeholder, str) and described.file.placeholder.startswith("data:image/webp"),
          "the placeholder, once described")
    check(isinstance(described.file.dominant_color, str) and len(described.file.dominant_color) == 7, "dominantColor")
    check(isinstance(described.file.thumbhash, str) and isinstance(described.file.blurhash, str), "the hashes")

    transform = create_transform_url.sync_detailed(
        file.id, client=authorized, body=TransformRequest(w=64, format_=TransformRequestFormat.PNG, gray=True)
    )
    check(isinstance(transform.parsed, TransformUrl), "transform-url → TransformUrl")
    assert isinstance(transform.parsed, TransformUrl)
    check(transform.parsed.original_file.id == file.id, "transform-url names the original")
    delivered = httpx.get(transform.parsed.url)
    check(delivered.status_code == 200, f"the transformed URL loads without a key ({delivered.status_code})")
    check(delivered.headers["content-type"] == "image/png", "as PNG")
    width, height = struct.unpack(">II", delivered.content[16:24])
    check((width, height) == (64, 40), f"at the requested width ({width}×{height})")

    deleted = delete_file.sync_detailed(file.id, client=authorized)
    check(isinstance(deleted.parsed, Message), "delete → Message")

    missing = get_file.sync_detailed(file.id, client=authorized)
    check(missing.status_code == 404, "a deleted file is a 404")
    check(isinstance(missing.parsed, Error) and missing.parsed.status == 404, "decoded into the Error model")
    assert isinstance(missing.parsed, Error)
    check(bool(missing.parsed.message), f"with a message: {missing.parsed.message!r}")

    wrong_key = AuthenticatedClient(base_url=base_url, token="sbx_not_a_key", prefix="ApiKey")
    refused = list_files.sync_detailed(client=wrong_key)
    check(refused.status_code == 401, "a wrong key is a 401")
    check(isinstance(refused.parsed, Error) and refused.parsed.status == 401, "decoded into the Error model")
    wrong_header = Client(base_url=base_url, headers={"ApiKey": "sbx_not_a_key"})
    refused = list_files.sync_detailed(client=wrong_header)
    check(isinstance(refused.parsed, Error) and refused.parsed.status == 401, "…in the ApiKey header form too")
    print("python client flow: passed")


if __name__ == "__main__":
    main()
