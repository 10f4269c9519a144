# vetflow: Node 24 runs the TypeScript sources directly (type stripping); there is no build step.
FROM node:24-slim

WORKDIR /app
# Shown in vetflow_build_info{commit}: docker build --build-arg BUILD_COMMIT=$(git rev-parse --short HEAD) .
ARG BUILD_COMMIT=unknown
ENV NODE_ENV=production \
    BUILD_COMMIT=${BUILD_COMMIT} \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    NODE_COMPILE_CACHE=/tmp/node-compile-cache

COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY src ./src
COPY migrations ./migrations
RUN mkdir -p /data && chown node:node /data

USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# SIGTERM reaches node directly (exec form): in-flight requests finish, workers stop, pool closes.
# src/start.mjs checks the Node.js version, then loads src/main.ts in the same process.
CMD ["node", "src/start.mjs"]
