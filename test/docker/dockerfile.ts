// Reads the worker image's Dockerfile: its instructions, the environment it sets, and what is wrong with it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { AGENT_TOOLS_BIN } from '../../src/agents/pinned';
import { PROJECT_ROOT } from '../../src/project';

export const DOCKERFILE = path.join(PROJECT_ROOT, 'Dockerfile');
/** The image's build steps, as the Dockerfile runs them. */
export const WORKER_IMAGE_SCRIPT = 'docker/worker-image.sh';

interface Instruction {
  keyword: string;
  args: string;
}

/** The instructions in order, continuation lines joined and comments left out. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

function lastArgs(text: string, keyword: string): string | undefined {
  return instructions(text)
    .filter((instruction) => instruction.keyword === keyword)
    .at(-1)?.args;
}

/** The variables the ENV instructions set (`KEY=value` pairs), a later one over an earlier one. */
export function imageEnv(text: string): Record<string, string> {
  const pairs = instructions(text)
    .filter((instruction) => instruction.keyword === 'ENV')
    .flatMap((instruction) => instruction.args.split(/\s+/).map((pair) => pair.split(/=(.*)/s)));
  return Object.fromEntries(pairs.map(([key, value]) => [key, value ?? '']));
}

/** The directory canopy is built in. */
export function imageWorkdir(text: string): string {
  return lastArgs(text, 'WORKDIR') ?? '/';
}

/** Where the image's PATH finds the agent CLIs: the agents' bin, at the same place in the image as in the repository. */
function imageAgentsBin(text: string): string {
  return path.posix.join(imageWorkdir(text), path.relative(PROJECT_ROOT, AGENT_TOOLS_BIN));
}

function copySources(args: string): string[] {
  const words = args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/).filter((word) => !word.startsWith('--'));
  return words.slice(0, -1);
}

/** What keeps the Dockerfile from building the worker image canopy means it to be; sources are looked up in `repo`. */
export function dockerfileProblems(text: string, repo: string): string[] {
  const all = instructions(text);
  const missing = all
    .filter((instruction) => instruction.keyword === 'COPY')
    .flatMap((instruction) => copySources(instruction.args))
    .filter((source) => !existsSync(path.join(repo, source)))
    .map((source) => `COPY ${source}: not in the repository`);
  const runsScript = all.some((instruction) => instruction.keyword === 'RUN' && instruction.args.includes(WORKER_IMAGE_SCRIPT));
  const user = lastArgs(text, 'USER');
  const searchPath = (imageEnv(text).PATH ?? '').split(':');
  return [
    ...missing,
    ...(runsScript ? [] : [`RUN: none runs ${WORKER_IMAGE_SCRIPT}`]),
    ...(user === undefined || /^(root|0)(:|$)/.test(user) ? [`USER: ${user ?? 'none'}, not an unprivileged user`] : []),
    ...(searchPath.includes(imageAgentsBin(text)) ? [] : [`ENV PATH: lacks the agent CLIs' ${imageAgentsBin(text)}`]),
  ];
}
