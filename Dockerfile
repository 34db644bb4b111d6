# The shutterbox binary in a slim image. Build: docker build -t shutterbox .
# libjpeg-turbo and libaom are compiled from their bundled sources (cmake, nasm); the result links only
# against glibc, so the runtime image needs nothing else but CA certificates (S3 over https).
FROM rust:1.95-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends cmake nasm && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin shutterbox

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data shutterbox && mkdir -p /data && chown shutterbox /data
COPY --from=build /src/target/release/shutterbox /usr/local/bin/shutterbox
USER shutterbox
WORKDIR /data
ENV SHUTTERBOX_LISTEN=0.0.0.0:8080 SHUTTERBOX_DATA_DIR=/data
EXPOSE 8080
ENTRYPOINT ["shutterbox"]
CMD ["serve"]
