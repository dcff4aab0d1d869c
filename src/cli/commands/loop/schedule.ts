// `canopy loop schedule|unschedule`: running a loop on a recurring Temporal Schedule.
import type { Command } from 'commander';
import { action, emit } from '../../output';

export function registerLoopSchedule(loop: Command): void {
  loop
    .command('schedule <loop_id>')
    .description('Run the loop’s pending specs (or a queue’s) at cron times or at an interval; replaces its schedule in place')
    .option('--cron <expression>', "5-field cron expression, e.g. '0 9 * * MON-FRI'")
    .option('--every <interval>', 'instead of --cron: an interval such as 30s, 15m, 2h or 1d')
    .option('--timezone <zone>', 'with --cron: the IANA time zone its times are read in, e.g. Europe/Paris (default UTC)')
    .option('--queue <queue_id>', 'drain this queue’s pending specs instead of the loop’s own')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { cron?: string; every?: string; timezone?: string; queue?: string; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { scheduleLoop } = require('../../../client/schedule-service') as typeof import('../../../client/schedule-service');
        const { drainedText, timingText } = require('../../../domain/schedule') as typeof import('../../../domain/schedule');
        const request = { loop_id: loopId, cron: options.cron, every: options.every, timezone: options.timezone, queue_id: options.queue };
        emit(
          await withContext((ctx) => scheduleLoop(ctx, request)),
          options,
          (s) => `Loop ${s.loop_id} runs ${drainedText(s)} ${timingText(s)} (schedule ${s.schedule_id}).`,
        );
      }),
    );
  loop
    .command('unschedule <loop_id>')
    .description('Remove the loop’s recurring schedule')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { unscheduleLoop } = require('../../../client/schedule-service') as typeof import('../../../client/schedule-service');
        emit(await withContext((ctx) => unscheduleLoop(ctx, loopId)), options, (r) =>
          r.removed ? `Schedule ${r.schedule_id} removed.` : `Loop ${r.loop_id} had no schedule.`,
        );
      }),
    );
}
