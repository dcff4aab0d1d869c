// `canopy doctor`: which Temporal binary and address, which store, whether each answers, whether a worker polls.
import type { Command } from 'commander';
import { loadConfig } from '../../config';
import { diagnose, type DoctorReport } from '../../client/doctor-service';
import { action, emit } from '../output';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('Show which Temporal binary, server and store canopy uses, and whether each answers')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { json?: boolean }) => {
        const report = await diagnose(loadConfig());
        emit(report, options, describe);
        if (!report.temporal_reachable || !report.store.ok) process.exitCode = 1;
      }),
    );
}

function describe(report: DoctorReport): string {
  const mark = (ok: boolean) => (ok ? 'ok ' : 'NO ');
  const binary = report.temporal_binary;
  const pollers = report.workers_polling;
  return [
    `home            ${report.home}`,
    `temporal binary ${binary ? `${binary.path} (${binary.source}; ${binary.version})` : 'none found (run `npm run setup`, or set TEMPORAL_ADDRESS)'}`,
    `${mark(report.temporal_reachable)}temporal     ${report.temporal_address} namespace ${report.namespace}${report.temporal_reachable ? '' : ` (not answering: ${report.temporal_error}; run \`canopy up\`)`}`,
    `${mark((pollers ?? 0) > 0)}worker       ${pollers === null ? 'unknown' : `${pollers} polling task queue '${report.task_queue}'`}`,
    `${mark(report.store.ok)}store        ${report.store.location}${report.store.error ? ` (${report.store.error})` : ''}`,
    ...report.platforms.map((p) => `${mark(p.path !== null)}platform     ${p.name}: ${p.path ?? `'${p.command}' not on PATH`}`),
  ].join('\n');
}
