// `canopy loop pause|continue|stop|reset|autorun`: steering a loop's runs.
import { Option, type Command } from 'commander';
import { action, emit } from '../../output';
import { registerLoopFeedback } from './feedback';
import { registerLoopInfo } from './info';
import { registerLoopRun } from './run';
import { registerLoopRunHistory } from './runs';
import { registerLoopSchedule } from './schedule';
import { registerLoopWatch } from './watch';

/** Adds the commands that run and steer a loop to the `loop` group. */
export function registerLoopLifecycle(loop: Command): void {
  registerLoopInfo(loop);
  registerLoopRun(loop);
  registerLoopFeedback(loop);
  loop
    .command('pause <loop_id>')
    .description('Pause the loop after the node that is running now')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { pauseLoop } = require('../../../client/runs-service') as typeof import('../../../client/runs-service');
        emit(
          await withContext((ctx) => pauseLoop(ctx, loopId)),
          options,
          (r) => `Pause requested for ${r.loop_id}; it stops after the running node.`,
        );
      }),
    );
  loop
    .command('continue <loop_id>')
    .description('Resume a paused, blocked or failed loop')
    .addOption(
      new Option('--strategy <strategy>', 'retry reruns the failed or blocked node; skip treats it as passed')
        .choices(['retry', 'skip'])
        .default('retry'),
    )
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { strategy: 'retry' | 'skip'; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { continueLoop } = require('../../../client/runs-service') as typeof import('../../../client/runs-service');
        emit(await withContext((ctx) => continueLoop(ctx, loopId, options.strategy)), options, (r) =>
          r.resumed === 'signal'
            ? `Loop ${r.loop_id} continues (${r.strategy}).`
            : `Loop ${r.loop_id} restarted from its resume point (${r.strategy}).`,
        );
      }),
    );
  loop
    .command('stop <loop_id>')
    .description(
      'Stop the loop’s open run from any state (killing its nodes’ processes) and leave it failed with reason stopped; ' +
        'after a run has ended, stop the hooks it still runs and keep its outcome',
    )
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { stopLoop } = require('../../../client/runs-service') as typeof import('../../../client/runs-service');
        emit(await withContext((ctx) => stopLoop(ctx, loopId)), options, (r) =>
          r.stopped === 'hooks'
            ? `The hooks of loop ${r.loop_id}'s last run stopped (workflow ${r.workflow.replace('_', ' ')}); the loop stays ${r.status}, as its run ended.`
            : `Loop ${r.loop_id} stopped (workflow ${r.workflow.replace('_', ' ')}); reset it with \`canopy loop reset ${r.loop_id}\`.`,
        );
      }),
    );
  loop
    .command('reset <loop_id>')
    .description(
      'Return the loop’s specs to pending with their failure counts cleared, so it can run again (a paused or blocked loop continues with them)',
    )
    .option('--specs <names>', 'only these specs, by name or id, comma-separated; the others keep their status')
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { specs?: string; json?: boolean }) => {
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const { resetLoop } = require('../../../client/reset-service') as typeof import('../../../client/reset-service');
        const specs = options.specs?.split(',');
        emit(await withContext((ctx) => resetLoop(ctx, loopId, { specs })), options, (r) =>
          r.status === 'pending'
            ? `Loop ${r.loop_id} is pending again (${r.specs_reset} spec(s) reset).`
            : `Loop ${r.loop_id} stays ${r.status} (${r.specs_reset} spec(s) reset); go on with \`canopy loop continue ${r.loop_id}\`.`,
        );
      }),
    );
  loop
    .command('autorun <loop_id>')
    .description('Resume the loop at a future time (a one-shot Temporal Schedule); without --at, cancel it')
    .option('--at <time>', 'ISO-8601 time, e.g. 2026-12-01T09:00:00Z')
    .option('--quota-reset-message <text>', "instead of --at: the agent's usage-limit words, e.g. 'resets 3pm (Europe/Paris)'")
    .option('--json', 'print JSON')
    .action(
      action(async (loopId: string, options: { at?: string; quotaResetMessage?: string; json?: boolean }) => {
        const { requestAutorun } = require('../../../client/autorun-service') as typeof import('../../../client/autorun-service');
        const { withContext } = require('../../../client/context') as typeof import('../../../client/context');
        const when = { at: options.at, quota_reset_message: options.quotaResetMessage };
        emit(await withContext((ctx) => requestAutorun(ctx, loopId, when)), options, (r) =>
          r.at ? `Loop ${r.loop_id} resumes at ${r.at} (schedule ${r.schedule_id}).` : `No autorun pending for ${r.loop_id}.`,
        );
      }),
    );
  registerLoopSchedule(loop);
  registerLoopRunHistory(loop);
  registerLoopWatch(loop);
}
