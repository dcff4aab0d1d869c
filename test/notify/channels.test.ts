// What each channel POSTs, how a receiver's URL is shown, and receivers refused where they enter (config.json,
// a loop's settings, an export file) with the field named and nothing changed.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadFileConfig } from '../../src/agents/config';
import { exportLoop, importLoop } from '../../src/client/export-import-service';
import { createLoop, getLoop, updateLoop } from '../../src/client/loops-service';
import { FORMAT_VERSION } from '../../src/domain/export-document';
import { shownUrl } from '../../src/domain/notify';
import { jsonPost } from '../../src/notify/channels/json';
import { ntfyPost } from '../../src/notify/channels/ntfy';
import { slackPost } from '../../src/notify/channels/slack';
import type { Notification } from '../../src/notify/message';
import { assertRefused, assertRefusedUnchanged, tempDir, useTestStore } from '../helpers/store';

const SLACK_HOOK = 'https://hooks.slack.com/services/T0001/B0002/s3cr3tT0k3n';

const approvalNeeded: Notification = {
  event: 'approval_needed',
  loop: { id: 'loop_1', name: 'api-fixes', workdir: '/src/api' },
  spec: { id: 'spec_1', name: 'parser' },
  node: 'review',
  reason: 'Changed: parser.ts <script>alert(1)</script> & more',
  command: 'canopy approve loop_1 --node review',
  temporal_ui_url: 'http://127.0.0.1:8233/namespaces/default/workflows/loop-loop_1',
  at: '2026-12-06T10:00:00.000Z',
};

describe('notification channels', () => {
  it('json: every fact, with the headline and the text', () => {
    const post = jsonPost(approvalNeeded);
    assert.equal(post.headers['content-type'], 'application/json');
    const body = JSON.parse(post.body) as Record<string, unknown>;
    assert.equal(body.title, 'Loop api-fixes waits for your approval at review (spec parser)');
    assert.equal(body.command, 'canopy approve loop_1 --node review');
    assert.deepEqual(body.spec, { id: 'spec_1', name: 'parser' });
    assert.match(String(body.text), /^Loop api-fixes waits for your approval at review \(spec parser\)\nChanged: .*\nAct: canopy approve/);
  });

  it('slack: a text fallback and blocks, the agent’s words escaped, the run linked', () => {
    const body = JSON.parse(slackPost(approvalNeeded).body) as { text: string; blocks: { text: { text: string } }[] };
    assert.match(body.text, /^Loop api-fixes waits/);
    const texts = body.blocks.map((block) => block.text.text);
    assert.equal(texts[0], '*Loop api-fixes waits for your approval at review (spec parser)*');
    assert.equal(texts[1], 'Changed: parser.ts &lt;script&gt;alert(1)&lt;/script&gt; &amp; more');
    assert.equal(texts[2], '`canopy approve loop_1 --node review`');
    assert.equal(texts[3], `<${approvalNeeded.temporal_ui_url}|The run in the Temporal UI>`);
  });

  it('ntfy: the message as body, the headline as title, priority, tag and the run opened on a tap', () => {
    const post = ntfyPost({ ...approvalNeeded, loop: { ...approvalNeeded.loop, name: 'api-fixes \u2713' } });
    assert.equal(post.headers.title, 'Loop api-fixes ? waits for your approval at review (spec parser)');
    assert.equal(post.headers.priority, '4');
    assert.equal(post.headers.tags, 'question');
    assert.equal(post.headers.click, approvalNeeded.temporal_ui_url);
    assert.equal(post.body, `${approvalNeeded.reason}\nAct: canopy approve loop_1 --node review`);
    const completed = ntfyPost({ ...approvalNeeded, event: 'completed', reason: null, temporal_ui_url: null });
    assert.deepEqual([completed.headers.priority, completed.headers.tags, completed.headers.click], ['3', 'white_check_mark', undefined]);
  });

  it('shows a receiver URL by its origin alone: a webhook path, a topic, a query or credentials may be the secret', () => {
    assert.equal(shownUrl(SLACK_HOOK), 'https://hooks.slack.com/[REDACTED]');
    assert.equal(shownUrl('https://ntfy.sh/my-private-topic'), 'https://ntfy.sh/[REDACTED]');
    assert.equal(shownUrl('http://user:pw@10.0.0.5:8080/'), 'http://10.0.0.5:8080/[REDACTED]');
    assert.equal(shownUrl('http://127.0.0.1:9000/'), 'http://127.0.0.1:9000/');
    assert.equal(shownUrl('not a url'), '[REDACTED]');
  });
});

describe('notification receivers where they enter', () => {
  const store = useTestStore();

  it('config.json: a bad receiver is refused with notify.<n>.<key> named', () => {
    const home = tempDir();
    const write = (notify: unknown) => writeFileSync(path.join(home, 'config.json'), JSON.stringify({ notify }));
    write([{ url: 'ftp://example.com/hook' }]);
    assert.throws(() => loadFileConfig(home), /notify\.0\.url: uses ftp:; only http and https receivers are supported/);
    write([{ url: 'https://ntfy.sh/t', format: 'ntfy' }, { url: 'nope' }]);
    assert.throws(() => loadFileConfig(home), /notify\.1\.url: is not a URL/);
    write([{ url: 'https://ntfy.sh/t', events: ['finished'] }]);
    assert.throws(() => loadFileConfig(home), /notify\.0\.events\.0/);
    write([{ url: 'https://ntfy.sh/t', format: 'teams' }]);
    assert.throws(() => loadFileConfig(home), /notify\.0\.format: must be one of json, slack, ntfy/);
    write([{ url: 'https://ntfy.sh/t', events: ['blocked', 'failed'], format: 'ntfy' }]);
    assert.deepEqual(loadFileConfig(home).notify, [{ url: 'https://ntfy.sh/t', events: ['blocked', 'failed'], format: 'ntfy' }]);
  });

  it('a loop’s settings: refused by field, shown and exported with the URL hidden, and an export’s hidden URL refused on import', async () => {
    const loop = await createLoop(store.ctx, { name: 'told', workdir: store.workdir() });
    await assertRefusedUnchanged(
      store.ctx,
      () => updateLoop(store.ctx, { loop_id: loop.id, settings: { notify: [{ url: 'mailto:me@example.com' }] } }),
      { code: 'invalid_input', field: 'settings.notify.0.url', message: /only http and https receivers/ },
    );
    const updated = await updateLoop(store.ctx, { loop_id: loop.id, settings: { notify: [{ url: SLACK_HOOK, format: 'slack' }] } });
    assert.deepEqual(updated.settings.notify, [{ url: 'https://hooks.slack.com/[REDACTED]', format: 'slack' }]);
    assert.ok(!JSON.stringify(await getLoop(store.ctx, loop.id)).includes('s3cr3tT0k3n'));
    const exported = await exportLoop(store.ctx, loop.id);
    assert.equal(exported.format_version, FORMAT_VERSION);
    assert.ok(!JSON.stringify(exported).includes('s3cr3tT0k3n'), 'the export hides the token');
    await assertRefused(importLoop(store.ctx, exported, { workdir: store.workdir('again') }), {
      code: 'invalid_input',
      field: 'settings.notify.0.url',
      message: /holds a redacted part .* write the receiver’s full URL/,
    });
    await assertRefused(
      importLoop(
        store.ctx,
        { ...exported, format_version: 2, settings: { notify: [{ url: SLACK_HOOK }] } },
        { workdir: store.workdir('v2') },
      ),
      {
        code: 'invalid_input',
        field: 'settings.notify',
        message: /needs format_version 3 \(this file says 2\)/,
      },
    );
  });
});
