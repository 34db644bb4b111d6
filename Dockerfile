# The shutterbox binary in a slim image. Build: docker build -t shutterbox .
# libjpeg-turbo and libaom are compiled from their bundled sources (cmake, nasm); besides glibc the result
# links only the system's libheif (HEIC input, LGPL-3.0, dynamically: docs/formats.md), so the runtime image
# needs libheif1 and CA certificates (S3 over https), and FFmpeg's `ffmpeg` program, which decodes videos'
# frames in child processes (docs/formats.md, "Videos").
FROM rust:1.95-bookworm AS build
# The build would install cmake, nasm and libheif-dev itself (scripts/build-tools/, as on a fresh machine);
# installed here, in a layer of their own, they are not fetched again when the sources change.
RUN apt-get update && apt-get install -y --no-install-recommends cmake nasm libheif-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# FFmpeg is the runtime image's (below): the build needs no copy of it.
ENV SHUTTERBOX_FFMPEG=ffmpeg
RUN cargo build --release --locked --bin shutterbox

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates libheif1 ffmpeg && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data shutterbox && mkdir -p /data && chown shutterbox /data
COPY --from=build /src/target/release/shutterbox /usr/local/bin/shutterbox
USER shutterbox
WORKDIR /data
# The worker's /healthz and /metrics listen on 0.0.0.0:9091 in a container (the host's default is loopback).
ENV SHUTTERBOX_LISTEN=0.0.0.0:8080 SHUTTERBOX_DATA_DIR=/data SHUTTERBOX_WORKER_LISTEN=0.0.0.0:9091
EXPOSE 8080 9091
ENTRYPOINT ["shutterbox"]
CMD ["serve"]
