// Stack traces of the bundled CLI name canopy's src/ files: each frame in the bundle is looked up in
// its source map, read on the first trace a process formats.
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function mapBundleStacks(bundleFile: string): void {
  let map: SourceMap | undefined;
  const sourcePath = (source: string): string =>
    source.startsWith('file:') ? fileURLToPath(source) : path.resolve(path.dirname(bundleFile), source);

  const frameText = (frame: NodeJS.CallSite): string => {
    // V8's own rendering of the frame, which `toString` gives though Node's types leave it out.
    const text = (frame as NodeJS.CallSite & { toString(): string }).toString();
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    if (frame.getFileName() !== bundleFile || line === null || column === null) return text;
    map ??= new SourceMap(JSON.parse(readFileSync(`${bundleFile}.map`, 'utf8')) as SourceMapPayload);
    const entry = map.findEntry(line - 1, column - 1);
    if (!('originalSource' in entry)) return text;
    const original = `${sourcePath(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    return text.replace(`${bundleFile}:${line}:${column}`, original);
  };

  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) =>
    [Error.prototype.toString.call(error), ...frames.map((frame) => `    at ${frameText(frame)}`)].join('\n');
}
