// What resuming changes in what a model is sent: the input tokens of round 2 of a two-round fix loop whose task
// names a file of notes (which the model reads unless its conversation holds them), with the node starting its CLI
// cold and with it resuming round 1's session, for each real agent CLI against the
// stand-in model, which counts input tokens from what each request sent and reads the part an earlier request
// sent too from its prompt cache, as the providers do.
import { spawn } from 'node:child_process';
import { startLoopRun, waitForLoopRun } from '../src/client/runs-service';
import { CANOPY_BIN } from '../src/project';
import { implementLoop, openRealCliSetup, REAL_CLIS, reportsPass, type RealCli, type RealCliSetup } from '../test/helpers/agent-clis';
import { childEnv } from '../test/helpers/engine';
import { runsOf } from '../test/helpers/loops';

/** Round 2's input tokens, all of them and those not read from the provider's prompt cache. */
export interface RoundTwoInput {
  input: number;
  uncached: number;
}

export interface ResumeTokens {
  cold: RoundTwoInput[];
  resumed: RoundTwoInput[];
}

/** Round 2's input tokens per CLI, `rounds` fix loops each way, on the dev server at `address`. */
export async function resumeTokenRounds(address: string, rounds: number): Promise<Record<RealCli, ResumeTokens>> {
  const setup = await openRealCliSetup(undefined, address);
  const worker = spawn(process.execPath, [CANOPY_BIN, 'worker'], { env: childEnv(setup.config), stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    await new Promise<void>((resolve) =>
      worker.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('Agents report to') && resolve()),
    );
    const figures = {} as Record<RealCli, ResumeTokens>;
    for (const cli of REAL_CLIS) {
      figures[cli] = { cold: [], resumed: [] };
      for (let round = 0; round < rounds; round++) {
        figures[cli].cold.push(await roundTwoInputTokens(setup, cli, false));
        figures[cli].resumed.push(await roundTwoInputTokens(setup, cli, true));
      }
    }
    return figures;
  } finally {
    worker.kill('SIGTERM');
    await setup.close();
  }
}

async function roundTwoInputTokens(setup: RealCliSetup, cli: RealCli, resume: boolean): Promise<RoundTwoInput> {
  const { loopId, notes } = await implementLoop(setup, cli, { fixLoop: true, resume, notes: true });
  setup.api.script(reportsPass(cli, notes));
  await startLoopRun(setup.ctx, loopId);
  const result = await waitForLoopRun(setup.ctx, loopId);
  const second = (await runsOf(setup.ctx, loopId)).filter((run) => run.node_name === 'implement')[1];
  if (result.status !== 'completed' || second?.input_tokens == null || second.resumed !== resume)
    throw new Error(
      `${cli} fix loop (resume: ${resume}) ended ${result.status}: ${result.reason ?? ''} ${second?.cold_start_reason ?? ''}`,
    );
  return { input: second.input_tokens, uncached: second.input_tokens - (second.cached_input_tokens ?? 0) };
}
