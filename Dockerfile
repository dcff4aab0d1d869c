# The canopy worker image used by docker-compose.yml: canopy built, and the four agent CLIs (claude, codex,
# opencode, gemini) at the versions canopy pins, run as the unprivileged user canopy. The workdirs your loops
# use are mounted into it.
FROM node:20-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/canopy
# The build compiles test, bench and scripts along with src (tsconfig.json), so they are copied too.
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY scripts ./scripts
COPY bin ./bin
COPY examples ./examples
COPY docker/worker-image.sh ./docker/
RUN sh docker/worker-image.sh /opt/canopy && rm -rf /root/.npm
RUN useradd --uid 10001 --user-group --create-home canopy && install -d -o canopy -g canopy /var/lib/canopy
ENV CANOPY_HOME=/var/lib/canopy
# canopy runs the agent CLIs it finds on PATH.
ENV PATH=/opt/canopy/.tools/agents/node_modules/.bin:$PATH
USER canopy
ENTRYPOINT ["node", "/opt/canopy/bin/canopy.js"]
CMD ["worker"]
