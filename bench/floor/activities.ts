// The floor's one activity: what a check node does at its core, spawning `bash -c true` with pipes.
import { spawn } from 'node:child_process';

export interface FloorActivities {
  /** Returns when it started (epoch ms), once the process has closed. */
  spawnTrue(): Promise<number>;
}

export const floorActivities: FloorActivities = {
  async spawnTrue() {
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn('bash', ['-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.once('error', reject);
      child.once('close', () => resolve());
    });
    return started;
  },
};
