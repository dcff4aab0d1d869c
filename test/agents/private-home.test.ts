// The home an agent CLI gets for a run: the user's config directory linked entry by entry, the settings file
// made from theirs, nothing of theirs changed, settings it cannot read refused, and made again for the node's
// next run at the same path (which the CLI's system prompt names).
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { withCanopyServer } from '../../src/agents/gemini';
import { makePrivateHome, type PrivateHome } from '../../src/agents/private-home';
import { CanopyError } from '../../src/domain/errors';
import { tempDir } from '../helpers/store';

const CANOPY = { httpUrl: 'http://127.0.0.1:4321/mcp' };

const SPEC: PrivateHome = {
  variable: 'GEMINI_CLI_HOME',
  configDir: '.gemini',
  settingsFile: 'settings.json',
  homeFiles: ['.env'],
  settings: (user) => withCanopyServer(user, CANOPY),
};

/** A user's home holding `settings` (text as written) and the other files a CLI keeps there. */
function userHome(settings?: string): string {
  const home = tempDir('canopy-user-home-');
  mkdirSync(path.join(home, '.gemini', 'tmp'), { recursive: true });
  writeFileSync(path.join(home, '.gemini', 'oauth_creds.json'), '{"token":"theirs"}');
  writeFileSync(path.join(home, '.env'), 'GEMINI_API_KEY=theirs\n');
  if (settings !== undefined) writeFileSync(path.join(home, '.gemini', 'settings.json'), settings);
  return home;
}

/** Where a node's runs keep their home: a directory that does not exist yet. */
const nodeHome = () => path.join(tempDir('canopy-agent-homes-'), 'loop', 'node');

function runSettings(env: Record<string, string>): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(env.GEMINI_CLI_HOME, '.gemini', 'settings.json'), 'utf8')) as Record<string, unknown>;
}

describe('a private home for one agent run', () => {
  it('links every entry of the user’s config directory and the home files it names, and points the CLI at the copy', () => {
    const home = userHome('{}');
    const at = nodeHome();
    const env = makePrivateHome(SPEC, at, { HOME: home });
    assert.deepEqual(env, { GEMINI_CLI_HOME: at });
    for (const entry of ['.gemini/oauth_creds.json', '.gemini/tmp', '.env']) {
      const link = path.join(env.GEMINI_CLI_HOME, entry);
      assert.ok(lstatSync(link).isSymbolicLink(), `${entry} is a link`);
      assert.equal(readlinkSync(link), path.join(home, entry));
    }
    assert.equal(lstatSync(path.join(env.GEMINI_CLI_HOME, '.gemini', 'settings.json')).isSymbolicLink(), false);
    assert.equal(lstatSync(path.join(env.GEMINI_CLI_HOME, '.gemini', 'settings.json')).mode & 0o077, 0, 'owner-only');
  });

  it('keeps the user’s settings, comments and all, with canopy’s server beside theirs, and leaves their file as it was', () => {
    const theirs = [
      '// mine',
      '{ "security": { "auth": { "selectedType": "gemini-api-key" } },',
      '  /* servers */ "mcpServers": { "github": { "command": "gh-mcp" } },',
      '  "mcp": { "allowed": ["github"], "excluded": ["canopy", "slack"] } }',
    ].join('\n');
    const home = userHome(theirs);
    const settings = runSettings(makePrivateHome(SPEC, nodeHome(), { HOME: home }));
    assert.deepEqual(settings, {
      security: { auth: { selectedType: 'gemini-api-key' } },
      mcpServers: { github: { command: 'gh-mcp' }, canopy: CANOPY },
      mcp: { allowed: ['github', 'canopy'], excluded: ['slack'] },
    });
    assert.equal(readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8'), theirs);
  });

  it('takes the user’s home from the CLI’s own variable first, and makes one from nothing when they have none', () => {
    const home = userHome('{"general":{"maxAttempts":2}}');
    const fromVariable = runSettings(makePrivateHome(SPEC, nodeHome(), { GEMINI_CLI_HOME: home, HOME: '/nowhere' }));
    assert.deepEqual(fromVariable.general, { maxAttempts: 2 });
    const empty = tempDir('canopy-empty-home-');
    const fresh = makePrivateHome(SPEC, nodeHome(), { HOME: empty });
    assert.deepEqual(runSettings(fresh), { mcpServers: { canopy: CANOPY } });
    assert.equal(existsSync(path.join(fresh.GEMINI_CLI_HOME, '.env')), false);
  });

  it('refuses settings it cannot read, naming the file, and writes nothing for the run', () => {
    for (const broken of ['{ "general": ', '["not", "an", "object"]']) {
      const home = userHome(broken);
      const at = nodeHome();
      assert.throws(
        () => makePrivateHome(SPEC, at, { HOME: home }),
        (error: unknown) =>
          error instanceof CanopyError &&
          error.message.includes(path.join(home, '.gemini', 'settings.json')) &&
          /fix it/.test(error.message),
      );
      assert.equal(existsSync(path.join(at, '.gemini', 'settings.json')), false);
    }
  });

  it('is made again at the same path for the node’s next run, with what the user’s settings say then', () => {
    const home = userHome('{"general":{"maxAttempts":2}}');
    const at = nodeHome();
    makePrivateHome(SPEC, at, { HOME: home });
    writeFileSync(path.join(at, '.gemini', 'left-by-the-run'), '');
    writeFileSync(path.join(home, '.gemini', 'settings.json'), '{"general":{"maxAttempts":3}}');
    const again = makePrivateHome(SPEC, at, { HOME: home });
    assert.deepEqual(again, { GEMINI_CLI_HOME: at });
    assert.deepEqual(runSettings(again).general, { maxAttempts: 3 });
    assert.equal(existsSync(path.join(at, '.gemini', 'left-by-the-run')), false, 'nothing of the run before is left');
  });
});
