// The versioning of the loop-run workflow. canopy 0.2.0 is its baseline: no branches. Every later
// change to workflow code that open runs may replay goes behind `patched(PATCHES.<name>)`, the
// newest id last, so runs started before it replay on the path they took; the histories recorded
// with each patch stay in test/fixtures/histories/<id>/ beside the baseline's. One minor release
// after a patch ships it becomes `deprecatePatch()`; the release after removes it, its older eras,
// and moves REPLAYS_FROM up. See docs/contributing.md.
export const PATCHES = {} as const satisfies Record<string, string>;

/**
 * The oldest canopy version whose loop runs this workflow code replays: a worker refuses to start
 * while runs started by an older version (or by one that recorded no version) are open.
 */
export const REPLAYS_FROM = '0.2.0';
