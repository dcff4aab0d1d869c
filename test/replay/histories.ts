// The recorded event histories of loop runs (test/fixtures/histories/<era>/<scenario>[.<run>].json),
// shared by the recorder and the replay test. An era is named after the newest workflow patch the
// recording code had, or the baseline version before any, so recordings made before a patch stay
// beside those made after it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { PROJECT_ROOT } from '../../src/project';
import { REPLAYS_FROM } from '../../src/contract';
import { PATCHES } from '../../src/workflows/patches';

export const HISTORIES_DIR = path.join(PROJECT_ROOT, 'test', 'fixtures', 'histories');

export function currentEra(): string {
  return Object.values<string>(PATCHES).at(-1) ?? REPLAYS_FROM;
}

/** The files a scenario's runs are recorded in within an era: `<name>.json`, or `<name>.<n>.json` for run n of several. */
export function historyFiles(scenario: string, runs: number): string[] {
  return runs === 1 ? [`${scenario}.json`] : Array.from({ length: runs }, (_, index) => `${scenario}.${index + 1}.json`);
}

/** Every recorded history, as its path under HISTORIES_DIR, in a stable order. */
export function recordedHistories(): string[] {
  return readdirSync(HISTORIES_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort();
}

// The files are the History message as JSON (its own toJSON: int64 and bytes as strings). The SDK's
// proto3-JSON helpers (historyToJSON) are not used: they fail when npm installs two copies of protobufjs.
const { History } = temporal.api.history.v1;

/** One event a line: small files whose diffs show which events changed. */
export function historyText(history: temporal.api.history.v1.IHistory): string {
  const { events = [] } = History.fromObject(history).toJSON() as { events?: unknown[] };
  return `{"events": [\n${events.map((event) => JSON.stringify(event)).join(',\n')}\n]}\n`;
}

export function readHistory(file: string): temporal.api.history.v1.History {
  return History.fromObject(JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
}
