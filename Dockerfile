# Unigate: a multi-stage build. The build stage needs the dev dependencies (TypeScript checks src/, esbuild
# bundles it into dist/: scripts/build.ts); the runtime stage gets dist/ and the production dependencies
# only (the packages the bundle leaves outside), pruned in the build stage so better-sqlite3's native module
# is installed once. Build: docker build -t unigate .
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts ./scripts/
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 UNIGATE_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
# node, not npm start: signals reach the server directly, so SIGTERM closes it cleanly.
CMD ["node", "--no-memory-reducer", "dist/main.js"]
