# The runtime base the tests and `npm run image` pass as RUNTIME_IMAGE: the same layout as
# gcr.io/distroless/nodejs24-debian12:nonroot, from the build base's own files. Node at
# /nodejs/bin/node with exactly the shared libraries it links (ldd), CA certificates, time zone
# data, /etc/passwd and /etc/group with the `nonroot` user 65532; no shell, no package manager.
ARG NODE_IMAGE
FROM ${NODE_IMAGE} AS files
RUN set -eu; \
    mkdir -p /out/nodejs/bin /out/etc/ssl/certs /out/usr/share /out/home/nonroot /out/tmp; \
    cp /usr/local/bin/node /out/nodejs/bin/node; \
    for lib in $(ldd /usr/local/bin/node | grep -o '/[^ ]*'); do cp --parents -L "$lib" /out; done; \
    cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/; \
    cp -r /usr/share/zoneinfo /out/usr/share/; \
    cp -L /etc/os-release /out/etc/os-release; \
    printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' \
      'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
      'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >/out/etc/passwd; \
    printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'nonroot:x:65532:' >/out/etc/group; \
    chown 65532:65532 /out/home/nonroot; \
    chmod 1777 /out/tmp

FROM scratch
COPY --from=files /out /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
USER 65532:65532
WORKDIR /home/nonroot
ENTRYPOINT ["/nodejs/bin/node"]
