// Stack traces of the bundled CLI name the files the bundles were built from (canopy's src/, the SDK's
// own): each frame in a bundle is looked up in its source map, read on the first trace through it.
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each bundle whose frames are mapped, with its source map once a trace has needed it. */
const bundles = new Map<string, SourceMap | undefined>();

function sourceMapOf(bundleFile: string): SourceMap {
  let map = bundles.get(bundleFile);
  if (!map) {
    map = new SourceMap(JSON.parse(readFileSync(`${bundleFile}.map`, 'utf8')) as SourceMapPayload);
    bundles.set(bundleFile, map);
  }
  return map;
}

function frameText(frame: NodeJS.CallSite): string {
  // V8's own rendering of the frame, which `toString` gives though Node's types leave it out.
  const text = (frame as NodeJS.CallSite & { toString(): string }).toString();
  const file = frame.getFileName();
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  if (!file || !bundles.has(file) || line === null || column === null) return text;
  const entry = sourceMapOf(file).findEntry(line - 1, column - 1);
  if (!('originalSource' in entry)) return text;
  const source = entry.originalSource.startsWith('file:')
    ? fileURLToPath(entry.originalSource)
    : path.resolve(path.dirname(file), entry.originalSource);
  return text.replace(`${file}:${line}:${column}`, `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
}

export function mapBundleStacks(bundleFile: string): void {
  if (bundles.has(bundleFile)) return;
  bundles.set(bundleFile, undefined);
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) =>
    [Error.prototype.toString.call(error), ...frames.map((frame) => `    at ${frameText(frame)}`)].join('\n');
}
