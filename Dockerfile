# The canopy worker image used by docker-compose.yml. Agent CLIs (claude, opencode, codex, gemini)
# must be added to this image, and the workdirs your loops use mounted into it.
FROM node:20-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/canopy
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY scripts ./scripts
COPY bin ./bin
COPY examples ./examples
# The worker talks to the compose file's Temporal server, so the Temporal CLI the install step fetches is left out.
RUN npm ci --no-audit --no-fund && npm run build && rm -rf .tools
ENV CANOPY_HOME=/var/lib/canopy
ENTRYPOINT ["node", "/opt/canopy/bin/canopy.js"]
CMD ["worker"]
