// Runs a bundle the build wrote (the CLI's commands, the Temporal client SDK) as a CommonJS module,
// with V8's code compiled at build time when that cache still fits this node.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';
import { CODE_CACHE_OUT_ENV } from './paths';
import { mapBundleStacks } from './stacks';

/** The bundle as V8 compiles it, from the build's `cache` when that was made by this node with these flags. */
export function compileBundle(file: string, cache: string): Script {
  const cachedData = existsSync(cache) ? readFileSync(cache) : undefined;
  // The build writes the module wrapper into the file and refuses anything past ASCII in it, so
  // Latin-1 reads it as it is, a byte a character, without UTF-8's decoding.
  return new Script(readFileSync(file, 'latin1'), { filename: file, cachedData });
}

/** Runs the bundle and returns its exports. */
export function runBundle<Exports>(file: string, cache: string): Exports {
  const script = compileBundle(file, cache);
  const bundle = { exports: {} };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(bundle.exports, createRequire(file), bundle, file, path.dirname(file));
  // Written as the process exits, so the cache holds the functions the process compiled as it ran.
  if (process.env[CODE_CACHE_OUT_ENV]) process.once('exit', () => writeFileSync(cache, script.createCachedData()));
  mapBundleStacks(file);
  return bundle.exports as Exports;
}
