// `canopy up` serves MCP over HTTP beside the worker: it prints the URL and the token file, answers with that token, and stops on Ctrl-C.
import assert from 'node:assert/strict';
import path from 'node:path';
import { it } from 'node:test';
import { operatorToken } from '../../src/mcp/operator-token';
import { freePort } from '../../src/temporal/free-port';
import { tempHome } from '../helpers/engine';
import { directoryIn } from '../helpers/store';
import { spawnCanopy, waitForOutput } from '../helpers/processes';
import { callOk, connectHttp } from '../helpers/mcp-client';

it('canopy up prints the MCP endpoint and its token file, serves every tool with that token, and stops it on SIGINT', async () => {
  const home = tempHome();
  const mcpPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CANOPY_HOME: home,
    CANOPY_TEMPORAL_PORT: String(await freePort()),
    CANOPY_UI_PORT: String(await freePort()),
    CANOPY_MCP_PORT: String(mcpPort),
  };
  delete env.TEMPORAL_ADDRESS;
  const up = spawnCanopy(['up'], env);
  try {
    await waitForOutput(up, /canopy is up/);
    const url = `http://127.0.0.1:${mcpPort}/mcp`;
    assert.ok(up.output().includes(`MCP: ${url}`), up.output());
    assert.ok(up.output().includes(path.join(home, 'mcp-token')), up.output());

    const client = await connectHttp(url, await operatorToken(home));
    const loop = await callOk(client, 'loop_create', { name: 'via up', workdir: directoryIn(home) });
    assert.deepEqual(
      (await callOk(client, 'loop_list')).loops.map((listed: { id: string }) => listed.id),
      [loop.id],
    );
    await client.close();
    assert.equal((await fetch(url, { method: 'POST' })).status, 401);
  } finally {
    up.child.kill('SIGINT');
  }
  assert.equal(await up.exited, 0, up.output());
  assert.match(up.output(), /Stopped\./);
  await assert.rejects(fetch(`http://127.0.0.1:${mcpPort}/mcp`, { method: 'POST' }), 'the endpoint is gone');
});
