// `canopy doctor`: which Temporal binary and address, which store, whether each answers, which workers and hosts poll.
import type { Command } from 'commander';
import type { DoctorReport } from '../../client/doctor-service';
import type { PlatformProbe } from '../../client/probe-service';
import { CanopyError } from '../../domain/errors';
import { action, emit } from '../output';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('Show which Temporal binary, server and store canopy uses, and whether each answers')
    .option('--probe', 'also run each agent platform once with a tiny prompt and say whether it answers')
    .option('--probe-timeout <seconds>', 'how long a probed CLI may take', '60')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { probe?: boolean; probeTimeout: string; json?: boolean }) => {
        const { loadConfig } = require('../../config') as typeof import('../../config');
        const { diagnose } = require('../../client/doctor-service') as typeof import('../../client/doctor-service');
        const { probePlatforms } = require('../../client/probe-service') as typeof import('../../client/probe-service');
        const seconds = Number(options.probeTimeout);
        if (!(seconds > 0)) throw new CanopyError('invalid_input', '--probe-timeout: give a positive number of seconds, e.g. 60.');
        const config = loadConfig();
        const report = {
          ...(await diagnose(config)),
          probes: options.probe ? await probePlatforms(config.home, undefined, seconds * 1000) : null,
        };
        emit(report, options, describe);
        if (!report.temporal_reachable || !report.store.ok) process.exitCode = 1;
      }),
    );
}

const mark = (ok: boolean) => (ok ? 'ok ' : 'NO ');

function describe(report: DoctorReport & { probes: PlatformProbe[] | null }): string {
  const binary = report.temporal_binary;
  const pollers = report.workers_polling;
  return [
    `home            ${report.home}`,
    `temporal binary ${binary ? `${binary.path} (${binary.source}; ${binary.version})` : 'none found (run `npm run setup`, or set TEMPORAL_ADDRESS)'}`,
    `${mark(report.temporal_reachable)}temporal     ${report.temporal_address} namespace ${report.namespace}${report.temporal_reachable ? '' : ` (not answering: ${report.temporal_error}; run \`canopy up\`)`}`,
    `${mark((pollers ?? 0) > 0)}worker       ${pollers === null ? 'unknown' : `${pollers} polling task queue '${report.task_queue}'`}`,
    `   host         this machine is ${report.host_id} (CANOPY_HOST_ID)`,
    // A host with no worker is information too (its machine may be off), unless loops wait for it.
    ...(report.hosts ?? []).map(
      (h) =>
        `${h.workers_polling > 0 ? 'ok ' : h.loops > 0 ? 'NO ' : '-- '}host         ${h.host_id}: ${
          h.workers_polling > 0 ? `${h.workers_polling} polling '${h.task_queue}'` : `no worker polls '${h.task_queue}'`
        }, ${h.loops} loop(s)${h.workers_polling > 0 || h.loops === 0 ? '' : `; start one with CANOPY_HOST_ID=${h.host_id}`}`,
    ),
    ...openRunsLine(report.open_runs_per_version),
    `${mark(report.store.ok)}store        ${report.store.location}${report.store.error ? ` (${report.store.error})` : ''}`,
    ...configFileLine(report.config_file),
    payloadsLine(report.payload_key_ids),
    ...confinementLines(report.confinement),
    ...notifyLines(report.notify),
    // A platform not installed is information: a machine needs only the CLIs its loops use.
    ...report.platforms.map(
      (p) => `${p.path ? 'ok ' : '-- '}platform     ${p.name}: ${p.path ?? `not installed ('${p.command}' not on PATH)`}`,
    ),
    ...(report.probes ?? []).map(
      (p) =>
        `${p.state === 'reachable' ? 'ok ' : p.state === 'not installed' ? '-- ' : 'NO '}probe        ${p.name}: ${p.state} (${p.ms} ms): ${p.detail}`,
    ),
  ].join('\n');
}

/** Whether Temporal's history holds payloads in the clear: information, as a choice of deployment. */
function payloadsLine(keyIds: string[]): string {
  return keyIds.length === 0
    ? "-- payloads     not encrypted in Temporal's history (set CANOPY_PAYLOAD_KEYS to encrypt them)"
    : `ok payloads     encrypted with key '${keyIds[0]}'${
        keyIds.length > 1
          ? `; also decrypted with ${keyIds
              .slice(1)
              .map((id) => `'${id}'`)
              .join(', ')}`
          : ''
      }`;
}

/** Agents able to read the operator's token is a problem to fix where bwrap could confine them, a choice where they are turned off. */
function confinementLines(confinement: DoctorReport['confinement']): string[] {
  const loops = confinement.unconfined_loops;
  return [
    `${confinement.confined ? 'ok ' : confinement.chosen ? '-- ' : 'NO '}confinement  ${confinement.detail}`,
    ...(loops.length
      ? [`-- confinement  off in the settings of loop(s) ${loops.map((name) => `'${name}'`).join(', ')} (confine: false)`]
      : []),
  ];
}

/** Receivers are a choice; a delivery that failed is a problem to look at. */
function notifyLines(notify: DoctorReport['notify']): string[] {
  const { notifyFailureText } = require('../text/notify-failure') as typeof import('../text/notify-failure');
  const failure = notify.last_failure;
  return [
    ...notify.receivers.map((r) => `-- notify       ${r.format} receiver ${r.url} for ${r.events.join(', ')} (config.json)`),
    ...(failure ? [`NO notify       ${notifyFailureText(failure)}`] : []),
  ];
}

/** config.json may hold API keys: a file others may open is a problem to fix, not information. */
function configFileLine(file: DoctorReport['config_file']): string[] {
  if (file === null) return [];
  return [
    file.private
      ? `ok config       ${file.path} (${file.mode})`
      : `NO config       ${file.path} is open to group or others (mode ${file.mode}) and may hold API keys; run \`chmod 600 ${file.path}\``,
  ];
}

/** Open loop runs per version that started them, marking the ones this canopy's workers refuse to replay. */
function openRunsLine(perVersion: Record<string, number> | null): string[] {
  if (perVersion === null) return [];
  const { UNRECORDED, replays } = require('../../client/run-versions-service') as typeof import('../../client/run-versions-service');
  const versions = Object.entries(perVersion);
  const replayable = (version: string) => version !== UNRECORDED && replays(version);
  const counts = versions.map(([version, count]) => `${version}: ${count}${replayable(version) ? '' : ' (not replayable here)'}`);
  const ok = versions.every(([version]) => replayable(version));
  return [
    `${mark(ok)}open runs    ${versions.length ? counts.join(', ') : 'none'}${ok ? '' : '; finish or stop those with the version that started them'}`,
  ];
}
