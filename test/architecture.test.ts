// The rules of the house, checked on the sources: graph/ is pure, workflows/ are deterministic.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { PROJECT_ROOT } from '../src/project';

const SOURCES = path.join(PROJECT_ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every module a file imports, resolved to a path under src/ for relative imports, with whether it is type-only. */
function importsOf(file: string): { target: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  return Array.from(text.matchAll(/^import\s+(type\s+)?[^'"]*?from\s+'([^']+)'/gm), (match) => {
    const specifier = match[2];
    const target = specifier.startsWith('.') ? path.relative(SOURCES, path.resolve(path.dirname(file), specifier)) : specifier;
    return { target, typeOnly: Boolean(match[1]) };
  });
}

function violations(layer: string, allowed: (target: string, typeOnly: boolean) => boolean): string[] {
  return sourceFiles(path.join(SOURCES, layer)).flatMap((file) =>
    importsOf(file)
      .filter(({ target, typeOnly }) => !allowed(target, typeOnly))
      .map(({ target }) => `${path.relative(SOURCES, file)} imports ${target}`),
  );
}

it('graph/ imports only the domain, zod, re2js (pure, linear-time patterns) and itself, so the workflow bundle can use it', () => {
  const allowed = (target: string) => target.startsWith('graph/') || target.startsWith('domain/') || target === 'zod' || target === 're2js';
  assert.deepEqual(violations('graph', allowed), []);
});

it('workflows/ import only the workflow SDK, graph/, domain types and activity types', () => {
  const allowed = (target: string, typeOnly: boolean) =>
    target === '@temporalio/workflow' ||
    target.startsWith('workflows/') ||
    target.startsWith('graph/') ||
    (typeOnly && (target.startsWith('domain/') || target.startsWith('activities/')));
  assert.deepEqual(violations('workflows', allowed), []);
});

it('domain/ knows nothing of storage, Temporal or processes', () => {
  const allowed = (target: string) => target.startsWith('domain/') || target === 'zod';
  assert.deepEqual(violations('domain', allowed), []);
});
