// Which loop runs this canopy's workflow code replays, shared by the workers' start-up check and the
// replay tests. It moves up as patches are retired (src/workflows/patches.ts, docs/contributing.md).

/**
 * The oldest canopy version whose loop runs this workflow code replays: a worker refuses to start
 * while runs started by an older version (or by one that recorded no version) are open.
 */
export const REPLAYS_FROM = '0.2.0';
